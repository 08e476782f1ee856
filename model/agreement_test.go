package model

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// testModelAgreement is testModelBuckets with the gate's agreement input.
func testModelAgreement(t testing.TB, mode Mode, d int, seed uint64, buckets int) *Model {
	t.Helper()
	m := testModelBuckets(t, mode, d, seed, buckets)
	m.GateAgreement = true
	m.U = append(m.U, 0.7)
	return m
}

func TestInferMatchesPaperAgreement(t *testing.T) {
	for _, nb := range []int{0, 4} {
		for _, mode := range []Mode{ModeAM, ModeFCM} {
			t.Run(fmt.Sprintf("%v/buckets=%d", mode, nb), func(t *testing.T) {
				checkInferMatchesPaper(t, testModelAgreement(t, mode, 16, 11, nb))
			})
		}
	}
}

func TestGradientsAgreement(t *testing.T) {
	for _, mode := range []Mode{ModeAM, ModeFCM} {
		t.Run(mode.String(), func(t *testing.T) { checkGradients(t, testModelAgreement(t, mode, 6, 21, 3)) })
	}
}

// TestAgreementValues: identical contexts agree fully, a context and its
// opposite not at all (−1), a single context or none gives 0, contexts
// without known words are left out, and the one-pass formula matches the
// pairwise mean.
func TestAgreementValues(t *testing.T) {
	words := []string{"a", "b", "c", "d"}
	vecs := []float32{1, 0, 0, -1, 0, 0, 0, 1, 0, 3, 4, 0}
	base, err := NewEmbeddings(3, words, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := testModelBuckets(t, ModeAM, 3, 1, 0)
	if err := m.AttachBase(base); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ctxs [][]int32
		want float64
	}{
		{nil, 0},
		{[][]int32{{0}}, 0},
		{[][]int32{{0}, {0}}, 1},
		{[][]int32{{0}, {1}}, -1},
		{[][]int32{{0}, {2}}, 0},
		{[][]int32{{0}, nil, {0}}, 1},
		{[][]int32{{0}, {3}}, 0.6},                      // cos((1,0,0), (3,4,0))
		{[][]int32{{0}, {2}, {3}}, (0 + 0.6 + 0.8) / 3}, // the three pairs' mean
		{[][]int32{{0, 1}, {3}}, 0},                     // a zero mean counts as no context
	} {
		if got := m.Agreement(c.ctxs); math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("Agreement(%v) = %v, want %v", c.ctxs, got, c.want)
		}
	}
}

// TestAgreementShiftsAlpha: with a positive agreement weight the gate gives
// contexts that agree more weight than contexts that disagree, by exactly
// that weight times the difference of their agreement on the logit; the
// weight 0 is the gate without the input.
func TestAgreementShiftsAlpha(t *testing.T) {
	m := testModelAgreement(t, ModeAM, 8, 3, 0)
	ws := m.NewWorkspace()
	dst := make([]float32, m.Dim)
	rng := rand.New(rand.NewPCG(4, 4))
	// Two contexts whose means point the same way: each holds the same words.
	same := randomContexts(rng, 1, 6, m.Base.Len())
	same = append(same, append([]int32(nil), same[0]...))
	// Two contexts of one word each, with opposite-leaning vectors.
	lo, hi := mostOpposite(m.Base)
	apart := [][]int32{{lo}, {hi}}
	aSame, aApart := float64(m.Agreement(same)), float64(m.Agreement(apart))
	if !(aSame > 0.99 && aApart < 0) {
		t.Fatalf("agreement of equal contexts %v, of opposite ones %v", aSame, aApart)
	}
	w := &m.U[m.agreementIndex()]
	for _, c := range []struct {
		ctxs  [][]int32
		agree float64
	}{{same, aSame}, {apart, aApart}} {
		*w = 0
		a0 := float64(m.Infer(ws, "apple", c.ctxs, dst).Alpha)
		*w = 2
		a2 := float64(m.Infer(ws, "apple", c.ctxs, dst).Alpha)
		logit := func(a float64) float64 { return math.Log(a / (1 - a)) }
		if d := logit(a2) - logit(a0); math.Abs(d-2*c.agree) > 1e-3 {
			t.Errorf("agreement %v: the weight 2 moved the gate's logit by %v, want %v", c.agree, d, 2*c.agree)
		}
		if c.agree > 0 && !(a2 > a0) || c.agree < 0 && !(a2 < a0) {
			t.Errorf("agreement %v: α %v with the weight 0, %v with the weight 2", c.agree, a0, a2)
		}
	}
}

// mostOpposite returns the two base words whose vectors have the lowest cosine.
func mostOpposite(e *Embeddings) (int32, int32) {
	best, bi, bj := 2.0, int32(0), int32(1)
	for i := int32(0); int(i) < e.Len(); i++ {
		for j := i + 1; int(j) < e.Len(); j++ {
			if c := float64(Cosine(e.Row(i), e.Row(j))); c < best {
				best, bi, bj = c, i, j
			}
		}
	}
	return bi, bj
}

// TestWeightsGateAgreement: a model with the agreement input is written as
// version 4 (count buckets byte, then the gate inputs byte) and loads back
// bit-exact, inferring the same vectors; unknown gate input bits are refused.
func TestWeightsGateAgreement(t *testing.T) {
	for _, nb := range []int{0, 5} {
		m := testModelAgreement(t, ModeAM, 12, 6, nb)
		var buf bytes.Buffer
		if err := m.Save(&buf, SaveOptions{IncludeBase: true}); err != nil {
			t.Fatal(err)
		}
		good := append([]byte(nil), buf.Bytes()...)
		if v := binary.LittleEndian.Uint32(good[8:]); v != weightsVersionGate {
			t.Fatalf("buckets %d: a model with the agreement input was written as version %d", nb, v)
		}
		got, err := Load(&buf, "w")
		if err != nil {
			t.Fatal(err)
		}
		if !got.GateAgreement || got.CountBuckets != nb || len(got.U) != 2*12+nb+1 {
			t.Fatalf("loaded: agreement %v, %d count buckets, U of %d", got.GateAgreement, got.CountBuckets, len(got.U))
		}
		equalModels(t, got, m, true)
		rng := rand.New(rand.NewPCG(1, 1))
		a, b := make([]float32, 12), make([]float32, 12)
		for _, n := range []int{1, 2, 3, 8} {
			ctxs := randomContexts(rng, n, 8, m.Base.Len())
			ea := m.Infer(m.NewWorkspace(), "apple", ctxs, a)
			eb := got.Infer(got.NewWorkspace(), "apple", ctxs, b)
			if !reflect.DeepEqual(a, b) || ea.Alpha != eb.Alpha {
				t.Fatalf("%d contexts: the loaded model infers differently", n)
			}
		}
		// dim, mode, tokenizer, lowercase, MinN, MaxN, MinCount, style take 20
		// bytes; then the count buckets and the gate inputs.
		payload := good[headerLen : len(good)-4]
		if payload[20] != byte(nb) || payload[21] != gateAgreement {
			t.Fatalf("count byte %d and gate byte %d, want %d and %d", payload[20], payload[21], nb, gateAgreement)
		}
		p := append([]byte(nil), payload...)
		p[21] = 4
		if _, err := Load(bytes.NewReader(rewrapVersion(p, weightsVersionGate)), "f"); err == nil || !strings.Contains(err.Error(), "gate inputs") {
			t.Errorf("gate byte 4: error %v", err)
		}
	}
}

func TestAgreementNeedsGate(t *testing.T) {
	cfg := Config{Dim: 4, Mode: ModeContext, Ngram: DefaultNgramConfig(), GateAgreement: true}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "gate agreement") {
		t.Errorf("agreement without a gate: %v", err)
	}
}

// testModelCoverage is testModelBuckets with the gate's coverage input (and
// the agreement input when agree is set).
func testModelCoverage(t testing.TB, mode Mode, d int, seed uint64, buckets int, agree bool) *Model {
	t.Helper()
	m := testModelBuckets(t, mode, d, seed, buckets)
	if agree {
		m.GateAgreement = true
		m.U = append(m.U, 0.7)
	}
	m.GateCoverage = true
	m.U = append(m.U, -1.1)
	return m
}

func TestInferMatchesPaperCoverage(t *testing.T) {
	for _, agree := range []bool{false, true} {
		for _, mode := range []Mode{ModeAM, ModeFCM} {
			t.Run(fmt.Sprintf("%v/agreement=%v", mode, agree), func(t *testing.T) {
				checkInferMatchesPaper(t, testModelCoverage(t, mode, 16, 11, 4, agree))
			})
		}
	}
}

func TestGradientsCoverage(t *testing.T) {
	for _, mode := range []Mode{ModeAM, ModeFCM} {
		t.Run(mode.String(), func(t *testing.T) { checkGradients(t, testModelCoverage(t, mode, 6, 21, 3, true)) })
	}
}

// TestNgramCount: Count is the number of n-grams AppendNgrams enumerates,
// in both styles, for short, empty, non-ASCII, invalid and long words.
func TestNgramCount(t *testing.T) {
	for _, style := range []NgramStyle{NgramReference, NgramFastText} {
		for _, minN := range []int{1, 3} {
			cfg := NgramConfig{MinN: minN, MaxN: 6, MinCount: 1, Style: style}
			for _, w := range []string{"", "a", "apple", "héllo", "\xff\xfe", strings.Repeat("é", 200), strings.Repeat("x", 300)} {
				if got, want := BuildNgramVocab(nil, cfg).Count(w), len(cfg.AppendNgrams(nil, w)); got != want {
					t.Errorf("style %v, MinN %d, %q: Count %d, AppendNgrams %d", style, minN, w, got, want)
				}
			}
		}
	}
}

// TestFormCoverage: a model without the coverage input gives 0; with it, a word all of whose n-grams the vocabulary holds covers
// 1, one with none of them 0, and one in between the share Count makes of
// what its form takes; KeepNgrams lowers it with the n-grams it leaves out.
func TestFormCoverage(t *testing.T) {
	m := testModelBuckets(t, ModeAM, 8, 3, 0)
	ws := m.NewWorkspace()
	form := make([]float32, m.Dim)
	if got := m.Form(ws, "apple", form); got != 0 {
		t.Errorf("a model without the coverage input gives coverage %v, want 0", got)
	}
	m = testModelCoverage(t, ModeAM, 8, 3, 0, false)
	for _, c := range []struct {
		word string
		want float64
	}{{"apple", naiveCoverage(m, "apple")}, {"qxzvwk", 0}, {"applezz", naiveCoverage(m, "applezz")}} {
		if got := m.Form(ws, c.word, form); math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("coverage of %q = %v, want %v", c.word, got, c.want)
		}
	}
	if c := naiveCoverage(m, "applezz"); c <= 0 || c >= 1 {
		t.Fatalf("coverage of applezz %v: want it strictly between 0 and 1", c)
	}
	keep := make([]bool, m.Vocab.Len())
	ids := m.Vocab.AppendIDs(nil, "apple")
	keep[ids[0]] = true
	ws.KeepNgrams(keep)
	if got, all := m.Form(ws, "apple", form), naiveCoverage(m, "apple"); !(got > 0 && float64(got) < all) {
		t.Errorf("coverage of apple keeping one n-gram = %v, want in (0, %v)", got, all)
	}
}

// TestCoverage: a model's coverage of a word is the share of its n-grams the
// table holds, with or without the gate input, for words of every length;
// a context-only model has none.
func TestCoverage(t *testing.T) {
	long := strings.Repeat("apple", 40) + "zz" // more n-grams than Coverage's stack buffer
	for _, m := range []*Model{testModelBuckets(t, ModeAM, 8, 3, 0), testModelCoverage(t, ModeAM, 8, 3, 0, false)} {
		for _, w := range []string{"apple", "applezz", "qxzvwk", "", long} {
			if got, want := m.Coverage(w), naiveCoverage(m, w); math.Abs(float64(got)-want) > 1e-6 {
				t.Errorf("GateCoverage %v: coverage of %.12q = %v, want %v", m.GateCoverage, w, got, want)
			}
		}
		if c := m.Coverage("applezz"); c <= 0 || c >= 1 {
			t.Errorf("coverage of applezz %v: want it strictly between 0 and 1", c)
		}
	}
	if c := testModelBuckets(t, ModeContext, 8, 3, 0).Coverage("apple"); c != 0 {
		t.Errorf("a context-only model's coverage of apple = %v, want 0", c)
	}
}

// TestCoverageShortfall: the gate's coverage input is 1 for a form the table
// knows nothing of, falls linearly to 0 at CoverageKnee and stays 0 above.
func TestCoverageShortfall(t *testing.T) {
	for _, c := range []struct{ c, want float32 }{{0, 1}, {CoverageKnee / 2, 0.5}, {CoverageKnee, 0}, {0.6, 0}, {1, 0}} {
		if got := coverageShortfall(c.c); math.Abs(float64(got-c.want)) > 1e-6 {
			t.Errorf("shortfall of coverage %v = %v, want %v", c.c, got, c.want)
		}
	}
}

// TestCoverageMatchesForm: Coverage is the coverage Form gives a
// GateCoverage model, in both n-gram styles and for every n-gram range, for
// empty, invalid UTF-8, very long and random words, and always in [0, 1].
func TestCoverageMatchesForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "apple", "qxzvwk", "\xff", "\xff\xfeab", "héllo", "\x00app\x00", "<ap>", "a b",
		strings.Repeat("é", 3000), strings.Repeat("apple", 2000) + "zz", strings.Repeat("\xff", 5000)}
	for range 500 {
		b := make([]byte, rng.IntN(60))
		for j := range b {
			b[j] = "aplemyh\xff\xc3\xa9<>\x00zq"[rng.IntN(15)]
		}
		words = append(words, string(b))
	}
	vocabWords := []string{"apple", "applet", "apply", "maple", "ample", "héllo", "héllo2", "\xff\xfeab", "\xff\xfeac"}
	base := randomEmbeddings(t, 200, 8, 3)
	for _, style := range []NgramStyle{NgramReference, NgramFastText} {
		for _, n := range [][2]int{{3, 5}, {1, 6}, {1, 1}, {2, 32}} {
			vocab := BuildNgramVocab(vocabWords, NgramConfig{MinN: n[0], MaxN: n[1], MinCount: 2, Style: style})
			cfg := Config{Dim: 8, Mode: ModeAM, Ngram: vocab.Config(), Tokenizer: DefaultTokenizer(), GateCoverage: true}
			m, err := New(cfg, vocab, base, 3)
			if err != nil {
				t.Fatal(err)
			}
			ws, form := m.NewWorkspace(), make([]float32, m.Dim)
			for _, w := range words {
				want, got := m.Form(ws, w, form), m.Coverage(w)
				if got != want || !(got >= 0 && got <= 1) {
					t.Errorf("%v %d–%d-grams, %.20q: Coverage %v, Form %v", style, n[0], n[1], w, got, want)
				}
			}
		}
	}
}

// TestWeightsGateCoverage: a model with the coverage input (alone and beside
// the agreement) is written as version 4 with its bit in the gate inputs
// byte and loads back bit-exact, inferring the same vectors.
func TestWeightsGateCoverage(t *testing.T) {
	for _, agree := range []bool{false, true} {
		m := testModelCoverage(t, ModeAM, 12, 6, 3, agree)
		var buf bytes.Buffer
		if err := m.Save(&buf, SaveOptions{IncludeBase: true}); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		if v := binary.LittleEndian.Uint32(raw[8:]); v != weightsVersionGate {
			t.Fatalf("agreement %v: written as version %d", agree, v)
		}
		if in := raw[headerLen+21]; in != byte(gateCoverage|boolInt(agree)*gateAgreement) {
			t.Fatalf("agreement %v: gate inputs byte %#x", agree, in)
		}
		got, err := Load(&buf, "w")
		if err != nil {
			t.Fatal(err)
		}
		if !got.GateCoverage || got.GateAgreement != agree || len(got.U) != 2*12+3+1+boolInt(agree) {
			t.Fatalf("loaded: coverage %v, agreement %v, U of %d", got.GateCoverage, got.GateAgreement, len(got.U))
		}
		equalModels(t, got, m, true)
		a, b := make([]float32, 12), make([]float32, 12)
		ctxs := randomContexts(rand.New(rand.NewPCG(2, 2)), 4, 8, m.Base.Len())
		if ea, eb := m.Infer(m.NewWorkspace(), "applezz", ctxs, a), got.Infer(got.NewWorkspace(), "applezz", ctxs, b); !reflect.DeepEqual(a, b) || ea.Alpha != eb.Alpha {
			t.Fatal("the loaded model infers differently")
		}
	}
	cfg := Config{Dim: 4, Mode: ModeContext, Ngram: DefaultNgramConfig(), GateCoverage: true}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "gate coverage") {
		t.Errorf("coverage without a gate: %v", err)
	}
}
