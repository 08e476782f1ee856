package eval

import (
	"fmt"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/cli"
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

// loadEmbeddings loads base embeddings from an embeddings file (word2vec
// text or binary, .gz ok) or from a serving bundle: "default" (the embedded
// model) or a .am bundle, whose base vectors and counts are used.
func loadEmbeddings(path string) (*model.Embeddings, error) {
	e, _, err := loadBaseOrBundle(path)
	return e, err
}

// loadBaseOrBundle is loadEmbeddings that also returns the bundle's model
// (nil for an embeddings file).
func loadBaseOrBundle(path string) (*model.Embeddings, *model.Model, error) {
	if path == "" {
		return nil, nil, cli.UsageError("empty embeddings path")
	}
	slog.Info("loading embeddings", "path", path)
	if m, ok, err := defaultmodel.OpenBundle(path); ok || err != nil {
		if err != nil {
			return nil, nil, fmt.Errorf("load embeddings %s: %w", path, err)
		}
		return m.Base, m, nil
	}
	e, err := model.LoadEmbeddings(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load embeddings %s: %w", path, err)
	}
	return e, nil, nil
}
