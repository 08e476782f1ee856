package vectorizer

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestTextContextDiscount: a word whose only contexts are the text's own
// sentences gets AM's gate times 1 − TextContextDiscount (its form alone at
// 1); a word the memory holds contexts for is inferred as without it.
func TestTextContextDiscount(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	o := DefaultOptions()
	o.TextContextDiscount = 0
	half, full, formOnly := o, o, o
	half.TextContextDiscount, full.TextContextDiscount, formOnly.MaxContexts = 0.5, 1, 0
	const text = "jargon9 f10 f11 f12"
	vec := func(opts Options) []float32 {
		t.Helper()
		x, err := v.Vectorize(text, TaskQuery, opts)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	alpha := func(opts Options) float32 {
		t.Helper()
		ex, err := v.Explain(text, opts)
		if err != nil {
			t.Fatal(err)
		}
		if w := ex.Words[0]; w.Source != SourceAM || len(w.Contexts) == 0 {
			t.Fatalf("explanation %+v: want AM with the text's own context", w)
		}
		return ex.Words[0].Alpha
	}
	own, form := vec(o), vec(formOnly)
	if slices.Equal(own, form) {
		t.Fatal("the text's own words changed nothing: the test text gives AM no context")
	}
	if !slices.Equal(vec(full), form) {
		t.Error("TextContextDiscount 1 does not give the form-only vector")
	}
	if h := vec(half); slices.Equal(h, own) || slices.Equal(h, form) {
		t.Error("TextContextDiscount 0.5 gives the vector of 0 or 1")
	}
	if a, h := alpha(o), alpha(half); a == 0 || math.Abs(float64(h-a/2)) > 1e-6 {
		t.Errorf("α %v at discount 0.5, want half of %v", h, a)
	}
	// Once the memory holds the word's sentences, they are trusted in full.
	if _, err := v.Vectorize("The jargon9 f13 f14. Jargon9 again f15 r2!", TaskPassage, o); err != nil {
		t.Fatal(err)
	}
	if a, b := vec(o), vec(full); !slices.Equal(a, b) {
		t.Error("TextContextDiscount changed a word inferred from remembered contexts")
	}
	// Mixed after the remembered ones, the text's sentence is discounted by its share.
	mix, mixFull := o, full
	mix.MixTextContexts, mixFull.MixTextContexts = true, true
	ex, err := v.Explain(text, mix)
	if err != nil {
		t.Fatal(err)
	}
	k := len(ex.Words[0].Contexts)
	if k < 2 {
		t.Fatalf("mixed contexts: %d, want the remembered ones and the text's own", k)
	}
	if a, f := alpha(mix), alpha(mixFull); math.Abs(float64(f-a*float32(k-1)/float32(k))) > 1e-6 {
		t.Errorf("mixed, discount 1: α %v, want %v × %d/%d", f, a, k-1, k)
	}
	for _, d := range []float64{-0.1, 1.5, math.NaN()} {
		bad := o
		bad.TextContextDiscount = d
		var fe *FieldError
		if err := bad.Validate(); !errors.As(err, &fe) || fe.Setting.Request != "text_context_discount" {
			t.Errorf("TextContextDiscount %v: error %v, want a FieldError naming text_context_discount", d, err)
		}
	}
}
