package amtrain

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

func TestNumInstances(t *testing.T) {
	for _, c := range []struct {
		f    int64
		want int
	}{{1, 1}, {99, 1}, {100, 1}, {199, 1}, {250, 2}, {499, 4}, {500, 5}, {1_000_000, 5}} {
		if got := NumInstances(c.f, 100, 5); got != c.want {
			t.Errorf("n(%d) = %d, want %d", c.f, got, c.want)
		}
	}
}

func TestMakePlan(t *testing.T) {
	s := newSynth(t, 400)
	d := s.data(t)
	// Give known counts: word i has count 50·i.
	for i := range d.Counts {
		d.Counts[i] = int64(50 * i)
	}
	o := DefaultOptions()
	p, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, w := range p.Words {
		f := d.Counts[w.Base]
		if f < 100 {
			t.Errorf("%s (f=%d) must not be trained", w.Word, f)
		}
		if w.N != min(int(f/100), 5) || w.N < 1 {
			t.Errorf("%s: n = %d, want min(%d/100, 5)", w.Word, w.N, f)
		}
		total += w.N
	}
	if len(p.Words) != len(s.words)-2 || total != p.Instances {
		t.Errorf("%d words, %d instances (sum %d); want %d words", len(p.Words), p.Instances, total, len(s.words)-2)
	}
	// Include: word 0 (count 0) gets 5 instances; holdout removes words from training.
	d.Include = []string{s.words[0]}
	o.Holdout = 10
	p2, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Holdout) != 10 || len(p2.Words) != len(s.words)-2-10+1 {
		t.Errorf("holdout %d, words %d", len(p2.Holdout), len(p2.Words))
	}
	for _, h := range p2.Holdout {
		if slices.ContainsFunc(p2.Words, func(w TrainWord) bool { return w.Word == h.Word }) {
			t.Errorf("held-out %s is trained", h.Word)
		}
	}
	if i := slices.IndexFunc(p2.Words, func(w TrainWord) bool { return w.Word == s.words[0] }); i < 0 || p2.Words[i].N != 5 {
		t.Errorf("included word: %v", i)
	}
	d.Include = []string{"nosuchword"}
	if _, err := MakePlan(d, &o); err == nil || !strings.Contains(err.Error(), "no base embedding") {
		t.Errorf("include of an unknown word: err = %v", err)
	}
	d.Include = nil
	o.Holdout = 1000
	if _, err := MakePlan(d, &o); err == nil || !strings.Contains(err.Error(), "holdout") {
		t.Errorf("holdout too large: err = %v", err)
	}
}

// TestMakePlanOnly checks Data.Only: of the words MinCountTrain selects,
// only the listed ones are trained, with their usual n(w); an included word
// is trained whatever Only says.
func TestMakePlanOnly(t *testing.T) {
	s := newSynth(t, 400)
	d := s.data(t)
	for i := range d.Counts {
		d.Counts[i] = int64(50 * i)
	}
	o := DefaultOptions()
	d.Only = []string{s.words[1], s.words[5], s.words[9], "nosuchword"} // word 1 has f = 50: below MinCountTrain
	d.Include = []string{s.words[0]}
	p, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range p.Words {
		got = append(got, w.Word)
		if f := d.Counts[w.Base]; w.Word != s.words[0] && w.N != NumInstances(f, o.CountPerInstance, o.MaxInstances) {
			t.Errorf("%s: n = %d for f = %d", w.Word, w.N, f)
		}
	}
	if want := []string{s.words[0], s.words[5], s.words[9]}; !slices.Equal(got, want) {
		t.Errorf("trained %q, want %q", got, want)
	}
}

func paramsOf(m *model.Model) []float32 {
	var p []float32
	p = append(p, m.Ngrams...)
	p = append(p, m.M...)
	p = append(p, m.A...)
	p = append(p, m.U...)
	return append(p, m.B)
}

func train(t testing.TB, d *Data, o Options) *Result {
	t.Helper()
	res, err := Train(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTrainLossFallsAndDeterministic(t *testing.T) {
	s := newSynth(t, 1500)
	d := s.data(t)
	o := smallOptions()
	o.Holdout = 8
	r1 := train(t, d, o)
	first, last := r1.Epochs[0].Loss, r1.Epochs[len(r1.Epochs)-1].Loss
	if !(last < 0.7*first) {
		t.Errorf("loss %v → %v: did not fall by 30%%", first, last)
	}
	if r1.Holdout == nil || r1.Holdout.Words != 8 || !(r1.Holdout.Cos64() > 0.5) {
		t.Errorf("holdout score %+v: want 8 words with mean cosine > 0.5 on topic-structured data", r1.Holdout)
	}
	r2 := train(t, d, o)
	if !slices.Equal(paramsOf(r1.Model), paramsOf(r2.Model)) {
		t.Error("two runs with the same seed and threads differ")
	}
	o.Seed = 2
	r3 := train(t, d, o)
	if slices.Equal(paramsOf(r1.Model), paramsOf(r3.Model)) {
		t.Error("another seed gave the same weights")
	}
}

func TestResumeMatchesUninterrupted(t *testing.T) {
	s := newSynth(t, 800)
	d := s.data(t)
	o := smallOptions()
	full := train(t, d, o)

	// Stop after epoch 1 (by asking for 1 epoch), resume to 3.
	o1 := o
	o1.Epochs = 1
	o1.CheckpointPath = filepath.Join(t.TempDir(), "ck")
	train(t, d, o1)
	o2 := o
	o2.Resume = o1.CheckpointPath
	resumed := train(t, d, o2)
	if !slices.Equal(paramsOf(full.Model), paramsOf(resumed.Model)) {
		t.Error("resume from an epoch checkpoint differs from the uninterrupted run")
	}
	if len(resumed.Epochs) != 3 || resumed.Epochs[0].Loss != full.Epochs[0].Loss {
		t.Errorf("resumed history %+v", resumed.Epochs)
	}

	// Cancel in the middle of epoch 2: the checkpoint written then resumes exactly too.
	ctx, cancel := context.WithCancel(context.Background())
	o3 := o
	o3.CheckpointPath = filepath.Join(t.TempDir(), "ck")
	o3.afterBatch = func(epoch, b int) {
		if epoch == 1 && b == 3 {
			cancel()
		}
	}
	_, err := Train(ctx, d, o3)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("cancelled training: err = %v", err)
	}
	ck, err := LoadCheckpoint(o3.CheckpointPath)
	if err != nil {
		t.Fatal(err)
	}
	if ck.State.Batch == 0 {
		t.Errorf("checkpoint at epoch %d batch 0: the cancel was meant to land mid-epoch", ck.State.Epoch)
	}
	o4 := o
	o4.Resume = o3.CheckpointPath
	resumed2 := train(t, d, o4)
	if !slices.Equal(paramsOf(full.Model), paramsOf(resumed2.Model)) {
		t.Error("resume from a mid-epoch (Ctrl-C) checkpoint differs from the uninterrupted run")
	}

	// A checkpoint of other options is refused.
	o5 := o
	o5.Resume = o3.CheckpointPath
	o5.LR = 0.05
	if _, err := Train(context.Background(), d, o5); err == nil || !strings.Contains(err.Error(), "other training words or options") {
		t.Errorf("resume with another lr: err = %v", err)
	}
}

func TestCheckpointCorruption(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "", "magic": "NOTACHECKPOINTATALL", "trunc": checkpointMagic + "\x05\x00\x00\x00{}"} {
		p := writeFile(t, dir, name, content)
		if _, err := LoadCheckpoint(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
	}
}

func TestModesTrain(t *testing.T) {
	s := newSynth(t, 600)
	d := s.data(t)
	for _, mode := range []model.Mode{model.ModeFCM, model.ModeForm, model.ModeContext} {
		o := smallOptions()
		o.Mode = mode
		o.Epochs = 2
		r := train(t, d, o)
		if r.Model.Mode != mode || !(r.Epochs[1].Loss < r.Epochs[0].Loss) {
			t.Errorf("mode %v: loss %v → %v", mode, r.Epochs[0].Loss, r.Epochs[1].Loss)
		}
	}
}

func TestProgressBar(t *testing.T) {
	s := newSynth(t, 300)
	d := s.data(t)
	o := smallOptions()
	o.Epochs = 1
	var buf bytes.Buffer
	o.Progress = &buf
	train(t, d, o)
	out := buf.String()
	for _, want := range []string{"epoch 1/1", "inst/s", "ETA", "loss", "100.0%"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q: %q", want, out)
		}
	}
}

// TestSchedule checks that an epoch holds every word exactly n(w) times, in
// an order that depends on the epoch.
func TestSchedule(t *testing.T) {
	s := newSynth(t, 400)
	d := s.data(t)
	o := smallOptions()
	p, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	tr := &trainer{o: &o, plan: p}
	e0 := tr.schedule(nil, 0)
	e1 := tr.schedule(nil, 1)
	if len(e0) != p.Instances || len(e1) != p.Instances {
		t.Fatalf("schedule lengths %d, %d; want %d", len(e0), len(e1), p.Instances)
	}
	count := make([]int, len(p.Words))
	for _, i := range e0 {
		count[i]++
	}
	for i, w := range p.Words {
		if count[i] != w.N {
			t.Errorf("%s appears %d times, want n(w) = %d", w.Word, count[i], w.N)
		}
	}
	if slices.Equal(e0, e1) {
		t.Error("epochs 0 and 1 have the same order")
	}
	if !slices.Equal(e0, tr.schedule(nil, 0)) {
		t.Error("the order of an epoch is not reproducible")
	}
}
