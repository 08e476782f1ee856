package eval

import (
	"math"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// Lookup returns the vector of a word, or nil when the word has none.
type Lookup func(word string) []float32

// EmbeddingLookup looks words up in e after lowercasing them (our tokenizer
// lowercases, so the vocabulary is lowercase).
func EmbeddingLookup(e *model.Embeddings) Lookup {
	return func(w string) []float32 {
		id, ok := e.ID(strings.ToLower(w))
		if !ok {
			return nil
		}
		return e.Row(id)
	}
}

// WordSimResult is the score of one embedding space on one word-similarity set.
type WordSimResult struct {
	Pairs    int     // pairs in the file
	Covered  int     // pairs where both words have a vector (own or from the form)
	FromForm int     // covered pairs where at least one vector came from the form
	Spearman float64 // Spearman of cosine vs gold over the covered pairs (NaN if < 2)
	// Cos holds each pair's cosine in the file's order, NaN for a pair not
	// covered.
	Cos []float64
}

// WordSimOOV is WordSim where a word without its own vector takes its vector
// from form (nil: none), as a form model gives words it never saw.
func WordSimOOV(vec, form Lookup, pairs []dataset.WordPair) WordSimResult {
	res := WordSimResult{Pairs: len(pairs)}
	get := func(w string) ([]float32, bool) {
		if v := vec(w); v != nil {
			return v, false
		}
		if form == nil {
			return nil, false
		}
		return form(w), true
	}
	var cos, gold []float64
	res.Cos = make([]float64, len(pairs))
	for i, p := range pairs {
		a, fa := get(p.A)
		b, fb := get(p.B)
		res.Cos[i] = math.NaN()
		if a == nil || b == nil {
			continue
		}
		if fa || fb {
			res.FromForm++
		}
		res.Cos[i] = model.Cosine(a, b)
		cos = append(cos, res.Cos[i])
		gold = append(gold, p.Score)
	}
	res.Covered = len(cos)
	res.Spearman = stats.Spearman(cos, gold)
	return res
}
