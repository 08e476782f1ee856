//go:build unix

package refresh

import (
	"errors"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
	"github.com/text2vec-am/text2vec-am/model"
)

// A --state that is a FIFO (which would block), a device (which never ends)
// or a directory is refused by name at once.
func TestLoadStateRefusesAFIFOOrADevice(t *testing.T) {
	load := func(p string) error { _, err := loadState(p, "Doc", []Target{{Name: "am"}}); return err }
	testfiles.RefusesNonRegular(t, "loadState", load, func(f testfiles.File, err error) {
		if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("--state %s: err = %v, want it refused as not a regular file", f.Path, err)
		}
	})
}
