package eval

import (
	"math"
	"sort"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// NonceResult is the score of one model on the definitional nonces.
type NonceResult struct {
	Instances int
	// MRR is the mean reciprocal rank of the gold vector among the vocabulary
	// (an instance without a gold vector or without an inferred vector counts 0).
	MRR float64
	// MRRGold is the mean reciprocal rank over the instances whose word has
	// a gold vector.
	MRRGold float64
	// MedianRank is the median rank (those instances rank last, |V|).
	MedianRank float64
	// MissingGold counts words without a base vector; NoVector instances
	// whose definition gave no vector.
	MissingGold, NoVector int
	// Ranks holds each instance's rank (1 = the gold word is the nearest).
	Ranks []int
}

// VocabIndex holds unit-length copies of a vocabulary's vectors for ranking.
type VocabIndex struct {
	e    *model.Embeddings
	unit []float32
}

// NewVocabIndex normalizes the rows of e (a zero row stays zero).
func NewVocabIndex(e *model.Embeddings) *VocabIndex {
	unit := make([]float32, len(e.Vectors))
	copy(unit, e.Vectors)
	for i := 0; i < e.Len(); i++ {
		row := unit[i*e.Dim : (i+1)*e.Dim]
		if n := math.Sqrt(float64(simd.Dot(row, row))); n > 0 {
			simd.Scale(float32(1/n), row)
		}
	}
	return &VocabIndex{e: e, unit: unit}
}

// Rank returns the rank of word's vector among all vocabulary vectors by
// cosine to v: 1 + the number of words strictly closer. scores is scratch of
// length e.Len().
func (ix *VocabIndex) Rank(v []float32, word string, scores []float32) (int, bool) {
	id, ok := ix.e.ID(word)
	if !ok {
		return 0, false
	}
	simd.MatVec(scores, ix.unit, ix.e.Len(), ix.e.Dim, v)
	gold := scores[id]
	rank := 1
	for _, s := range scores {
		if s > gold {
			rank++
		}
	}
	return rank, true
}

// Nonces scores a nonce function on the definitions: each word's vector is
// inferred from its one definition (the word replaced by NonceToken, a form
// no vocabulary holds) and its gold base vector ranked among the whole
// vocabulary of ix.
func Nonces(tok model.Tokenizer, defs []dataset.NonceDefinition, nonce NonceFunc, ix *VocabIndex) NonceResult {
	res := NonceResult{Instances: len(defs), Ranks: make([]int, len(defs))}
	scores := make([]float32, ix.e.Len())
	worst := ix.e.Len()
	var rr float64
	for i, d := range defs {
		v := nonce(TokenizeChimera(tok, dataset.ChimeraInstance{Sentences: []string{d.Sentence}}))
		res.Ranks[i] = worst
		if _, ok := ix.e.ID(d.Word); !ok {
			res.MissingGold++
			continue
		}
		if v == nil {
			res.NoVector++
			continue
		}
		r, _ := ix.Rank(v, d.Word, scores)
		res.Ranks[i] = r
		rr += 1 / float64(r)
	}
	res.MRR = rr / float64(len(defs))
	if n := len(defs) - res.MissingGold; n > 0 {
		res.MRRGold = rr / float64(n)
	}
	sorted := append([]int(nil), res.Ranks...)
	sort.Ints(sorted)
	if n := len(sorted); n%2 == 1 {
		res.MedianRank = float64(sorted[n/2])
	} else {
		res.MedianRank = float64(sorted[n/2-1]+sorted[n/2]) / 2
	}
	return res
}
