//go:build unix

package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/model"
)

// A context file that is a FIFO is an error naming it: reading it blocked
// eval rare-pairs for ever.
func TestLoadRareContextsFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.txt"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := LoadRareContexts(dir, "fifo", model.DefaultTokenizer()); !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), "fifo.txt: not a regular file") {
		t.Errorf("a FIFO: err = %v, want it refused as not a regular file (model.ErrNotRegular), naming it", err)
	}
}

// A FIFO put in place of a context file while eval rare-pairs reads the
// directory never hangs it: the file is opened without blocking and the open
// file checked (a check by path then an open by path let the FIFO through,
// and opening it blocked for ever, waiting for a writer). Each load reads
// the regular file's line, or refuses the FIFO or the swap with an error.
func TestLoadRareContextsFIFOSwappedIn(t *testing.T) {
	dir := t.TempDir()
	reg, fifo := filepath.Join(dir, "reg.src"), filepath.Join(dir, "fifo.src")
	if err := os.WriteFile(reg, []byte("the zorb music\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Whatever the outcome, release a reader blocked on the FIFO at the end.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			w.Close()
		}
	})
	path := filepath.Join(dir, "zorb.txt")
	if err := os.Link(reg, path); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	swapped := make(chan error, 1)
	go func() { swapped <- swapContextFile(path, []string{fifo, reg}, stop) }()
	defer func() {
		close(stop)
		if err := <-swapped; err != nil {
			t.Error(err)
		}
	}()
	tok := model.DefaultTokenizer()
	for i := range 2000 {
		done := make(chan error, 1)
		go func() {
			ctx, err := LoadRareContexts(dir, "zorb", tok)
			if err == nil && !(len(ctx) == 1 && slices.Equal(ctx[0], []string{"the", "music"})) {
				err = fmt.Errorf("contexts %q, want the one line of the regular file", ctx)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, model.ErrNotRegular) && !errors.Is(err, errContextFileSwapped) {
				t.Fatalf("load %d: %v, want the contexts, or the FIFO or the swap refused", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("load %d hung: the FIFO swapped in was opened blocking", i)
		}
	}
}

// swapContextFile puts each of srcs in turn at path (a hard link renamed over
// it, so that path always exists) until stop is closed.
func swapContextFile(path string, srcs []string, stop <-chan struct{}) error {
	tmp := path + ".new"
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := os.Link(srcs[i%len(srcs)], tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
}
