package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openWithin opens dir, failing the test instead of hanging when Open blocks.
func openWithin(t *testing.T, dir string, o Options) (*Memory, error) {
	t.Helper()
	type result struct {
		m   *Memory
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := Open(dir, o)
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked on an odd file")
		return nil, nil
	}
}

// TestOddFilesSetAside: a FIFO named like a log, a symbolic link to
// /dev/zero and a directory named like snapshots, and a sparse log larger
// than the memory can write are each set aside with an error naming them;
// the memory opens (read-only too) with what the regular files hold.
func TestOddFilesSetAside(t *testing.T) {
	o := quietOptions()
	o.MaxBytes = 1 << 20
	o.MaxWords = 1000
	o.MaxDocFreqWords = 1000
	odd := map[string]func(path string) error{
		"fifo log": func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"/dev/zero snapshot": func(p string) error {
			return os.Symlink("/dev/zero", p)
		},
		"directory snapshot": func(p string) error { return os.Mkdir(p, 0o700) },
		"sparse log": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(20 << 30)
		},
	}
	for name, make := range odd {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "mem")
			m := mustOpen(t, dir, o)
			remember(t, m, "word", "the sentence of word")
			m.Close()
			kind := byte(kindLog)
			if strings.Contains(name, "snapshot") {
				kind = kindSnapshot
			}
			path := m.path(kind, 7)
			if err := make(path); err != nil {
				t.Skip(err)
			}
			for _, ro := range []bool{true, false} {
				var wc warnCapture
				wo := wc.options()
				wo.MaxBytes, wo.MaxWords, wo.MaxDocFreqWords, wo.ReadOnly = o.MaxBytes, o.MaxWords, o.MaxDocFreqWords, ro
				m, err := openWithin(t, dir, wo)
				if err != nil {
					t.Fatalf("read-only %v: %v", ro, err)
				}
				if c, _ := m.Contexts(nil, "word"); len(c) != 1 {
					t.Errorf("read-only %v: contexts %q", ro, c)
				}
				if d := m.Stats().Damaged; len(d) != 1 || d[0].File != filepath.Base(path) {
					t.Errorf("read-only %v: damage %+v", ro, d)
				}
				if !strings.Contains(wc.buf.String(), filepath.Base(path)) {
					t.Errorf("read-only %v: the log does not name the file: %s", ro, wc.buf.String())
				}
				m.Close()
			}
			if _, err := os.Lstat(path + damagedSuffix); err != nil {
				t.Errorf("not moved aside: %v", err)
			}
			if _, err := os.Lstat(path); err == nil {
				t.Error("still in place")
			}
		})
	}
}

// TestScanFileRefuses: scanFile sets aside a FIFO, and a file larger than
// its cap unless it starts with a valid header of its kind: a log a memory
// with higher caps wrote is read whatever its size.
func TestScanFileRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	none := func(record) error { return nil }
	if _, err := scanFile(fifo, kindLog, 1<<20, none); !unreadable(err) {
		t.Errorf("fifo: %v", err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 100), 0o600)
	if _, err := scanFile(big, kindLog, 99, none); !unreadable(err) || !strings.Contains(err.Error(), "big: 100 bytes") {
		t.Errorf("100 bytes over a cap of 99: %v", err)
	}
	if err := checkSize(big, kindLog, 100, 99); !unreadable(err) {
		t.Errorf("checkSize, 100 bytes over a cap of 99: %v", err)
	}
	if fs, err := scanFile(big, kindLog, 100, none); err != nil || fs.size != 100 || fs.herr == nil {
		t.Errorf("100 bytes under a cap of 100: %+v %v", fs, err)
	}
	m := mustOpen(t, filepath.Join(dir, "mem"), quietOptions())
	remember(t, m, "word", "the sentence of word")
	m.abandon()
	log, n := logFile(t, m.Dir()), 0
	fs, err := scanFile(log, kindLog, headerSize, func(record) error { n++; return nil })
	if err != nil || fs.herr != nil || n != 1 || fs.size <= headerSize {
		t.Errorf("a log over a cap of %d: %+v, %d records, %v", headerSize, fs, n, err)
	}
	if err := checkSize(log, kindLog, fs.size, headerSize); err != nil {
		t.Errorf("checkSize, a log over its cap: %v", err)
	}
	if err := checkSize(log, kindSnapshot, fs.size, headerSize); !unreadable(err) {
		t.Errorf("checkSize, a log named like a snapshot over its cap: %v", err)
	}
}

// TestLowerCapsReadTheFiles: a memory written with the default options and
// opened with caps so low that its snapshot and log are larger than those caps
// could write is read, every record of them (no damage, nothing moved aside),
// and evicted down to the lower budget.
func TestLowerCapsReadTheFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	fill(t, m, 200, 3)
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		remember(t, m, fmt.Sprintf("late%d", i), fmt.Sprintf("a late sentence about late%d", i))
	}
	m.abandon()
	low := quietOptions()
	low.MaxBytes, low.MaxWords, low.MaxDocFreqWords, low.SnapshotEvery = 1000, 5, 5, 1
	for _, name := range []string{"snapshot-*.amm", "log-*.amm"} {
		if st, err := os.Stat(onlyFile(t, dir, name)); err != nil || st.Size() <= 2*(2*low.MaxBytes+10*96+1120)+headerSize {
			t.Fatalf("%s: %v, %v: want a file larger than the low caps alone allow", name, st, err)
		}
	}
	for _, ro := range []bool{true, false} {
		low.ReadOnly = ro
		m := mustOpen(t, dir, low)
		st := m.Stats()
		m.Close()
		if len(st.Damaged) != 0 {
			t.Fatalf("read-only %v: damage %+v", ro, st.Damaged)
		}
		if st.Words == 0 || st.Words > low.MaxWords {
			t.Errorf("read-only %v: %d words, want 1..%d (evicted down to the budget)", ro, st.Words, low.MaxWords)
		}
	}
	if d, _ := filepath.Glob(filepath.Join(dir, "*"+damagedSuffix)); len(d) != 0 {
		t.Errorf("moved aside: %v", d)
	}
}
