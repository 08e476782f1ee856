package model

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSkipInference is SkipInference.Infer in the shape of
// BenchmarkInferAM: one word in 64 sentences of 50 words drawn from a Zipf
// distribution over 90,000 output vectors of d = 300, counts by the same law.
func BenchmarkSkipInference(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	words, vecs := benchVocab(rng)
	counts := make([]int64, benchBase)
	for i := range counts {
		counts[i] = int64(1e7 / float64(i+10))
	}
	out, err := NewEmbeddings(benchDim, words, vecs, counts)
	if err != nil {
		b.Fatal(err)
	}
	sk, err := NewSkipInference(out, DefaultSkipConfig())
	if err != nil {
		b.Fatal(err)
	}
	z := rand.NewZipf(rng, 1.1, 10, benchBase-1)
	sentences := make([][]string, benchContexts)
	for i := range sentences {
		sentences[i] = make([]string, benchWords)
		for j := range sentences[i] {
			sentences[i][j] = words[z.Uint64()]
		}
		sentences[i][benchWords/2] = "newword"
	}
	form := vecs[:benchDim]
	dst := make([]float32, benchDim)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		sk.Infer(dst, form, 20, "newword", sentences, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/word")
	cpu.report(b, "word")
}
