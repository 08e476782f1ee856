package eval

import (
	"context"
	"math"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

func TestGateAccStats(t *testing.T) {
	var a gateAcc
	if g := a.stats(); g != (GateStats{}) {
		t.Errorf("empty: %+v", g)
	}
	for _, e := range []model.Explanation{{Alpha: 0.25}, {Alpha: 0.75}, {Alpha: 0, FormOnly: true}, {Alpha: 1}} {
		a.add(e)
	}
	g := a.stats()
	// α = 0.25, 0.75, 0, 1: mean 0.5, variance (0.0625·2 + 0.25·2)/4.
	if g.N != 4 || g.FormOnly != 1 || math.Abs(g.Mean-0.5) > 1e-9 || math.Abs(g.SD-math.Sqrt(0.15625)) > 1e-9 {
		t.Errorf("got %+v, want N 4, form only 1, mean 0.5, sd %v", g, math.Sqrt(0.15625))
	}
}

// TestRareGates: at k = 0 every inference is form-only with α = 0; at k ≥ 1
// the statistics are those of α from m.Infer on the very samples the
// ρ rows score, and a word without contexts stays form-only.
func TestRareGates(t *testing.T) {
	m, err := testmodel.New(testmodel.Spec{Dim: 8, Frequent: 60, Rare: 4, FrequentCount: 100, RareCount: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"r0", "r1", "r2"}
	contexts := map[string][][]string{
		"r0": {{"f1", "f2"}, {"f3"}, {"f4", "f5", "f6"}, {"f7"}},
		"r1": {{"f10", "f11"}, {"f12", "f13"}, {"zzz"}},
	}
	ks, trials := []int{0, 1, 2}, 3
	gates, err := RareGates(context.Background(), m, contexts, words, ks, trials, 9)
	if err != nil {
		t.Fatal(err)
	}
	if g := gates[0]; g.N != len(words)*trials || g.FormOnly != g.N || g.Mean != 0 || g.SD != 0 {
		t.Errorf("k = 0: %+v, want every inference form-only", g)
	}
	ws, dst := m.NewWorkspace(), make([]float32, m.Dim)
	for ki, k := range ks[1:] {
		var alphas []float64
		formOnly := 0
		for trial := range trials {
			s := rareSample(contexts, words, k, trial, 9)
			for _, w := range words {
				var ids [][]int32
				for _, c := range s[w] {
					if x := m.ContextIDs(nil, c, w); len(x) > 0 {
						ids = append(ids, x)
					}
				}
				e := m.Infer(ws, w, ids, dst)
				alphas = append(alphas, float64(e.Alpha))
				if e.FormOnly {
					formOnly++
				}
			}
		}
		mean := 0.0
		for _, a := range alphas {
			mean += a / float64(len(alphas))
		}
		v := 0.0
		for _, a := range alphas {
			v += (a - mean) * (a - mean) / float64(len(alphas))
		}
		g := gates[ki+1]
		if g.N != len(alphas) || g.FormOnly != formOnly || math.Abs(g.Mean-mean) > 1e-6 || math.Abs(g.SD-math.Sqrt(v)) > 1e-6 {
			t.Errorf("k = %d: %+v, want N %d, form only %d, mean %v, sd %v", k, g, len(alphas), formOnly, mean, math.Sqrt(v))
		}
		// r2 has no contexts; r1's "zzz" holds no known word.
		if formOnly < trials || formOnly == len(alphas) || !(g.Mean > 0 && g.SD > 0) {
			t.Errorf("k = %d: %d form-only inferences (want r2's %d and fewer than all), mean α %v, sd %v",
				k, formOnly, trials, g.Mean, g.SD)
		}
	}
}
