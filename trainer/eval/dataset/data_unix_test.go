//go:build unix

package dataset

import (
	"errors"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
	"github.com/text2vec-am/text2vec-am/model"
)

// A FIFO, a directory or a device given as an evaluation data file is
// refused at once, naming it, not opened blocking (nor read without end).
func TestLoadersRefuseNonRegular(t *testing.T) {
	load := func(p string) error { _, err := LoadWordPairs(p); return err }
	testfiles.RefusesNonRegular(t, "LoadWordPairs", load, func(f testfiles.File, err error) {
		if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("%s: err = %v, want model.ErrNotRegular naming %s", f.Kind, err, f.Path)
		}
	})
}
