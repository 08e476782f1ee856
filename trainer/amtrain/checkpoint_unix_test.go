//go:build unix

package amtrain

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// A FIFO given as the checkpoint to resume from is refused at once, naming
// it, instead of blocking on the open until a writer comes.
func TestCheckpointFIFORefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ck.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := LoadCheckpoint(fifo)
	if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), fifo) {
		t.Errorf("err = %v, want model.ErrNotRegular naming %s", err, fifo)
	}
}
