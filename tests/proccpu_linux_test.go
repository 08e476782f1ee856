//go:build linux

package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100
// on every Linux architecture Go supports).
const clockTicks = 100

// procCPU returns the CPU seconds (user and system) process pid has used,
// and whether they could be read.
func procCPU(pid int) (float64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// Fields after the command (which may hold spaces) in parentheses:
	// state is field 3, utime and stime are fields 14 and 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseFloat(f[11], 64)
	sys, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return (user + sys) / clockTicks, true
}

// TestProcCPU checks procCPU on this process: it reads, and it grows with
// work done (within a minute of wall time, however loaded the machine).
func TestProcCPU(t *testing.T) {
	before, ok := procCPU(os.Getpid())
	if !ok {
		t.Fatal("procCPU cannot read this process")
	}
	for deadline := time.Now().Add(time.Minute); ; {
		for i := range 100_000 {
			_ = strconv.Itoa(i)
		}
		if now, _ := procCPU(os.Getpid()); now >= before+0.05 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU %.2f s before a minute of work and no more after", before)
		}
	}
	if _, ok := procCPU(-1); ok {
		t.Error("procCPU reads a process that does not exist")
	}
}
