package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// skipOutputs are output vectors of dimension 4: "fish" and "water" point
// along the first coordinate, "money" and "bank" along the third, and 40
// frequent filler words, the most of the negatives, along the second and
// the fourth.
func skipOutputs(t *testing.T) *Embeddings {
	t.Helper()
	words := []string{"the", "fish", "water", "money", "bank"}
	vecs := []float32{
		0.1, 0.1, 0.1, 0.1,
		2, 0, 0, 0,
		1.5, 0.5, 0, 0,
		0, 0, 2, 0,
		0, 0, 1.5, 0.5,
	}
	counts := []int64{10000, 20, 20, 20, 20}
	for i := range 40 {
		words = append(words, fmt.Sprintf("filler%d", i))
		a, b := float32(i%5)/5-0.4, float32(i%7)/7-0.4
		vecs = append(vecs, 0, a, 0, b)
		counts = append(counts, 500)
	}
	e, err := NewEmbeddings(4, words, vecs, counts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSkipInferenceLearnsItsContexts(t *testing.T) {
	sk, err := NewSkipInference(skipOutputs(t), DefaultSkipConfig())
	if err != nil {
		t.Fatal(err)
	}
	var sentences [][]string
	for range 20 {
		sentences = append(sentences, strings.Fields("the trout swims in the water with a fish"))
	}
	v := make([]float32, 4)
	if n := sk.Infer(v, nil, 0, "trout", sentences, 1); n != 20 {
		t.Fatalf("trained on %d occurrences, want 20", n)
	}
	if v[0] <= 0 || v[0] <= 3*max(v[2], -v[2]) {
		t.Errorf("trout seen with fish and water: %v, want it along their output vectors (first coordinate)", v)
	}
	again := make([]float32, 4)
	sk.Infer(again, nil, 0, "trout", sentences, 1)
	if !slices.Equal(v, again) {
		t.Errorf("the same seed gave %v, then %v", v, again)
	}
	// The form is the start: with contexts that say nothing new it stays
	// n/(n+1) of it, and without an occurrence it is that exactly.
	form := []float32{0, 0, 1, 0}
	sk.Infer(v, form, 3, "trout", [][]string{{"no", "occurrence", "here"}}, 1)
	if want := []float32{0, 0, 0.75, 0}; !slices.Equal(v, want) {
		t.Errorf("no occurrence: %v, want %v", v, want)
	}
	sk.Infer(v, form, 3, "trout", sentences, 1)
	if v[0] <= 0 {
		t.Errorf("form %v with fish contexts: %v, want the first coordinate to grow", form, v)
	}
	if n := sk.Infer(v, nil, 0, "trout", nil, 1); n != 0 || slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		t.Errorf("neither form nor contexts: %v after %d occurrences, want zero after 0", v, n)
	}
	// A word alone in its sentence (after words without an output vector are
	// dropped) has no context word: its vector stays n/(n+1) of its form.
	if n := sk.Infer(v, form, 3, "trout", [][]string{{"trout", "unknown", "trout"}}, 1); n != 0 || !slices.Equal(v, []float32{0, 0, 0.75, 0}) {
		t.Errorf("no context word: %v after %d occurrences, want %v after 0", v, n, []float32{0, 0, 0.75, 0})
	}
}

// One occurrence, one context word and no subsampling: the vector takes
// exactly one step, h + lr·(1 − σ(h·o))·o. With the context word the only
// output word, every negative drawn is it, drawn again and then left out:
// the step is the same with negatives.
func TestSkipInferenceOneStep(t *testing.T) {
	out, err := NewEmbeddings(2, []string{"c"}, []float32{1, -2}, []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	for _, neg := range []int{0, 5} {
		sk, err := NewSkipInference(out, SkipConfig{Epochs: 1, LR: 0.5, Window: 1, Negative: neg, Sample: 0, NegativePower: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		form := []float32{2, 1} // n = 3: h starts at (1.5, 0.75), h·o = 0
		v := make([]float32, 2)
		if n := sk.Infer(v, form, 3, "w", [][]string{{"w", "c"}}, 7); n != 1 {
			t.Fatalf("trained on %d occurrences, want 1", n)
		}
		want := []float32{1.5 + 0.5*0.5*1, 0.75 + 0.5*0.5*-2}
		for i := range v {
			if math.Abs(float64(v[i]-want[i])) > 1e-6 {
				t.Fatalf("one step, %d negatives: %v, want %v", neg, v, want)
			}
		}
	}
	// The occurrences counted are those in a sentence with a context word,
	// not the sentences: two in the first, none in the others.
	sk, err := NewSkipInference(out, DefaultSkipConfig())
	if err != nil {
		t.Fatal(err)
	}
	if n := sk.Infer(make([]float32, 2), nil, 0, "w", [][]string{{"w", "w", "c"}, {"w"}, {"w", "unknown"}}, 1); n != 2 {
		t.Errorf("%d occurrences with a context word, want 2", n)
	}
}

func TestNewSkipInferenceRefuses(t *testing.T) {
	out := skipOutputs(t)
	noCounts, err := NewEmbeddings(4, out.Words, out.Vectors, nil)
	if err != nil {
		t.Fatal(err)
	}
	zero, err := NewEmbeddings(4, out.Words, out.Vectors, make([]int64, out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	bad, nan, inf := DefaultSkipConfig(), DefaultSkipConfig(), DefaultSkipConfig()
	bad.Window = 0
	nan.Sample = math.NaN()
	inf.LR = math.Inf(1)
	for _, tc := range []struct {
		out  *Embeddings
		cfg  SkipConfig
		want string
	}{
		{nil, DefaultSkipConfig(), "no output vectors"},
		{noCounts, DefaultSkipConfig(), "no word counts"},
		{zero, DefaultSkipConfig(), "every word count is zero"},
		{out, bad, "out of range"},
		{out, nan, "out of range"},
		{out, inf, "out of range"},
	} {
		if _, err := NewSkipInference(tc.out, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to say %q", err, tc.want)
		}
	}
}
