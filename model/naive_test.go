package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// params64 is a float64 copy of a model's parameters for the direct,
// formula-by-formula transcription of the paper used to check Infer and,
// by finite differences, Backward.
type params64 struct {
	d       int
	ngrams  []float64
	m, a, u []float64
	b       float64
}

func toParams64(m *Model) *params64 {
	f := func(x []float32) []float64 {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = float64(v)
		}
		return y
	}
	return &params64{d: m.Dim, ngrams: f(m.Ngrams), m: f(m.M), a: f(m.A), u: f(m.U), b: float64(m.B)}
}

// naiveInfer transcribes the paper (§3) and the reference implementation
// literally: M·v_Ci for every context, the full m×m similarity matrix, A
// applied to v_ctx, the gate on [v_ctx; v_form].
func naiveInfer(m *Model, p *params64, word string, contexts [][]int32) (v []float64, alpha float64, rho []float64, formOnly bool) {
	d := p.d
	matvec := func(a []float64, x []float64) []float64 {
		y := make([]float64, d)
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				y[r] += a[r*d+c] * x[c]
			}
		}
		return y
	}
	dot := func(a, b []float64) (s float64) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	form := make([]float64, d)
	if m.Mode.UsesForm() {
		ids := m.Vocab.AppendIDs(nil, word)
		for _, id := range ids {
			for k := 0; k < d; k++ {
				form[k] += p.ngrams[int(id)*d+k] / float64(len(ids))
			}
		}
	}
	rho = make([]float64, len(contexts))
	var means [][]float64
	total := 0
	// Config.ContextSIF: word w weighs a/(a + count(w)/Σ counts).
	weight := func(id int32) float64 { return 1 }
	if a := float64(m.ContextSIF); a > 0 {
		var sum float64
		for _, c := range m.Base.Counts {
			sum += float64(c)
		}
		weight = func(id int32) float64 { return a / (a + float64(m.Base.Counts[id])/sum) }
	}
	for _, ids := range contexts {
		mean := make([]float64, d)
		var wsum float64
		for _, id := range ids {
			wsum += weight(id)
		}
		for _, id := range ids {
			for k, x := range m.Base.Row(id) {
				mean[k] += weight(id) * float64(x) / wsum
			}
		}
		total += len(ids)
		means = append(means, mean)
	}
	if m.Mode == ModeForm || total == 0 {
		return form, 0, rho, true
	}
	if m.Mode.attentive() {
		mv := make([][]float64, len(means))
		for i := range means {
			mv[i] = matvec(p.m, means[i])
		}
		var z float64
		for i := range means {
			for j := range means {
				s := dot(mv[i], mv[j]) / math.Sqrt(float64(d))
				rho[i] += s
				z += s
			}
		}
		for i := range rho {
			rho[i] /= math.Max(z, 0) + rhoEpsilon
		}
	} else {
		for i, ids := range contexts {
			rho[i] = float64(len(ids)) / float64(total)
		}
	}
	ctx := make([]float64, d)
	for i := range means {
		for k := range ctx {
			ctx[k] += rho[i] * means[i][k]
		}
	}
	actx := matvec(p.a, ctx)
	if !m.Mode.Gated() {
		return actx, 1, rho, false
	}
	z := dot(p.u[:d], ctx) + dot(p.u[d:2*d], form) + p.b
	if m.CountBuckets > 0 {
		// The count bucket, written out: ⌊log₂ k⌋ for the k non-empty
		// contexts, the last bucket taking the rest.
		k := 0
		for _, ids := range contexts {
			if len(ids) > 0 {
				k++
			}
		}
		b := 0
		for k >= 2<<b {
			b++
		}
		z += p.u[2*d+min(b, m.CountBuckets-1)]
	}
	if m.GateAgreement {
		z += p.u[2*d+m.CountBuckets] * naiveAgreement(means)
	}
	if m.GateCoverage {
		// The input is the coverage's shortfall below the knee (0.3).
		z += p.u[2*d+m.CountBuckets+boolInt(m.GateAgreement)] * max(0.3-naiveCoverage(m, word), 0) / 0.3
	}
	alpha = 1 / (1 + math.Exp(-z))
	v = make([]float64, d)
	for k := range v {
		v[k] = alpha*actx[k] + (1-alpha)*form[k]
	}
	return v, alpha, rho, false
}

// naiveCoverage is the share of word's character n-grams, every run of
// MinN to MaxN symbols of the word between its boundary markers (a marker
// one symbol, a rune another), that the n-gram vocabulary holds.
func naiveCoverage(m *Model, word string) float64 {
	cfg := m.Vocab.Config()
	bow, eow := cfg.boundaries()
	syms := []string{bow}
	for _, r := range word {
		syms = append(syms, string(r))
	}
	syms = append(syms, eow)
	known, total := 0, 0
	for n := cfg.MinN; n <= cfg.MaxN; n++ {
		for i := 0; i+n <= len(syms); i++ {
			total++
			if _, ok := m.Vocab.index[strings.Join(syms[i:i+n], "")]; ok {
				known++
			}
		}
	}
	if total == 0 {
		return 0 // a word too short for any n-gram
	}
	return float64(known) / float64(total)
}

// naiveAgreement is the mean cosine over the ordered pairs i ≠ j of the
// non-zero context means, written out pair by pair; 0 with fewer than two.
func naiveAgreement(means [][]float64) float64 {
	var unit [][]float64
	for _, v := range means {
		var n float64
		for _, x := range v {
			n += x * x
		}
		if n == 0 {
			continue
		}
		u := make([]float64, len(v))
		for k, x := range v {
			u[k] = x / math.Sqrt(n)
		}
		unit = append(unit, u)
	}
	var sum float64
	pairs := 0
	for i := range unit {
		for j := range unit {
			if i == j {
				continue
			}
			for k := range unit[i] {
				sum += unit[i][k] * unit[j][k]
			}
			pairs++
		}
	}
	if pairs == 0 {
		return 0
	}
	return sum / float64(pairs)
}

// testModel builds a small model over random base embeddings.
func testModel(t testing.TB, mode Mode, d int, seed uint64) *Model {
	t.Helper()
	return testModelBuckets(t, mode, d, seed, 0)
}

// testModelBuckets is testModel with the gate's count buckets.
func testModelBuckets(t testing.TB, mode Mode, d int, seed uint64, buckets int) *Model {
	t.Helper()
	base := randomEmbeddings(t, 200, d, seed)
	vocab := BuildNgramVocab([]string{"apple", "applet", "apply", "maple", "ample", "sample", "happy", "apples", "grapple", "dapple"}, NgramConfig{MinN: 3, MaxN: 5, MinCount: 2})
	cfg := Config{Dim: d, Mode: mode, Ngram: vocab.Config(), Tokenizer: DefaultTokenizer(), CountBuckets: buckets}
	m, err := New(cfg, vocab, base, int64(seed))
	if err != nil {
		t.Fatal(err)
	}
	// Larger parameters than the Glorot initialisation, so that every term
	// of the gradient is far from zero.
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, x := range [][]float32{m.Ngrams, m.M, m.A, m.U} {
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 0.5)
		}
	}
	m.B = 0.3
	return m
}

func randomContexts(rng *rand.Rand, n, maxLen, vocab int) [][]int32 {
	ctxs := make([][]int32, n)
	for i := range ctxs {
		ctxs[i] = make([]int32, 1+rng.IntN(maxLen))
		for j := range ctxs[i] {
			ctxs[i][j] = int32(rng.IntN(vocab))
		}
	}
	return ctxs
}
