package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
)

// GateStats sums up AM's gate α (model.Explanation.Alpha, the weight of the
// context part) over a set of inferences.
type GateStats struct {
	// N counts the inferences; FormOnly those in which AM had no usable
	// context (α = 0, counted in the mean).
	N, FormOnly int
	// Mean and SD are the mean and the (population) standard deviation of α.
	Mean, SD float64
}

// gateAcc accumulates the explanations of inferences into GateStats.
type gateAcc struct {
	n, formOnly int
	sum, sumSq  float64
}

func (a *gateAcc) add(e model.Explanation) {
	x := float64(e.Alpha)
	a.n++
	a.sum += x
	a.sumSq += x * x
	if e.FormOnly {
		a.formOnly++
	}
}

// stats returns the sums so far (all zero before any inference).
func (a *gateAcc) stats() GateStats {
	if a.n == 0 {
		return GateStats{}
	}
	mean := a.sum / float64(a.n)
	return GateStats{N: a.n, FormOnly: a.formOnly, Mean: mean, SD: math.Sqrt(max(0, a.sumSq/float64(a.n)-mean*mean))}
}

// inferGates infers every word of words from its contexts with m (the
// contexts tokenized, as InferWords takes them) and adds α of each
// inference to acc.
func inferGates(m *model.Model, ws *model.Workspace, words []string, contexts map[string][][]string, acc *gateAcc) {
	dst := make([]float32, m.Dim)
	var ids [][]int32
	for _, w := range words {
		ids = ids[:0]
		for _, c := range contexts[w] {
			if x := m.ContextIDs(nil, c, w); len(x) > 0 {
				ids = append(ids, x)
			}
		}
		acc.add(m.Infer(ws, w, ids, dst))
	}
}

// RareGates returns, for each k of ks, the gate α of m over the rare words'
// inferences from the same k-context samples eval rare-pairs scores (all
// trials pooled).
func RareGates(ctx context.Context, m *model.Model, contexts map[string][][]string, rareWords []string, ks []int, trials int, seed uint64) ([]GateStats, error) {
	ws := m.NewWorkspace()
	out := make([]GateStats, len(ks))
	for ki, k := range ks {
		var acc gateAcc
		for trial := range trials {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			inferGates(m, ws, rareWords, rareSample(contexts, rareWords, k, trial, seed), &acc)
		}
		out[ki] = acc.stats()
	}
	return out, nil
}

// rareSample is the contexts sample of trial at k (none at k = 0), the same
// for every row and for the gate.
func rareSample(contexts map[string][][]string, rareWords []string, k, trial int, seed uint64) map[string][][]string {
	if k == 0 {
		return nil
	}
	return SampleK(contexts, rareWords, k, rand.New(rand.NewPCG(seed, uint64(k)<<16|uint64(trial))))
}

// writeRareGates prints the table of AM's gate α by k.
func writeRareGates(w io.Writer, gates []GateStats, ks []int) error {
	t := report.Table{Header: []string{"k", "mean α", "sd α", "inferences", "form only"}}
	for ki, k := range ks {
		g := gates[ki]
		t.AddRow(fmt.Sprint(k), report.Num(g.Mean, 3), report.Num(g.SD, 3), fmt.Sprint(g.N), fmt.Sprint(g.FormOnly))
	}
	fmt.Fprint(w, "\nAM's gate α (the context part's weight; 1 − α is the form's) by k, over the rare words' inferences of every trial:\n\n")
	return t.WriteMarkdown(w)
}
