// Package testmodel builds small synthetic AM models for the tests
// and benchmarks (the embedded default model is trained separately).
package testmodel

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// Spec describes a synthetic vocabulary: Frequent words "f0", "f1", … with
// count FrequentCount, and Rare words "r0", "r1", … with count RareCount.
type Spec struct {
	Dim                      int
	Frequent, Rare           int
	FrequentCount, RareCount int64
	Seed                     uint64
}

// DefaultSpec is 2,000 frequent words (count 1000) and 100 rare ones (count 5), dimension 32.
func DefaultSpec() Spec {
	return Spec{Dim: 32, Frequent: 2000, Rare: 100, FrequentCount: 1000, RareCount: 5, Seed: 1}
}

// FrequentWord returns the i-th frequent word.
func FrequentWord(i int) string { return fmt.Sprintf("f%d", i) }

// RareWord returns the i-th rare word.
func RareWord(i int) string { return fmt.Sprintf("r%d", i) }

// New builds an AM model with random parameters over the spec's vocabulary.
func New(s Spec) (*model.Model, error) {
	n := s.Frequent + s.Rare
	words := make([]string, 0, n)
	counts := make([]int64, 0, n)
	for i := range s.Frequent {
		words = append(words, FrequentWord(i))
		counts = append(counts, s.FrequentCount+int64(i%7))
	}
	for i := range s.Rare {
		words = append(words, RareWord(i))
		counts = append(counts, s.RareCount)
	}
	// N-grams of the vocabulary plus some unseen-word shapes, so forms are not all UNK.
	ngWords := append([]string(nil), words...)
	for i := range 50 {
		ngWords = append(ngWords, fmt.Sprintf("jargon%d", i), fmt.Sprintf("zq%dx", i))
	}
	return FromWords(Words{
		Dim: s.Dim, Words: words, Counts: counts, NgramWords: ngWords, Ngram: model.DefaultNgramConfig(),
		VectorSeed: [2]uint64{s.Seed, 7}, ModelSeed: int64(s.Seed),
	})
}

// Words describes a synthetic model over given words: base vectors drawn from
// N(0, 1) with a PCG source seeded with VectorSeed, word by word; the n-gram
// vocabulary of NgramWords; AM parameters initialized by model.New with
// ModelSeed. The same Words always give the same model.
type Words struct {
	Dim        int
	Words      []string
	Counts     []int64 // nil: no counts
	NgramWords []string
	Ngram      model.NgramConfig
	VectorSeed [2]uint64
	ModelSeed  int64
}

// FromWords builds the AM model w describes, with the default tokenizer.
func FromWords(w Words) (*model.Model, error) {
	rng := rand.New(rand.NewPCG(w.VectorSeed[0], w.VectorSeed[1]))
	vecs := make([]float32, len(w.Words)*w.Dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64())
	}
	base, err := model.NewEmbeddings(w.Dim, w.Words, vecs, w.Counts)
	if err != nil {
		return nil, fmt.Errorf("test model: %w", err)
	}
	cfg := model.Config{Dim: w.Dim, Mode: model.ModeAM, Ngram: w.Ngram, Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab(w.NgramWords, cfg.Ngram), base, w.ModelSeed)
	if err != nil {
		return nil, fmt.Errorf("test model: %w", err)
	}
	return m, nil
}

// BenchModel returns the model benchmarks run on and its description: the
// file named by $T2VAM_BENCH_MODEL, else the embedded default model, else
// (while no default model is embedded) a synthetic one of dimension 100 with
// 50,000 words.
func BenchModel() (*model.Model, string, error) {
	if path := os.Getenv("T2VAM_BENCH_MODEL"); path != "" {
		m, err := model.LoadFile(path)
		if err != nil {
			return nil, "", err
		}
		if m.Base == nil {
			return nil, "", fmt.Errorf("T2VAM_BENCH_MODEL=%s has no base embeddings", path)
		}
		return m, path, nil
	}
	if m, err := defaultmodel.Load(); err == nil && m.Base != nil {
		return m, "embedded default model", nil
	}
	m, err := New(Spec{Dim: 100, Frequent: 50_000, Rare: 1000, FrequentCount: 100, RareCount: 5, Seed: 1})
	return m, "synthetic model (dim 100, 51,000 words; no default model embedded)", err
}

// FrequentWords returns up to n words of m whose base count is at least
// minCount (every word when the model has no counts) and which the tokenizer
// keeps as they are, in vocabulary order.
func FrequentWords(m *model.Model, minCount int64, n int) []string {
	var out []string
	for i, w := range m.Base.Words {
		if len(out) == n {
			break
		}
		if m.Base.Counts != nil && m.Base.Counts[i] < minCount {
			continue
		}
		if toks := m.Tokenizer.AppendTokens(nil, w); len(toks) != 1 || toks[0] != w {
			continue
		}
		out = append(out, w)
	}
	return out
}

// Passages returns count passages of words drawn at random from words, each
// wordsPer long, with a full stop every 10 words.
func Passages(words []string, count, wordsPer int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]string, count)
	var b strings.Builder
	for i := range out {
		b.Reset()
		for j := range wordsPer {
			if j > 0 {
				if j%10 == 0 {
					b.WriteString(". ")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteByte('.')
		out[i] = b.String()
	}
	return out
}

// JargonPassages returns n passages of the default model's words with rare
// and unseen ("jargon0" … "jargon9") words among frequent ones: what a
// memory learns contexts and passage counts from.
func JargonPassages(n int) []string {
	var words []string
	for i := range 200 {
		words = append(words, FrequentWord(i))
	}
	for i := range 30 {
		words = append(words, RareWord(i), fmt.Sprintf("jargon%d", i%10))
	}
	return Passages(words, n, 30, 11)
}

// JargonQueries returns 10 queries that hold the words of JargonPassages.
func JargonQueries() []string {
	var qs []string
	for i := range 10 {
		qs = append(qs, fmt.Sprintf("%s jargon%d %s %s", FrequentWord(i), i, RareWord(i), FrequentWord(i+50)))
	}
	return qs
}
