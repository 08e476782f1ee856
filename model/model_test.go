package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var allModes = []Mode{ModeAM, ModeFCM, ModeForm, ModeContext, ModeFCMContext}

func TestParseMode(t *testing.T) {
	for _, m := range allModes {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("AM!"); err == nil || !strings.Contains(err.Error(), `"AM!"`) {
		t.Errorf("ParseMode accepted a bad mode: %v", err)
	}
}

func TestNgrams(t *testing.T) {
	all := BuildNgramVocab([]string{"ab", "héllo"}, NgramConfig{MinN: 3, MaxN: 5, MinCount: 1})
	ngramsOf := func(w string) (gs []string) {
		for _, id := range all.AppendIDs(nil, w) {
			gs = append(gs, all.Ngram(id))
		}
		return gs
	}
	got := ngramsOf("ab")
	B := Boundary
	// The reference: letters = [<S>, a, b, <S>]; by start, then by length.
	want := []string{B + "ab", B + "ab" + B, "ab" + B}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("n-grams of ab = %q, want %q", got, want)
	}
	got = ngramsOf("héllo")
	want = []string{B + "hé", B + "hél", B + "héll", "hél", "héll", "héllo", "éll", "éllo", "éllo" + B, "llo", "llo" + B, "lo" + B}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("n-grams of héllo = %q, want %q", got, want)
	}

	// "ab" occurs 4 times among distinct words (duplicates counted once), so
	// B+"ab" etc. qualify; ids in decreasing count.
	words := []string{"abx", "aby", "abz", "abw", "abx", "cd"}
	v := BuildNgramVocab(words, NgramConfig{MinN: 3, MaxN: 3, MinCount: 2})
	var ngrams []string
	for id := int32(1); id < int32(v.Len()); id++ {
		ngrams = append(ngrams, v.Ngram(id))
	}
	if !reflect.DeepEqual(ngrams, []string{B + "ab"}) {
		t.Fatalf("vocabulary %q, want only %q (count 4; abx counted once)", ngrams, B+"ab")
	}
	v = BuildNgramVocab(words, NgramConfig{MinN: 3, MaxN: 3, MinCount: 1})
	if v.Ngram(1) != B+"ab" || v.Len() != 12 {
		t.Fatalf("vocabulary of %d, first %q", v.Len(), v.Ngram(1))
	}
	ids := v.AppendIDs(nil, "abq")
	if len(ids) != 3 || ids[0] != 1 || ids[1] != UnknownNgram || ids[2] != UnknownNgram {
		t.Fatalf("ids of abq = %v", ids)
	}
	if ids := v.AppendIDs(nil, ""); !reflect.DeepEqual(ids, []int32{UnknownNgram}) {
		t.Fatalf("ids of the empty word = %v, want [UNK]", ids)
	}
	if n := testing.AllocsPerRun(100, func() { ids = v.AppendIDs(ids[:0], "abracadabra") }); n != 0 {
		t.Errorf("AppendIDs allocates %.1f times", n)
	}
}

func FuzzNgrams(f *testing.F) {
	v := BuildNgramVocab([]string{"hello", "help", "yellow", "héllo", "hel\xff"}, NgramConfig{MinN: 2, MaxN: 4, MinCount: 1})
	f.Add("hello")
	f.Add("\xff\xfe")
	f.Add("")
	f.Fuzz(func(t *testing.T, w string) {
		ids := v.AppendIDs(nil, w)
		n := len([]rune(w)) + 2
		want := 0
		for i := 0; i < n; i++ {
			for l := 2; l <= 4 && i+l <= n; l++ {
				want++
			}
		}
		if want == 0 {
			want = 1
		}
		if len(ids) != want {
			t.Fatalf("%d ids for %q, want %d", len(ids), w, want)
		}
		for _, id := range ids {
			if id < 0 || int(id) >= v.Len() {
				t.Fatalf("id %d out of range", id)
			}
		}
	})
}

func closeTo(a float32, b, tol float64) bool {
	return math.Abs(float64(a)-b) <= tol*(1+math.Abs(b))
}

func TestInferMatchesPaper(t *testing.T) {
	for _, nb := range []int{0, 4} {
		for _, mode := range allModes {
			if nb > 0 && !mode.Gated() {
				continue // count buckets need a gate (Config.Validate)
			}
			t.Run(fmt.Sprintf("%v/buckets=%d", mode, nb), func(t *testing.T) { checkInferMatchesPaper(t, testModelBuckets(t, mode, 16, 11, nb)) })
		}
	}
}

// checkInferMatchesPaper compares Infer with the float64 transcription of
// the paper (naiveInfer) on 20 random words and context sets (1–8 contexts).
func checkInferMatchesPaper(t *testing.T, m *Model) {
	p := toParams64(m)
	ws := m.NewWorkspace()
	rng := rand.New(rand.NewPCG(5, 5))
	dst := make([]float32, m.Dim)
	for trial := 0; trial < 20; trial++ {
		ctxs := randomContexts(rng, 1+rng.IntN(8), 12, m.Base.Len())
		if trial%5 == 4 {
			ctxs[0] = nil // a context without known words
		}
		word := []string{"apple", "zzz", "grapples", "a", ""}[trial%5]
		exp := m.Infer(ws, word, ctxs, dst)
		want, alpha, rho, formOnly := naiveInfer(m, p, word, ctxs)
		for k := range want {
			if !closeTo(dst[k], want[k], 1e-4) {
				t.Fatalf("trial %d: v[%d] = %v, the paper's formulas give %v", trial, k, dst[k], want[k])
			}
		}
		if exp.FormOnly != formOnly || !closeTo(exp.Alpha, alpha, 1e-5) {
			t.Fatalf("trial %d: explanation α=%v formOnly=%v, want α=%v formOnly=%v", trial, exp.Alpha, exp.FormOnly, alpha, formOnly)
		}
		if len(exp.Rho) != len(ctxs) {
			t.Fatalf("trial %d: %d ρ for %d contexts", trial, len(exp.Rho), len(ctxs))
		}
		var sum float64
		for i := range rho {
			if !closeTo(exp.Rho[i], rho[i], 1e-4) {
				t.Fatalf("trial %d: ρ[%d] = %v, want %v", trial, i, exp.Rho[i], rho[i])
			}
			sum += float64(exp.Rho[i])
		}
		if !formOnly && math.Abs(sum-1) > 1e-4 {
			t.Fatalf("trial %d: Σρ = %v", trial, sum)
		}
	}
}

func TestInferWithoutContext(t *testing.T) {
	for _, mode := range allModes {
		m := testModel(t, mode, 8, 3)
		ws := m.NewWorkspace()
		form := make([]float32, m.Dim)
		m.Infer(ws, "apple", nil, form)
		got := make([]float32, m.Dim)
		exp := m.Infer(ws, "apple", [][]int32{{}, nil}, got)
		if !exp.FormOnly || exp.Alpha != 0 || !reflect.DeepEqual(exp.Rho, []float32{0, 0}) {
			t.Errorf("%v: explanation %+v for empty contexts", mode, exp)
		}
		if !reflect.DeepEqual(got, form) {
			t.Errorf("%v: empty contexts changed the output", mode)
		}
		zero := !slices.ContainsFunc(got, func(x float32) bool { return x != 0 })
		if contextOnly := !mode.UsesForm(); zero != contextOnly {
			t.Errorf("%v: output without context is zero: %v", mode, zero)
		}
	}
}

func TestInferNoAllocs(t *testing.T) {
	for _, mode := range allModes {
		m := testModel(t, mode, 32, 4)
		ws := m.NewWorkspace()
		ctxs := randomContexts(rand.New(rand.NewPCG(1, 1)), 16, 20, m.Base.Len())
		dst := make([]float32, m.Dim)
		g := m.NewGrads()
		target := make([]float32, m.Dim)
		m.Infer(ws, "grapples", ctxs, dst)
		m.Backward(ws, target, g)
		if n := testing.AllocsPerRun(50, func() { m.Infer(ws, "grapples", ctxs, dst) }); n != 0 {
			t.Errorf("%v: Infer allocates %.1f times per call", mode, n)
		}
		if n := testing.AllocsPerRun(50, func() {
			g.Reset()
			m.Infer(ws, "grapples", ctxs, dst)
			m.Backward(ws, target, g)
		}); n != 0 {
			t.Errorf("%v: Backward allocates %.1f times per call", mode, n)
		}
	}
}

func TestInferBatch(t *testing.T) {
	m := testModel(t, ModeAM, 16, 9)
	rng := rand.New(rand.NewPCG(2, 2))
	qs := make([]Query, 57)
	want := make([][]float32, len(qs))
	got := make([][]float32, len(qs))
	ws := m.NewWorkspace()
	for i := range qs {
		qs[i] = Query{Word: []string{"apple", "maple", "x"}[i%3], Contexts: randomContexts(rng, rng.IntN(5), 10, m.Base.Len())}
		want[i] = make([]float32, m.Dim)
		got[i] = make([]float32, m.Dim)
		m.Infer(ws, qs[i].Word, qs[i].Contexts, want[i])
	}
	m.InferBatch(qs, got)
	if !reflect.DeepEqual(got, want) {
		t.Fatal("InferBatch differs from Infer")
	}
	perCall := testing.AllocsPerRun(5, func() { m.InferBatch(qs, got) })
	if limit := float64(8*runtime.GOMAXPROCS(0) + 8); perCall > limit {
		t.Errorf("InferBatch of %d queries allocates %.0f times, more than per-call overhead (%v)", len(qs), perCall, limit)
	}
}

func TestContextIDs(t *testing.T) {
	m := testModel(t, ModeAM, 4, 1)
	w0, w1 := m.Base.Words[0], m.Base.Words[1]
	got := m.ContextIDs(nil, []string{w0, "unknown", "target", w1, w0}, "target")
	if !reflect.DeepEqual(got, []int32{0, 1, 0}) {
		t.Errorf("ContextIDs = %v", got)
	}
	got = m.ContextIDs(nil, []string{w0, w1}, w1)
	if !reflect.DeepEqual(got, []int32{0}) {
		t.Errorf("ContextIDs dropping the target = %v", got)
	}
}

func TestAMSkipBeta(t *testing.T) {
	for c, want := range map[int64]float32{0: 1, 1: 31.0 / 32, 16: 0.5, 31: 1.0 / 32, 32: 0, 1000: 0, -1: 1} {
		if got := AMSkipBeta(c); got != want {
			t.Errorf("AMSkipBeta(%d) = %v, want %v", c, got, want)
		}
	}
}

// naiveLoss is |v − target|² by the direct transcription in float64.
func naiveLoss(m *Model, p *params64, word string, ctxs [][]int32, target []float32) float64 {
	v, _, _, _ := naiveInfer(m, p, word, ctxs)
	var l float64
	for k := range v {
		diff := v[k] - float64(target[k])
		l += diff * diff
	}
	return l
}

// TestGradients checks every gradient entry of every parameter, in every
// mode, against central finite differences of the float64 transcription.
func TestGradients(t *testing.T) {
	for _, mode := range allModes {
		t.Run(mode.String(), func(t *testing.T) { checkGradients(t, testModel(t, mode, 6, 21)) })
	}
}

// TestGradientsCountBuckets checks the gate's count biases: instances with
// 1, 2 and 4 non-empty contexts fall in buckets 0, 1 and 2.
func TestGradientsCountBuckets(t *testing.T) {
	for _, mode := range allModes {
		if !mode.Gated() {
			continue // count buckets need a gate (Config.Validate)
		}
		t.Run(mode.String(), func(t *testing.T) { checkGradients(t, testModelBuckets(t, mode, 6, 21, 3)) })
	}
}

// checkGradients compares Backward with finite differences of the float64
// transcription (naiveLoss) for every parameter, in four instances.
func checkGradients(t *testing.T, m *Model) {
	rng := rand.New(rand.NewPCG(8, 8))
	ws := m.NewWorkspace()
	dst := make([]float32, m.Dim)
	for trial := 0; trial < 4; trial++ {
		ctxs := randomContexts(rng, 1+rng.IntN(5), 6, m.Base.Len())
		if m.CountBuckets > 0 && trial < 3 {
			ctxs = randomContexts(rng, []int{1, 2, 5}[trial], 6, m.Base.Len())
			if trial == 2 {
				ctxs[3] = nil // 4 non-empty contexts
			}
		}
		if trial == 3 {
			ctxs = [][]int32{nil} // no usable context
		}
		word := []string{"apple", "sample", "maples", "happy"}[trial]
		target := make([]float32, m.Dim)
		for k := range target {
			target[k] = float32(rng.NormFloat64())
		}
		g := m.NewGrads()
		m.Infer(ws, word, ctxs, dst)
		loss := m.Backward(ws, target, g)
		p := toParams64(m)
		if want := naiveLoss(m, p, word, ctxs, target); !closeTo(loss, want, 1e-4) {
			t.Fatalf("trial %d: loss %v, want %v", trial, loss, want)
		}
		const h = 1e-4
		check := func(name string, x []float64, i int, analytic float32) {
			t.Helper()
			orig := x[i]
			x[i] = orig + h
			lp := naiveLoss(m, p, word, ctxs, target)
			x[i] = orig - h
			lm := naiveLoss(m, p, word, ctxs, target)
			x[i] = orig
			fd := (lp - lm) / (2 * h)
			if math.Abs(float64(analytic)-fd) > 2e-3*(1+math.Abs(fd)) {
				t.Fatalf("trial %d: ∂L/∂%s[%d] = %v, finite differences give %v", trial, name, i, analytic, fd)
			}
		}
		for i := range p.m {
			check("M", p.m, i, g.M[i])
		}
		for i := range p.a {
			check("A", p.a, i, g.A[i])
		}
		for i := range p.u {
			check("U", p.u, i, g.U[i])
		}
		bs := []float64{p.b}
		orig := p.b
		for _, s := range []float64{1, -1} {
			p.b = orig + s*h
			bs = append(bs, naiveLoss(m, p, word, ctxs, target))
		}
		p.b = orig
		if fd := (bs[1] - bs[2]) / (2 * h); math.Abs(float64(g.B)-fd) > 2e-3*(1+math.Abs(fd)) {
			t.Fatalf("trial %d: ∂L/∂B = %v, finite differences give %v", trial, g.B, fd)
		}
		// Every n-gram row: touched rows against their gradient rows,
		// untouched rows must have a zero finite difference.
		touched := map[int32][]float32{}
		for k, id := range g.Rows {
			touched[id] = g.NgramGrads[k*m.Dim : (k+1)*m.Dim]
		}
		zero := make([]float32, m.Dim)
		for row := 0; row < m.Vocab.Len(); row++ {
			gr, ok := touched[int32(row)]
			if !ok {
				gr = zero
			}
			for k := 0; k < m.Dim; k++ {
				check("Ngrams", p.ngrams, row*m.Dim+k, gr[k])
			}
		}
	}
}

func TestGradsAddReset(t *testing.T) {
	m := testModel(t, ModeAM, 8, 2)
	rng := rand.New(rand.NewPCG(3, 3))
	ws := m.NewWorkspace()
	dst := make([]float32, m.Dim)
	target := make([]float32, m.Dim)
	both, g1, g2 := m.NewGrads(), m.NewGrads(), m.NewGrads()
	for i, w := range []string{"apple", "maple"} {
		ctxs := randomContexts(rng, 3, 5, m.Base.Len())
		m.Infer(ws, w, ctxs, dst)
		m.Backward(ws, target, both)
		m.Backward(ws, target, []*Grads{g1, g2}[i])
	}
	g1.Add(g2)
	if g1.Instances != 2 || math.Abs(g1.Loss-both.Loss) > 1e-9 || g1.B != both.B {
		t.Fatalf("Add: instances %d loss %v b %v; want 2, %v, %v", g1.Instances, g1.Loss, g1.B, both.Loss, both.B)
	}
	for i := range both.M {
		if math.Abs(float64(g1.M[i]-both.M[i])) > 1e-5 {
			t.Fatalf("Add: M[%d] %v, want %v", i, g1.M[i], both.M[i])
		}
	}
	for k, id := range both.Rows {
		r := g1.Row(id)
		for j := range r {
			if math.Abs(float64(r[j]-both.NgramGrads[k*m.Dim+j])) > 1e-5 {
				t.Fatalf("Add: row %d differs", id)
			}
		}
	}
	if len(g1.Rows) != len(both.Rows) {
		t.Fatalf("Add: %d rows, want %d", len(g1.Rows), len(both.Rows))
	}
	g1.Reset()
	if len(g1.Rows) != 0 || g1.Instances != 0 || slices.ContainsFunc(g1.M, func(x float32) bool { return x != 0 }) {
		t.Fatal("Reset left gradients behind")
	}
	if r := g1.Row(both.Rows[0]); slices.ContainsFunc(r, func(x float32) bool { return x != 0 }) {
		t.Fatal("a row reused after Reset is not zero")
	}
}

func TestInferPanicsOnBadInput(t *testing.T) {
	m := testModel(t, ModeAM, 4, 1)
	ws := m.NewWorkspace()
	for name, f := range map[string]func(){
		"id outside base": func() { m.Infer(ws, "x", [][]int32{{int32(m.Base.Len())}}, make([]float32, 4)) },
		"negative id":     func() { m.Infer(ws, "x", [][]int32{{-1}}, make([]float32, 4)) },
		"short dst":       func() { m.Infer(ws, "x", nil, make([]float32, 3)) },
		"other workspace": func() { m.Infer(testModel(t, ModeAM, 5, 1).NewWorkspace(), "x", nil, make([]float32, 4)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Infer did not panic", name)
				}
			}()
			f()
		}()
	}
}
