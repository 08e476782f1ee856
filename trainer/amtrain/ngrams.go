package amtrain

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
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
	// Space, when set, holds the word vectors trained with the n-grams (their
	// vector space). The n-gram vectors are then mapped into the base
	// embeddings' space by the linear map fitted by least squares on the words
	// both have (see FitLinearMap), so that a base of another training (plain
	// skipgram) can be mimicked from fastText's n-grams.
	Space *model.Embeddings
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
	cfg, err := model.FastTextConfigOf(v.Words[:p.rows()])
	if err != nil {
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
func newPretrainedModel(p *PretrainedNgrams, arch model.Config, base *model.Embeddings, seed int64) (*model.Model, error) {
	cfg, err := p.config(base.Dim)
	if err != nil {
		return nil, err
	}
	arch.Dim, arch.Ngram = base.Dim, cfg
	n := p.rows()
	vocab, err := model.NewNgramVocab(cfg, p.Vectors.Words[:n])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNgramTable, err)
	}
	m, err := model.New(arch, vocab, base, seed)
	if err != nil {
		return nil, err
	}
	d := base.Dim
	clear(m.Ngrams[:d])
	copy(m.Ngrams[d:], p.Vectors.Vectors[:n*d])
	if p.Space != nil {
		w, err := FitLinearMap(p.Space, base)
		if err != nil {
			return nil, err
		}
		mapRows(m.Ngrams[d:], w, d)
	}
	return m, nil
}

// FitLinearMap returns the d×d matrix W (row-major) minimising Σ_w |x_w W − y_w|²
// over the words w in both from (x) and to (y), with a small ridge term
// (1e-6 × the mean diagonal of XᵀX) for stability.
func FitLinearMap(from, to *model.Embeddings) ([]float32, error) {
	d := to.Dim
	if from.Dim != d {
		return nil, fmt.Errorf("%w: the n-grams' word vectors have dimension %d, the base %d", ErrNgramTable, from.Dim, d)
	}
	xtx := mat.NewSymDense(d, nil)
	xty := mat.NewDense(d, d, nil)
	x, y := make([]float64, d), make([]float64, d)
	shared := 0
	for i, w := range from.Words {
		j, ok := to.ID(w)
		if !ok {
			continue
		}
		shared++
		for k, v := range from.Row(int32(i)) {
			x[k] = float64(v)
		}
		for k, v := range to.Row(j) {
			y[k] = float64(v)
		}
		xv, yv := mat.NewVecDense(d, x), mat.NewVecDense(d, y)
		xtx.SymRankOne(xtx, 1, xv)
		xty.RankOne(xty, 1, xv, yv)
	}
	if shared < 2*d {
		return nil, fmt.Errorf("%w: %d words shared with the base embeddings, want at least %d to fit the map", ErrNgramTable, shared, 2*d)
	}
	var tr float64
	for k := 0; k < d; k++ {
		tr += xtx.At(k, k)
	}
	ridge := 1e-6 * tr / float64(d)
	for k := 0; k < d; k++ {
		xtx.SetSym(k, k, xtx.At(k, k)+ridge)
	}
	var chol mat.Cholesky
	if !chol.Factorize(xtx) {
		return nil, fmt.Errorf("%w: the n-grams' word vectors are degenerate (XᵀX not positive definite)", ErrNgramTable)
	}
	var wm mat.Dense
	if err := chol.SolveTo(&wm, xty); err != nil {
		return nil, fmt.Errorf("%w: fitting the map: %v", ErrNgramTable, err)
	}
	out := make([]float32, d*d)
	for r := 0; r < d; r++ {
		for c := 0; c < d; c++ {
			out[r*d+c] = float32(wm.At(r, c))
		}
	}
	return out, nil
}

// mapRows replaces every row x of table (row length d) by x W.
func mapRows(table, w []float32, d int) {
	tmp := make([]float32, d)
	for r := 0; r+d <= len(table); r += d {
		simd.MatTVec(tmp, w, d, d, table[r:r+d])
		copy(table[r:r+d], tmp)
	}
}
