package nn_test

import (
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/nn"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// BenchmarkNearest times one query's 10 nearest base words on the default
// model: the index (simd.MatVec) against the anchor, a float64 cosine per
// base word in plain Go (model.Cosine) with the same top-10 selection.
func BenchmarkNearest(b *testing.B) {
	m, err := defaultmodel.Load()
	if err != nil {
		b.Skipf("no embedded default model: %v", err)
	}
	e := m.Base
	q := e.Row(int32(e.Len() / 2))
	b.Run("index", func(b *testing.B) {
		ix, err := nn.NewIndex(e)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := ix.Nearest(q, 10, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(e.Len()), "words")
	})
	b.Run("anchor-cosine-loop", func(b *testing.B) {
		for b.Loop() {
			bruteTop10(e, q)
		}
	})
}

// bruteTop10 returns the 10 best cosines by insertion into a sorted list.
func bruteTop10(e *model.Embeddings, q []float32) []float64 {
	top := make([]float64, 0, 11)
	for i := range e.Len() {
		c := model.Cosine(q, e.Row(int32(i)))
		j := len(top)
		for j > 0 && top[j-1] < c {
			j--
		}
		if j < 10 {
			top = append(top, 0)
			copy(top[j+1:], top[j:])
			top[j] = c
			top = top[:min(len(top), 10)]
		}
	}
	return top
}
