package memory

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAdmittedIsWhatRememberKeeps: an observation is admitted exactly when
// remembering it alone changes the memory (below the budget), and it is
// admitted cut as Remember cuts it.
func TestAdmittedIsWhatRememberKeeps(t *testing.T) {
	_, obs := orderDocs(300)
	o := quietOptions()
	o.MaxContexts = 3
	o.MaxContextBytes = 40
	m := mustOpen(t, "", o)
	for _, doc := range obs {
		for _, ob := range append(doc, doc[0]) { // the repeat is never admitted
			adm := m.Admitted(nil, []Observation{ob})
			before := export(t, m)
			if err := m.Remember([]Observation{ob}); err != nil {
				t.Fatal(err)
			}
			changed := before != export(t, m)
			if changed != (len(adm) == 1) {
				t.Fatalf("%+v: admitted %v, remembering it changed the memory: %v", ob, adm, changed)
			}
			if len(adm) == 1 {
				if ctx, _ := m.Contexts(nil, ob.Word); !slices.Contains(ctx, adm[0].Context) || len(adm[0].Context) > 40 {
					t.Fatalf("admitted context %q is not the one kept (%q)", adm[0].Context, ctx)
				}
			}
		}
	}
	if got := m.Admitted(nil, []Observation{{Word: "", Context: "x"}, {Word: "w", Context: "\xff"}}); len(got) != 0 {
		t.Errorf("invalid observations admitted: %v", got)
	}
}

// TestCopyAdmitsWhatTheWholeKeeps: a memory that saw part of the
// observations admits every observation the memory that saw all of them
// keeps and it lacks; sending a copy only what it admits rebuilds the whole.
func TestCopyAdmitsWhatTheWholeKeeps(t *testing.T) {
	_, obs := orderDocs(400)
	o := quietOptions()
	o.MaxContexts = 4
	whole, part := mustOpen(t, "", o), mustOpen(t, "", o)
	r := rand.New(rand.NewPCG(3, 4))
	var all []Observation
	for _, doc := range obs {
		all = append(all, doc...)
		if err := whole.Remember(doc); err != nil {
			t.Fatal(err)
		}
		if r.IntN(3) == 0 {
			if err := part.Remember(doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := part.Remember(part.Admitted(nil, all)); err != nil {
		t.Fatal(err)
	}
	if a, b := export(t, whole), export(t, part); a != b {
		t.Fatalf("the copy sent what it admits differs from the whole:\n%s\nvs\n%s", b, a)
	}
}

// TestCountHashed: passages counted by hash and distinct words give the
// counts their tokens give, count once however often they are sent (twice
// in one call, again in later ones); a passage without a hash is refused.
func TestCountHashed(t *testing.T) {
	passages, _ := orderDocs(200)
	o := quietOptions()
	byTokens, byHash := mustOpen(t, "", o), mustOpen(t, "", o)
	if err := byTokens.CountPassages(passages); err != nil {
		t.Fatal(err)
	}
	var hashed []Passage
	for _, p := range passages {
		distinct := slices.Compact(slices.Sorted(slices.Values(p)))
		hashed = append(hashed, Passage{Hash: PassageHash(p), Words: distinct})
	}
	twice := append(slices.Clone(hashed[:50]), hashed[:50]...) // twice in one call, then again
	for _, ps := range [][]Passage{twice, hashed, hashed} {
		if err := byHash.CountHashed(ps); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := export(t, byTokens), export(t, byHash); a != b {
		t.Fatalf("counted by hash:\n%s\nby tokens:\n%s", b, a)
	}
	if a, b := byTokens.Stats().Passages, byHash.Stats().Passages; a != b || a == 0 {
		t.Fatalf("passages %d by tokens, %d by hash", a, b)
	}
	if err := byHash.CountHashed([]Passage{{Words: []string{"x"}}}); err == nil {
		t.Error("a passage without a hash was counted")
	}
}

// TestRememberRepeatsChangeNothing: observations remembered twice in one
// call, or again in another order and grouping, keep what remembering each
// once keeps.
func TestRememberRepeatsChangeNothing(t *testing.T) {
	_, docs := orderDocs(300)
	var all []Observation
	for _, d := range docs {
		all = append(all, d...)
	}
	o := quietOptions()
	o.MaxContexts = 4
	once, repeated := mustOpen(t, "", o), mustOpen(t, "", o)
	if err := once.Remember(all); err != nil {
		t.Fatal(err)
	}
	if err := repeated.Remember(append(slices.Clone(all[:200]), all[:200]...)); err != nil {
		t.Fatal(err)
	}
	backwards := slices.Clone(all)
	slices.Reverse(backwards)
	for _, obs := range [][]Observation{all[200:], backwards} { // the rest, then everything again
		if err := repeated.Remember(obs); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := export(t, once), export(t, repeated); a != b {
		t.Fatalf("remembered with repeats:\n%s\nonce:\n%s", b, a)
	}
}
