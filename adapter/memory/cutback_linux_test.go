package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// limitFileSize makes writes of this process beyond limit bytes of any file
// fail (EFBIG after a short write: a disk filling mid-write) until the
// returned func or the end of the test lifts it; it skips the test where the
// limit cannot be set.
func limitFileSize(t *testing.T, limit uint64) (lift func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("RLIMIT_FSIZE: %v", err)
	}
	lim := syscall.Rlimit{Cur: limit, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("RLIMIT_FSIZE: %v", err)
	}
	lift = func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Errorf("restore RLIMIT_FSIZE: %v", err)
		}
	}
	t.Cleanup(lift)
	return lift
}

// TestWriteFailingPartwayLeavesNoRecords: when a batch's log write fails
// partway (its first records reach the file, then the disk is full), the log
// is cut back at once, so a clean stop and a restart bring back none of the
// passages the error took back, and a resend counts each passage once.
func TestWriteFailingPartwayLeavesNoRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	if err := m.CountPassage([]string{"a"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	logPath := logFile(t, dir)
	st, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	batch := make([][]string, 200)
	for i := range batch {
		batch[i] = []string{"a", fmt.Sprintf("w%03d", i), fmt.Sprintf("v%03d", i)}
	}
	// Room for some of the batch's records, not all of them.
	lift := limitFileSize(t, uint64(st.Size())+2048)
	if err := m.CountPassages(batch); err == nil {
		t.Fatal("a write beyond the file size limit returned no error")
	}
	if st2, err := os.Stat(logPath); err != nil || st2.Size() != st.Size() {
		t.Errorf("log after the failed write: %v bytes, %v; want cut back to %d", st2.Size(), err, st.Size())
	}
	if err := m.Close(); err != nil { // still a full disk
		t.Fatal(err)
	}
	lift() // space returns
	m = mustOpen(t, dir, quietOptions())
	want := map[string]int64{"a": 1, "w000": 0, "v000": 0}
	checkDocFreqs(t, m, "after a restart", 1, want)
	if err := m.CountPassages(batch); err != nil {
		t.Fatal(err)
	}
	want["a"], want["w000"], want["v000"] = 201, 1, 1
	checkDocFreqs(t, m, "after the resend", 201, want)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}
