package amtrain

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// startError returns the mean squared distance between A·u and the base
// vector over the training words of t, u being the words' context vectors
// (meanOfMeans of up to MaxContexts contexts): AM-ctx with equal weights.
func startError(tb testing.TB, o Options, s *synth) float64 {
	tb.Helper()
	d := s.data(tb)
	plan, err := MakePlan(d, &o)
	if err != nil {
		tb.Fatal(err)
	}
	tr := &trainer{o: &o, d: d, plan: plan, sampler: NewSampler(d.Index, d.Base, o.Window), log: quietLog()}
	if _, err := tr.init(0, 0); err != nil {
		tb.Fatal(err)
	}
	var cs contextSet
	dim := d.Base.Dim
	au := make([]float32, dim)
	var sum float64
	for _, tw := range plan.Words {
		r := newRNG(99, uint64(tw.Index))
		u, ok := meanOfMeans(cs.sample(tr.sampler, &r, tw.Index, o.MaxContexts), tr.m)
		if !ok {
			tb.Fatalf("%s has no context", tw.Word)
		}
		simd.MatVec(au, tr.m.A, dim, dim, u)
		for k, y := range d.Base.Row(tw.Base) {
			sum += float64((au[k] - y) * (au[k] - y))
		}
	}
	return sum / float64(len(plan.Words))
}

// TestAlaCarteStart: A starting from the A La Carte map maps the training
// words' context vectors (drawn afresh) close to their base vectors, far
// closer than the random start, on data whose contexts predict the vectors.
func TestAlaCarteStart(t *testing.T) {
	s := newSynth(t, 1500)
	o := smallOptions()
	random := startError(t, o, s)
	o.AlaCarteA = true
	fitted := startError(t, o, s)
	var norm float64
	for i := range s.base.Len() {
		r := s.base.Row(int32(i))
		norm += float64(simd.Dot(r, r))
	}
	norm /= float64(s.base.Len())
	if !(fitted < 0.2*norm && fitted < 0.2*random) {
		t.Errorf("mean squared error of A·u: %v with the A La Carte start, %v with the random one (|v|² %v)", fitted, random, norm)
	}
}

// TestGateAgreementTrains: --gate-agreement gives the trained model the
// gate's agreement input, and training moves its weight from 0.
func TestGateAgreementTrains(t *testing.T) {
	s := newSynth(t, 600)
	o := smallOptions()
	o.GateAgreement = true
	o.ContextDraw = DrawLogUniform
	r := train(t, s.data(t), o)
	m := r.Model
	if !m.GateAgreement || len(m.U) != 2*m.Dim+1 {
		t.Fatalf("agreement %v, U of %d values", m.GateAgreement, len(m.U))
	}
	if m.U[2*m.Dim] == 0 {
		t.Error("the agreement weight did not move from 0")
	}
	o.Mode = model.ModeForm // no gate
	if err := o.Validate(); err == nil {
		t.Error("--gate-agreement with a model without a gate passed")
	}
}

// TestCheckpointEvery: with CheckpointEvery 2 over 3 epochs the checkpoint
// is written after epoch 2 and after the last, not after epoch 1.
func TestCheckpointEvery(t *testing.T) {
	s := newSynth(t, 400)
	o := smallOptions()
	o.CheckpointPath = filepath.Join(t.TempDir(), "ck")
	o.CheckpointEvery = 2
	seen := map[int]int{} // epoch → the checkpoint's epochs done at its first batch (-1: none)
	o.afterBatch = func(epoch, b int) {
		if b != 0 {
			return
		}
		seen[epoch] = -1
		if ck, err := LoadCheckpoint(o.CheckpointPath); err == nil {
			seen[epoch] = ck.State.Epoch
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	train(t, s.data(t), o)
	if seen[0] != -1 || seen[1] != -1 || seen[2] != 2 {
		t.Errorf("checkpoint epochs seen at the start of epochs 1, 2, 3: %v, want none, none, 2", seen)
	}
	ck, err := LoadCheckpoint(o.CheckpointPath)
	if err != nil || ck.State.Epoch != 3 {
		t.Fatalf("final checkpoint: %v, err %v", ck, err)
	}
}
