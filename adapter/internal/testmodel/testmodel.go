// Package testmodel builds small synthetic AM models for the adapter's tests
// and benchmarks (the embedded default model is trained separately).
package testmodel

import (
	"fmt"
	"math/rand/v2"

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
	rng := rand.New(rand.NewPCG(s.Seed, 7))
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
	vecs := make([]float32, n*s.Dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64())
	}
	base, err := model.NewEmbeddings(s.Dim, words, vecs, counts)
	if err != nil {
		return nil, fmt.Errorf("test model: %w", err)
	}
	cfg := model.Config{Dim: s.Dim, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	// N-grams of the vocabulary plus some unseen-word shapes, so forms are not all UNK.
	ngWords := append([]string(nil), words...)
	for i := range 50 {
		ngWords = append(ngWords, fmt.Sprintf("jargon%d", i), fmt.Sprintf("zq%dx", i))
	}
	vocab := model.BuildNgramVocab(ngWords, cfg.Ngram)
	m, err := model.New(cfg, vocab, base, int64(s.Seed))
	if err != nil {
		return nil, fmt.Errorf("test model: %w", err)
	}
	return m, nil
}
