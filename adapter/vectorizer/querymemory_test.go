package vectorizer

import (
	"slices"
	"testing"
)

// TestQueryMemoryOnly: under QueryMemoryOnly a query's AM word takes no
// context from the query's own words (its vector is the memory's: the form
// alone while the memory holds nothing), Explain shows no in-text context,
// and a passage still uses its own sentences.
func TestQueryMemoryOnly(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	o := DefaultOptions()
	only := o
	only.QueryMemoryOnly = true
	formOnly := o
	formOnly.MaxContexts = 0
	const query = "jargon9 f10 f11 f12"
	vec := func(task Task, opts Options) []float32 {
		t.Helper()
		x, err := v.Vectorize(query, task, opts)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	own, memOnly, form := vec(TaskQuery, o), vec(TaskQuery, only), vec(TaskQuery, formOnly)
	if slices.Equal(own, form) {
		t.Fatal("the query's own words changed nothing: the test text gives AM no context")
	}
	if !slices.Equal(memOnly, form) {
		t.Error("with an empty memory a memory-only query is not its form-only vector")
	}
	ex, err := v.Explain(query, only)
	if err != nil {
		t.Fatal(err)
	}
	if w := ex.Words[0]; w.Source != SourceAM || len(w.Contexts) != 0 || !slices.Equal(ex.Vector, form) {
		t.Errorf("memory-only explanation %+v: want AM from the form, no context", w)
	}
	// Without a memory a passage has only its own sentences, and keeps them.
	nv := newVectorizer(t, nil)
	sif, sifOnly := o, only
	sif.Weighting, sifOnly.Weighting = WeightSIF, WeightSIF
	q, err := nv.Vectorize(query, TaskQuery, sif)
	if err != nil {
		t.Fatal(err)
	}
	p, err := nv.Vectorize(query, TaskPassage, sifOnly)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p, q) {
		t.Error("QueryMemoryOnly changed a passage's vector")
	}
	// Once the memory holds the word's sentences, queries read them either way.
	if _, err := v.Vectorize("The jargon9 f13 f14. Jargon9 again f15 r2!", TaskPassage, o); err != nil {
		t.Fatal(err)
	}
	mix := only
	mix.MixTextContexts = true
	if a, b := vec(TaskQuery, o), vec(TaskQuery, mix); !slices.Equal(a, b) {
		t.Error("a memory-only query mixed in its own words")
	}
}
