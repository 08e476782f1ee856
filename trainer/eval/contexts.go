package eval

import (
	"context"
	"math/rand/v2"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// CorpusContexts holds what one pass over a corpus gives the evaluations:
// the count of every word, and up to a fixed number of contexts (windows
// around an occurrence, reservoir-sampled uniformly over all occurrences)
// for each word of interest.
type CorpusContexts struct {
	Counts   map[string]int64
	Contexts map[string][][]string
}

// SampleContexts reads the corpus at paths line by line (sentence by
// sentence with sentences set) with the project's tokenizer, counts every
// word, and samples for every word in targets up to maxContexts contexts of at
// most window words each side within the line or sentence (the target word
// included; model.ContextIDs drops it). Lines match how `train` draws
// contexts, so they are the default of the commands.
func SampleContexts(ctx context.Context, paths []string, targets map[string]bool, maxContexts, window int, sentences bool, seed uint64) (*CorpusContexts, error) {
	cc := &CorpusContexts{Counts: map[string]int64{}, Contexts: map[string][][]string{}}
	counts := map[string]*int64{}
	rng := rand.New(rand.NewPCG(seed, 0xc0de))
	opts := corpus.Options{Tokenizer: model.DefaultTokenizer(), Sentences: sentences}
	err := corpus.ForEachUnit(ctx, paths, opts, func(u corpus.Unit) error {
		for i, t := range u.Tokens {
			// Tokens alias the reader's buffer, and assigning to an existing
			// map key stores the new key string: count through a pointer
			// and insert only clones.
			p, ok := counts[t]
			if !ok {
				p = new(int64)
				counts[strings.Clone(t)] = p
			}
			*p++
			n := *p
			if !targets[t] {
				continue
			}
			t = strings.Clone(t)
			// Reservoir sampling (algorithm R): occurrence n replaces a kept
			// context with probability maxContexts/n.
			slot := len(cc.Contexts[t])
			if slot >= maxContexts {
				slot = rng.IntN(int(n))
				if slot >= maxContexts {
					continue
				}
			}
			lo, hi := max(0, i-window), min(len(u.Tokens), i+window+1)
			c := make([]string, hi-lo)
			for k, w := range u.Tokens[lo:hi] {
				c[k] = strings.Clone(w)
			}
			if slot == len(cc.Contexts[t]) {
				cc.Contexts[t] = append(cc.Contexts[t], c)
			} else {
				cc.Contexts[t][slot] = c
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for w, p := range counts {
		cc.Counts[w] = *p
	}
	return cc, nil
}

// InferWords returns the vectors m infers for words from their contexts
// (tokens; the word itself and unknown words dropped), in m's mode. A word
// without contexts gets its form-only vector (the zero vector in the
// context-only modes).
func InferWords(m *model.Model, words []string, contexts map[string][][]string) [][]float32 {
	qs := make([]model.Query, len(words))
	dst := make([][]float32, len(words))
	for i, w := range words {
		qs[i].Word = w
		for _, c := range contexts[w] {
			if ids := m.ContextIDs(nil, c, w); len(ids) > 0 {
				qs[i].Contexts = append(qs[i].Contexts, ids)
			}
		}
		dst[i] = make([]float32, m.Dim)
	}
	m.InferBatch(qs, dst)
	return dst
}

// AMSkip mixes an AM vector with the skipgram vector of a word seen count
// times (paper §4.3): β·am + (1 − β)·skip with β = model.AMSkipBeta(count);
// without a skipgram vector the AM vector is returned.
func AMSkip(am, skip []float32, count int64) []float32 {
	if skip == nil {
		return am
	}
	b := model.AMSkipBeta(count)
	out := make([]float32, len(am))
	for k := range out {
		out[k] = b*am[k] + (1-b)*skip[k]
	}
	return out
}
