package vectorizer

import (
	"runtime"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testmodel"
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
		ids := make([][]int32, len(passages))
		for i, p := range passages {
			for _, t := range m.Tokenizer.AppendTokens(nil, p) {
				id, _ := m.Base.ID(t)
				ids[i] = append(ids[i], id)
			}
		}
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
