// Package skipgram trains word embeddings with skipgram and negative sampling
// (SGNS, Mikolov et al. 2013) the way word2vec.c and gensim do: frequent-word
// subsampling, negatives drawn from a power of the unigram distribution, a
// randomly shrunk window, a learning rate falling linearly over all epochs, and
// lock-free (Hogwild) parallel SGD over the corpus, encoded once as token ids.
//
// The train-embeddings subcommand (Commands) reads a corpus with package
// trainer/corpus and writes word2vec text or binary plus a word-counts file.
package skipgram

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// Config holds the training hyper-parameters. DefaultConfig gives word2vec's
// defaults for skipgram with negative sampling.
type Config struct {
	// Dim is the embedding dimension.
	Dim int
	// Window is the maximal distance between a word and its contexts; for each
	// word the distance used is drawn uniformly from 1..Window.
	Window int
	// Negative is the number of negative samples per (word, context) pair.
	Negative int
	// NegativePower is the exponent of the unigram distribution negatives are
	// drawn from: 0.75 in word2vec.c and gensim, 0.5 in fastText.
	NegativePower float64
	// Epochs is the number of passes over the corpus: with several threads,
	// the tokens of that many passes (each unit about that many times).
	Epochs int
	// Sample is the subsampling threshold t: a word of relative frequency f is
	// kept with probability (sqrt(f/t)+1)·t/f. 0 disables subsampling.
	Sample float64
	// LR is the initial learning rate; it falls linearly to LR·1e-4 over all epochs.
	LR float64
	// Threads is the number of parallel SGD workers.
	Threads int
	// Seed makes runs reproducible: with Threads = 1 the same seed gives the same vectors.
	Seed uint64
	// Shuffle visits the corpus units in an order drawn once from Seed instead
	// of file order, so that no worker trains on one domain of a corpus made of
	// several at a time (docs/evaluation.md: file order costs quality).
	Shuffle bool
	// MinN and MaxN are the character n-gram lengths of subword training
	// (TrainSubwords; fastText's -minn/-maxn). MaxN = 0 trains words only.
	MinN, MaxN int
	// Bucket is the number of hash buckets the n-grams share (fastText's
	// -bucket); 0 gives every distinct n-gram of the vocabulary its own row.
	Bucket int
	// ZeroNgramRows starts the n-gram rows of subword training at zero instead
	// of uniform in ±1/Dim like the word rows, as fastText 0.9.2 in effect
	// leaves most of its buckets (its initializer fills only the first
	// Threads/10 of the input matrix). It measured level with uniform rows on
	// never-seen words (docs/evaluation.md).
	ZeroNgramRows bool
	// HoldForms is the fraction of the words with at least HoldMinCount
	// occurrences whose n-gram rows learn nothing from the word's own
	// occurrences (subword training only; 0: none): such a held word's
	// input vector is still the mean of its row and its n-gram rows, but the
	// gradient goes to its own row only, times the number of rows, so that the
	// mean moves as far as any word's does; its n-grams know it no better
	// than a new word's n-grams know the new word. Its form (the mean of its
	// n-gram vectors) then predicts only what other words teach its
	// n-grams, and what its contexts add sits in its own row: the held words
	// are what AM training mimics (Subwords.Held). The words are drawn by a
	// hash of Seed and the word, so the same seed holds the same words.
	HoldForms float64
	// HoldMinCount is the fewest occurrences of a word HoldForms may hold.
	HoldMinCount int64
	// Progress, when set, is called about every ProgressEvery from a separate
	// goroutine while training runs, and once at the end.
	Progress func(Progress)
	// ProgressEvery is the interval between Progress calls (default 1 s).
	ProgressEvery time.Duration
	// Checkpoints says where and when the run writes checkpoints and which
	// one it resumes (the zero value: none).
	Checkpoints Checkpoints
}

// DefaultConfig returns dimension 100, window 5, 5 negatives drawn from
// unigram^0.5, 5 epochs, sample 1e-4, learning rate 0.05, one thread, seed 1,
// words only (MaxN 0); setting MaxN trains fastText's n-grams from MinN 3
// characters, each distinct n-gram with its own row (Bucket 0: on the
// general corpus its never-seen words' forms scored higher than in fastText's
// 2,000,000 hash buckets, in less memory; docs/evaluation.md).
// The learning rate and the negative exponent are fastText's rather than
// word2vec.c's (0.025, 0.75): on the general corpus they were chosen by
// measurement (docs/evaluation.md: word2vec's values score 0.02–0.06 lower on WS-353,
// SimLex-999 and MEN).
func DefaultConfig() Config {
	return Config{Dim: 100, Window: 5, Negative: 5, NegativePower: 0.5, Epochs: 5, Sample: 1e-4, LR: 0.05, Threads: 1, Seed: 1,
		MinN: 3, Bucket: 0, HoldMinCount: 100}
}

// ParamError reports a hyper-parameter out of range.
type ParamError struct {
	// Param is the Config field, e.g. "Dim".
	Param string
	// Problem describes the value and the allowed range.
	Problem string
}

func (e *ParamError) Error() string { return e.Param + ": " + e.Problem }

// Validate reports the first hyper-parameter out of range as a *ParamError.
func (c Config) Validate() error {
	check := func(ok bool, param, format string, args ...any) error {
		if ok {
			return nil
		}
		return &ParamError{Param: param, Problem: fmt.Sprintf(format, args...)}
	}
	for _, err := range []error{
		check(c.Dim >= 1 && c.Dim <= model.MaxDim, "Dim", "%d out of range 1..%d", c.Dim, model.MaxDim),
		check(c.Window >= 1 && c.Window <= 1000, "Window", "%d out of range 1..1000", c.Window),
		check(c.Negative >= 1 && c.Negative <= 1000, "Negative", "%d out of range 1..1000", c.Negative),
		check(c.NegativePower >= 0 && c.NegativePower <= 1, "NegativePower", "%v out of range [0, 1]", c.NegativePower),
		check(c.Epochs >= 1 && c.Epochs <= 10000, "Epochs", "%d out of range 1..10000", c.Epochs),
		check(c.Sample >= 0 && c.Sample < 1, "Sample", "%v out of range [0, 1)", c.Sample),
		check(c.LR > 0 && c.LR <= 10, "LR", "%v out of range (0, 10]", c.LR),
		check(c.Threads >= 1 && c.Threads <= 4096, "Threads", "%d out of range 1..4096", c.Threads),
		check(c.ProgressEvery >= 0, "ProgressEvery", "%v is negative", c.ProgressEvery),
		check(c.Checkpoints.Every >= 0, "Checkpoints.Every", "%d: want ≥ 0", c.Checkpoints.Every),
		check(c.MaxN == 0 || (c.MinN >= 1 && c.MinN <= c.MaxN && c.MaxN <= 32), "MaxN", "n-gram lengths %d..%d: want 1 ≤ min ≤ max ≤ 32 (or max 0: no subwords)", c.MinN, c.MaxN),
		check(c.HoldForms >= 0 && c.HoldForms < 1, "HoldForms", "%v out of range [0, 1)", c.HoldForms),
		check(c.HoldForms == 0 || c.MaxN > 0, "HoldForms", "holding forms needs subword training (MaxN > 0)"),
		check(c.HoldMinCount >= 1, "HoldMinCount", "%d: want ≥ 1", c.HoldMinCount),
		check(c.MaxN == 0 || (c.Bucket >= 0 && c.Bucket <= MaxBucket), "Bucket", "%d out of range 0..%d", c.Bucket, MaxBucket),
		check(c.MaxN == 0 || int64(c.Bucket)*int64(c.Dim) <= MaxMatrixValues, "Bucket", "%d rows × --dim %d: more than %d values (%d GiB) in the n-gram matrix; lower --bucket or --dim", c.Bucket, c.Dim, MaxMatrixValues, MaxMatrixValues>>28),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// Progress is a snapshot of a running training.
type Progress struct {
	// Done counts the corpus tokens processed so far (before subsampling), over
	// all epochs; Total is Epochs × corpus tokens.
	Done, Total int64
	// Start is the part of Done processed before this run began: resumed
	// from a checkpoint, the tokens the checkpoint had published (else 0).
	Start int64
	// Elapsed is the time since training started.
	Elapsed time.Duration
	// LR is the current learning rate.
	LR float64
	// Pairs counts the (word, context) updates made so far and Negatives the
	// negative words drawn for them (redraws included), as published by the
	// workers (every lrUpdateEvery tokens, and in full at the end).
	Pairs, Negatives int64
	// Loss is the training loss summed over those updates: for each, the
	// logistic loss of the positive pair and of every negative, −log σ(s) and
	// −log(1 − σ(s)) of their scores s, each scored before its row's update
	// (fastText's avg.loss is Loss / Pairs).
	Loss float64
}

// AvgLoss returns the average loss per (word, context) update, fastText's
// avg.loss (0 before the first update is published).
func (p Progress) AvgLoss() float64 {
	if p.Pairs == 0 {
		return 0
	}
	return p.Loss / float64(p.Pairs)
}

// Rate returns the tokens processed per second so far by this run (those of
// a checkpoint it resumed left out).
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Done-p.Start) / p.Elapsed.Seconds()
}

// ETA estimates the remaining time from the rate so far (0 when unknown).
func (p Progress) ETA() time.Duration {
	r := p.Rate()
	if r <= 0 || p.Done >= p.Total {
		return 0
	}
	return time.Duration(float64(p.Total-p.Done) / r * float64(time.Second))
}

// Sigmoid lookup table over [-maxSigmoid, maxSigmoid), as in word2vec.c.
const (
	sigmoidTableSize = 1024 // a power of two
	maxSigmoid       = 8
	sigmoidScale     = sigmoidTableSize / (2 * maxSigmoid)
)

// sigmoidTable is read-only after package initialisation.
var sigmoidTable = func() (t [sigmoidTableSize]float32) {
	for i := range t {
		x := (float64(i)+0.5)/sigmoidScale - maxSigmoid
		t[i] = float32(1 / (1 + math.Exp(-x)))
	}
	return t
}()

// softplusTable holds log(1 + e^x) at the same points as sigmoidTable;
// read-only after package initialisation.
var softplusTable = func() (t [sigmoidTableSize]float32) {
	for i := range t {
		x := (float64(i)+0.5)/sigmoidScale - maxSigmoid
		t[i] = float32(math.Log1p(math.Exp(x)))
	}
	return t
}()

// tableIndex returns the entry of sigmoidTable and softplusTable for x in
// (−maxSigmoid, maxSigmoid).
func tableIndex(x float32) int {
	return int((x+maxSigmoid)*sigmoidScale) & (sigmoidTableSize - 1)
}

// softplus returns log(1 + e^x) from the table (x itself beyond maxSigmoid,
// 0 below −maxSigmoid): the logistic loss −log(1 − σ(x)) of a negative of
// score x, and softplus(−x) = −log σ(x) that of a positive.
func softplus(x float32) float32 {
	if x >= maxSigmoid {
		return x
	}
	if x <= -maxSigmoid {
		return 0
	}
	return softplusTable[tableIndex(x)]
}

// sigmoid returns 1/(1+e^-x) from the table (0 or 1 beyond ±maxSigmoid).
func sigmoid(x float32) float32 {
	if x >= maxSigmoid {
		return 1
	}
	if x <= -maxSigmoid {
		return 0
	}
	return sigmoidTable[tableIndex(x)]
}

// lrUpdateEvery is how many tokens a worker processes between updates of the
// learning rate and of the shared progress counter.
const lrUpdateEvery = 10000

// budgetChunk is how many tokens of the run's budget a worker claims at a
// time: the workers stop once all is claimed and each has processed what it
// claimed, so together they process the budget plus at most one unit each.
const budgetChunk = 1000

// trainer is the state shared by the workers of one training run.
type trainer struct {
	cfg       Config
	enc       *corpus.Encoded
	vocabLen  int
	syn0      []float32 // input vectors, vocabLen × Dim: the result
	syn1neg   []float32 // output vectors, vocabLen × Dim
	keep      []uint64  // keep[id]: a token is kept when a uniform uint32 is below it
	neg       aliasTable
	sub       *subwordTable // subword training: each word's input rows (nil: words only)
	order     []int32       // the units in the order visited (nil: file order)
	total     int64         // Epochs × corpus tokens
	claimed   atomic.Int64  // tokens of the budget (total) the workers have claimed
	processed atomic.Int64  // tokens processed by all workers, as published
	workers   []*worker     // the run's cfg.Threads workers (newWorkers, or restored)
	gate      gate          // pauses the workers for a checkpoint
	nextCkpt  atomic.Int64  // processed tokens at which the next checkpoint is due
	from      int64         // processed when the run began: the checkpoint's, resumed

	// settings are those a checkpoint records (settingsOf; nil without
	// checkpoints).
	settings map[string]string

	statsMu sync.Mutex // guards stats
	stats   workStats  // the work published by the workers
}

// workStats counts the updates made: (word, context) pairs, the negatives
// drawn for them (redraws included) and their summed loss.
type workStats struct {
	pairs, negatives int64
	loss             float64
}

// add adds o's counts and loss to s.
func (s *workStats) add(o workStats) {
	s.pairs += o.pairs
	s.negatives += o.negatives
	s.loss += o.loss
}

// Train learns skipgram embeddings for the words of vocab from enc, a corpus
// encoded in vocab's ids (without Unknown ids). vocab.Counts drive subsampling
// and negative sampling. It returns the input vectors as embeddings with the
// vocabulary's words and counts. It writes checkpoints and resumes one as
// cfg.Checkpoints says. On cancellation of ctx it returns an error wrapping
// ErrInterrupted and ctx.Err() promptly (once each worker has trained the
// unit it is in), after writing a checkpoint when cfg.Checkpoints.Path is
// set.
func Train(ctx context.Context, enc *corpus.Encoded, vocab *corpus.Vocab, cfg Config) (*model.Embeddings, error) {
	if cfg.MaxN != 0 {
		return nil, errors.New("skipgram: Train learns words only; use TrainSubwords for MaxN > 0")
	}
	t, err := prepare(enc, vocab, cfg)
	if err != nil {
		return nil, err
	}
	if err := t.run(ctx); err != nil {
		return nil, err
	}
	e, err := model.NewEmbeddings(cfg.Dim, vocab.Words, t.syn0, vocab.Counts)
	if err != nil {
		return nil, fmt.Errorf("skipgram: %w", err)
	}
	return e, nil
}

// prepare builds the trainer of a run: its state, its input vectors and its
// workers, new or resumed from cfg.Checkpoints.Resume.
func prepare(enc *corpus.Encoded, vocab *corpus.Vocab, cfg Config) (*trainer, error) {
	t, err := newTrainer(enc, vocab, cfg)
	if err != nil {
		return nil, err
	}
	if err := t.initInputs(vocab); err != nil {
		return nil, err
	}
	t.workers = t.newWorkers()
	if cfg.Checkpoints.Path != "" || cfg.Checkpoints.Resume != "" {
		t.settings = settingsOf(t.cfg, enc, vocab)
	}
	if cfg.Checkpoints.Resume != "" {
		if err := t.resume(cfg.Checkpoints.Resume); err != nil {
			return nil, err
		}
	}
	t.nextCkpt.Store(t.nextCheckpoint(t.processed.Load()))
	return t, nil
}

// initInputs allocates and initialises the input matrix syn0 for the words
// of vocab: their vectors for words-only training (initWords), or for
// subword training (MaxN > 0) the subword table and the word and n-gram rows
// (initInput).
func (t *trainer) initInputs(vocab *corpus.Vocab) error {
	n, dim := vocab.Len(), t.cfg.Dim
	if t.cfg.MaxN == 0 {
		t.syn0 = make([]float32, n*dim)
		initWords(t.syn0, t.cfg)
		return nil
	}
	var err error
	if t.sub, err = newSubwordTable(vocab.Words, t.cfg); err != nil {
		return fmt.Errorf("skipgram: %w", err)
	}
	t.sub.held = heldWords(vocab, t.cfg)
	if err := checkMatrix("vocabulary and n-grams", n+t.sub.nrows, dim); err != nil {
		return err
	}
	t.syn0 = make([]float32, (n+t.sub.nrows)*dim)
	initInput(t.syn0, n*dim, dim, t.cfg)
	return nil
}

// initWords sets the input vectors syn0 of words-only training as word2vec.c
// does: uniform in ±0.5/Dim (the output vectors start at zero).
func initWords(syn0 []float32, cfg Config) {
	rng := newRNG(cfg.Seed, 0)
	for i := range syn0 {
		syn0[i] = (float32(rng.next()>>40)/(1<<24) - 0.5) / float32(cfg.Dim)
	}
}

// MaxMatrixValues bounds the values of each weight matrix training
// allocates, rows × Config.Dim: 2³¹ float32s, 8 GiB (fastText's default of
// 2,000,000 buckets at dimension 300 takes 600 million). Config.Validate
// checks Bucket × Dim against it before the corpus is read, and training
// the rows it finds (vocabulary words, their distinct n-grams) before it
// allocates them: a request beyond it is an error, not a fatal out-of-memory.
// It is an int64 so that the package still builds where int has 32 bits.
const MaxMatrixValues int64 = 1 << 31

// checkMatrix refuses a matrix of rows × dim values beyond MaxMatrixValues,
// naming what the rows are.
func checkMatrix(what string, rows, dim int) error {
	if int64(rows)*int64(dim) > MaxMatrixValues {
		return fmt.Errorf("skipgram: %s of %d rows × dimension %d: more than %d values (%d GiB) in one matrix; lower --dim or raise --min-count",
			what, rows, dim, MaxMatrixValues, MaxMatrixValues>>28)
	}
	return nil
}

// newTrainer checks the configuration and the corpus and builds the state
// shared by both trainers, all but the input vectors.
func newTrainer(enc *corpus.Encoded, vocab *corpus.Vocab, cfg Config) (*trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("skipgram: %w", err)
	}
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = time.Second
	}
	n := vocab.Len()
	if n == 0 {
		return nil, errors.New("skipgram: empty vocabulary")
	}
	if enc.NumTokens() == 0 {
		return nil, errors.New("skipgram: empty corpus")
	}
	if err := checkMatrix("vocabulary", n, cfg.Dim); err != nil {
		return nil, err
	}
	if err := enc.Validate(n); err != nil {
		return nil, fmt.Errorf("skipgram: encoded corpus: %w", err)
	}
	for i, id := range enc.IDs {
		if id == corpus.Unknown {
			return nil, fmt.Errorf("skipgram: encoded corpus: token %d is Unknown (encode without keeping unknown words)", i)
		}
	}
	var trainWords int64
	for _, c := range vocab.Counts {
		trainWords += c
	}
	neg, err := newAliasTable(vocab.Counts, cfg.NegativePower)
	if err != nil {
		return nil, fmt.Errorf("skipgram: %w", err)
	}
	order, err := unitOrder(enc, cfg.Shuffle, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("skipgram: %w", err)
	}
	t := &trainer{
		cfg:      cfg,
		order:    order,
		enc:      enc,
		vocabLen: n,
		syn1neg:  make([]float32, n*cfg.Dim),
		keep:     keepThresholds(vocab.Counts, trainWords, cfg.Sample),
		neg:      neg,
		total:    int64(cfg.Epochs) * enc.NumTokens(),
	}
	t.nextCkpt.Store(math.MaxInt64)
	return t, nil
}

// keepThresholds computes word2vec's subsampling: a word with count c among
// total tokens is kept with probability min(1, (sqrt(c/(s·total))+1)·s·total/c),
// stored as a threshold on a uniform 32-bit number (1<<32 keeps always).
func keepThresholds(counts []int64, total int64, sample float64) []uint64 {
	keep := make([]uint64, len(counts))
	for i, c := range counts {
		p := 1.0
		if sample > 0 && c > 0 {
			st := sample * float64(total)
			p = (math.Sqrt(float64(c)/st) + 1) * st / float64(c)
		}
		if p >= 1 {
			keep[i] = 1 << 32
		} else {
			keep[i] = uint64(p * (1 << 32))
		}
	}
	return keep
}

// run trains with the workers at once, each in a goroutine of its own, until
// they have spent the budget or ctx is cancelled. It writes the checkpoints
// (cfg.Checkpoints) as they come due, with the workers paused at a unit
// boundary (gate), and the last one once they are done.
func (t *trainer) run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &runState{start: time.Now()}
	done := t.startWorkers(r)
	ticker := time.NewTicker(t.cfg.ProgressEvery)
	defer ticker.Stop()
	cancelled := ctx.Done()
	for {
		select {
		case <-done:
			return t.end(ctx, r)
		case <-cancelled:
			cancelled = nil
			r.stopping = true
			t.gate.request()
		case <-t.gate.all:
			t.atPause(ctx, r)
		case <-ticker.C:
			if t.cfg.Progress != nil {
				t.cfg.Progress(t.progress(t.processed.Load(), r.start))
			}
		}
	}
}

// runState is what run keeps between the events of a run.
type runState struct {
	start    time.Time
	trains   bool  // a worker had work left when the run began
	stopping bool  // ctx was cancelled: the workers stop at their pause
	saved    bool  // the checkpoint of the workers' state, stopped, is written
	err      error // a checkpoint could not be written: the workers stop
}

// startWorkers starts a goroutine for every worker with work left and
// returns a channel closed once all of them have returned.
func (t *trainer) startWorkers(r *runState) <-chan struct{} {
	t.gate.init()
	var wg sync.WaitGroup
	for _, w := range t.workers {
		if w.done {
			continue
		}
		r.trains = true
		t.gate.enter()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer t.gate.leave()
			w.train()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// atPause handles the workers all paused at a unit boundary: it writes the
// checkpoint due, or when stopping the one of where they stopped, and
// releases them to go on, or to return when stopping (ctx cancelled, also
// while the checkpoint was written: it is the one of where they stop) or
// when the checkpoint could not be written.
func (t *trainer) atPause(ctx context.Context, r *runState) {
	if !t.gate.allPaused() {
		return // every worker returned in the meantime: end writes what is due
	}
	var err error
	if t.cfg.Checkpoints.Path != "" {
		err = t.checkpoint()
	}
	r.stopping = r.stopping || ctx.Err() != nil
	stop := r.stopping || err != nil
	r.saved = err == nil && stop
	if err != nil {
		r.err = err
	}
	if !stop {
		t.nextCkpt.Store(t.nextCheckpoint(t.processed.Load()))
	}
	t.gate.release(stop)
}

// end finishes the run once every worker has returned: it writes the last
// checkpoint (of a finished run when the budget is spent) unless written
// at the workers' pause or nothing was trained, and says where a cancelled
// run stopped and how to continue it.
func (t *trainer) end(ctx context.Context, r *runState) error {
	path := t.cfg.Checkpoints.Path
	if r.err == nil && path != "" && r.trains && !r.saved {
		r.err = t.checkpoint()
	}
	err := ctx.Err()
	switch {
	case err != nil && !r.trains:
		return err
	case err != nil && r.err != nil:
		return fmt.Errorf("%w (%w); writing the checkpoint failed too: %w", ErrInterrupted, err, r.err)
	case r.err != nil:
		return r.err
	case err != nil && path == "":
		return fmt.Errorf("%w %s (%w); no checkpoint path set, nothing saved", ErrInterrupted, t.position(), err)
	case err != nil:
		return fmt.Errorf("%w %s (%w); checkpoint written to %s: continue with --resume %s",
			ErrInterrupted, t.position(), err, path, path)
	}
	if t.cfg.Progress != nil {
		t.cfg.Progress(t.progress(t.total, r.start))
	}
	return nil
}

// progress is the snapshot after processed tokens of a run started at start.
func (t *trainer) progress(processed int64, start time.Time) Progress {
	t.statsMu.Lock()
	st := t.stats
	t.statsMu.Unlock()
	processed = min(processed, t.total) // the workers' last units may pass it
	return Progress{Done: processed, Start: min(t.from, processed), Total: t.total, Elapsed: time.Since(start),
		LR: float64(t.lr(processed)), Pairs: st.pairs, Negatives: st.negatives, Loss: st.loss}
}

// lr returns the learning rate after processed tokens: linear decay from LR to LR·1e-4.
func (t *trainer) lr(processed int64) float32 {
	f := 1 - float64(processed)/float64(t.total+1)
	return float32(t.cfg.LR * max(f, 1e-4))
}

// worker is one SGD thread with its own random numbers and buffers.
type worker struct {
	t      *trainer
	rng    rng
	pos    int       // the position of t.order of the next unit to train
	done   bool      // the budget is spent: the worker returned for good
	sen    []int32   // the current unit after subsampling
	neu1e  []float32 // gradient accumulated for the current context vector
	hidden []float32 // subword training: the mean of the word's input rows
	alpha  float32
	quota  int64     // tokens claimed from the budget and not yet processed
	local  int64     // tokens processed by this worker
	sent   int64     // part of local already added to t.processed
	stats  workStats // work not yet added to t.stats
}

// newWorker returns a worker drawing random stream stream of the seed and
// starting its sweep at position start of the order.
func newWorker(t *trainer, stream uint64, start int) *worker {
	return &worker{t: t, rng: newRNG(t.cfg.Seed, stream), pos: start, neu1e: make([]float32, t.cfg.Dim),
		hidden: make([]float32, t.cfg.Dim), alpha: float32(t.cfg.LR)}
}

// newWorkers returns the run's cfg.Threads workers: worker k draws stream
// k+1 and starts its sweep at the k-th of sweepStarts' positions, the first
// one for a start past the last unit (a sweep wraps around there).
func (t *trainer) newWorkers() []*worker {
	starts := sweepStarts(t.enc, t.order, t.cfg.Threads)
	ws := make([]*worker, len(starts))
	for k, start := range starts {
		if start >= t.enc.NumUnits() {
			start = 0
		}
		ws[k] = newWorker(t, uint64(k)+1, start)
	}
	return ws
}

// train visits the units in t.order from position w.pos on, wrapping around
// at the end, for as long as it can claim tokens of the run's budget (Epochs
// passes over the corpus) or has claimed tokens left, as fastText's threads
// read the whole file from their own offsets until all epochs are done. With
// one worker that is exactly Epochs passes from the first unit. A worker kept
// to a share of the units would train each share at the
// pace of its worker: with the corpus in file order a share is a set of
// domains, and a slower share's domains would be trained later in the schedule,
// or alone at its end (docs/evaluation.md). Sweeping instead, the workers
// visit the units about Epochs times each, not exactly. After each unit the
// worker pauses when the gate asks it to; it returns when the budget is
// spent (w.done) or when the pause ends in a stop, w.pos then the next unit.
func (w *worker) train() {
	t := w.t
	n := t.enc.NumUnits()
	for {
		if !w.step(unitAt(t.order, w.pos)) {
			w.sync()
			w.done = true
			return
		}
		if w.pos++; w.pos == n {
			w.pos = 0
		}
		if t.gate.want.Load() && !t.gate.pause() {
			return
		}
	}
}

// step trains on unit u once, claiming budget first while the worker's is
// spent (a unit longer than a claim leaves it below zero); it reports false,
// having done nothing, when the budget is all claimed and spent.
func (w *worker) step(u int) bool {
	t := w.t
	for w.quota <= 0 {
		if !w.claim() {
			return false
		}
	}
	unit := t.enc.IDs[t.enc.Offsets[u]:t.enc.Offsets[u+1]]
	sen := w.sen[:0]
	for _, id := range unit {
		if uint64(uint32(w.rng.next())) < t.keep[id] {
			sen = append(sen, id)
		}
	}
	w.sen = sen
	w.local += int64(len(unit))
	w.quota -= int64(len(unit))
	if w.local-w.sent >= lrUpdateEvery {
		w.sync()
	}
	if t.sub != nil {
		w.trainUnitSubwords(sen)
	} else {
		w.trainUnit(sen)
	}
	return true
}

// claim adds up to budgetChunk tokens of the run's budget to the worker's
// quota; it reports false when none is left.
func (w *worker) claim() bool {
	t := w.t
	end := t.claimed.Add(budgetChunk)
	from := end - budgetChunk
	if from >= t.total {
		return false
	}
	w.quota += min(end, t.total) - from
	return true
}

// sync publishes the worker's progress and work and updates its learning
// rate; once the tokens published reach those of the next checkpoint, it
// asks the workers to pause for it (gate.request).
func (w *worker) sync() {
	t := w.t
	p := t.processed.Add(w.local - w.sent)
	w.sent = w.local
	t.statsMu.Lock()
	t.stats.add(w.stats)
	t.statsMu.Unlock()
	w.stats = workStats{}
	w.alpha = t.lr(p)
	if p >= t.nextCkpt.Load() {
		t.gate.request()
	}
}

// gate pauses the running workers, all at once, each after the unit it is
// training: the state a checkpoint records, from which a resumed run goes on
// exactly as the uninterrupted one does.
type gate struct {
	want   atomic.Bool   // a pause is asked for: each worker pauses after its unit
	all    chan struct{} // receives when, a pause asked for, every running worker is paused
	mu     sync.Mutex    // guards what follows
	cond   sync.Cond     // broadcast by release
	active int           // workers running
	paused int           // of them, those waiting in pause
	round  int           // counts the releases
	stop   bool          // the last release told the workers to return
}

// init readies the gate for a run.
func (g *gate) init() {
	g.cond.L = &g.mu
	g.all = make(chan struct{}, 1)
}

// request asks the workers to pause after their unit.
func (g *gate) request() { g.want.Store(true) }

// enter counts a worker about to run.
func (g *gate) enter() {
	g.mu.Lock()
	g.active++
	g.mu.Unlock()
}

// leave counts a worker that returned.
func (g *gate) leave() {
	g.mu.Lock()
	g.active--
	g.signal()
	g.mu.Unlock()
}

// pause waits, the worker counted as paused, until release; it reports
// whether to go on.
func (g *gate) pause() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	round := g.round
	g.paused++
	g.signal()
	for g.round == round {
		g.cond.Wait()
	}
	return !g.stop
}

// signal tells run, a pause asked for, that every running worker is
// paused. g.mu is held.
func (g *gate) signal() {
	if g.want.Load() && g.paused == g.active {
		select {
		case g.all <- struct{}{}:
		default:
		}
	}
}

// allPaused reports whether a pause is asked for and every running worker,
// one at least, is paused.
func (g *gate) allPaused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.want.Load() && g.active > 0 && g.paused == g.active
}

// release lets the paused workers go on, or return when stop is set.
func (g *gate) release(stop bool) {
	g.mu.Lock()
	g.want.Store(false)
	g.paused, g.stop = 0, stop
	g.round++
	g.cond.Broadcast()
	g.mu.Unlock()
}

// trainUnit runs SGD over every (word, context) pair of one subsampled unit:
// as in word2vec.c the context word's input vector predicts the word (label 1)
// and Negative sampled words (label 0).
func (w *worker) trainUnit(sen []int32) {
	t := w.t
	dim, window, nneg := t.cfg.Dim, t.cfg.Window, t.cfg.Negative
	syn0, syn1neg, neu1e := t.syn0, t.syn1neg, w.neu1e
	alpha := w.alpha
	n := len(sen)
	for pos, word := range sen {
		// Shrunk window: a distance drawn uniformly from 1..window.
		win := w.rng.window(window)
		lo, hi := max(pos-win, 0), min(pos+win+1, n)
		w.stats.pairs += int64(hi - lo - 1)
		w.stats.negatives += int64((hi - lo - 1) * nneg)
		wo := int(word) * dim
		for c := lo; c < hi; c++ {
			if c == pos {
				continue
			}
			o := int(sen[c]) * dim
			l1 := syn0[o : o+dim : o+dim]
			clear(neu1e)
			// Positive pair.
			l2 := syn1neg[wo : wo+dim : wo+dim]
			s := simd.Dot(l1, l2)
			loss := float64(softplus(-s))
			g := (1 - sigmoid(s)) * alpha
			simd.PairAxpy(g, l1, l2, neu1e) // neu1e += g·l2; l2 += g·l1
			for d := 0; d < nneg; d++ {
				target := t.neg.sample(&w.rng)
				if target == word {
					continue
				}
				o2 := int(target) * dim
				l2 := syn1neg[o2 : o2+dim : o2+dim]
				s := simd.Dot(l1, l2)
				loss += float64(softplus(s))
				g := -sigmoid(s) * alpha
				simd.PairAxpy(g, l1, l2, neu1e)
			}
			w.stats.loss += loss
			simd.Axpy(1, neu1e, l1)
		}
	}
}
