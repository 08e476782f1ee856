package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestKeepNgrams: with KeepNgrams the form is the mean of the kept n-grams
// only (and of all of them when none is kept); nil restores the full form.
func TestKeepNgrams(t *testing.T) {
	m, word, ids := appleForm(t)
	mean := func(ids []int32) []float32 {
		v := make([]float32, m.Dim)
		for _, id := range ids {
			for k := range v {
				v[k] += m.Ngrams[int(id)*m.Dim+k]
			}
		}
		for k := range v {
			v[k] /= float32(len(ids))
		}
		return v
	}
	ws := m.NewWorkspace()
	got := make([]float32, m.Dim)
	infer := func() []float32 { m.Infer(ws, word, nil, got); return slices.Clone(got) }
	full := infer()
	keep := make([]bool, m.Vocab.Len())
	keep[ids[0]], keep[ids[2]] = true, true
	ws.KeepNgrams(keep)
	if v, want := infer(), mean([]int32{ids[0], ids[2]}); !closeVec(v, want, 1e-5) {
		t.Fatalf("form of the kept n-grams %v, want %v", v, want)
	}
	ws.KeepNgrams(make([]bool, m.Vocab.Len())) // none kept: all of them
	if v := infer(); !closeVec(v, full, 0) {
		t.Fatalf("nothing kept gave %v, want the full form %v", v, full)
	}
	ws.KeepNgrams(nil)
	if v := infer(); !closeVec(v, full, 0) || !closeVec(v, mean(ids), 1e-5) {
		t.Fatalf("nil gave %v, want the full form %v", v, full)
	}
}

// TestLeaveOut: LeaveOut drops from the form the n-grams of which the word's
// count holds more than the share of their mass (with KeepNgrams applying to
// the rest), and only those.
func TestLeaveOut(t *testing.T) {
	m, word, ids := appleForm(t)
	ws := m.NewWorkspace()
	got := make([]float32, m.Dim)
	infer := func() []float32 { m.Infer(ws, word, nil, got); return slices.Clone(got) }
	full := infer()
	mass := make([]float64, m.Vocab.Len())
	for i := range mass {
		mass[i] = 100
	}
	mass[ids[0]], mass[ids[1]] = 10, 20 // a word of count 7 holds 0.7 and 0.35 of them
	if rest := formNgrams(slices.Clone(ids), nil, mass, 7, 0.5); slices.Contains(rest, ids[0]) || len(rest) != len(ids)-1 {
		t.Fatalf("share 0.5, count 7: %v of %v, want all but %d", rest, ids, ids[0])
	}
	if rest := formNgrams(slices.Clone(ids), nil, mass, 7, 0.3); !slices.Equal(rest, ids[2:]) {
		t.Fatalf("share 0.3, count 7: %v, want %v (0.35 is above 0.3)", rest, ids[2:])
	}
	if rest := formNgrams(slices.Clone(ids), nil, mass, 7, 0.7); !slices.Equal(rest, ids) {
		t.Fatalf("share 0.7, count 7: %v, want all (0.7 is not above 0.7)", rest)
	}
	ws.LeaveOut(mass, 7, 0.5)
	if v := infer(); closeVec(v, full, 1e-6) {
		t.Fatal("LeaveOut for a word holding an n-gram left the form unchanged")
	}
	for _, c := range []struct {
		name        string
		mass        []float64
		self, share float64
	}{{"a word of count 3", mass, 3, 0.5}, {"nil mass", nil, 7, 0.5}, {"count 0", mass, 0, 0.5}, {"share 0", mass, 7, 0}} {
		ws.LeaveOut(c.mass, c.self, c.share)
		if v := infer(); !closeVec(v, full, 0) {
			t.Fatalf("%s gave %v, want the full form %v", c.name, v, full)
		}
	}
	keep := make([]bool, m.Vocab.Len())
	keep[ids[0]], keep[ids[1]] = true, true
	if got := formNgrams(slices.Clone(ids), keep, mass, 7, 0.5); !slices.Equal(got, []int32{ids[1]}) {
		t.Fatalf("kept and not held: %v, want [%d]", got, ids[1])
	}
	// Every n-gram held by the word: those it holds least (the largest mass).
	if got := formNgrams(slices.Clone(ids), keep, mass, 100, 0.5); !slices.Equal(got, []int32{ids[1]}) {
		t.Fatalf("all held, keep {%d %d}: %v, want [%d] (mass 20 > 10)", ids[0], ids[1], got, ids[1])
	}
	if got := formNgrams(slices.Clone(ids), nil, mass, 100, 0.5); !slices.Equal(got, ids[2:]) {
		t.Fatalf("all held, no keep: %v, want those of mass 100, %v", got, ids[2:])
	}
	// A smaller share never gives back an n-gram a larger one left out.
	for _, self := range []float64{1, 5, 7, 15, 60, 100} {
		prev := slices.Clone(ids)
		for _, share := range []float64{0.9, 0.5, 0.3, 0.1, 0.01, 1e-300} {
			got := formNgrams(slices.Clone(ids), nil, mass, self, share)
			if len(got) == 0 || !isSubset(got, prev) {
				t.Fatalf("count %v, share %v: %v, not within %v (the larger share's)", self, share, got, prev)
			}
			prev = got
		}
	}
	// None kept by KeepNgrams: the rule applies to all of them.
	if got := formNgrams(slices.Clone(ids), make([]bool, m.Vocab.Len()), mass, 7, 0.5); len(got) != len(ids)-1 || slices.Contains(got, ids[0]) {
		t.Fatalf("none kept, count 7: %v, want all but %d", got, ids[0])
	}
	// The unknown n-gram takes no part: it stays, and alone it is the form.
	if slices.Contains(ids, UnknownNgram) {
		t.Fatal("fixture: every n-gram of apple is in the vocabulary")
	}
	mass[UnknownNgram] = 0
	withUnk := append([]int32{UnknownNgram}, ids...)
	if got := formNgrams(slices.Clone(withUnk), nil, mass, 7, 0.5); !slices.Contains(got, UnknownNgram) || slices.Contains(got, ids[0]) || len(got) != len(withUnk)-1 {
		t.Fatalf("with the unknown n-gram, count 7: %v, want all but %d", got, ids[0])
	}
	if got := formNgrams(slices.Clone(withUnk), nil, mass, 100, 0.5); !slices.Equal(got, append([]int32{UnknownNgram}, ids[2:]...)) {
		t.Fatalf("with the unknown n-gram, all held: %v, want it and %v", got, ids[2:])
	}
	if got := formNgrams([]int32{UnknownNgram}, nil, mass, 7, 0.5); !slices.Equal(got, []int32{UnknownNgram}) {
		t.Fatalf("the unknown n-gram alone: %v", got)
	}
	if HoldsAll([]int32{UnknownNgram}, nil, mass, 7, 0.5) {
		t.Fatal("a word with only the unknown n-gram holds all its n-grams")
	}
	ws.LeaveOut(make([]float64, m.Vocab.Len()+1), 1, 0.5)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "leaves out n-grams of a vocabulary") {
			t.Fatalf("mass of another length: recovered %v", r)
		}
	}()
	infer()
}

// isSubset reports whether every element of a is in b.
func isSubset(a, b []int32) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// appleForm returns a form-only test model, the word "apple" and its n-gram ids.
func appleForm(t *testing.T) (*Model, string, []int32) {
	t.Helper()
	m := testModel(t, ModeForm, 8, 3)
	word := "apple"
	ids := m.Vocab.AppendIDs(nil, word)
	if len(ids) < 3 {
		t.Fatalf("%q has %d n-grams; the test needs at least 3", word, len(ids))
	}
	return m, word, ids
}

func closeVec(a, b []float32, tol float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; !(d <= tol && d >= -tol) { // NaN fails
			return false
		}
	}
	return true
}

// TestKeepNgramsWrongLength: a keep table of another vocabulary's length panics
// with a message naming both lengths.
func TestKeepNgramsWrongLength(t *testing.T) {
	m := testModel(t, ModeAM, 8, 3)
	ws := m.NewWorkspace()
	ws.KeepNgrams(make([]bool, m.Vocab.Len()+1))
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "keeps n-grams of a vocabulary") {
			t.Fatalf("recovered %v, want the vocabulary-length panic", r)
		}
	}()
	m.Infer(ws, "apple", nil, make([]float32, m.Dim))
}
