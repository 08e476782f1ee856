package eval

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/alacarte"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// A La Carte settings: the context window (words on each side of an
// occurrence), the occurrences a word needs in the corpus to be fitted on,
// and the ridge of the least-squares fit.
const (
	alaCarteWindow         = 5
	alaCarteMinOccurrences = 5
	alaCarteRidge          = 1.0
)

// AlaCarteFit fits the A La Carte map on corpus (plain text, one sentence
// per line, tokenized with tok): every base word of e with
// alaCarteMinOccurrences occurrences or more gives the pair (its base
// vector, the mean over its occurrences of the mean vector of the base
// words within alaCarteWindow of it); the words in exclude (those the map
// is evaluated on) are left out of the fit. It returns the map and the
// words fitted on.
func AlaCarteFit(ctx context.Context, e *model.Embeddings, corpus string, tok model.Tokenizer, exclude map[string]bool) (*alacarte.Transform, int, error) {
	acc := newContextSums(e)
	f, _, err := model.OpenRegular(corpus)
	if err != nil {
		return nil, 0, fmt.Errorf("a la carte corpus: %w", err)
	}
	defer f.Close()
	var toks []string
	err = dataset.ForEachLineOf(f, corpus, func(n int, line string) error {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		toks = tok.AppendTokens(toks[:0], dataset.FixUTF8(line))
		acc.addSentence(toks)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("a la carte corpus: %w", err)
	}
	targets, contexts := acc.pairs(alaCarteMinOccurrences, exclude)
	slog.Info("a la carte", "corpus", corpus, "words_fitted", len(targets))
	a, err := alacarte.Fit(targets, contexts, alaCarteRidge)
	if err != nil {
		return nil, 0, fmt.Errorf("a la carte fit on %s: %w", corpus, err)
	}
	return a, len(targets), nil
}

// AlaCarteNonce infers a nonce's vector as A·u with u the mean of the
// vectors of its context words (Additive without stop words).
func AlaCarteNonce(e *model.Embeddings, a *alacarte.Transform) NonceFunc {
	add := Additive(e, nil)
	return func(sentences [][]string) []float32 {
		u := add(sentences)
		if u == nil {
			return nil
		}
		return a.Apply(u)
	}
}

// contextSums accumulates, per base word, the sum of its occurrences'
// window means and how many there were.
type contextSums struct {
	e      *model.Embeddings
	sum    []float32
	occ    []int
	ids    []int32
	prefix []float32 // (len+1)·dim running sums of the known words' vectors
	count  []int     // running counts of known words
}

func newContextSums(e *model.Embeddings) *contextSums {
	return &contextSums{e: e, sum: make([]float32, e.Len()*e.Dim), occ: make([]int, e.Len())}
}

// addSentence adds every occurrence of a base word in toks.
func (c *contextSums) addSentence(toks []string) {
	d := c.e.Dim
	c.ids = c.ids[:0]
	c.prefix = append(c.prefix[:0], make([]float32, d)...)
	c.count = append(c.count[:0], 0)
	for i, t := range toks {
		id, ok := c.e.ID(t)
		if !ok {
			id = -1
		}
		c.ids = append(c.ids, id)
		c.prefix = append(c.prefix, c.prefix[i*d:(i+1)*d]...)
		c.count = append(c.count, c.count[i])
		if ok {
			row := c.prefix[(i+1)*d:]
			for k, x := range c.e.Row(id) {
				row[k] += x
			}
			c.count[i+1]++
		}
	}
	for i, id := range c.ids {
		if id < 0 {
			continue
		}
		lo, hi := max(0, i-alaCarteWindow), min(len(toks), i+alaCarteWindow+1)
		n := c.count[hi] - c.count[lo] - 1
		if n == 0 {
			continue
		}
		dst, self := c.sum[int(id)*d:int(id+1)*d], c.e.Row(id)
		ph, pl := c.prefix[hi*d:(hi+1)*d], c.prefix[lo*d:(lo+1)*d]
		inv := 1 / float32(n)
		for k := range dst {
			dst[k] += (ph[k] - pl[k] - self[k]) * inv
		}
		c.occ[id]++
	}
}

// pairs returns (base vector, mean window vector) of the words seen at
// least minOcc times and not in exclude.
func (c *contextSums) pairs(minOcc int, exclude map[string]bool) (targets, contexts [][]float32) {
	d := c.e.Dim
	for id, n := range c.occ {
		if n < minOcc || exclude[c.e.Words[id]] {
			continue
		}
		u := make([]float32, d)
		for k, s := range c.sum[id*d : (id+1)*d] {
			u[k] = s / float32(n)
		}
		targets = append(targets, c.e.Row(int32(id)))
		contexts = append(contexts, u)
	}
	return targets, contexts
}
