package skipgram

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"log/slog"
	"maps"
	"math"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/checkpoint"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// Checkpoints says where and when a run writes checkpoints and which one it
// resumes (Config.Checkpoints).
//
// A checkpoint holds the whole state of the run (package internal/checkpoint's
// frame, magic "T2VSGCK1"): as JSON the settings and inputs it was made with
// (settingsOf), the budget's counters, the published work, and each
// worker's position in the unit order, random state, quota, token counts,
// learning rate and unpublished work (ckState); then the input matrix (the
// word rows, then the n-gram rows) and the output matrix as float32s. The
// workers are paused after the unit each is training while it is written
// (gate), so with one thread a resumed run ends with exactly the vectors of
// an uninterrupted one; with several, it goes on from where each worker
// stopped, as Hogwild runs do, not bit for bit.
type Checkpoints struct {
	// Path, when set, receives a checkpoint after every Every epochs' worth
	// of tokens, when the run ends (marked finished) and when it is
	// cancelled, written atomically.
	Path string
	// Every is the number of epochs' worth of tokens between checkpoints (0
	// or 1: every epoch).
	Every int
	// Resume, when set, is a checkpoint to continue from, made with the same
	// settings (Config's but Progress, ProgressEvery and Checkpoints, and
	// Settings) on the same corpus (the same tokens and vocabulary).
	Resume string
	// Settings are more settings of the run, keyed by the flag that sets them
	// (train-embeddings' --min-count): the checkpoint records them beside
	// Config's, and a resume must have the same.
	Settings map[string]string
	// Log receives a line for each checkpoint written and for the resume
	// (nil: none).
	Log *slog.Logger
}

// ErrInterrupted is returned (wrapped, with ctx.Err()) when training was
// cancelled; the error says where it stopped and whether a checkpoint was
// written.
var ErrInterrupted = checkpoint.ErrInterrupted

// ckState is the JSON state of a checkpoint (Checkpoints).
type ckState struct {
	// Settings records the settings and inputs of the run (settingsOf).
	Settings map[string]string
	// Epochs and Tokens are the run's epochs and the corpus tokens of one.
	Epochs int
	Tokens int64
	// Dim, Rows and Words give the matrices' shapes: Rows × Dim input
	// values, Words × Dim output values.
	Dim, Rows, Words int
	// Finished is set when every worker has spent the budget.
	Finished bool
	// Claimed and Processed are the budget's counters.
	Claimed, Processed int64
	// Stats is the work the workers published.
	Stats statsState
	// Workers holds each worker's state.
	Workers []workerState
}

// statsState is a workStats in JSON, the loss as its float64 bits.
type statsState struct {
	Pairs, Negatives int64
	LossBits         uint64
}

// workerState is the state of a worker (worker), the learning rate as its
// float32 bits.
type workerState struct {
	Pos                int
	RNG                uint64
	Quota, Local, Sent int64
	AlphaBits          uint32
	Stats              statsState
	Done               bool
}

func statsOf(s workStats) statsState {
	return statsState{Pairs: s.pairs, Negatives: s.negatives, LossBits: math.Float64bits(s.loss)}
}

func (s statsState) work() workStats {
	return workStats{pairs: s.Pairs, negatives: s.Negatives, loss: math.Float64frombits(s.LossBits)}
}

// Keys of the settings a checkpoint records for the corpus.
const (
	settingVocab  = "vocabulary (--corpus, --min-count)"
	settingCorpus = "corpus (--corpus)"
)

// settingsOf returns the settings and inputs of a run that its checkpoint
// records and a resume must share, one by one, keyed by the flag that sets
// them: every training setting of cfg (those of subword training "unused"
// without it), cfg.Checkpoints.Settings, and fingerprints of the corpus as
// encoded and of its vocabulary (vocabSetting, corpusSetting; left out for
// nil enc and vocab).
func settingsOf(cfg Config, enc *corpus.Encoded, vocab *corpus.Vocab) map[string]string {
	s := map[string]string{
		"--dim": fmt.Sprint(cfg.Dim), "--window": fmt.Sprint(cfg.Window), "--negative": fmt.Sprint(cfg.Negative),
		"--neg-power": fmt.Sprint(cfg.NegativePower), "--epochs": fmt.Sprint(cfg.Epochs), "--sample": fmt.Sprint(cfg.Sample),
		"--lr": fmt.Sprint(cfg.LR), "--threads": fmt.Sprint(cfg.Threads), "--seed": fmt.Sprint(cfg.Seed),
		"--shuffle": fmt.Sprint(cfg.Shuffle), "--maxn": fmt.Sprint(cfg.MaxN), "--minn": fmt.Sprint(cfg.MinN),
		"--bucket": fmt.Sprint(cfg.Bucket), "--ngram-init": (*ngramInit)(&cfg.ZeroNgramRows).String(),
		"--hold-forms": fmt.Sprint(cfg.HoldForms), "--hold-min-count": fmt.Sprint(cfg.HoldMinCount),
	}
	if enc != nil && vocab != nil {
		s[settingVocab], s[settingCorpus] = vocabSetting(vocab), corpusSetting(enc)
	}
	if cfg.MaxN == 0 {
		for _, k := range []string{"--minn", "--bucket", "--ngram-init", "--hold-forms", "--hold-min-count"} {
			s[k] = "unused (--maxn 0)"
		}
	} else if cfg.HoldForms == 0 {
		s["--hold-min-count"] = "unused (--hold-forms 0)"
	}
	maps.Copy(s, cfg.Checkpoints.Settings)
	return s
}

// vocabSetting describes a vocabulary by its length and a CRC-64 of its
// words and counts.
func vocabSetting(v *corpus.Vocab) string {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	for i, w := range v.Words {
		fmt.Fprintf(h, "%s %d\n", w, v.Counts[i])
	}
	return fmt.Sprintf("%d words, CRC-64 %016x", v.Len(), h.Sum64())
}

// corpusSetting describes an encoded corpus by its tokens, its units and a
// CRC-64 of its token ids and unit boundaries.
func corpusSetting(enc *corpus.Encoded) string {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	const chunk = 1 << 14
	buf := make([]byte, 0, 8*chunk)
	for i := 0; i < len(enc.IDs); i += chunk {
		buf = buf[:0]
		for _, id := range enc.IDs[i:min(i+chunk, len(enc.IDs))] {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
		}
		h.Write(buf)
	}
	for i := 0; i < len(enc.Offsets); i += chunk {
		buf = buf[:0]
		for _, o := range enc.Offsets[i:min(i+chunk, len(enc.Offsets))] {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(o))
		}
		h.Write(buf)
	}
	return fmt.Sprintf("%d tokens in %d lines, CRC-64 %016x", enc.NumTokens(), enc.NumUnits(), h.Sum64())
}

// log returns the logger of the checkpoints (one that discards, when none).
func (t *trainer) log() *slog.Logger {
	if l := t.cfg.Checkpoints.Log; l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// nextCheckpoint returns the processed tokens at which the checkpoint after
// processed p is due: the next multiple of Checkpoints.Every epochs' tokens
// above p, or never (MaxInt64) without a checkpoint path or when that is
// the end of the run, whose checkpoint end writes.
func (t *trainer) nextCheckpoint(p int64) int64 {
	if t.cfg.Checkpoints.Path == "" {
		return math.MaxInt64
	}
	every := int64(max(t.cfg.Checkpoints.Every, 1))
	if every >= int64(t.cfg.Epochs) {
		return math.MaxInt64 // and every × tokens could overflow
	}
	step := every * t.enc.NumTokens()
	if next := (p/step + 1) * step; next < t.total {
		return next
	}
	return math.MaxInt64
}

// state returns the run's state, the workers paused or returned.
func (t *trainer) state() *ckState {
	st := &ckState{Settings: t.settings, Epochs: t.cfg.Epochs, Tokens: t.enc.NumTokens(), Dim: t.cfg.Dim,
		Rows: len(t.syn0) / t.cfg.Dim, Words: t.vocabLen, Finished: true,
		Claimed: t.claimed.Load(), Processed: t.processed.Load()}
	t.statsMu.Lock()
	st.Stats = statsOf(t.stats)
	t.statsMu.Unlock()
	for _, w := range t.workers {
		st.Workers = append(st.Workers, workerState{Pos: w.pos, RNG: w.rng.s, Quota: w.quota, Local: w.local, Sent: w.sent,
			AlphaBits: math.Float32bits(w.alpha), Stats: statsOf(w.stats), Done: w.done})
		st.Finished = st.Finished && w.done
	}
	return st
}

// checkpoint writes the run's state, the workers paused or returned, to
// Checkpoints.Path: the state, then the matrices streamed from the
// trainer's own slices.
func (t *trainer) checkpoint() error {
	began := time.Now()
	path := t.cfg.Checkpoints.Path
	st := t.state()
	err := checkpoint.Write(path, checkpoint.EmbeddingsMagic, st, func(w *checkpoint.Writer) {
		w.Floats(t.syn0)
		w.Floats(t.syn1neg)
	})
	if err != nil {
		return err
	}
	t.log().Info("checkpoint written", "file", path, "position", st.position(), "seconds", time.Since(began).Seconds())
	return nil
}

// position says where the run stands, the workers paused or returned.
func (t *trainer) position() string { return t.state().position() }

// position says where the run of st stands after the tokens its workers
// processed, epochs counted from 1: "after epoch N of E" at the end of one,
// "in epoch N of E, P% through it" inside one.
func (st *ckState) position() string {
	var done int64
	for _, w := range st.Workers {
		done += w.Local
	}
	switch {
	case st.Tokens <= 0:
		return "nowhere (no corpus)"
	case done == 0:
		return fmt.Sprintf("at the start of %d epochs", st.Epochs)
	case done >= st.Tokens*int64(st.Epochs):
		return fmt.Sprintf("after epoch %d of %d", st.Epochs, st.Epochs)
	case done%st.Tokens == 0:
		return fmt.Sprintf("after epoch %d of %d", done/st.Tokens, st.Epochs)
	}
	pct := math.Floor(1000*float64(done%st.Tokens)/float64(st.Tokens)) / 10
	return fmt.Sprintf("in epoch %d of %d, %.1f%% through it", done/st.Tokens+1, st.Epochs, pct)
}

// resume loads the checkpoint at path into the trainer (its matrices read
// straight into the trainer's slices), having checked that it was made with
// the run's settings and inputs and that its state is one training writes.
func (t *trainer) resume(path string) error {
	var st ckState
	r, err := checkpoint.Open(path, checkpoint.EmbeddingsMagic, &st)
	if err != nil {
		return err
	}
	if err := t.checkState(path, &st); err != nil {
		r.Close()
		return err
	}
	r.FloatsInto(t.syn0, "the input matrix")
	r.FloatsInto(t.syn1neg, "the output matrix")
	if err := r.Close(); err != nil {
		return err
	}
	t.claimed.Store(st.Claimed)
	t.processed.Store(st.Processed)
	t.from, t.stats = st.Processed, st.Stats.work()
	for k, s := range st.Workers {
		w := t.workers[k]
		w.pos, w.rng.s, w.quota, w.local, w.sent = s.Pos, s.RNG, s.Quota, s.Local, s.Sent
		w.alpha, w.stats, w.done = math.Float32frombits(s.AlphaBits), s.Stats.work(), s.Done
	}
	t.log().Info("resuming", "checkpoint", path, "position", st.position())
	if st.Finished {
		t.log().Info("resume: the checkpoint's run is finished: nothing left to train", "checkpoint", path)
	}
	return nil
}

// checkResumeHead refuses, before the corpus is read, a --resume file that
// cannot be read as a checkpoint of train-embeddings or that records other
// settings than cfg's; the resume checks the whole file and the corpus.
func checkResumeHead(cfg Config) error {
	path := cfg.Checkpoints.Resume
	if path == "" {
		return nil
	}
	var st ckState
	if err := checkpoint.ReadResumeHead(path, checkpoint.EmbeddingsMagic, &st); err != nil {
		return err
	}
	if diff := checkpoint.Diff(st.Settings, settingsOf(cfg, nil, nil)); diff != "" {
		return fmt.Errorf("resume %s: the checkpoint was made with other settings or inputs: %s; use the same ones", path, diff)
	}
	return nil
}

// checkState refuses the state st of the checkpoint at path when its
// settings or inputs are not the run's, naming those that differ with both
// values, or when training cannot have written it (a damaged or edited
// file): other shapes than the settings give, a worker's position outside
// the corpus, counts that do not add up, a learning rate out of range.
func (t *trainer) checkState(path string, st *ckState) error {
	if st.Settings == nil {
		return fmt.Errorf("resume %s: the checkpoint records no settings: the file is damaged", path)
	}
	if diff := checkpoint.Diff(st.Settings, t.settings); diff != "" {
		return fmt.Errorf("resume %s: the checkpoint was made with other settings or inputs: %s; use the same ones", path, diff)
	}
	damaged := func(format string, args ...any) error {
		return fmt.Errorf("resume %s: %s: the file is damaged", path, fmt.Sprintf(format, args...))
	}
	switch rows := len(t.syn0) / t.cfg.Dim; {
	case st.Epochs != t.cfg.Epochs || st.Tokens != t.enc.NumTokens():
		return damaged("the checkpoint records %d epochs of %d tokens, its settings %d of %d",
			st.Epochs, st.Tokens, t.cfg.Epochs, t.enc.NumTokens())
	case st.Dim != t.cfg.Dim || st.Rows != rows || st.Words != t.vocabLen:
		return damaged("the checkpoint's matrices are %d and %d rows of %d values, its settings give %d and %d of %d",
			st.Rows, st.Words, st.Dim, rows, t.vocabLen, t.cfg.Dim)
	case len(st.Workers) != len(t.workers):
		return damaged("the checkpoint holds %d workers, its settings %d", len(st.Workers), len(t.workers))
	case st.Claimed < 0 || st.Processed < 0 || st.Claimed > t.total+int64(len(t.workers)+1)*budgetChunk:
		return damaged("token counts out of range (claimed %d, processed %d, of %d)", st.Claimed, st.Processed, t.total)
	}
	// A worker trains a line only with quota left, so it has trained at
	// most what it claimed and the line it ended on, and it publishes its
	// count once that is lrUpdateEvery ahead.
	longest := longestUnit(t.enc)
	var sent int64
	for k, w := range st.Workers {
		alpha := math.Float32frombits(w.AlphaBits)
		switch {
		case w.Pos < 0 || w.Pos >= t.enc.NumUnits():
			return damaged("worker %d is at line %d of %d", k, w.Pos, t.enc.NumUnits())
		case w.Sent < 0 || w.Local < w.Sent || w.Local-w.Sent >= lrUpdateEvery || w.Local > st.Claimed+longest ||
			w.Quota > budgetChunk || w.Quota < -longest:
			return damaged("worker %d's counts (local %d, sent %d, quota %d)", k, w.Local, w.Sent, w.Quota)
		case !(alpha > 0 && alpha <= float32(t.cfg.LR)):
			return damaged("worker %d's learning rate %v is outside (0, --lr %v]", k, alpha, t.cfg.LR)
		}
		sent += w.Sent
	}
	if sent != st.Processed {
		return damaged("%d tokens processed, its workers' counts add up to %d", st.Processed, sent)
	}
	return nil
}

// longestUnit returns the tokens of the longest unit of enc.
func longestUnit(enc *corpus.Encoded) int64 {
	var n int64
	for u := range enc.NumUnits() {
		n = max(n, enc.Offsets[u+1]-enc.Offsets[u])
	}
	return n
}

// checkNoUnfinished refuses to start a run whose checkpoint path holds the
// checkpoint of an unfinished run, unless it resumes that very file
// (checkpoint.CheckNoUnfinished).
func checkNoUnfinished(path, resume string, log *slog.Logger) error {
	return checkpoint.CheckNoUnfinished(path, resume, log, runOf)
}

// runOf reads the head of the checkpoint at path: whether its run finished
// and where it stopped.
func runOf(path string) (checkpoint.Run, error) {
	var st ckState
	if err := checkpoint.ReadHead(path, checkpoint.EmbeddingsMagic, &st); err != nil {
		return checkpoint.Run{}, err
	}
	if st.Tokens <= 0 || st.Epochs <= 0 {
		return checkpoint.Run{}, errors.New("no corpus or no epochs recorded")
	}
	return checkpoint.Run{Finished: st.Finished, Epochs: st.Epochs, Stopped: "stopped " + st.position()}, nil
}
