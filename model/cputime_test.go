package model

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter reports, besides the benchmark's wall time, the process CPU time
// per operation ("cpu-µs/op"): on a machine shared with other jobs the wall
// time includes waiting for a core, the CPU time does not.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{processCPU()} }

func (c cpuMeter) report(b *testing.B, unit string) {
	b.ReportMetric(float64((processCPU()-c.start).Microseconds())/float64(b.N), "cpu-µs/"+unit)
}
