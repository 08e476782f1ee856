package skipgram

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/checkpoint"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// cancelAt is a log destination that cancels a run when a line containing
// at is written: "checkpoint written", once the first checkpoint is on
// disk with the workers still paused. It keeps what was written.
type cancelAt struct {
	mu     sync.Mutex
	at     string
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelAt) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(p, []byte(c.at)) {
		c.cancel()
	}
	return c.buf.Write(p)
}

func (c *cancelAt) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// runCmdLog runs train-embeddings with args, its stderr to w.
func runCmdLog(ctx context.Context, w io.Writer, args ...string) error {
	return Commands()[0].Run(ctx, cli.Env{Args: args, Stdout: io.Discard, Stderr: w})
}

// embeddingsArgs are the arguments of a small train-embeddings run on
// corpusPath writing into dir (every output), with extra after them; "DIR"
// in extra is dir.
func embeddingsArgs(corpusPath, dir string, extra ...string) []string {
	args := []string{"--corpus", corpusPath, "--out", filepath.Join(dir, "e.vec"), "--counts-out", filepath.Join(dir, "counts.txt"),
		"--dim", "8", "--window", "3", "--min-count", "2", "--epochs", "3", "--sample", "0", "--threads", "1", "--seed", "5",
		"--shuffle", "--quiet"}
	for _, a := range extra {
		args = append(args, strings.ReplaceAll(a, "DIR", dir))
	}
	return args
}

// interrupt runs args with a context cancelled once the first checkpoint
// is written and returns the error and the log.
func interrupt(t *testing.T, args []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &cancelAt{at: "checkpoint written", cancel: cancel}
	err := runCmdLog(ctx, log, args...)
	return log.String(), err
}

// sameFiles fails unless directories a and b hold the same files, byte for
// byte.
func sameFiles(t *testing.T, name, a, b string) {
	t.Helper()
	entries, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	others, _ := os.ReadDir(b)
	if len(entries) != len(others) || len(entries) < 3 {
		t.Fatalf("%s: %d files after the uninterrupted run, %d after the resumed one", name, len(entries), len(others))
	}
	for _, e := range entries {
		x, err := os.ReadFile(filepath.Join(a, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs between the uninterrupted and the resumed run (%v)", name, e.Name(), err)
		}
	}
}

// With one thread, a run interrupted at its first checkpoint (Ctrl-C) and
// resumed with --resume writes the same files, byte for byte, as the run
// without interruption, the final checkpoint included: words only, subwords
// (--maxn) and subwords with held forms. The interrupted run writes no
// output and says where it stopped and how to continue.
func TestResumedRunIsExact(t *testing.T) {
	topics, morph := topicCorpus(t, 600), morphCorpus(t, 600)
	for _, c := range []struct {
		name, corpus string
		extra        []string
	}{
		{"words", topics, []string{"--format", "binary"}},
		{"subwords", morph, []string{"--maxn", "5", "--ngrams-out", "DIR/ngrams.vec", "--outputs-out", "DIR/outputs.vec"}},
		{"held forms", morph, []string{"--maxn", "4", "--bucket", "500", "--hold-forms", "0.5", "--hold-min-count", "50",
			"--held-words-out", "DIR/held.txt", "--ngrams-out", "DIR/ngrams.vec"}},
	} {
		whole, parts := t.TempDir(), t.TempDir()
		if err := runCmdLog(context.Background(), io.Discard, embeddingsArgs(c.corpus, whole, c.extra...)...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		args := embeddingsArgs(c.corpus, parts, c.extra...)
		ckpt := filepath.Join(parts, "e.vec.ckpt")
		log, err := interrupt(t, args)
		if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) ||
			!strings.Contains(err.Error(), "in epoch 2 of 3") || !strings.Contains(err.Error(), "--resume "+ckpt) {
			t.Fatalf("%s: interrupted run: %v, want ErrInterrupted in epoch 2 naming --resume %s\n%s", c.name, err, ckpt, log)
		}
		if !strings.Contains(log, "text2vec-am train-embeddings: training interrupted in epoch 2") {
			t.Errorf("%s: stderr does not say where the run stopped:\n%s", c.name, log)
		}
		if _, err := os.Stat(filepath.Join(parts, "e.vec")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the interrupted run wrote --out (%v)", c.name, err)
		}
		if err := runCmdLog(context.Background(), io.Discard, append(args, "--resume", ckpt)...); err != nil {
			t.Fatalf("%s: resume: %v", c.name, err)
		}
		sameFiles(t, c.name, whole, parts)
	}
}

// trainOnce trains enc with cfg (subwords when cfg.MaxN > 0) and returns
// all the vectors the run gives.
func trainOnce(ctx context.Context, enc *corpus.Encoded, v *corpus.Vocab, cfg Config) ([][]float32, error) {
	if cfg.MaxN == 0 {
		e, err := Train(ctx, enc, v, cfg)
		if err != nil {
			return nil, err
		}
		return [][]float32{e.Vectors}, nil
	}
	sw, err := TrainSubwords(ctx, enc, v, cfg)
	if err != nil {
		return nil, err
	}
	return [][]float32{sw.Words.Vectors, sw.Ngrams.Vectors, sw.Outputs.Vectors}, nil
}

// Cancelled at any moment (here at the first progress report, with reports
// every microsecond), a one-thread run writes a checkpoint from which it
// resumes to exactly the vectors of the uninterrupted run.
func TestCancelAnywhereResumesExactly(t *testing.T) {
	_, v, enc := readCorpus(t, morphCorpus(t, 800), 2)
	for _, maxn := range []int{0, 5} {
		cfg := smallConfig(1)
		cfg.MaxN, cfg.Shuffle = maxn, true
		want, err := trainOnce(context.Background(), enc, v, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Checkpoints.Path = filepath.Join(t.TempDir(), "ck")
		for range 3 {
			ctx, cancel := context.WithCancel(context.Background())
			cfg.ProgressEvery, cfg.Progress = time.Microsecond, func(Progress) { cancel() }
			_, err := trainOnce(ctx, enc, v, cfg)
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("maxn %d: %v", maxn, err)
			}
			cfg.Checkpoints.Resume = cfg.Checkpoints.Path
		}
		cfg.Progress = nil
		got, err := trainOnce(context.Background(), enc, v, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("maxn %d: interrupted three times and resumed: other vectors than the uninterrupted run", maxn)
		}
	}
}

// With several threads an interrupted run resumes and ends: the budget is
// spent and the checkpoint marked finished (Hogwild: not bit for bit).
func TestResumeWithThreads(t *testing.T) {
	if raceEnabled {
		t.Skip("Hogwild SGD races on purpose; skipped under the race detector")
	}
	dir := t.TempDir()
	args := embeddingsArgs(topicCorpus(t, 1000), dir, "--threads", "3", "--maxn", "4")
	ckpt := filepath.Join(dir, "e.vec.ckpt")
	if _, err := interrupt(t, args); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	if err := runCmdLog(context.Background(), io.Discard, append(args, "--resume", ckpt)...); err != nil {
		t.Fatal(err)
	}
	var st ckState
	if err := checkpoint.ReadHead(ckpt, checkpoint.EmbeddingsMagic, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Finished || st.Processed < st.Tokens*int64(st.Epochs) || len(st.Workers) != 3 {
		t.Errorf("after the resumed run: finished %v, %d of %d tokens, %d workers", st.Finished, st.Processed,
			st.Tokens*int64(st.Epochs), len(st.Workers))
	}
}

// finishedCheckpoint trains cfg on enc with a checkpoint and returns its path.
func finishedCheckpoint(t testing.TB, enc *corpus.Encoded, v *corpus.Vocab, cfg Config) string {
	t.Helper()
	cfg.Checkpoints.Path = filepath.Join(t.TempDir(), "ck")
	if _, err := trainOnce(context.Background(), enc, v, cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.Checkpoints.Path
}

// A resume with another setting or input is refused, the error naming each
// that differs with both values: every training setting, the settings the
// command adds (--min-count), the corpus and its vocabulary.
func TestResumeRefusesOtherSettings(t *testing.T) {
	path := morphCorpus(t, 300)
	_, v, enc := readCorpus(t, path, 2)
	base := smallConfig(1)
	base.MaxN, base.Bucket = 4, 0
	base.Checkpoints.Settings = map[string]string{"--min-count": "2"}
	ck := finishedCheckpoint(t, enc, v, base)
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Dim = 10 }, "--dim 16 (now 10)"},
		{func(c *Config) { c.Window = 4 }, "--window 3 (now 4)"},
		{func(c *Config) { c.Negative = 3 }, "--negative 5 (now 3)"},
		{func(c *Config) { c.NegativePower = 0.75 }, "--neg-power 0.5 (now 0.75)"},
		{func(c *Config) { c.Epochs = 4 }, "--epochs 3 (now 4)"},
		{func(c *Config) { c.Sample = 1e-3 }, "--sample 0 (now 0.001)"},
		{func(c *Config) { c.LR = 0.025 }, "--lr 0.05 (now 0.025)"},
		{func(c *Config) { c.Threads = 2 }, "--threads 1 (now 2)"},
		{func(c *Config) { c.Seed = 9 }, "--seed 1 (now 9)"},
		{func(c *Config) { c.Shuffle = true }, "--shuffle false (now true)"},
		{func(c *Config) { c.MinN = 2 }, "--minn 3 (now 2)"},
		{func(c *Config) { c.MaxN = 5 }, "--maxn 4 (now 5)"},
		{func(c *Config) { c.Bucket = 100 }, "--bucket 0 (now 100)"},
		{func(c *Config) { c.ZeroNgramRows = true }, "--ngram-init uniform (now zero)"},
		{func(c *Config) { c.HoldForms = 0.5 }, "--hold-forms 0 (now 0.5)"},
		{func(c *Config) { c.HoldForms, c.HoldMinCount = 0.5, 20 }, "--hold-min-count unused (--hold-forms 0) (now 20)"},
		{func(c *Config) { c.Checkpoints.Settings = map[string]string{"--min-count": "3"} }, "--min-count 2 (now 3)"},
		{func(c *Config) { c.MaxN = 0 }, "--minn 3 (now unused (--maxn 0))"},
	} {
		cfg := base
		c.edit(&cfg)
		cfg.Checkpoints.Resume = ck
		_, err := trainOnce(context.Background(), enc, v, cfg)
		if err == nil || !strings.Contains(err.Error(), "resume "+ck+": the checkpoint was made with other settings") ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want it to name %q", err, c.want)
		}
	}
	// The same words in another order: the same vocabulary, another corpus.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[0], lines[1] = lines[1], lines[0]
	swapped, longer := filepath.Join(t.TempDir(), "swapped.txt"), filepath.Join(t.TempDir(), "longer.txt")
	if err := os.WriteFile(swapped, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(longer, append(data, lines[0]...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v2, enc2 := readCorpus(t, swapped, 2)
	_, v3, enc3 := readCorpus(t, longer, 2)
	for _, c := range []struct {
		enc       *corpus.Encoded
		v         *corpus.Vocab
		want, not string
	}{
		{enc2, v2, "corpus (--corpus) 3000 tokens in 300 lines, CRC-64", "vocabulary"},
		{enc3, v3, "vocabulary (--corpus, --min-count) ", ""},
	} {
		cfg := base
		cfg.Checkpoints.Resume = ck
		_, err := trainOnce(context.Background(), c.enc, c.v, cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.not != "" && strings.Contains(err.Error(), c.not) {
			t.Errorf("err = %v, want it to name %q and not %q", err, c.want, c.not)
		}
	}
}

// writeState writes a checkpoint of state st and the body body writes at
// path.
func writeState(t testing.TB, path string, st *ckState, body func(w *checkpoint.Writer)) {
	t.Helper()
	if err := checkpoint.Write(path, checkpoint.EmbeddingsMagic, st, body); err != nil {
		t.Fatal(err)
	}
}

// A damaged checkpoint is a clear error naming the file, never a panic nor
// an allocation of what a length in it claims: truncated anywhere, a byte
// flipped anywhere, another file, a state training cannot write (with a
// valid checksum), absurd lengths.
func TestResumeRefusesDamagedCheckpoint(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 300), 1)
	cfg := smallConfig(1)
	ck := finishedCheckpoint(t, enc, v, cfg)
	good, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	resume := func(data []byte) error {
		path := filepath.Join(t.TempDir(), "damaged.ckpt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.Checkpoints.Resume = path
		_, err := trainOnce(context.Background(), enc, v, c)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("err = %v, want an error naming %s", err, path)
		}
		return err
	}
	js := int(binary.LittleEndian.Uint32(good[8:]))
	for _, n := range []int{0, 5, 8, 11, 12, 12 + js/2, 12 + js, 12 + js + 7, len(good) / 2, len(good) - 4, len(good) - 1} {
		if err := resume(good[:n]); err != nil && !strings.Contains(err.Error(), "truncated") &&
			!strings.Contains(err.Error(), "bad magic") && !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("truncated at %d: %v, want truncated, bad magic or checksum mismatch", n, err)
		}
	}
	for _, at := range []int{2, 9, 12 + js/2, 12 + js + 3, len(good) / 2, len(good) - 2} {
		bad := bytes.Clone(good)
		bad[at] ^= 0x10
		err := resume(bad)
		if err != nil && !strings.Contains(err.Error(), "checksum mismatch") && !strings.Contains(err.Error(), "bad magic") {
			t.Errorf("byte %d flipped: %v, want a checksum mismatch", at, err)
		}
	}
	am := append([]byte(checkpoint.TrainMagic), good[8:]...)
	if err := resume(am); err != nil && !strings.Contains(err.Error(), "a checkpoint of text2vec-am train, not of train-embeddings") {
		t.Errorf("a checkpoint of train: %v", err)
	}
	// An absurd state length with a valid checksum: refused, not allocated.
	huge := binary.LittleEndian.AppendUint32([]byte(checkpoint.EmbeddingsMagic), math.MaxUint32)
	huge = append(huge, "{}"...)
	huge = binary.LittleEndian.AppendUint32(huge, crc32.Checksum(huge, crc32.MakeTable(crc32.Castagnoli)))
	if err := resume(huge); err != nil && !strings.Contains(err.Error(), "truncated") {
		t.Errorf("a state of 4 GiB in a small file: %v, want truncated", err)
	}
	checkDamagedStates(t, enc, v, cfg, ck)
}

// checkDamagedStates resumes from checkpoints with a valid checksum whose
// state or matrices training cannot have written: each is refused as
// damaged, naming the file.
func checkDamagedStates(t *testing.T, enc *corpus.Encoded, v *corpus.Vocab, cfg Config, ck string) {
	t.Helper()
	var st ckState
	r, err := checkpoint.Open(ck, checkpoint.EmbeddingsMagic, &st)
	if err != nil {
		t.Fatal(err)
	}
	syn0, syn1 := r.Floats(), r.Floats()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	matrices := func(w *checkpoint.Writer) { w.Floats(syn0); w.Floats(syn1) }
	for _, c := range []struct {
		name string
		edit func(st *ckState)
		body func(w *checkpoint.Writer)
		want string
	}{
		{"position past the corpus", func(st *ckState) { st.Workers[0].Pos = 1 << 40 }, matrices, "worker 0 is at line"},
		{"negative position", func(st *ckState) { st.Workers[0].Pos = -1 }, matrices, "worker 0 is at line"},
		{"more sent than processed", func(st *ckState) { st.Workers[0].Sent = st.Workers[0].Local + 1 }, matrices, "counts"},
		{"huge quota", func(st *ckState) { st.Workers[0].Quota = 1 << 60 }, matrices, "counts"},
		{"a quota far below zero", func(st *ckState) { st.Workers[0].Quota = -1 << 40 }, matrices, "counts"},
		{"unpublished tokens past an update", func(st *ckState) { st.Workers[0].Local += lrUpdateEvery }, matrices, "counts"},
		{"more trained than claimed", func(st *ckState) {
			st.Workers[0].Local += 1 << 50
			st.Workers[0].Sent += 1 << 50
			st.Processed += 1 << 50
		}, matrices, "counts"},
		{"claimed far past the budget", func(st *ckState) { st.Claimed = 1 << 60 }, matrices, "out of range"},
		{"processed not the workers' sum", func(st *ckState) { st.Processed++ }, matrices, "add up to"},
		{"learning rate NaN", func(st *ckState) { st.Workers[0].AlphaBits = math.Float32bits(float32(math.NaN())) },
			matrices, "learning rate"},
		{"other shapes", func(st *ckState) { st.Rows++ }, matrices, "matrices"},
		{"no workers", func(st *ckState) { st.Workers = nil }, matrices, "0 workers"},
		{"no settings", func(st *ckState) { st.Settings = nil }, matrices, "records no settings"},
		{"an absurd matrix length", func(*ckState) {}, func(w *checkpoint.Writer) { w.U64(1 << 60) }, "values, the run has"},
		{"a short matrix", func(*ckState) {}, func(w *checkpoint.Writer) { w.Floats(syn0[1:]); w.Floats(syn1) }, "values, the run has"},
		{"trailing bytes", func(*ckState) {}, func(w *checkpoint.Writer) { matrices(w); w.U32(7) }, "trailing bytes"},
	} {
		edited := st
		edited.Workers = append([]workerState(nil), st.Workers...)
		c.edit(&edited)
		path := filepath.Join(t.TempDir(), "edited.ckpt")
		writeState(t, path, &edited, c.body)
		r := cfg
		r.Checkpoints.Resume = path
		_, err := trainOnce(context.Background(), enc, v, r)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it refused naming %s and %q", c.name, err, path, c.want)
		}
	}
}

// A new run whose checkpoint path holds an interrupted run's checkpoint is
// refused, naming the file, where it stopped, --resume and removing it, and
// the checkpoint is left as it was; --resume continues it; a finished run's
// checkpoint is replaced; a file that is not a checkpoint is refused.
func TestTrainEmbeddingsRefusesUnfinishedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	args := embeddingsArgs(topicCorpus(t, 600), dir)
	ckpt := filepath.Join(dir, "e.vec.ckpt")
	if _, err := interrupt(t, args); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	before, _ := os.ReadFile(ckpt)
	err := runCmdLog(context.Background(), io.Discard, args...)
	for _, want := range []string{ckpt, "stopped in epoch 2 of 3", "--resume " + ckpt, "remove the file"} {
		if !errors.Is(err, checkpoint.ErrUnfinished) || !strings.Contains(err.Error(), want) {
			t.Errorf("rerun over an unfinished checkpoint: err = %v, want ErrUnfinished naming %q", err, want)
		}
	}
	if after, _ := os.ReadFile(ckpt); !bytes.Equal(before, after) {
		t.Error("the refused run changed the checkpoint")
	}
	if err := runCmdLog(context.Background(), io.Discard, append(args, "--resume", ckpt)...); err != nil {
		t.Fatalf("--resume: %v", err)
	}
	var log bytes.Buffer
	err = runCmdLog(context.Background(), &log, args...)
	if err != nil || !strings.Contains(log.String(), "replacing the checkpoint of a finished run") {
		t.Fatalf("the same command after a finished run: %v\n%s", err, log.String())
	}
	if err := os.WriteFile(ckpt, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runCmdLog(context.Background(), io.Discard, args...)
	if !errors.Is(err, checkpoint.ErrUnfinished) || !strings.Contains(err.Error(), "bad magic") {
		t.Errorf("a file that is not a checkpoint in its place: err = %v, want it refused", err)
	}
}

// --checkpoint-every N writes a checkpoint every N epochs' worth of tokens
// and one at the end, into --checkpoint-dir; the resume of a finished run
// trains nothing and writes the outputs; a checkpoint over an input or an
// output, and a --resume that is an output, are refused before any work.
func TestTrainEmbeddingsCheckpointFlags(t *testing.T) {
	corpusPath := topicCorpus(t, 1000) // 12,003 tokens an epoch
	for _, c := range []struct {
		every string
		want  int
	}{{"1", 4}, {"2", 2}, {"9", 1}, {"4611686018427387904", 1}} {
		dir, ckDir := t.TempDir(), filepath.Join(t.TempDir(), "new")
		var log bytes.Buffer
		args := embeddingsArgs(corpusPath, dir, "--epochs", "4", "--checkpoint-every", c.every, "--checkpoint-dir", ckDir)
		if err := runCmdLog(context.Background(), &log, args...); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(log.String(), `msg="checkpoint written" file=`+filepath.Join(ckDir, "e.vec.ckpt")); n != c.want {
			t.Errorf("--checkpoint-every %s: %d checkpoints written, want %d:\n%s", c.every, n, c.want, log.String())
		}
		out := filepath.Join(dir, "e.vec")
		vecs, _ := os.ReadFile(out)
		os.Remove(out)
		log.Reset()
		if err := runCmdLog(context.Background(), &log, append(args, "--resume", filepath.Join(ckDir, "e.vec.ckpt"))...); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(out); !bytes.Equal(again, vecs) || !strings.Contains(log.String(), "nothing left to train") {
			t.Errorf("--checkpoint-every %s: the resumed finished run wrote other vectors or trained:\n%s", c.every, log.String())
		}
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "e.vec")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--counts-out", out + ".ckpt"}, "the checkpoint " + out + ".ckpt would overwrite --counts-out"},
		{[]string{"--resume", out}, "--out " + out + " is the input --resume"},
		{[]string{"--checkpoint-every", "-1"}, "--checkpoint-every -1: want ≥ 0"},
	} {
		_, err := runCmd(context.Background(), append([]string{"--corpus", corpusPath, "--out", out}, c.args...)...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want a usage error %q", c.args, err, c.want)
		}
	}
	if err := os.WriteFile(out+".ckpt", []byte("some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCmd(context.Background(), "--corpus", out+".ckpt", "--out", out)
	if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "would overwrite --corpus") {
		t.Errorf("the checkpoint over the corpus: err = %v", err)
	}
}

// The outputs' and the checkpoint's places are checked before any work:
// inside a --corpus directory (the next run would read them as corpus
// files) they are refused, unless hidden there (corpus reading skips them),
// and so is a --checkpoint-dir that cannot be created or written.
func TestTrainEmbeddingsChecksTheCheckpointPlace(t *testing.T) {
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(topicCorpus(t, 300))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "a.txt"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "e.vec")
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--out", filepath.Join(docs, "e.vec")}, "--out " + filepath.Join(docs, "e.vec") + " is inside the --corpus directory " + docs},
		{[]string{"--counts-out", filepath.Join(docs, "counts.txt")}, "--counts-out " + filepath.Join(docs, "counts.txt") + " is inside"},
		{[]string{"--checkpoint-dir", filepath.Join(docs, "ck")}, "inside the --corpus directory " + docs},
		{[]string{"--checkpoint-dir", filepath.Join(notDir, "ck")}, "--checkpoint-dir " + filepath.Join(notDir, "ck")},
	} {
		args := append([]string{"--corpus", docs, "--out", out, "--dim", "8", "--epochs", "1"}, c.extra...)
		log, err := runCmd(context.Background(), args...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) || strings.Contains(log, "corpus read") {
			t.Errorf("%q: err = %v, log %q; want a usage error %q before the corpus is read", c.extra, err, log, c.want)
		}
	}
	sub := filepath.Join(docs, "sub")
	if _, err := runCmd(context.Background(), "--corpus", docs, "--out", filepath.Join(sub, "e.vec")); err == nil {
		t.Error("--out in a new directory inside the corpus: accepted")
	}
	if _, err := os.Stat(sub); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused --out left its directory %s inside the corpus (stat: %v)", sub, err)
	}
	hidden := []string{"--corpus", docs, "--out", filepath.Join(docs, ".out", "e.vec"), "--dim", "8", "--epochs", "1",
		"--checkpoint-dir", filepath.Join(docs, ".ck")}
	for range 2 { // the second run reads the corpus with the checkpoint in it
		if _, err := runCmd(context.Background(), hidden...); err != nil {
			t.Fatalf("the outputs and the checkpoint in hidden directories of the corpus: %v", err)
		}
	}
}

// A --resume file that is missing, not a checkpoint of train-embeddings or
// made with other settings is refused before the corpus is read.
func TestTrainEmbeddingsChecksResumeFirst(t *testing.T) {
	dir := t.TempDir()
	args := embeddingsArgs(topicCorpus(t, 300), dir)
	if err := runCmdLog(context.Background(), io.Discard, args...); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "e.vec.ckpt")
	am := filepath.Join(dir, "am.ckpt")
	if err := os.WriteFile(am, []byte(checkpoint.TrainMagic+"...."), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--resume", filepath.Join(dir, "missing.ckpt")}, "no such file"},
		{[]string{"--resume", am}, "a checkpoint of text2vec-am train, not of train-embeddings"},
		{[]string{"--resume", ckpt, "--threads", "2"}, "--threads 1 (now 2)"},
	} {
		var log bytes.Buffer
		err := runCmdLog(context.Background(), &log, append(args, c.extra...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(log.String(), "corpus read") {
			t.Errorf("%q: err = %v, log %q; want %q before the corpus is read", c.extra, err, log.String(), c.want)
		}
	}
}

// An output that is a file of a --corpus directory under another name is
// refused before the corpus is read, naming the flag, the output and the
// corpus file: a symbolic link or a hard link to it, or the place a link in
// the directory leads to (the next run would read the vectors as corpus).
func TestTrainEmbeddingsRefusesAnOutputLinkedToTheCorpus(t *testing.T) {
	root := t.TempDir()
	docs, away := filepath.Join(root, "docs"), filepath.Join(root, "away")
	for _, d := range []string{docs, away} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	text, err := os.ReadFile(topicCorpus(t, 300))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(docs, "a.txt")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	toFile, hard := filepath.Join(away, "e.vec"), filepath.Join(away, "counts.txt")
	lead := filepath.Join(away, "lead.vec")
	if err := os.Symlink(file, toFile); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(lead, filepath.Join(docs, "lead.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(file, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	out := filepath.Join(away, "out.vec")
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--out", toFile}, "--out " + toFile + " is the corpus file " + file},
		{[]string{"--out", out, "--counts-out", hard}, "--counts-out " + hard + " is the corpus file " + file},
		{[]string{"--out", lead}, "--out " + lead + " is where the symbolic link " + filepath.Join(docs, "lead.txt")},
	} {
		args := append([]string{"--corpus", docs, "--dim", "8", "--epochs", "1"}, c.extra...)
		log, err := runCmd(context.Background(), args...)
		if !errors.Is(err, cli.ErrUsage) || !errors.Is(err, corpus.ErrOutputInCorpus) ||
			!strings.Contains(err.Error(), c.want) || strings.Contains(log, "corpus read") {
			t.Errorf("%q: err = %v, log %q; want a usage error %q before the corpus is read", c.extra, err, log, c.want)
		}
	}
	if b, err := os.ReadFile(file); !bytes.Equal(b, text) || err != nil {
		t.Errorf("the corpus file changed (%v)", err)
	}
}
