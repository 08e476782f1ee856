// Package defaultmodel embeds the default text2vec-am model: a serving bundle
// (AM weights plus base vectors, counts and precomputed AM+skip vectors for
// rare words) trained by this project's own trainer on a general English
// corpus. docs/model.md says how it was built.
package defaultmodel

import (
	"bytes"
	_ "embed"
	"errors"

	"github.com/text2vec-am/text2vec-am/model"
)

//go:embed default.am
var weights []byte

// Name is the model name reported by servers that load the default model.
const Name = "text2vec-am-default"

// Load decodes the embedded default model. Each call returns a fresh *model.Model.
func Load() (*model.Model, error) {
	if len(weights) == 0 {
		return nil, errors.New("load default model: this build embeds no default model (defaultmodel/default.am is empty); pass --model")
	}
	return model.Load(bytes.NewReader(weights), "embedded default model")
}
