//go:build unix

package refresh

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

// A --state that is a FIFO (which would block) or a device (which never
// ends) is refused by name at once.
func TestLoadStateRefusesAFIFOOrADevice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	var paths []string
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		paths = append(paths, fifo)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	if len(paths) == 0 {
		t.Skip("no FIFO and no /dev/zero here")
	}
	for _, p := range paths {
		done := make(chan error, 1)
		go func() { _, err := loadState(p, "Doc", []Target{{Name: "am"}}); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), p) {
				t.Errorf("--state %s: err = %v, want it refused as not a regular file", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("--state %s: still reading after 10 s", p)
		}
	}
}
