package amtrain

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/model"
)

// PretrainedNgrams is an n-gram table learned elsewhere, the subword vectors
// of `train-embeddings --maxn N --ngrams-out FILE`: AM's form embedding then
// starts as fastText's vector of an out-of-vocabulary word in the base space,
// and AM learns the gate, A and the attention on top of it.
type PretrainedNgrams struct {
	// Vectors holds one row per n-gram, words in fastText's form ('<' and '>'
	// mark the word's ends), in decreasing order of usefulness (the file's order).
	Vectors *model.Embeddings
	// Max keeps the first Max n-grams (0: all), bounding the model's size.
	Max int
}

// ErrNgramTable reports an unusable pretrained n-gram table.
var ErrNgramTable = errors.New("pretrained n-gram table")

// config returns the fastText-style n-gram configuration the table implies:
// MinN and MaxN are the shortest and longest n-gram in symbols.
func (p *PretrainedNgrams) config(dim int) (model.NgramConfig, error) {
	v := p.Vectors
	if v == nil || v.Len() == 0 {
		return model.NgramConfig{}, fmt.Errorf("%w: empty", ErrNgramTable)
	}
	if v.Dim != dim {
		return model.NgramConfig{}, fmt.Errorf("%w: dimension %d, the base embeddings have %d", ErrNgramTable, v.Dim, dim)
	}
	if p.Max < 0 {
		return model.NgramConfig{}, fmt.Errorf("%w: keep %d n-grams", ErrNgramTable, p.Max)
	}
	lo, hi := 1<<30, 0
	for _, g := range v.Words[:p.rows()] {
		n := utf8.RuneCountInString(g)
		lo, hi = min(lo, n), max(hi, n)
	}
	cfg := model.NgramConfig{MinN: lo, MaxN: hi, MinCount: 1, Style: model.NgramFastText}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("%w: %v", ErrNgramTable, err)
	}
	return cfg, nil
}

// rows returns the number of n-grams kept.
func (p *PretrainedNgrams) rows() int {
	if p.Max > 0 && p.Max < p.Vectors.Len() {
		return p.Max
	}
	return p.Vectors.Len()
}

// newPretrainedModel builds a model whose n-gram vocabulary and table are the
// first rows of p (the UNK row, for words without a known n-gram, is zero);
// M, A, U and B are initialised as model.New does.
func newPretrainedModel(p *PretrainedNgrams, mode model.Mode, tok model.Tokenizer, base *model.Embeddings, seed int64) (*model.Model, error) {
	cfg, err := p.config(base.Dim)
	if err != nil {
		return nil, err
	}
	n := p.rows()
	vocab, err := model.NewNgramVocab(cfg, p.Vectors.Words[:n])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNgramTable, err)
	}
	m, err := model.New(model.Config{Dim: base.Dim, Mode: mode, Ngram: cfg, Tokenizer: tok}, vocab, base, seed)
	if err != nil {
		return nil, err
	}
	d := base.Dim
	clear(m.Ngrams[:d])
	copy(m.Ngrams[d:], p.Vectors.Vectors[:n*d])
	return m, nil
}
