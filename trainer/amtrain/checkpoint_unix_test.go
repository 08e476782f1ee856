//go:build unix

package amtrain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/model"
)

// A FIFO given as the checkpoint to resume from is refused at once, naming
// it, instead of blocking on the open until a writer comes.
func TestCheckpointFIFORefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ck.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A writer opened at the end releases a load that blocked on the FIFO.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			w.Close()
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := LoadCheckpoint(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), fifo) {
			t.Errorf("err = %v, want model.ErrNotRegular naming %s", err, fifo)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadCheckpoint blocked on a FIFO for 10 s")
	}
}
