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
	m := testModel(t, ModeForm, 8, 3)
	word := "apple"
	ids := m.Vocab.AppendIDs(nil, word)
	if len(ids) < 3 {
		t.Fatalf("%q has %d n-grams; the test needs at least 3", word, len(ids))
	}
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

func closeVec(a, b []float32, tol float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > tol || d < -tol {
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
