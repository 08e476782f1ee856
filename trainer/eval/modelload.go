package eval

import (
	"fmt"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// loadModel loads an AM weights file or serving bundle, or the embedded
// default model for "default" (defaultmodel.Open). With base set, base
// becomes the model's context vocabulary (replacing a bundle's, unless
// keepBundle is set); without it, the file must be a bundle.
func loadModel(path string, base *model.Embeddings, keepBundle bool) (*model.Model, error) {
	m, err := defaultmodel.Open(path)
	if err != nil {
		return nil, err
	}
	if base != nil && (m.Base == nil || !keepBundle) {
		if err := m.AttachBase(base); err != nil {
			return nil, fmt.Errorf("model %s: %w", path, err)
		}
	} else if m.Base == nil {
		return nil, fmt.Errorf("model %s holds no base embeddings (not a serving bundle): give --embeddings", path)
	}
	slog.Info("model loaded", "path", path, "mode", m.Mode.String(), "dim", m.Dim, "ngrams", m.Vocab.Len(), "base_words", m.Base.Len())
	return m, nil
}
