package eval

import (
	"fmt"
	"log/slog"
	"reflect"

	"github.com/text2vec-am/text2vec-am/model"
)

// skipSeed seeds the skipgram inference: the same word and sentences give
// the same vector in every row and trial.
const skipSeed = 1

// sameSpaceMinCos is the least mean cosine between the base vectors and the
// subword model's word vectors at which the two are taken to be one space
// (the default recipe's bundle quantizes the subword model's vectors to 4
// bits: about 0.99).
const sameSpaceMinCos = 0.9

// skipRows are the rows of the rare words' skipgram vectors inferred from
// their sampled sentences (model.SkipInference) against the output vectors
// at outputsPath of the subword model s, in s's space, and, when am is
// given and its base e holds s's word vectors, AM+skip (AMSkip, the paper's
// mix by the word's count: here its occurrences in the sampled sentences) of
// the AM vector and the inferred one.
// Both rows take the sentences with the rare word in them (rareRow.full).
// The counts of e give the subsampling and the negatives.
func skipRows(s *Subwords, outputsPath string, e *model.Embeddings, am *model.Model,
	rareWords []string) ([]rareRow, error) {
	sk, err := loadSkipInference(s, outputsPath, e)
	if err != nil {
		return nil, err
	}
	tokens := make(map[string]string, len(rareWords)) // each rare word as the tokenizer writes it
	var split []string
	for _, w := range rareWords {
		if t := model.DefaultTokenizer().AppendTokens(nil, w); len(t) == 1 {
			tokens[w] = t[0]
		} else {
			split = append(split, w)
		}
	}
	if len(split) > 0 {
		slog.Warn("rare-pairs: rare words that are not one token are never found in their sentences: "+
			"their skipgram vector is their form and AM+skip is AM", "words", len(split), "first", clipWord(split[0]))
	}
	// skip gives each rare word's inferred vector and the occurrences it was
	// inferred from. Both rows are scored on one sample after the other: the
	// last sample's result is kept (with the sample, so that no other map can
	// take its address) and not computed again.
	var last struct {
		full map[string][][]string
		vecs map[string][]float32
		occ  map[string]int64
	}
	skip := func(full map[string][][]string) (map[string][]float32, map[string]int64, error) {
		if last.full != nil && reflect.ValueOf(full).UnsafePointer() == reflect.ValueOf(last.full).UnsafePointer() {
			return last.vecs, last.occ, nil
		}
		out, occ := make(map[string][]float32, len(rareWords)), make(map[string]int64, len(rareWords))
		form := make([]float32, s.Words.Dim)
		for _, w := range rareWords {
			n, err := s.formVector(form, w)
			if err != nil {
				return nil, nil, err
			}
			v := make([]float32, s.Words.Dim)
			k := sk.Infer(v, form, n, tokens[w], full[w], skipSeed)
			if n > 0 || k > 0 {
				out[w], occ[w] = v, int64(k)
			}
		}
		last.full, last.vecs, last.occ = full, out, occ
		return out, occ, nil
	}
	rows := []rareRow{{name: "subwords skipgram, inferred from the k sentences", common: newFTSpace(s, s.Words.Dim).Word,
		full: true, infer: func(full map[string][][]string) (map[string][]float32, error) {
			v, _, err := skip(full)
			return v, err
		}}}
	if am == nil {
		return rows, nil
	}
	if c := meanSharedCosine(e, s.Words); c < sameSpaceMinCos {
		slog.Warn("rare-pairs: no AM+skip row: --am's base vectors are not the --subwords word vectors", "mean_cosine", c)
		return rows, nil
	}
	return append(rows, rareRow{name: "AM+skip, the skipgram inferred", common: EmbeddingLookup(e),
		full: true, infer: func(full map[string][][]string) (map[string][]float32, error) {
			sv, occ, err := skip(full)
			if err != nil {
				return nil, err
			}
			av := InferWords(am, rareWords, dropWords(full))
			out := make(map[string][]float32, len(rareWords))
			for i, w := range rareWords {
				out[w] = AMSkip(av[i], sv[w], occ[w])
			}
			return out, nil
		}}), nil
}

// loadSkipInference reads the output vectors at path, which must be those of
// the subword model s (a vector for each of its words, at its dimension; more
// words when s was written with --out-min-count), and gives them the counts
// of e for the subsampling and the negatives.
func loadSkipInference(s *Subwords, path string, e *model.Embeddings) (*model.SkipInference, error) {
	outs, err := model.LoadEmbeddings(path)
	if err != nil {
		return nil, fmt.Errorf("--subword-outputs: %w", err)
	}
	if outs.Dim != s.Words.Dim {
		return nil, fmt.Errorf("--subword-outputs %s has dimension %d, --subwords %d: not the same model",
			path, outs.Dim, s.Words.Dim)
	}
	// --out-min-count writes fewer words to --subwords than the outputs hold, never more.
	for _, w := range s.Words.Words {
		if _, ok := outs.ID(w); !ok {
			return nil, fmt.Errorf("--subword-outputs %s has no vector for %q of --subwords: not the same model",
				path, clipWord(w))
		}
	}
	if e.Counts == nil {
		return nil, fmt.Errorf("--subword-outputs needs word counts: give --counts, or a bundle as --embeddings")
	}
	counts, uncounted := make([]int64, outs.Len()), 0
	for i, w := range outs.Words {
		if id, ok := e.ID(w); ok {
			counts[i] = e.Counts[id]
		} else {
			uncounted++
		}
	}
	if uncounted > 0 {
		slog.Warn("rare-pairs: output words without a count in the base are never drawn as negatives nor subsampled",
			"words", uncounted, "of", outs.Len())
	}
	if outs, err = model.NewEmbeddings(outs.Dim, outs.Words, outs.Vectors, counts); err != nil {
		return nil, err
	}
	sk, err := model.NewSkipInference(outs, model.DefaultSkipConfig())
	if err != nil {
		return nil, fmt.Errorf("--subword-outputs %s with the counts of --embeddings/--counts: %w", path, err)
	}
	return sk, nil
}

// dropWords returns the sentences of each word without the word.
func dropWords(full map[string][][]string) map[string][][]string {
	out := make(map[string][][]string, len(full))
	for w, ss := range full {
		d := make([][]string, len(ss))
		for i, s := range ss {
			d[i] = dropWord(s, w)
		}
		out[w] = d
	}
	return out
}

// meanSharedCosine is the mean cosine between the vectors of a and b of the
// first 1,000 words of a that b holds too (0 when none).
func meanSharedCosine(a, b *model.Embeddings) float64 {
	var sum float64
	n := 0
	for i := 0; i < a.Len() && n < 1000; i++ {
		if j, ok := b.ID(a.Words[i]); ok {
			sum += model.Cosine(a.Row(int32(i)), b.Row(j))
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// skip loads what --subword-outputs asks for: the rare words' sentences with
// the word in them, index for index with contexts, and the rows of skipRows
// over the subword model s (none without the flag).
func (f *rarePairsFlags) skip(dir string, s *Subwords, contexts map[string][][]string, e *model.Embeddings,
	am *model.Model, rareWords []string) (map[string][][]string, []rareRow, error) {
	if f.swOutputs == "" || s == nil {
		return nil, nil, nil
	}
	full := make(map[string][][]string, len(contexts))
	for w, c := range contexts {
		ss, err := LoadRareSentences(dir, w, model.DefaultTokenizer())
		if err != nil {
			return nil, nil, err
		}
		if len(ss) != len(c) {
			return nil, nil, fmt.Errorf("contexts of %q changed while read: %d sentences, then %d", w, len(c), len(ss))
		}
		full[w] = ss
	}
	rows, err := skipRows(s, f.swOutputs, e, am, rareWords)
	return full, rows, err
}
