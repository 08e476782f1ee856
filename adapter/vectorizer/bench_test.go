package vectorizer

import (
	"context"
	"runtime"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// bandwidthPerCore is the memory-bandwidth bound per core the goal refers to.
const bandwidthPerCore = 36e9 // bytes/s

// BenchmarkVectorize50Frequent vectorizes 50-word passages of frequent words
// (one goroutine: per core) and reports passages/s and the fraction of the
// memory-bandwidth bound (bytes read per passage = rows × dim × 4 at 36 GB/s).
// The anchor sub-benchmark sums the same 50 rows with simd.GatherSum: the
// memory traffic alone, measured in the same run.
func BenchmarkVectorize50Frequent(b *testing.B) {
	m, desc, err := testmodel.BenchModel()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("model: %s, dim %d, %d words", desc, m.Dim, m.Base.Len())
	words := testmodel.FrequentWords(m, 32, 20_000)
	if len(words) < 100 {
		b.Fatalf("only %d frequent words", len(words))
	}
	passages := testmodel.Passages(words, 1024, 50, 1)
	v, err := New(m, nil, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	bytesPer := float64(50 * m.Dim * 4)
	// Rates are per CPU-second of the benchmark's thread (wall-clock rates on
	// a shared machine count time spent waiting for a core).
	measure := func(b *testing.B, loop func()) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c0, ok := testmodel.ThreadCPUTime()
		loop()
		c1, _ := testmodel.ThreadCPUTime()
		ps := float64(b.N) / b.Elapsed().Seconds()
		if ok {
			cpu := float64(c1-c0) / float64(b.N)
			b.ReportMetric(cpu, "cpu-ns/op")
			ps = 1e9 / cpu
		}
		b.ReportMetric(ps, "passages/cpu-s")
		b.ReportMetric(ps*bytesPer/bandwidthPerCore, "bw-fraction")
	}
	b.Run("anchor-gather", func(b *testing.B) {
		ids := passageRows(m, passages)
		dst := make([]float32, m.Dim)
		measure(b, func() {
			for i := 0; b.Loop(); i++ {
				simd.GatherSum(dst, m.Base.Vectors, ids[i%len(ids)])
			}
		})
	})
	b.Run("vectorize", func(b *testing.B) { // sif-collection: each passage is also counted
		o := DefaultOptions()
		measure(b, func() {
			for i := 0; b.Loop(); i++ {
				if _, err := v.Vectorize(passages[i%len(passages)], TaskPassage, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("vectorize-to", func(b *testing.B) { // vectorize into a reused slice: no result allocated
		o := DefaultOptions()
		dst := make([]float32, m.Dim)
		measure(b, func() {
			for i := 0; b.Loop(); i++ {
				if err := v.VectorizeTo(context.Background(), dst, passages[i%len(passages)], TaskPassage, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("interleaved", func(b *testing.B) { benchInterleaved(b, m, v, passages) })
	b.Run("vectorize-sif", func(b *testing.B) {
		o := DefaultOptions()
		o.Weighting = WeightSIF
		measure(b, func() {
			for i := 0; b.Loop(); i++ {
				if _, err := v.Vectorize(passages[i%len(passages)], TaskPassage, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// benchInterleaved runs blocks of 64 passages of the anchor (GatherSum of
// the rows), Vectorize and VectorizeTo in turn and reports each one's thread
// CPU time per passage over all blocks and the ratios to the anchor: on a
// loaded machine the three see the same neighbours, block for block, and
// the same state of the caches (each reads rows the others did not just read).
func benchInterleaved(b *testing.B, m *model.Model, v *Vectorizer, passages []string) {
	ids := passageRows(m, passages)
	dst := make([]float32, m.Dim)
	o := DefaultOptions()
	const block = 64
	subjects := []func(i int){
		func(i int) { simd.GatherSum(dst, m.Base.Vectors, ids[i%len(ids)]) },
		func(i int) {
			if _, err := v.Vectorize(passages[i%len(passages)], TaskPassage, o); err != nil {
				b.Fatal(err)
			}
		},
		func(i int) {
			if err := v.VectorizeTo(context.Background(), dst, passages[i%len(passages)], TaskPassage, o); err != nil {
				b.Fatal(err)
			}
		},
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, ok := testmodel.ThreadCPUTime(); !ok {
		b.Skip("no thread CPU time on this system")
	}
	cpu := make([]int64, len(subjects))
	next := 0
	for b.Loop() {
		for k, f := range subjects {
			c0, _ := testmodel.ThreadCPUTime()
			for i := range block { // each its own third of the passages: no row warmed by another
				f(next + i + k*len(passages)/len(subjects))
			}
			c1, _ := testmodel.ThreadCPUTime()
			cpu[k] += c1 - c0
		}
		next += block
	}
	n := float64(b.N * block)
	b.ReportMetric(float64(cpu[0])/n, "anchor-cpu-ns/passage")
	b.ReportMetric(float64(cpu[1])/n, "vectorize-cpu-ns/passage")
	b.ReportMetric(float64(cpu[2])/n, "vectorize-to-cpu-ns/passage")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "vectorize/anchor")
	b.ReportMetric(float64(cpu[2])/float64(cpu[0]), "vectorize-to/anchor")
}

// passageRows returns the base rows of the tokens of every passage: what
// the anchor sums.
func passageRows(m *model.Model, passages []string) [][]int32 {
	ids := make([][]int32, len(passages))
	for i, p := range passages {
		for _, t := range m.Tokenizer.AppendTokens(nil, p) {
			id, _ := m.Base.ID(t)
			ids[i] = append(ids[i], id)
		}
	}
	return ids
}
