//go:build unix

package amtrain

import (
	"errors"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
	"github.com/text2vec-am/text2vec-am/model"
)

// A FIFO given as the checkpoint to resume from is refused at once, naming
// it, instead of blocking on the open until a writer comes; so are a
// directory and a device.
func TestCheckpointFIFORefused(t *testing.T) {
	load := func(p string) error { _, err := LoadCheckpoint(p); return err }
	testfiles.RefusesNonRegular(t, "LoadCheckpoint", load, func(f testfiles.File, err error) {
		if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("%s: err = %v, want model.ErrNotRegular naming %s", f.Kind, err, f.Path)
		}
	})
}

// A FIFO, a directory or a device in the place of the corpus index is
// refused at once (and rebuilt by OpenIndex), not opened blocking.
func TestLoadIndexRefusesNonRegular(t *testing.T) {
	load := func(p string) error { _, err := loadIndex(p, 0); return err }
	testfiles.RefusesNonRegular(t, "loadIndex", load, func(f testfiles.File, err error) {
		if !errors.Is(err, model.ErrNotRegular) {
			t.Errorf("%s: err = %v, want model.ErrNotRegular", f.Kind, err)
		}
	})
}

// A FIFO, a directory or a device given as --include or --only-words is
// refused at once, naming it, not opened blocking.
func TestReadIncludeRefusesNonRegular(t *testing.T) {
	x, _ := openTiny(t, "a b\n")
	base := tinyBase(t, "a", "b")
	load := func(p string) error {
		_, err := ReadInclude(p, model.DefaultTokenizer(), base, x, true, quietLog())
		return err
	}
	testfiles.RefusesNonRegular(t, "ReadInclude", load, func(f testfiles.File, err error) {
		if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("%s: err = %v, want model.ErrNotRegular naming %s", f.Kind, err, f.Path)
		}
	})
}
