package amtrain

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// sharedData loads the general corpus (index cached in the system temp
// directory) and its 100-d skipgram embeddings with counts.
func sharedData(tb testing.TB) *Data {
	tb.Helper()
	shared := shareddata.Dir(tb)
	emb := filepath.Join(shared, "data", "embeddings")
	base, err := model.LoadEmbeddings(filepath.Join(emb, "general-sgns100.vec.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	counts, err := model.LoadCounts(filepath.Join(emb, "general-counts.txt.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	cache := filepath.Join(os.TempDir(), "text2vec-am-amtrain-test")
	x, err := OpenIndex(context.Background(), []string{filepath.Join(shared, "data", "corpus", "general")},
		model.DefaultTokenizer(), cache, quietLog())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { x.Close() })
	c, _ := baseCounts(base, x, counts)
	return &Data{Index: x, Base: base, Counts: c, Tokenizer: model.DefaultTokenizer()}
}

// TestSharedCorpusCounts checks the index of the general corpus against the
// counts file made with the same tokenizer, and the training plan's size.
func TestSharedCorpusCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the 80 MB shared corpus")
	}
	d := sharedData(t)
	shared := shareddata.Dir(t)
	counts, err := model.LoadCounts(filepath.Join(shared, "data", "embeddings", "general-counts.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != d.Index.Len() {
		t.Errorf("index has %d word types, the counts file %d", d.Index.Len(), len(counts))
	}
	bad := 0
	for id, w := range d.Index.Words {
		if counts[w] != d.Index.Count(int32(id)) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d words have another count in the index than in the counts file", bad)
	}
	o := DefaultOptions()
	p, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range d.Counts {
		if c >= 100 {
			want += min(int(c/100), 5)
		}
	}
	if p.Instances != want {
		t.Errorf("instances per epoch = %d, want Σ min(⌊f/100⌋, 5) = %d", p.Instances, want)
	}
}

// BenchmarkTrainEpoch runs one epoch of AM training with the paper's defaults
// on the general corpus (all cores), and, in the same run, the anchor: dense
// float32 dot products on L1-resident vectors on all cores. It reports
// instances/s, the training GFLOP/s (InstanceFlops), the anchor's GFLOP/s,
// their ratio, and the fraction of the nominal peak (222 GFLOP/s per core);
// and, independent of the machine's load, instances and the fraction of one
// core's peak per CPU second.
func BenchmarkTrainEpoch(b *testing.B) {
	d := sharedData(b)
	anchor := anchorGFLOPS(runtime.NumCPU())
	o := DefaultOptions()
	o.Epochs = 1
	var inst, flops, secs, cpu float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.Seed = int64(i + 1)
		res, err := Train(context.Background(), d, o)
		if err != nil {
			b.Fatal(err)
		}
		e := res.Epochs[0]
		inst += float64(e.Instances)
		flops += e.Flops
		secs += e.Seconds
		cpu += e.CPUSeconds
	}
	gf := flops / secs / 1e9
	b.ReportMetric(inst/secs, "instances/s")
	b.ReportMetric(gf, "GFLOP/s")
	b.ReportMetric(anchor, "anchor-GFLOP/s")
	b.ReportMetric(gf/anchor, "ratio-to-anchor")
	b.ReportMetric(gf/float64(PeakGFLOPSPerCore*runtime.NumCPU()), "fraction-of-peak")
	b.ReportMetric(inst/cpu, "instances/cpu-s")
	b.ReportMetric(flops/cpu/1e9/PeakGFLOPSPerCore, "fraction-of-core-peak/cpu-s")
}

// anchorGFLOPS measures dense dot products (2 flops per element) over two
// 2048-float vectors per goroutine, on threads goroutines, for about 300 ms.
func anchorGFLOPS(threads int) float64 {
	const n = 2048
	var wg sync.WaitGroup
	total := make([]float64, threads)
	start := time.Now()
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, c := make([]float32, n), make([]float32, n)
			for i := range a {
				a[i], c[i] = float32(i%7), float32(i%5)
			}
			var sink float32
			reps := 0
			for time.Since(start) < 300*time.Millisecond {
				for k := 0; k < 1000; k++ {
					sink += simd.Dot(a, c)
				}
				reps += 1000
			}
			total[t] = float64(reps) * 2 * n
			if sink == -1 {
				panic("unreachable")
			}
		}()
	}
	wg.Wait()
	var f float64
	for _, x := range total {
		f += x
	}
	return f / time.Since(start).Seconds() / 1e9
}
