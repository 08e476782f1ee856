package amtrain

import (
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer/alacarte"
)

// alacarteRidge is the ridge of the A La Carte fit, relative to the mean
// squared length of the context vectors: enough to keep the normal
// equations solvable, too small to bias the map.
const alacarteRidge = 1e-3

// initAlaCarte sets m.A to the A La Carte map (Khodak et al. 2018) of the
// training words: the least-squares map from a word's context vector, the
// mean of the means of up to o.MaxContexts of its contexts (AM's v_ctx with
// equal weights ρ_i), to its base vector. Training then starts with AM-ctx
// at the strongest linear context baseline instead of a random map. The
// contexts are drawn with a generator fixed by (o.Seed, word).
func (t *trainer) initAlaCarte() error {
	d := t.m.Dim
	var cs contextSet
	targets := make([][]float32, 0, len(t.plan.Words))
	contexts := make([][]float32, 0, len(t.plan.Words))
	var sq float64
	for _, tw := range t.plan.Words {
		r := newRNG(uint64(t.o.Seed), tagAlaCarte, uint64(tw.Index))
		u, ok := meanOfMeans(cs.sample(t.sampler, &r, tw.Index, t.o.MaxContexts), t.m)
		if !ok {
			continue
		}
		sq += float64(simd.Dot(u, u))
		targets = append(targets, t.d.Base.Row(tw.Base))
		contexts = append(contexts, u)
	}
	if len(contexts) == 0 {
		return fmt.Errorf("start from the A La Carte map: %w", alacarte.ErrNoPairs)
	}
	a, err := alacarte.Fit(targets, contexts, alacarteRidge*sq/float64(d))
	if err != nil {
		return fmt.Errorf("start from the A La Carte map: %w", err)
	}
	copy(t.m.A, a.RowMajor())
	t.log.Info("A starts from the A La Carte map", "words", len(contexts))
	return nil
}

// meanOfMeans returns the mean over the non-empty contexts of their vectors
// v_C as m computes them (the mean of their words' base vectors, weighted as
// m weighs them), and false when there is no such context.
func meanOfMeans(ctxs [][]int32, m *model.Model) ([]float32, bool) {
	u := make([]float32, m.Dim)
	mean := make([]float32, m.Dim)
	n := 0
	for _, c := range ctxs {
		if !m.ContextMean(mean, c) {
			continue
		}
		simd.Add(u, mean)
		n++
	}
	if n == 0 {
		return nil, false
	}
	simd.Scale(1/float32(n), u)
	return u, true
}
