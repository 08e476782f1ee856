//go:build unix

// Package testfiles gives tests the files that are not regular files a
// loader must refuse at once: a FIFO (opening it would block until a writer
// comes), a directory and the device /dev/zero (reading it never ends). Only
// tests import it.
package testfiles

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Timeout is how long a loader may take to refuse one of the files.
const Timeout = 10 * time.Second

// File is one file that is not a regular file.
type File struct {
	Kind string // "FIFO", "directory" or "device"
	Path string
}

// RefusesNonRegular runs load on a FIFO and a directory made in a
// t.TempDir(), then on /dev/zero when it exists. It stops the test, naming
// what (the loader) and the kind of file, when load has not returned after
// Timeout, and fails it when load returns nil; otherwise it passes the
// error to check, which asserts what the caller expects of it.
func RefusesNonRegular(t testing.TB, what string, load func(path string) error, check func(f File, err error)) {
	t.Helper()
	for _, f := range nonRegular(t) {
		done := make(chan error, 1)
		go func() { done <- load(f.Path) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s accepted a %s (%s): want it refused as not a regular file", what, f.Kind, f.Path)
				continue
			}
			check(f, err)
		case <-time.After(Timeout):
			t.Fatalf("%s on a %s (%s): still running after %v, want it refused at once", what, f.Kind, f.Path, Timeout)
		}
	}
}

// nonRegular makes a FIFO and a directory in a t.TempDir() and returns them
// with /dev/zero when it exists. A FIFO the system cannot make is left out,
// saying so in the test's log. A writer opened on the FIFO as the test ends
// releases a load still blocked on it.
func nonRegular(t testing.TB) []File {
	t.Helper()
	dir := t.TempDir()
	var files []File
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Logf("no FIFO: %v", err)
	} else {
		files = append(files, File{Kind: "FIFO", Path: fifo})
		t.Cleanup(func() {
			if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
				w.Close()
			}
		})
	}
	sub := filepath.Join(dir, "dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	files = append(files, File{Kind: "directory", Path: sub})
	if _, err := os.Stat("/dev/zero"); err == nil {
		files = append(files, File{Kind: "device", Path: "/dev/zero"})
	}
	return files
}
