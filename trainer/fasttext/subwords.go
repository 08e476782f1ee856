package fasttext

import (
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
)

// Subwords returns what `train-embeddings --maxn N` writes for a subword
// model of its own, taken from m, so that AM can be trained on fastText's
// vectors: the word vectors of m's first maxWords dictionary words (all of
// them with maxWords 0; "</s>" left out), each WordVector, with their counts;
// and the n-gram table of those words, one row per distinct character n-gram
// (in fastText's form, '<' and '>' marking the word's ends) holding its hash
// bucket's row, in the order of model.SortNgramTable (its counts the numbers
// of words holding each), as `train-embeddings --ngrams-out` writes it, its
// first maxNgrams rows (all of them with maxNgrams 0; the n-grams of every
// word kept are ranked, only those rows are filled). An
// n-gram whose bucket a pruned model dropped is left out, as m's own vectors
// leave it out. Only the words that are a token of model.DefaultTokenizer
// as they are (lower case, letters and digits) are kept, as AM never meets
// another ("The", "dog,", a word holding a no-break space) and the counts
// file cannot hold every one; a word longer than model.MaxWordBytes is left
// out too (no embeddings file holds it). The n-gram table is nil for a model
// without n-grams (MaxN 0).
func (m *Model) Subwords(maxWords, maxNgrams int) (words, ngrams *model.Embeddings, err error) {
	if maxWords < 0 || maxNgrams < 0 {
		return nil, nil, fmt.Errorf("fasttext: keep %d words and %d n-grams", maxWords, maxNgrams)
	}
	var keep, toks []string
	var counts []int64
	tok := model.DefaultTokenizer()
	for i, w := range m.Words {
		if maxWords > 0 && len(keep) == maxWords {
			break
		}
		toks = tok.AppendTokens(toks[:0], w)
		if len(toks) == 1 && toks[0] == w && len(w) <= model.MaxWordBytes {
			keep, counts = append(keep, w), append(counts, m.Counts[i])
		}
	}
	if len(keep) == 0 {
		return nil, nil, fmt.Errorf("fasttext: the dictionary holds no lower-case word of letters and digits")
	}
	vecs := make([]float32, len(keep)*m.Dim)
	for i, w := range keep {
		if _, err := m.WordVector(vecs[i*m.Dim:(i+1)*m.Dim], w); err != nil {
			return nil, nil, err
		}
	}
	if words, err = model.NewEmbeddings(m.Dim, keep, vecs, counts); err != nil {
		return nil, nil, fmt.Errorf("fasttext: %w", err)
	}
	if m.MaxN == 0 || m.Bucket == 0 {
		return words, nil, nil
	}
	if ngrams, err = m.ngramTable(keep, counts, maxNgrams); err != nil {
		return nil, nil, err
	}
	return words, ngrams, nil
}

// ngramTable collects the distinct n-grams of words (with their counts)
// that have a row, ranked, cut to maxNgrams (0: all) and filled from their
// rows as Subwords says.
func (m *Model) ngramTable(words []string, counts []int64, maxNgrams int) (*model.Embeddings, error) {
	cfg := model.NgramConfig{MinN: m.MinN, MaxN: m.MaxN, MinCount: 1, Style: model.NgramFastText}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("fasttext: %w", err)
	}
	rank := make(map[string]model.NgramRank)
	rows := make(map[string]int32)
	var grams, names []string
	for i, w := range words {
		grams = cfg.AppendNgrams(grams[:0], w)
		for _, g := range grams {
			if _, seen := rows[g]; !seen {
				r, ok := m.NgramRow(g)
				if !ok {
					continue
				}
				rows[g] = r
				names = append(names, g)
			}
			rk := rank[g]
			rank[g] = model.NgramRank{Words: rk.Words + 1, Tokens: rk.Tokens + counts[i]}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("fasttext: no n-gram of the words kept has a row")
	}
	model.SortNgramTable(names, func(g string) model.NgramRank { return rank[g] })
	if maxNgrams > 0 && len(names) > maxNgrams {
		names = names[:maxNgrams:maxNgrams]
	}
	vecs := make([]float32, len(names)*m.Dim)
	holders := make([]int64, len(names))
	for i, g := range names {
		if _, err := m.meanRows(vecs[i*m.Dim:(i+1)*m.Dim], []int32{rows[g]}); err != nil {
			return nil, err
		}
		holders[i] = rank[g].Words
	}
	e, err := model.NewEmbeddings(m.Dim, names, vecs, holders)
	if err != nil {
		return nil, fmt.Errorf("fasttext: n-gram table: %w", err)
	}
	return e, nil
}
