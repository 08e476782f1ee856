package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/text2vec-am/text2vec-am/simd"
)

// The inference benchmark: one word with 64 contexts of 50 words
// each at d = 300, base table 90,000 × 300 (random), context words drawn
// from a Zipf distribution over the vocabulary like real text (uniform ids in
// the "Uniform" variants: every row a cache miss).
const (
	benchDim      = 300
	benchBase     = 90000
	benchContexts = 64
	benchWords    = 50
)

type inferBench struct {
	m     *Model
	ctxs  [][]int32
	word  string
	dst   []float32
	naive *naiveWorkspace
}

// benchVocab returns the benchmarks' benchBase words "w0", "w1" … and
// their random vectors of benchDim, drawn from rng.
func benchVocab(rng *rand.Rand) (words []string, vecs []float32) {
	words = make([]string, benchBase)
	vecs = make([]float32, benchBase*benchDim)
	for i := range words {
		words[i] = "w" + itoa(i)
	}
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64() * 0.3)
	}
	return words, vecs
}

func newInferBench(b *testing.B, mode Mode, zipf bool) *inferBench {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words, vecs := benchVocab(rng)
	base, err := NewEmbeddings(benchDim, words, vecs, nil)
	if err != nil {
		b.Fatal(err)
	}
	vocab := BuildNgramVocab(words[:20000], DefaultNgramConfig())
	m, err := New(Config{Dim: benchDim, Mode: mode, Ngram: DefaultNgramConfig(), Tokenizer: DefaultTokenizer()}, vocab, base, 1)
	if err != nil {
		b.Fatal(err)
	}
	z := rand.NewZipf(rng, 1.1, 10, benchBase-1)
	ctxs := make([][]int32, benchContexts)
	for i := range ctxs {
		ctxs[i] = make([]int32, benchWords)
		for j := range ctxs[i] {
			if zipf {
				ctxs[i][j] = int32(z.Uint64())
			} else {
				ctxs[i][j] = int32(rng.IntN(benchBase))
			}
		}
	}
	return &inferBench{m: m, ctxs: ctxs, word: "w12345", dst: make([]float32, benchDim), naive: newNaiveWorkspace(benchDim, benchContexts)}
}

func benchmarkInfer(b *testing.B, mode Mode, zipf bool) {
	ib := newInferBench(b, mode, zipf)
	ws := ib.m.NewWorkspace()
	ib.m.Infer(ws, ib.word, ib.ctxs, ib.dst)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		ib.m.Infer(ws, ib.word, ib.ctxs, ib.dst)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/word")
	cpu.report(b, "word")
}

// BenchmarkInferAM is Model.Infer in AM mode.
func BenchmarkInferAM(b *testing.B) { benchmarkInfer(b, ModeAM, true) }

// BenchmarkInferAMUniform draws context ids uniformly (no cache reuse).
func BenchmarkInferAMUniform(b *testing.B) { benchmarkInfer(b, ModeAM, false) }

// BenchmarkInferFCM is Model.Infer in FCM mode.
func BenchmarkInferFCM(b *testing.B) { benchmarkInfer(b, ModeFCM, true) }

// BenchmarkInferDirectAM is the anchor: the paper's formulas transcribed
// directly in plain Go loops (M·v_C for every context, the full m×m
// similarity matrix, A applied to every context).
func BenchmarkInferDirectAM(b *testing.B) { benchmarkDirect(b, false, true) }

// BenchmarkInferDirectAMUniform is the anchor for uniform context ids.
func BenchmarkInferDirectAMUniform(b *testing.B) { benchmarkDirect(b, false, false) }

// BenchmarkInferDirectSIMDAM is the direct transcription on the simd
// kernels: it separates the gain of the algebra from that of the kernels.
func BenchmarkInferDirectSIMDAM(b *testing.B) { benchmarkDirect(b, true, true) }

func benchmarkDirect(b *testing.B, useSIMD, zipf bool) {
	ib := newInferBench(b, ModeAM, zipf)
	// The direct version must agree with Infer.
	ws := ib.m.NewWorkspace()
	want := make([]float32, benchDim)
	ib.m.Infer(ws, ib.word, ib.ctxs, want)
	ib.naive.infer(ib.m, ib.word, ib.ctxs, ib.dst, useSIMD)
	for k := range want {
		if math.Abs(float64(want[k]-ib.dst[k])) > 1e-3*(1+math.Abs(float64(want[k]))) {
			b.Fatalf("direct transcription differs from Infer at %d: %v vs %v", k, ib.dst[k], want[k])
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		ib.naive.infer(ib.m, ib.word, ib.ctxs, ib.dst, useSIMD)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/word")
	cpu.report(b, "word")
}

// naiveWorkspace holds the buffers of the direct transcription (allocated
// once, so that the comparison is about arithmetic, not allocation).
type naiveWorkspace struct {
	ids               []int32
	form, ctx, actx   []float32
	means, mv, av, ss []float32
	rho               []float32
}

func newNaiveWorkspace(d, m int) *naiveWorkspace {
	return &naiveWorkspace{form: make([]float32, d), ctx: make([]float32, d), actx: make([]float32, d),
		means: make([]float32, m*d), mv: make([]float32, m*d), av: make([]float32, m*d), ss: make([]float32, m*m), rho: make([]float32, m)}
}

func (nw *naiveWorkspace) infer(m *Model, word string, contexts [][]int32, dst []float32, useSIMD bool) {
	d := m.Dim
	nc := len(contexts)
	matvec := func(dst, a, x []float32) {
		if useSIMD {
			simd.MatVec(dst, a, d, d, x)
			return
		}
		for r := 0; r < d; r++ {
			var s float32
			row := a[r*d : (r+1)*d]
			for c, v := range row {
				s += v * x[c]
			}
			dst[r] = s
		}
	}
	// v_form: mean of the n-gram embeddings.
	nw.ids = m.Vocab.AppendIDs(nw.ids[:0], word)
	clear(nw.form)
	for _, id := range nw.ids {
		for k, v := range m.Ngrams[int(id)*d : (int(id)+1)*d] {
			nw.form[k] += v
		}
	}
	for k := range nw.form {
		nw.form[k] /= float32(len(nw.ids))
	}
	// v_Ci: mean of the context's word vectors; then M v_Ci and A v_Ci.
	for i, ids := range contexts {
		mean := nw.means[i*d : (i+1)*d]
		if useSIMD {
			simd.GatherSum(mean, m.Base.Vectors, ids)
		} else {
			clear(mean)
			for _, id := range ids {
				for k, v := range m.Base.Row(id) {
					mean[k] += v
				}
			}
		}
		for k := range mean {
			mean[k] /= float32(len(ids))
		}
		matvec(nw.mv[i*d:(i+1)*d], m.M, mean)
		matvec(nw.av[i*d:(i+1)*d], m.A, mean)
	}
	// s(C_i, C_j) for all pairs, ρ_i = Σ_j s_ij / Σ_jk s_jk.
	sq := float32(math.Sqrt(float64(d)))
	if useSIMD {
		for i := 0; i < nc; i++ {
			for j := 0; j < nc; j++ {
				nw.ss[i*nc+j] = simd.Dot(nw.mv[i*d:(i+1)*d], nw.mv[j*d:(j+1)*d])
			}
		}
	} else {
		for i := 0; i < nc; i++ {
			for j := 0; j < nc; j++ {
				var s float32
				for k := 0; k < d; k++ {
					s += nw.mv[i*d+k] * nw.mv[j*d+k]
				}
				nw.ss[i*nc+j] = s
			}
		}
	}
	var z float32
	for i := 0; i < nc; i++ {
		nw.rho[i] = 0
		for j := 0; j < nc; j++ {
			nw.rho[i] += nw.ss[i*nc+j] / sq
		}
		z += nw.rho[i]
	}
	// v_ctx = Σ ρ_i v_Ci, and A v_ctx = Σ ρ_i A v_Ci.
	clear(nw.ctx)
	clear(nw.actx)
	for i := 0; i < nc; i++ {
		r := nw.rho[i] / (z + rhoEpsilon)
		for k := 0; k < d; k++ {
			nw.ctx[k] += r * nw.means[i*d+k]
			nw.actx[k] += r * nw.av[i*d+k]
		}
	}
	// α = σ(uᵀ[v_ctx; v_form] + b); v = α A v_ctx + (1 − α) v_form.
	zz := m.B
	for k := 0; k < d; k++ {
		zz += m.U[k]*nw.ctx[k] + m.U[d+k]*nw.form[k]
	}
	a := float32(1 / (1 + math.Exp(-float64(zz))))
	for k := range dst {
		dst[k] = a*nw.actx[k] + (1-a)*nw.form[k]
	}
}

// BenchmarkInferAMServing is a serving-sized query: 4 contexts of 20 words.
func BenchmarkInferAMServing(b *testing.B) {
	ib := newInferBench(b, ModeAM, true)
	ctxs := make([][]int32, 4)
	for i := range ctxs {
		ctxs[i] = ib.ctxs[i][:20]
	}
	ws := ib.m.NewWorkspace()
	ib.m.Infer(ws, ib.word, ctxs, ib.dst)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		ib.m.Infer(ws, ib.word, ctxs, ib.dst)
	}
	cpu.report(b, "word")
}

// BenchmarkTrainStepAM is one training instance: Infer and Backward (64
// contexts of 50 words, d = 300).
func BenchmarkTrainStepAM(b *testing.B) {
	ib := newInferBench(b, ModeAM, true)
	ws := ib.m.NewWorkspace()
	g := ib.m.NewGrads()
	target := make([]float32, benchDim)
	ib.m.Infer(ws, ib.word, ib.ctxs, ib.dst)
	ib.m.Backward(ws, target, g)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		ib.m.Infer(ws, ib.word, ib.ctxs, ib.dst)
		ib.m.Backward(ws, target, g)
	}
	cpu.report(b, "instance")
}
