//go:build unix && !aix

package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStaleTemporaryFilesRemoved: a write removes the temporary files of its
// target that a killed writer left (old, unlocked), and keeps one a live
// writer holds (locked), a new one, and the files of other names.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * staleAge)
	file := func(name string, age time.Time) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, age, age); err != nil {
			t.Fatal(err)
		}
		return path
	}
	stale := file("m.ckpt.tmp123456", old)
	live := file("m.ckpt.tmp777", old)
	young := file("m.ckpt.tmp42", time.Now())
	others := []string{file("m.ckpt.tmpx1", old), file("n.ckpt.tmp99", old), file("m.ckpt.tmp", old)}
	held, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := lockTemp(held); err != nil {
		t.Skipf("no advisory locks here: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "m.ckpt"), []byte("new"), Readable); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	for _, p := range append([]string{live, young}, others...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// TestWriterKeepsItsTemporaryFileUntilRenamed: a writer whose last write is
// over a minute old (a slow fsync, a callback that computes after writing)
// keeps its temporary file locked until it is renamed, so that a concurrent
// write of the same target never removes it between its close and its rename.
func TestWriterKeepsItsTemporaryFileUntilRenamed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "m.ckpt")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				removeStale(dir, filepath.Base(target))
			}
		}
	}()
	defer func() { close(stop); <-done }()
	old := time.Now().Add(-2 * staleAge)
	for i := range 300 {
		err := WriteRaw(target, Readable, func(f *os.File) error {
			if _, err := f.Write([]byte("checkpoint")); err != nil {
				return err
			}
			return os.Chtimes(f.Name(), old, old)
		})
		if err != nil {
			t.Fatalf("write %d beside a concurrent cleaner: %v", i, err)
		}
	}
}
