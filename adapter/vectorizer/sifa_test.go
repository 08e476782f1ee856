package vectorizer

import (
	"math"
	"testing"
)

// TestRequestSIFAWeighsKnownWords: a per-call SIFA weighs the known words of
// a text as a vectorizer whose default it is, and unlike the default.
func TestRequestSIFAWeighsKnownWords(t *testing.T) {
	const text = "f0 f1 f2 f3 f4 f5 f6"
	o := DefaultOptions()
	o.Weighting = WeightSIF
	def, err := New(newModel(t), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if !def.hasCounts {
		t.Fatal("the test model has no counts")
	}
	base, err := def.Vectorize(text, TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	o.SIFA = 1e-7
	perCall, err := def.Vectorize(text, TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(newModel(t), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := other.Vectorize(text, TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, perCall, want, 1e-6)
	var diff float64
	for i := range base {
		diff = max(diff, math.Abs(float64(base[i]-perCall[i])))
	}
	if diff < 1e-4 {
		t.Errorf("sif_a %g gives the vector of the default %g (largest difference %g)", o.SIFA, DefaultOptions().SIFA, diff)
	}
}
