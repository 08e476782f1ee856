package memory

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// mustOpenWithin opens dir with the existing openWithin, failing the test
// on an error.
func mustOpenWithin(t *testing.T, dir string, opts Options) *Memory {
	t.Helper()
	m, err := openWithin(t, dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return m
}

// TestModelRecordFIFO: a FIFO named model.json is not a model record; Open
// (serve, memory stats, memory check) goes on without it, as it does for a
// FIFO named like a log or snapshot, instead of blocking.
func TestModelRecordFIFO(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir, quietOptions()).Close()
	path := filepath.Join(dir, modelFile)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Release an Open still blocked on the FIFO.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	ro := quietOptions()
	ro.ReadOnly = true
	mustOpenWithin(t, dir, ro).Close()
}

// TestModelRecordLarge: a model.json far larger than any record (a sparse
// file) is not read whole: a record is a name and 16 hex digits.
func TestModelRecordLarge(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir, quietOptions()).Close()
	f, err := os.Create(filepath.Join(dir, modelFile))
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ro := quietOptions()
	ro.ReadOnly = true
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	mustOpenWithin(t, dir, ro).Close()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > size/4 {
		t.Errorf("Open allocated %d bytes for a %d-byte model.json", n, size)
	}
}

// TestClaimModelDamagedRecord: a model.json left empty (a crash before its
// data reached the disk) is replaced by the next writer's claim rather
// than leave the memory without a record for good.
func TestClaimModelDamagedRecord(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir, quietOptions()).Close()
	if err := os.WriteFile(filepath.Join(dir, modelFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := mustOpen(t, dir, quietOptions())
	a := ModelID{Name: "a", Fingerprint: "00000000000000aa"}
	_, _ = m.ClaimModel(a)
	m.Close()
	if rec, ok, err := readModel(dir); err != nil || !ok || rec != a {
		t.Errorf("record after a claim over an empty model.json: %v %v %v; want %v", rec, ok, err, a)
	}
}
