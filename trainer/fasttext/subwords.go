package fasttext

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
)

// Subwords returns what `train-embeddings --maxn N` writes for a subword
// model of its own, taken from m, so that AM can be trained on fastText's
// vectors: the word vectors of the maxWords most frequent tokens of m's
// dictionary words (all of them with maxWords 0), most frequent first, each
// the WordVector of the token's most frequent spelling, with the token's
// count summed over its spellings; and the n-gram table of those tokens, one row per distinct
// character n-gram (in fastText's form, '<' and '>' marking the word's ends)
// holding its hash bucket's row, in the order of model.SortNgramTable (its
// counts the numbers of tokens holding each), as `train-embeddings
// --ngrams-out` writes it, its first maxNgrams rows (all of them with
// maxNgrams 0; the n-grams of every token kept are ranked, only those rows
// are filled). An n-gram whose bucket a pruned model dropped is left out, as
// m's own vectors leave it out.
//
// Words are kept as the tokens model.DefaultTokenizer makes of them, as AM
// meets them: "Linux" and "linux" are the token "linux". A word that is not
// one token in lower case ("dog,", "e-mail", a word holding a no-break space,
// "</s>") or whose token is longer than model.MaxWordBytes is left out: AM
// never meets it as it is, no embeddings file holds it. The n-gram table is
// nil for a model without n-grams (MaxN 0).
func (m *Model) Subwords(maxWords, maxNgrams int) (words, ngrams *model.Embeddings, err error) {
	if maxWords < 0 || maxNgrams < 0 {
		return nil, nil, fmt.Errorf("fasttext: keep %d words and %d n-grams", maxWords, maxNgrams)
	}
	keep, src, counts := m.tokenWords(maxWords)
	if len(keep) == 0 {
		return nil, nil, fmt.Errorf("fasttext: the dictionary holds no word of letters and digits")
	}
	vecs := make([]float32, len(keep)*m.Dim)
	for i, w := range src {
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

// tokenWords returns the maxWords (0: all) most frequent distinct tokens
// that m's dictionary words are in lower case, as model.DefaultTokenizer
// makes them (a word that is not one such token is left out), most frequent
// first; the dictionary word whose vector each takes (its most frequent
// spelling: fastText orders its dictionary by count); and each token's
// count, summed over its spellings.
func (m *Model) tokenWords(maxWords int) (keep, src []string, counts []int64) {
	tok := model.DefaultTokenizer()
	at := make(map[string]int)
	var toks []string
	for i, w := range m.Words {
		if w == eos {
			continue
		}
		toks = tok.AppendTokens(toks[:0], w)
		if len(toks) != 1 || toks[0] != strings.ToLower(w) || len(toks[0]) > model.MaxWordBytes {
			continue
		}
		if j, ok := at[toks[0]]; ok {
			counts[j] += m.Counts[i]
			continue
		}
		at[toks[0]] = len(keep)
		keep, src, counts = append(keep, toks[0]), append(src, w), append(counts, m.Counts[i])
	}
	// The summed counts rank the tokens (ties in dictionary order): "x" of
	// "X" 5 and "x" 5 is more frequent than "y" 9.
	order := make([]int, len(keep))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	if maxWords > 0 && len(order) > maxWords {
		order = order[:maxWords]
	}
	k, s, c := make([]string, len(order)), make([]string, len(order)), make([]int64, len(order))
	for i, j := range order {
		k[i], s[i], c[i] = keep[j], src[j], counts[j]
	}
	return k, s, c
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
