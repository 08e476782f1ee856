package eval

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/alacarte"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// A La Carte settings: the context window (words on each side of an
// occurrence, within its sentence; AM's model.ContextWindow, the extent of
// the contexts AM is trained on and the evaluations give), the occurrences
// a word needs in the corpus to be fitted on, and the ridge of the
// least-squares fit.
const (
	alaCarteWindow         = model.ContextWindow
	alaCarteMinOccurrences = 5
	alaCarteRidge          = 1.0
)

// AlaCarteHoldout says what an A La Carte fit leaves out.
type AlaCarteHoldout struct {
	// Words are never fitted on: the words the map is evaluated on.
	Words map[string]bool
	// Sentences also leaves out every sentence that holds one of Words, so
	// that the fit never reads the contexts an evaluation gives them (the
	// sentences eval rare-dev --corpus-out drops).
	Sentences bool
}

// AlaCarteStats says what a fit was made of.
type AlaCarteStats struct {
	// Words is the number of base words fitted on.
	Words int
	// Sentences counts the corpus's sentences, LeftOut those of them the
	// holdout kept out of the fit.
	Sentences, LeftOut int64
}

// AlaCarteFit fits the A La Carte map on the corpus at path (a text file,
// gzip or a directory of them, read as train reads its corpus: sentence by
// sentence, with the project's tokenizer): every base word of e with
// alaCarteMinOccurrences occurrences or more gives the pair (its base
// vector, the mean over its occurrences of the mean vector of the base
// words within alaCarteWindow of it in its sentence). What h names is left
// out. Errors name the corpus path; a corpus in which no word can be fitted
// on is one.
func AlaCarteFit(ctx context.Context, e *model.Embeddings, path string, h AlaCarteHoldout) (*alacarte.Transform, AlaCarteStats, error) {
	acc := newContextSums(e)
	var st AlaCarteStats
	opts := corpus.Options{Tokenizer: model.DefaultTokenizer(), Sentences: true}
	err := corpus.ForEachUnit(ctx, []string{path}, opts, func(u corpus.Unit) error {
		st.Sentences++
		if h.Sentences && holdsAny(u.Tokens, h.Words) {
			st.LeftOut++
			return nil
		}
		acc.addSentence(u.Tokens)
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	targets, contexts := acc.pairs(alaCarteMinOccurrences, h.Words)
	st.Words = len(targets)
	slog.Info("a la carte", "corpus", path, "words_fitted", st.Words, "sentences", st.Sentences, "left_out", st.LeftOut)
	if st.Words == 0 {
		return nil, st, fmt.Errorf("%s: no base word occurs %d times or more in it (outside the words and sentences "+
			"left out): nothing to fit the A La Carte map on", path, alaCarteMinOccurrences)
	}
	a, err := alacarte.Fit(targets, contexts, alaCarteRidge)
	if err != nil {
		return nil, st, fmt.Errorf("a la carte fit on %s: %w", path, err)
	}
	return a, st, nil
}

// holdsAny reports whether one of toks is in words.
func holdsAny(toks []string, words map[string]bool) bool {
	for _, t := range toks {
		if words[t] {
			return true
		}
	}
	return false
}

// AlaCarteNonce infers a nonce's vector as A·u with u the additive context
// vector: the mean of the base vectors of every word of its contexts (the
// nonce and unknown words dropped, stop words kept, as in the fit).
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
