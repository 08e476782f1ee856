package amtrain

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// withVectors returns e's words with other vectors: vecs.
func withVectors(t *testing.T, e *model.Embeddings, vecs []float32) *model.Embeddings {
	t.Helper()
	out, err := model.NewEmbeddings(e.Dim, slices.Clone(e.Words), vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The base fingerprint covers the vector values, bit for bit, not only the
// words and the shape.
func TestBaseFingerprintHashesValues(t *testing.T) {
	s := newSynth(t, 10)
	fp := baseFingerprint(s.base)
	if same := withVectors(t, s.base, slices.Clone(s.base.Vectors)); baseFingerprint(same) != fp {
		t.Error("a copy of the embeddings has another fingerprint")
	}
	nudged := slices.Clone(s.base.Vectors)
	nudged[len(nudged)/2] = math.Nextafter32(nudged[len(nudged)/2], 10)
	if baseFingerprint(withVectors(t, s.base, nudged)) == fp {
		t.Error("one value one ulp away: same fingerprint")
	}
	zero, negZero := slices.Clone(s.base.Vectors), slices.Clone(s.base.Vectors)
	zero[0], negZero[0] = 0, float32(math.Copysign(0, -1))
	if baseFingerprint(withVectors(t, s.base, zero)) == baseFingerprint(withVectors(t, s.base, negZero)) {
		t.Error("0 and -0: same fingerprint")
	}
	renamed := slices.Clone(s.base.Words)
	renamed[0] += "x"
	if e, err := model.NewEmbeddings(s.base.Dim, renamed, slices.Clone(s.base.Vectors), nil); err != nil || baseFingerprint(e) == fp {
		t.Errorf("another word, same vectors: same fingerprint (%v)", err)
	}
}

// A resume against base embeddings with the same words but other vector
// values is refused, naming the base embeddings; a checkpoint written before
// the base fingerprint was recorded (0) still resumes.
func TestResumeRefusesOtherBaseVectors(t *testing.T) {
	d, o, ck := oneEpochCheckpoint(t)
	if ck.State.BaseFingerprint != baseFingerprint(d.Base) {
		t.Fatalf("checkpoint base fingerprint %x, want %x", ck.State.BaseFingerprint, baseFingerprint(d.Base))
	}
	scaled := slices.Clone(d.Base.Vectors)
	for i := range scaled {
		scaled[i] *= 1.5
	}
	other := *d
	other.Base = withVectors(t, d.Base, scaled)
	resume := o
	resume.Epochs, resume.Resume, resume.CheckpointPath = 2, o.CheckpointPath, ""
	if _, err := Train(context.Background(), &other, resume); err == nil || !strings.Contains(err.Error(), "other base embeddings") {
		t.Fatalf("resume with other base vectors: err = %v, want it refused naming the base embeddings", err)
	}
	if r := train(t, d, resume); len(r.Epochs) != 2 {
		t.Fatalf("resume with the same base vectors: %d epochs, want 2", len(r.Epochs))
	}
	ck.State.BaseFingerprint = 0
	old := filepath.Join(t.TempDir(), "old-ck")
	if err := saveCheckpoint(old, &ck.State, ck.Model, ck.Adam); err != nil {
		t.Fatal(err)
	}
	resume.Resume = old
	if r := train(t, &other, resume); len(r.Epochs) != 2 {
		t.Fatalf("resume of a checkpoint without a base fingerprint: %d epochs, want 2", len(r.Epochs))
	}
}

// A checkpoint whose position cannot be the plan's (a negative batch made
// the workers index the schedule at -Batch: a panic) is refused with an
// error naming the checkpoint, before any training.
func TestResumeRefusesDamagedPosition(t *testing.T) {
	d, o, ck := oneEpochCheckpoint(t)
	for _, c := range []struct {
		name string
		edit func(st *TrainState)
	}{
		{"negative batch", func(st *TrainState) { st.Batch = -1 }},
		{"negative epoch", func(st *TrainState) { st.Epoch = -3 }},
		{"batch past the epoch", func(st *TrainState) { st.Batch = 1 << 40 }},
		{"history of another length", func(st *TrainState) { st.History = nil }},
		{"no threads", func(st *TrainState) { st.Threads = 0 }},
		{"negative threads", func(st *TrainState) { st.Threads = -2 }},
	} {
		resume, err := resumeEdited(t, d, o, ck, c.edit, 2)
		if err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), resume.Resume) {
			t.Errorf("%s: err = %v, want it refused as damaged, naming %s", c.name, err, resume.Resume)
		}
	}
}

// A checkpoint beyond --epochs (more epochs done, or a batch of the epoch
// after the last) is refused with an error naming the checkpoint, where it
// is and --epochs: it used to be accepted and train nothing; the --epochs
// the error advises resumes it. A checkpoint of exactly --epochs (a
// finished run) resumes with nothing to train.
func TestResumeRefusesCheckpointBeyondEpochs(t *testing.T) {
	d, o, ck := oneEpochCheckpoint(t)
	for _, c := range []struct {
		name string
		edit func(st *TrainState)
		want string
	}{
		{"two epochs done", func(st *TrainState) { st.Epoch, st.History = 2, append(st.History, st.History...) },
			"is after epoch 2, beyond --epochs 1: resuming would train nothing; give --epochs 2 or more"},
		{"a batch of epoch 2", func(st *TrainState) { st.Batch = 1 },
			"is in epoch 2 at batch 1/"},
	} {
		resume, err := resumeEdited(t, d, o, ck, c.edit, 1)
		if err == nil || !strings.Contains(err.Error(), "resume "+resume.Resume+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q naming %s", c.name, err, c.want, resume.Resume)
		}
		resume.Epochs = 2 // as the error advises
		if r := train(t, d, resume); len(r.Epochs) != 2 {
			t.Errorf("%s with --epochs 2: %d epochs, want 2", c.name, len(r.Epochs))
		}
	}
	resume := o
	resume.Epochs, resume.Resume, resume.CheckpointPath = 1, o.CheckpointPath, ""
	r := train(t, d, resume)
	if len(r.Epochs) != 1 || !slices.Equal(paramsOf(r.Model), paramsOf(ck.Model)) {
		t.Errorf("a finished checkpoint with its own --epochs: %d epochs, weights changed: want the checkpoint's 1 epoch and weights", len(r.Epochs))
	}
}

// resumeEdited saves ck with its state changed by edit and resumes training
// from it to epochs; it returns the options of that resume (the edited
// checkpoint in Resume) and Train's error.
func resumeEdited(t *testing.T, d *Data, o Options, ck *Checkpoint, edit func(*TrainState), epochs int) (Options, error) {
	t.Helper()
	st := ck.State
	edit(&st)
	path := filepath.Join(t.TempDir(), "edited-ck")
	if err := saveCheckpoint(path, &st, ck.Model, ck.Adam); err != nil {
		t.Fatal(err)
	}
	resume := o
	resume.Epochs, resume.Resume, resume.CheckpointPath = epochs, path, ""
	_, err := Train(context.Background(), d, resume)
	return resume, err
}

// oneEpochCheckpoint trains one epoch on synthetic data with a checkpoint
// and returns the data, the options and the checkpoint loaded back.
func oneEpochCheckpoint(t testing.TB) (*Data, Options, *Checkpoint) {
	t.Helper()
	d := newSynth(t, 400).data(t)
	o := smallOptions()
	o.Epochs = 1
	o.CheckpointPath = filepath.Join(t.TempDir(), "ck")
	train(t, d, o)
	ck, err := LoadCheckpoint(o.CheckpointPath)
	if err != nil {
		t.Fatal(err)
	}
	return d, o, ck
}

// A checkpoint whose state is the run's but whose model is of another
// mode, n-grams or gate (an edited file, its checksum recomputed) is
// refused as damaged, naming it: resuming trained that model and wrote it
// as the run's.
func TestResumeRefusesAnotherModel(t *testing.T) {
	d, o, ck := oneEpochCheckpoint(t)
	for _, c := range []struct {
		name string
		edit func(o *Options)
	}{
		{"another mode", func(o *Options) { o.Mode = model.ModeForm }},
		{"other n-grams", func(o *Options) { o.Ngram.MaxN = 3 }},
		{"count buckets", func(o *Options) { o.CountBuckets = 2 }},
	} {
		other := o
		c.edit(&other)
		other.CheckpointPath = filepath.Join(t.TempDir(), "other")
		train(t, d, other)
		ckOther, err := LoadCheckpoint(other.CheckpointPath)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "swapped")
		if err := saveCheckpoint(path, &ck.State, ckOther.Model, ckOther.Adam); err != nil {
			t.Fatal(err)
		}
		resume := o
		resume.Epochs, resume.Resume, resume.CheckpointPath = 2, path, ""
		_, err = Train(context.Background(), d, resume)
		if err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want it refused as damaged, naming %s", c.name, err, path)
		}
	}
}
