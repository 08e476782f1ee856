package vectorizer

import (
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestGateAgreementServed: a model whose gate sees the contexts' agreement
// gets it from the contexts the memory remembers. A query for a word known
// only from two remembered passages is model.Infer over those passages'
// sentences, agreement included, and the agreement's weight changes it.
func TestGateAgreementServed(t *testing.T) {
	m := newModel(t)
	m.GateAgreement = true
	m.U = append(m.U, 0)
	mem := newMemory(t)
	v, err := New(m, mem, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	o := sumOptions()
	passages := []string{"Jargon9 f10 f11 f12.", "The jargon9 f13 f14 r2 f15."}
	for _, p := range passages {
		if _, err := v.Vectorize(p, TaskPassage, o); err != nil {
			t.Fatal(err)
		}
	}
	var ctxs [][]int32
	for _, p := range passages {
		ctxs = append(ctxs, m.ContextIDs(nil, m.Tokenizer.AppendTokens(nil, p), "jargon9"))
	}
	if a := m.Agreement(ctxs); a == 0 {
		t.Fatal("the two passages' agreement is 0: the test cannot see its weight")
	}
	var prev []float32
	for _, w := range []float32{0, 4} {
		m.U[len(m.U)-1] = w
		v, err := New(m, mem, o) // a new vectorizer: none caches a vector of another model
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Vectorize("jargon9", TaskQuery, o)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, m.Dim)
		m.Infer(m.NewWorkspace(), "jargon9", ctxs, want)
		normalize(want)
		assertClose(t, got, want, 1e-5)
		if prev != nil && equalVec(prev, got) {
			t.Errorf("the agreement weight %v did not change the served vector", w)
		}
		prev = got
	}
}

// TestGateCoverageServed: a model whose gate sees the form's coverage gets
// it with the word's form, also when a later query takes the form from the
// cache after the word's contexts changed: each served vector is
// model.Infer over the remembered passages' sentences, and the coverage's
// weight changes it.
func TestGateCoverageServed(t *testing.T) {
	m := newModel(t)
	m.GateCoverage = true
	m.U = append(m.U, 0)
	o := sumOptions()
	const word = "zqxjv9" // a spelling the n-grams know too little of for the gate to leave alone
	if c := m.Coverage(word); c >= model.CoverageKnee {
		t.Fatalf("coverage of %s %v: want it below the knee %v", word, c, model.CoverageKnee)
	}
	passages := []string{"Zqxjv9 f10 f11 f12.", "The zqxjv9 f13 f14 r2 f15."}
	var last [][]float32 // per weight, the vector after both passages
	for _, w := range []float32{0, -3} {
		m.U[len(m.U)-1] = w
		v, err := New(m, newMemory(t), o) // a new vectorizer and memory: none caches a vector of another model
		if err != nil {
			t.Fatal(err)
		}
		var ctxs [][]int32
		var got []float32
		for _, p := range passages { // the second query's form comes from the cache
			if _, err := v.Vectorize(p, TaskPassage, o); err != nil {
				t.Fatal(err)
			}
			ctxs = append(ctxs, m.ContextIDs(nil, m.Tokenizer.AppendTokens(nil, p), word))
			if got, err = v.Vectorize(word, TaskQuery, o); err != nil {
				t.Fatal(err)
			}
			want := make([]float32, m.Dim)
			m.Infer(m.NewWorkspace(), word, ctxs, want)
			normalize(want)
			assertClose(t, got, want, 1e-5)
		}
		last = append(last, got)
	}
	if equalVec(last[0], last[1]) {
		t.Error("the coverage weight did not change the served vector")
	}
}
