package amtrain

import (
	"math"
	"slices"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestAdamLazyRows checks one Adam step by hand: with zero moments the first
// step moves every parameter with a gradient by −lr·sign(g) (bias-corrected),
// and n-gram rows without a gradient neither move nor have their moments touched.
func TestAdamLazyRows(t *testing.T) {
	cfg := model.Config{Dim: 4, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	vocab := model.BuildNgramVocab([]string{"alpha", "alphabet", "alpine", "alps", "beta"}, model.NgramConfig{MinN: 3, MaxN: 3, MinCount: 1})
	cfg.Ngram = vocab.Config()
	m, err := model.New(cfg, vocab, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if vocab.Len() < 3 {
		t.Fatalf("vocabulary too small: %d", vocab.Len())
	}
	o := NewAdam(m, 0.01, 0.9, 0.999, 1e-8)
	g := m.NewGrads()
	g.M[0], g.A[5], g.U[2], g.B = 2, -3, 0.5, -1
	copy(g.Row(1), []float32{4, 0, -4, 8})
	before := slices.Clone(m.Ngrams)
	beforeM, beforeA, beforeU, beforeB := m.M[0], m.A[5], m.U[2], m.B
	o.Apply(m, g, 0.5)
	step := func(name string, got, was float32, grad float32) {
		t.Helper()
		want := was
		if grad != 0 {
			want = was - float32(0.01*math.Copysign(1, float64(grad)))
		}
		if math.Abs(float64(got-want)) > 1e-6 {
			t.Errorf("%s: %v → %v, want %v", name, was, got, want)
		}
	}
	step("M[0]", m.M[0], beforeM, 2)
	step("A[5]", m.A[5], beforeA, -3)
	step("U[2]", m.U[2], beforeU, 0.5)
	step("B", m.B, beforeB, -1)
	d := m.Dim
	for k := 0; k < d; k++ {
		step("row 1", m.Ngrams[d+k], before[d+k], []float32{4, 0, -4, 8}[k])
	}
	for i := range m.Ngrams {
		if i/d != 1 && m.Ngrams[i] != before[i] {
			t.Fatalf("n-gram row %d moved without a gradient", i/d)
		}
		if i/d != 1 && (o.MN[i] != 0 || o.VN[i] != 0) {
			t.Fatalf("moments of n-gram row %d changed without a gradient", i/d)
		}
	}
	if want := float32(0.1 * 0.5 * 4); math.Abs(float64(o.MN[d]-want)) > 1e-7 {
		t.Errorf("first moment of row 1 = %v, want (1−β1)·scale·g = %v", o.MN[d], want)
	}
	if o.Step != 1 {
		t.Errorf("step = %d", o.Step)
	}
}
