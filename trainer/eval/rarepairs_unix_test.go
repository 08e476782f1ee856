//go:build unix

package eval

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// A context file that is a FIFO is an error naming it: reading it blocked
// eval rare-pairs for ever.
func TestLoadRareContextsFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.txt"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := LoadRareContexts(dir, "fifo", model.DefaultTokenizer()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: err = %v, want it refused as not a regular file", err)
	}
}
