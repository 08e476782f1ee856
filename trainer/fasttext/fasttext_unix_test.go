//go:build unix

package fasttext

import (
	"errors"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
	"github.com/text2vec-am/text2vec-am/model"
)

// A FIFO, a directory or a device given as a fastText model is refused at
// once, naming it, not opened blocking.
func TestOpenRefusesNonRegular(t *testing.T) {
	load := func(p string) error {
		m, err := Open(p)
		if err == nil {
			m.Close()
		}
		return err
	}
	testfiles.RefusesNonRegular(t, "Open", load, func(f testfiles.File, err error) {
		if !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("%s: err = %v, want model.ErrNotRegular naming %s", f.Kind, err, f.Path)
		}
	})
}
