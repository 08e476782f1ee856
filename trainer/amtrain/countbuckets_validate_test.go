package amtrain

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/text2vec-am/text2vec-am/model"
)

// Only buckets an instance can reach are trainable: with MaxContexts 8 an
// instance has at most 8 contexts, buckets 0..3 (1, 2–3, 4–7, 8).
func TestValidateCountBucketsReachable(t *testing.T) {
	o := smallOptions()
	o.MaxContexts = 8
	o.CountBuckets = 4
	require.NoError(t, o.Validate())
	o.CountBuckets = 5
	err := o.Validate()
	require.ErrorContains(t, err, "max-contexts 8 only 4 can be trained")
}

// A mode without a gate cannot have count buckets: refused by the options,
// before any corpus work, and by the model's configuration (a weights file).
func TestCountBucketsNeedAGate(t *testing.T) {
	o := smallOptions()
	o.CountBuckets = 2
	o.Mode = model.ModeContext
	require.ErrorContains(t, o.Validate(), "mode context has no gate")
	o.Mode = model.ModeAM
	require.NoError(t, o.Validate())

	for _, mode := range []model.Mode{model.ModeContext, model.ModeForm} {
		cfg := model.Config{Dim: 4, Mode: mode, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer(), CountBuckets: 2}
		require.ErrorContains(t, cfg.Validate(), "has no gate", mode.String())
	}
	cfg := model.Config{Dim: 4, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer(), CountBuckets: 2}
	require.NoError(t, cfg.Validate())
	require.Equal(t, 0, model.CountBucket(5, 0))
}
