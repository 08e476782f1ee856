package defaultmodel

import (
	"errors"
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
)

// Ref is the model reference that names the embedded default model wherever
// a command takes a model or a bundle ("--model default"); an empty
// reference means it too.
const Ref = "default"

// ErrNotBundle reports a weights file without base embeddings where a
// serving bundle is needed.
var ErrNotBundle = errors.New("AM weights without base embeddings, not a serving bundle (train --bundle-out writes one)")

// IsDefault reports whether ref names the embedded default model.
func IsDefault(ref string) bool { return ref == "" || ref == Ref }

// Open loads the model ref names: the embedded default model (see
// IsDefault), or the weights file or serving bundle at path ref. This is the
// one place every command loads a model from a reference.
func Open(ref string) (*model.Model, error) {
	if IsDefault(ref) {
		return Load()
	}
	return model.LoadFile(ref)
}

// OpenBundle loads the serving bundle ref names (the embedded default model
// included), for commands that take base embeddings and accept a bundle in
// their place. ok is false, with no error, when ref is a file that is not a
// weights file: the caller then reads it as an embeddings file. A weights
// file without base embeddings is an error.
func OpenBundle(ref string) (m *model.Model, ok bool, err error) {
	if !IsDefault(ref) {
		isWeights, err := model.IsWeightsFile(ref)
		if err != nil || !isWeights {
			return nil, false, err
		}
	}
	m, err = Open(ref)
	if err != nil {
		return nil, true, err
	}
	if m.Base == nil {
		return nil, true, fmt.Errorf("%s holds %w", ref, ErrNotBundle)
	}
	return m, true, nil
}
