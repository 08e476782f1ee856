package amtrain

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// A new run (no --resume) whose checkpoint path holds an unfinished run's
// checkpoint is refused, naming the file, --resume and removing it; the
// checkpoint is left as it was. A finished run's checkpoint is replaced, so
// the same command runs again; --resume continues the unfinished one.
func TestTrainRefusesUnfinishedCheckpoint(t *testing.T) {
	s := newSynth(t, 300)
	out := filepath.Join(s.dir, "m.am")
	ckpt := out + ".ckpt"
	args := []string{"--corpus", s.corpus, "--embeddings", s.embeddings, "--out", out,
		"--min-count-train", "20", "--epochs", "2"}
	if err := runTrainArgs(t, args...); err != nil {
		t.Fatal(err)
	}
	if err := runTrainArgs(t, args...); err != nil {
		t.Fatalf("the same command after a finished run: %v", err)
	}
	ck, err := LoadCheckpoint(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	st := ck.State
	st.Epoch, st.History = 1, st.History[:1] // as after a Ctrl-C between epochs 1 and 2
	if err := saveCheckpoint(ckpt, &st, ck.Model, ck.Adam); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(ckpt)
	err = runTrainArgs(t, args...)
	for _, want := range []string{ckpt, "after epoch 1 of 2", "--resume " + ckpt, "remove"} {
		if !errors.Is(err, ErrUnfinishedCheckpoint) || !strings.Contains(err.Error(), want) {
			t.Errorf("rerun over an unfinished checkpoint: err = %v, want ErrUnfinishedCheckpoint naming %q", err, want)
		}
	}
	if after, _ := os.ReadFile(ckpt); !bytes.Equal(before, after) {
		t.Error("the refused run changed the checkpoint")
	}
	if err := runTrainArgs(t, append(args, "--resume", ckpt)...); err != nil {
		t.Fatalf("--resume of the unfinished checkpoint: %v", err)
	}
	if err := os.WriteFile(ckpt, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runTrainArgs(t, args...); !errors.Is(err, ErrUnfinishedCheckpoint) || !strings.Contains(err.Error(), ckpt) {
		t.Errorf("a file that is not a checkpoint in its place: err = %v, want it refused naming %s", err, ckpt)
	}
}

// The checkpoint log, the interrupt error and the resume log describe the
// position alike, epochs counted from 1: "in epoch N at batch B/nb" inside
// an epoch, "after epoch N" between epochs.
func TestInterruptPositionAgrees(t *testing.T) {
	d := newSynth(t, 400).data(t)
	for _, c := range []struct {
		name         string
		epoch, batch int // the afterBatch call that cancels
		want         string
	}{
		{"mid-epoch", 1, 3, "in epoch 2 at batch 4/"},
		{"between epochs", 0, -1, "after epoch 1"},
	} {
		o := smallOptions()
		o.CheckpointPath = filepath.Join(t.TempDir(), "ck")
		var log bytes.Buffer
		o.Log = slog.New(slog.NewTextHandler(&log, nil))
		ctx, cancel := context.WithCancel(context.Background())
		last := lastBatch(t, d, o)
		o.afterBatch = func(epoch, b int) {
			if epoch == c.epoch && (b == c.batch || c.batch < 0 && b == last) {
				cancel()
			}
		}
		_, err := Train(ctx, d, o)
		cancel()
		if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "interrupted "+c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if !strings.Contains(log.String(), `msg="checkpoint written" file=`+o.CheckpointPath+` position="`+c.want) {
			t.Errorf("%s: log %s\nwant the checkpoint at %q", c.name, log.String(), c.want)
		}
		log.Reset()
		o.Resume, o.afterBatch = o.CheckpointPath, nil
		train(t, d, o)
		if !strings.Contains(log.String(), `msg=resuming checkpoint=`+o.Resume+` position="`+c.want) {
			t.Errorf("%s: resume log %s\nwant %q", c.name, log.String(), c.want)
		}
	}
}

// lastBatch returns the index of the last batch of an epoch of o on d.
func lastBatch(t *testing.T, d *Data, o Options) int {
	t.Helper()
	p, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	return (p.Instances+o.Batch-1)/o.Batch - 1
}

// A refused resume names the options that differ, with both values.
func TestResumeNamesWhatDiffers(t *testing.T) {
	d, o, _ := oneEpochCheckpoint(t)
	for _, c := range []struct {
		edit func(o *Options)
		want string
	}{
		{func(o *Options) { o.LR = 0.05 }, fmt.Sprintf("--lr %v (now 0.05)", o.LR)},
		{func(o *Options) { o.Window = 7 }, fmt.Sprintf("--window %d (now 7)", o.Window)},
		{func(o *Options) { o.MinCountTrain = 75 }, "training words (--corpus, --counts, --min-count-train"},
	} {
		r := o
		r.Epochs, r.Resume, r.CheckpointPath = 2, o.CheckpointPath, ""
		c.edit(&r)
		_, err := Train(context.Background(), d, r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want it to name %q", err, c.want)
		}
	}
	// Other base embeddings (a word fewer) change the training words too:
	// the error names the base embeddings.
	base := d.Base
	fewer, err := model.NewEmbeddings(base.Dim, base.Words[1:], base.Vectors[base.Dim:], nil)
	if err != nil {
		t.Fatal(err)
	}
	other := *d
	other.Base = fewer
	other.Counts = d.Counts[1:]
	r := o
	r.Epochs, r.Resume, r.CheckpointPath = 2, o.CheckpointPath, ""
	if _, err := Train(context.Background(), &other, r); err == nil || !strings.Contains(err.Error(), "other base embeddings") {
		t.Errorf("resume with other base words: err = %v, want it to name the base embeddings", err)
	}
}

// A counts file given as --embeddings ("word count" lines, read before as
// headerless 1-d vectors) and 1-d embeddings with a header are refused,
// naming the flag and the file.
func TestTrainRefusesOneDimEmbeddings(t *testing.T) {
	s := newSynth(t, 300)
	out := filepath.Join(s.dir, "m.am")
	var counts, oneDim strings.Builder
	fmt.Fprintf(&oneDim, "%d 1\n", len(s.words))
	for i, w := range s.words {
		fmt.Fprintf(&counts, "%s %d\n", w, 500-i)
		fmt.Fprintf(&oneDim, "%s 0.%d\n", w, i+1)
	}
	countsFile := writeFile(t, s.dir, "counts.txt", counts.String())
	oneDimFile := writeFile(t, s.dir, "one.vec", oneDim.String())
	for _, c := range []struct {
		emb  string
		want error
	}{{countsFile, model.ErrOneValue}, {oneDimFile, ErrTooFewDims}} {
		err := runTrainArgs(t, "--corpus", s.corpus, "--embeddings", c.emb, "--counts", countsFile, "--out", out,
			"--min-count-train", "20", "--epochs", "1")
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "--embeddings") || !strings.Contains(err.Error(), c.emb) {
			t.Errorf("--embeddings %s: err = %v, want %v naming the flag and the file", c.emb, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a model was written")
	}
}

// Progress written to a file (not a terminal) comes as whole lines, at most
// progressSteps of them, never blank ones nor carriage returns; every other
// stderr line is a log line in slog's text format.
func TestTrainProgressToFile(t *testing.T) {
	s := newSynth(t, 300)
	var stdout, stderr bytes.Buffer
	args := []string{"--corpus", s.corpus, "--embeddings", s.embeddings, "--out", filepath.Join(s.dir, "m.am"),
		"--min-count-train", "20", "--epochs", "3"}
	if err := runTrain(context.Background(), cli.Env{Args: args, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	progressLines := 0
	for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "epoch "):
			progressLines++
		case !strings.HasPrefix(line, "time="):
			t.Errorf("stderr line %q is neither a progress line nor a log line", line)
		}
	}
	if progressLines == 0 || progressLines > progressSteps || strings.Contains(stderr.String(), "\r") {
		t.Errorf("%d progress lines, want 1..%d without carriage returns:\n%s", progressLines, progressSteps, stderr.String())
	}
}

// writeStateOnly writes the head of a checkpoint, its magic and state, at
// path: all CheckNoUnfinished reads.
func writeStateOnly(t *testing.T, path string, st TrainState) {
	t.Helper()
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString(checkpointMagic)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(js))))
	buf.Write(js)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A checkpoint that does not record its run's number of epochs (written by
// an earlier version) is not judged against the new run's --epochs: one
// stopped between epochs is refused saying whether its run finished cannot
// be told, one stopped inside an epoch as unfinished, both naming the two
// ways on; a checkpoint recording its epochs is replaced once they are done.
func TestCheckNoUnfinishedWithoutEpochCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.am.ckpt")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		st   TrainState
		want []string // nil: replaced
	}{
		{TrainState{Epoch: 20}, []string{"stopped after epoch 20, written by an earlier version",
			"whether it finished cannot be told"}},
		{TrainState{Epoch: 5, Batch: 3}, []string{"stopped in epoch 6 at batch 3;"}},
		{TrainState{Epoch: 20, Epochs: 30}, []string{"stopped after epoch 20 of 30 epochs"}},
		{TrainState{Epoch: 20, Epochs: 20}, nil},
	} {
		writeStateOnly(t, path, c.st)
		err := CheckNoUnfinished(path, "", log)
		if c.want == nil {
			if err != nil {
				t.Errorf("%+v: %v, want the checkpoint replaced", c.st, err)
			}
			continue
		}
		for _, w := range append(c.want, path, "--resume "+path, "remove the file") {
			if !errors.Is(err, ErrUnfinishedCheckpoint) || !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: err = %v, want ErrUnfinishedCheckpoint naming %q", c.st, err, w)
			}
		}
		if c.st.Epochs == 0 && err != nil && regexp.MustCompile(`of \d+ epochs`).MatchString(err.Error()) {
			t.Errorf("%+v: err = %v names an epoch count the checkpoint does not record", c.st, err)
		}
	}
}

// CheckNoUnfinished's words: a file that is not a checkpoint is named once,
// with what is wrong with it, and replacing a finished run's checkpoint
// logs the epochs it trained.
func TestCheckNoUnfinishedWords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.am.ckpt")
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	if err := os.WriteFile(path, []byte("some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "the checkpoint of an unfinished run is in the way: " + path + " is in the place of this run's checkpoint " +
		"and cannot be read as one (not a text2vec-am checkpoint (bad magic)); move it away or remove it, " +
		"or choose another --out or --checkpoint-dir"
	if err := CheckNoUnfinished(path, "", logger); err == nil || err.Error() != want {
		t.Errorf("a text file in the way: %v\nwant %s", err, want)
	}
	writeStateOnly(t, path, TrainState{Epoch: 20, Epochs: 20})
	if err := CheckNoUnfinished(path, "", logger); err != nil ||
		!strings.Contains(log.String(), `msg="replacing the checkpoint of a finished run" file=`+path+" epochs=20") {
		t.Errorf("a finished run's checkpoint: %v, log %q", err, log.String())
	}
}

// The --resume checkpoint and the checkpoint's directory are checked before
// the corpus is read (the corpus here does not exist, so reading it would
// fail first): a missing file, a checkpoint made with another --lr, an
// unwritable directory, and an output, a checkpoint or a corpus index (kept
// in the --out directory by default) inside a --corpus directory, where the
// next run would read it as corpus, are each refused, naming the problem.
func TestTrainChecksCheckpointsBeforeTheCorpus(t *testing.T) {
	s := newSynth(t, 300)
	out := filepath.Join(s.dir, "m.am")
	base := []string{"--embeddings", s.embeddings, "--min-count-train", "20", "--epochs", "1"}
	if err := runTrainArgs(t, append(base, "--corpus", s.corpus, "--out", out)...); err != nil {
		t.Fatal(err)
	}
	ck := out + ".ckpt"
	if _, err := os.Stat(ck); err != nil {
		t.Fatal(err)
	}
	corpusDir := filepath.Join(s.dir, "corpus")
	if err := os.Mkdir(corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	notADir := writeFile(t, s.dir, "file", "x")
	gone := filepath.Join(s.dir, "gone.txt")
	other := filepath.Join(s.dir, "other", "m.am")
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"missing resume": {[]string{"--corpus", gone, "--out", other, "--resume", filepath.Join(s.dir, "no.ckpt")}, "no.ckpt"},
		"other lr":       {[]string{"--corpus", gone, "--out", other, "--epochs", "2", "--resume", ck, "--lr", "0.05"}, "--lr 0.01 (now 0.05)"},
		"unwritable dir": {[]string{"--corpus", gone, "--out", other, "--checkpoint-dir", notADir}, "--checkpoint-dir"},
		"index in the corpus": {[]string{"--corpus", corpusDir, "--out", other, "--work-dir",
			filepath.Join(corpusDir, "work")}, "choose a --work-dir"},
		"out in the corpus": {[]string{"--corpus", corpusDir, "--out", filepath.Join(corpusDir, "m.am")},
			"--out " + filepath.Join(corpusDir, "m.am") + " is inside the --corpus directory"},
		"out in the corpus, index and checkpoint outside": {[]string{"--corpus", corpusDir, "--out",
			filepath.Join(corpusDir, "m.am"), "--work-dir", filepath.Join(s.dir, "work"), "--checkpoint-dir",
			filepath.Join(s.dir, "ck")}, "--out " + filepath.Join(corpusDir, "m.am") + " is inside"},
		"bundle in the corpus": {[]string{"--corpus", corpusDir, "--out", other, "--bundle-out",
			filepath.Join(corpusDir, "b.amb")}, "--bundle-out " + filepath.Join(corpusDir, "b.amb") + " is inside"},
		"checkpoint in the corpus": {[]string{"--corpus", corpusDir, "--out", other, "--checkpoint-dir",
			filepath.Join(corpusDir, "ck")}, "the checkpoint " + filepath.Join(corpusDir, "ck", "m.am.ckpt") + " would be inside"},
	} {
		err := runTrainArgs(t, append(base, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "gone.txt") {
			t.Errorf("%s: err = %v, want it to contain %q before the corpus is read", name, err, c.want)
		}
	}
	newDir := filepath.Join(corpusDir, "new")
	err := runTrainArgs(t, append(base, "--corpus", corpusDir, "--out", filepath.Join(newDir, "m.am"))...)
	if err == nil || !strings.Contains(err.Error(), "is inside the --corpus directory") {
		t.Errorf("out in a new directory inside the corpus: err = %v", err)
	}
	if _, err := os.Stat(newDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused --out left its directory %s inside the corpus (stat: %v)", newDir, err)
	}
}

// An output that is a corpus file under another name is refused before any
// work, by a usage error naming the output and the corpus file: a link to a
// --corpus file, a link or a hard link to a file of a --corpus directory,
// or the place a link in that directory leads to. The corpus is left as it
// was.
func TestTrainRefusesAnOutputLinkedToTheCorpus(t *testing.T) {
	s := newSynth(t, 300)
	docs, away := filepath.Join(s.dir, "docs"), filepath.Join(s.dir, "away")
	for _, d := range []string{docs, away} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	text := writeFile(t, docs, "a.txt", "some words\n")
	toCorpus, toText, lead := filepath.Join(away, "c.am"), filepath.Join(away, "a.am"), filepath.Join(away, "lead.am")
	links := map[string]string{s.corpus: toCorpus, text: toText, lead: filepath.Join(docs, "lead.txt")}
	for target, name := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	hard := filepath.Join(away, "hard.am")
	if err := os.Link(text, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	base := []string{"--embeddings", s.embeddings, "--min-count-train", "20", "--epochs", "1"}
	for name, c := range map[string]struct {
		corpus, out, want string
	}{
		"link to the corpus file": {s.corpus, toCorpus, "--out " + toCorpus + " is the --corpus file " + s.corpus},
		"link into the corpus":    {docs, toText, "--out " + toText + " is the corpus file " + text},
		"hard link":               {docs, hard, "--out " + hard + " is the corpus file " + text},
		"where a corpus link leads": {docs, lead, "--out " + lead + " is where the symbolic link " +
			filepath.Join(docs, "lead.txt") + " in the --corpus directory " + docs},
	} {
		err := runTrainArgs(t, append(base, "--corpus", c.corpus, "--out", c.out)...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a usage error containing %q", name, err, c.want)
		}
	}
	if b, err := os.ReadFile(text); string(b) != "some words\n" || err != nil {
		t.Errorf("the corpus file became %q (%v)", b, err)
	}
	if _, err := os.Lstat(lead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run wrote %s (%v)", lead, err)
	}
}
