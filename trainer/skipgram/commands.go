package skipgram

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// Commands returns the subcommands this package provides to the text2vec-am
// binary: train-embeddings.
func Commands() []cli.Command {
	return []cli.Command{{
		Name:    "train-embeddings",
		Summary: "train skipgram (negative sampling) base embeddings on a corpus",
		Run:     runTrainEmbeddings,
	}}
}

// options are the parsed flags of train-embeddings.
type options struct {
	corpus     cli.Paths
	out        string
	format     string
	countsOut  string
	ngramsOut  string
	outputsOut string
	ngramsMax  int
	heldOut    string
	minCount   int64
	outMin     int64
	quiet      bool
	ckptDir    string
	cfg        Config
}

// flagNames maps Config fields to the flags that set them.
var flagNames = map[string]string{
	"Dim": "dim", "Window": "window", "Negative": "negative", "NegativePower": "neg-power",
	"Epochs": "epochs", "Sample": "sample", "LR": "lr", "Threads": "threads",
	"MaxN": "maxn", "Bucket": "bucket", "HoldForms": "hold-forms", "HoldMinCount": "hold-min-count",
	"Checkpoints.Every": "checkpoint-every",
}

// parseFlags parses and validates the flags of train-embeddings.
func parseFlags(env cli.Env) (*options, error) {
	o := &options{cfg: DefaultConfig()}
	fs := cli.NewFlagSet("train-embeddings", env)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: text2vec-am train-embeddings --corpus PATH [--corpus PATH...] --out FILE [flags]\n\n"+
			"Trains skipgram embeddings with negative sampling (word2vec's SGNS) on a corpus: plain or\n"+
			"gzipped text files, or directories of them, tokenized with the project's tokenizer.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	fs.Var(&o.corpus, "corpus", "corpus `path`: a text file (plain or gzip) or a directory of them; repeatable")
	fs.StringVar(&o.out, "out", "", "output embeddings `file` (gzip when it ends in .gz)")
	fs.StringVar(&o.format, "format", "text", "output format: text (word2vec text) or binary (word2vec binary)")
	fs.StringVar(&o.countsOut, "counts-out", "", "also write the count of every corpus word (\"word count\" lines) to this `file`")
	fs.IntVar(&o.cfg.Dim, "dim", o.cfg.Dim, "embedding dimension")
	fs.IntVar(&o.cfg.Window, "window", o.cfg.Window, "maximal context distance (each word uses a random distance 1..window)")
	fs.IntVar(&o.cfg.Negative, "negative", o.cfg.Negative, "negative samples per pair")
	fs.Float64Var(&o.cfg.NegativePower, "neg-power", o.cfg.NegativePower, "negatives are drawn from the unigram distribution raised to this power")
	fs.Int64Var(&o.minCount, "min-count", 5, "ignore words with fewer occurrences")
	fs.Int64Var(&o.outMin, "out-min-count", 0, "write only the words with at least N occurrences to --out (0: every trained word); the words between --min-count and N still train, their n-grams included")
	fs.IntVar(&o.cfg.Epochs, "epochs", o.cfg.Epochs, "passes over the corpus")
	fs.Float64Var(&o.cfg.Sample, "sample", o.cfg.Sample, "subsampling threshold for frequent words (0 disables)")
	fs.Float64Var(&o.cfg.LR, "lr", o.cfg.LR, "initial learning rate (falls linearly to lr·1e-4)")
	fs.IntVar(&o.cfg.Threads, "threads", runtime.GOMAXPROCS(0), "parallel SGD workers")
	fs.Uint64Var(&o.cfg.Seed, "seed", o.cfg.Seed, "random seed (runs with 1 thread and the same seed are identical)")
	fs.BoolVar(&o.cfg.Shuffle, "shuffle", o.cfg.Shuffle, "visit the corpus lines in an order drawn from --seed (once, for all epochs) instead of file order")
	fs.IntVar(&o.cfg.MinN, "minn", o.cfg.MinN, "shortest character n-gram of subword training")
	fs.IntVar(&o.cfg.MaxN, "maxn", 0, "longest character n-gram: > 0 trains fastText's subword skipgram (word vector = mean of the word's and its n-grams' rows); 0 trains words only")
	fs.IntVar(&o.cfg.Bucket, "bucket", o.cfg.Bucket, "subword training: 0 gives every distinct n-gram of the vocabulary its own row (no collisions); N > 0 hashes the n-grams into N rows as fastText does (its default: 2000000)")
	fs.StringVar(&o.ngramsOut, "ngrams-out", "", "subword training: also write the n-gram vectors (one per n-gram of the vocabulary's words, '<' '>' marking word ends; word2vec format) to this `file`, for train --ngrams")
	fs.StringVar(&o.outputsOut, "outputs-out", "", "subword training: also write the words' output vectors (the rows that predict a word as the context of another; word2vec format) to this `file`, for eval rare-pairs --subword-outputs")
	fs.IntVar(&o.ngramsMax, "ngrams-max", 0, "--ngrams-out keeps only the N n-grams found in the most vocabulary words (0: all)")
	fs.Var((*ngramInit)(&o.cfg.ZeroNgramRows), "ngram-init", "subword training: how the n-gram rows start, `uniform|zero`: uniform in ±1/dim like the word rows (the default) or zero (as most of fastText's buckets do in effect)")
	fs.Float64Var(&o.cfg.HoldForms, "hold-forms", 0, "subword training: the `fraction` of the words with at least --hold-min-count occurrences whose n-grams learn nothing from them (their own row learns what their contexts add); AM learns from these words how contexts complete a new word's form (0: none)")
	fs.Int64Var(&o.cfg.HoldMinCount, "hold-min-count", o.cfg.HoldMinCount, "--hold-forms draws from the words with at least this many occurrences (train's --min-count-train)")
	cli.QuietFlag(fs, &o.quiet)
	fs.StringVar(&o.heldOut, "held-words-out", "", "with --hold-forms: write the held words, one a line, to this `file` (train --only-words)")
	fs.StringVar(&o.ckptDir, "checkpoint-dir", "", "directory of the checkpoint (<out name>.ckpt) written after every epoch and on Ctrl-C (default: the --out directory)")
	fs.IntVar(&o.cfg.Checkpoints.Every, "checkpoint-every", 1, "write the checkpoint after every `N` epochs' worth of tokens (and after the last)")
	fs.StringVar(&o.cfg.Checkpoints.Resume, "resume", "", "checkpoint file to continue training from (the same corpus and settings)")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, cli.UsageError("unexpected argument %q (corpus paths go in --corpus)", fs.Arg(0))
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	dir := o.ckptDir
	if dir == "" {
		dir = filepath.Dir(o.out)
	}
	o.cfg.Checkpoints.Path = filepath.Join(dir, filepath.Base(o.out)+".ckpt")
	o.cfg.Checkpoints.Settings = map[string]string{"--min-count": fmt.Sprint(o.minCount)}
	if err := o.checkOutputs(); err != nil {
		return nil, err
	}
	return o, nil
}

// validate refuses, as usage errors naming the flag, missing inputs and
// flags out of range or that need another.
func (o *options) validate() error {
	switch {
	case len(o.corpus) == 0:
		return cli.UsageError("--corpus is required")
	case o.out == "":
		return cli.UsageError("--out is required")
	case o.format != "text" && o.format != "binary":
		return cli.UsageError("--format %q: want text or binary", o.format)
	case o.minCount < 1:
		return cli.UsageError("--min-count %d: must be at least 1", o.minCount)
	case o.outMin != 0 && o.outMin <= o.minCount:
		return cli.UsageError("--out-min-count %d: must be 0 or above --min-count %d", o.outMin, o.minCount)
	case o.countsOut != "" && outpath.SamePath(o.countsOut, o.out):
		return cli.UsageError("--counts-out and --out are the same file %s", o.out)
	case o.cfg.MaxN == 0 && o.ngramsOut != "":
		return cli.UsageError("--ngrams-out needs subword training (--maxn > 0)")
	case o.cfg.MaxN == 0 && o.outputsOut != "":
		return cli.UsageError("--outputs-out needs subword training (--maxn > 0)")
	case o.ngramsMax < 0:
		return cli.UsageError("--ngrams-max %d: must be ≥ 0", o.ngramsMax)
	case o.cfg.ZeroNgramRows && o.cfg.MaxN == 0:
		return cli.UsageError("--ngram-init needs subword training (--maxn > 0)")
	case o.heldOut != "" && o.cfg.HoldForms == 0:
		return cli.UsageError("--held-words-out needs --hold-forms")
	}
	if err := o.cfg.Validate(); err != nil {
		var pe *ParamError
		if errors.As(err, &pe) {
			return cli.UsageError("--%s %s", flagNames[pe.Param], pe.Problem)
		}
		return cli.UsageError("%w", err)
	}
	return nil
}

// checkOutputs creates the --out directory when it is missing, as train
// does, and fails before any work when --out, --counts-out, --ngrams-out,
// --outputs-out or --held-words-out cannot be written (a missing directory,
// a directory) or is one of the --corpus files or the --resume checkpoint,
// which writing would destroy (outpath.Check), or when the checkpoint would
// overwrite an output or an input (it may be the --resume file: resuming
// replaces it) or cannot be written (checkCheckpoint), and when an output or
// the checkpoint lies inside a corpus directory, where the next run would
// read it as corpus.
func (o *options) checkOutputs() error {
	var inputs []outpath.File
	for _, p := range o.corpus {
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			inputs = append(inputs, outpath.File{Flag: "--corpus", Path: p})
		}
	}
	outs := []outpath.File{{Flag: "--out", Path: o.out}, {Flag: "--counts-out", Path: o.countsOut}, {Flag: "--ngrams-out", Path: o.ngramsOut},
		{Flag: "--outputs-out", Path: o.outputsOut}, {Flag: "--held-words-out", Path: o.heldOut}}
	// The corpus check comes before the --out directory is made: a refused
	// output leaves no directory inside the corpus.
	if err := corpus.CheckOutputs(o.corpus, outs); err != nil {
		return cli.UsageError("%w", err)
	}
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	if err := outpath.Check(outs, append(inputs, outpath.File{Flag: "--resume", Path: o.cfg.Checkpoints.Resume})); err != nil {
		return cli.UsageError("%w", err)
	}
	ckpt := o.cfg.Checkpoints.Path
	for _, f := range append(outs, inputs...) {
		if f.Path != "" && outpath.SamePath(ckpt, f.Path) {
			return cli.UsageError("the checkpoint %s would overwrite %s %s: choose another --out or --checkpoint-dir", ckpt, f.Flag, f.Path)
		}
	}
	return o.checkCheckpoint(ckpt)
}

// checkCheckpoint fails before any work when the checkpoint at ckpt cannot
// be written or would be read as corpus (corpus.CheckCheckpoint).
func (o *options) checkCheckpoint(ckpt string) error {
	if err := corpus.CheckCheckpoint(ckpt, o.corpus); err != nil {
		return cli.UsageError("%w", err)
	}
	return nil
}

// ngramInit is the value of --ngram-init, "uniform" or "zero", stored as
// Config.ZeroNgramRows.
type ngramInit bool

func (z *ngramInit) String() string {
	if z != nil && *z {
		return "zero"
	}
	return "uniform"
}

// Set parses "uniform" or "zero".
func (z *ngramInit) Set(s string) error {
	switch s {
	case "uniform", "zero":
		*z = s == "zero"
		return nil
	}
	return fmt.Errorf("want uniform or zero")
}

func runTrainEmbeddings(ctx context.Context, env cli.Env) error {
	o, err := parseFlags(env)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	if err := checkNoUnfinished(o.cfg.Checkpoints.Path, o.cfg.Checkpoints.Resume, log); err != nil {
		return err
	}
	if err := checkResumeHead(o.cfg); err != nil {
		return err
	}
	o.cfg.Checkpoints.Log = log
	pr := newProgressPrinter(env.Stderr, o.quiet)
	enc, vocab, all, err := loadCorpus(ctx, o, log, pr)
	if err != nil {
		return err
	}
	emb, sw, err := trainVectors(ctx, o, log, pr, enc, vocab)
	if errors.Is(err, ErrInterrupted) {
		// cli.Main prints only "interrupted" for a cancelled context: say where the checkpoint is.
		fmt.Fprintf(env.Stderr, "text2vec-am train-embeddings: %v\n", err)
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeOutputs(o, log, emb, sw, all)
}

// loadCorpus reads the --corpus files and returns them encoded in the ids of
// the vocabulary of the words seen --min-count times, that vocabulary, and
// the vocabulary of every corpus word (for --counts-out).
func loadCorpus(ctx context.Context, o *options, log *slog.Logger, pr *progressPrinter) (
	enc *corpus.Encoded, vocab, all *corpus.Vocab, err error) {
	start := time.Now()
	opts := corpus.DefaultOptions()
	opts.Progress = func(done, total int64) {
		pr.printf("reading corpus: %5.1f%% of %.1f MB", 100*float64(done)/float64(max(total, 1)), float64(total)/1e6)
	}
	c, err := corpus.Read(ctx, o.corpus, opts)
	pr.end()
	if err != nil {
		return nil, nil, nil, err
	}
	vocab = c.Vocab(o.minCount)
	if vocab.Len() == 0 {
		return nil, nil, nil, fmt.Errorf("corpus %s: no word occurs at least %d times (--min-count)", strings.Join(o.corpus, ", "), o.minCount)
	}
	if o.outMin > 0 && vocab.Counts[0] < o.outMin {
		return nil, nil, nil, fmt.Errorf("--out-min-count %d: no word of corpus %s occurs that often (the most frequent, %q, %d times)",
			o.outMin, strings.Join(o.corpus, ", "), vocab.Words[0], vocab.Counts[0])
	}
	enc = c.Encode(vocab, false)
	log.Info("corpus read", "files", len(c.Files), "tokens", c.NumTokens(), "distinct words", len(c.Words),
		"vocabulary", vocab.Len(), "min-count", o.minCount, "tokens in vocabulary", enc.NumTokens(), "seconds", time.Since(start).Seconds())
	return enc, vocab, c.Vocab(1), nil
}

// trainVectors trains the word vectors (and with --maxn the subwords, sw)
// as o says, printing the progress on pr and the totals on log.
func trainVectors(ctx context.Context, o *options, log *slog.Logger, pr *progressPrinter, enc *corpus.Encoded,
	vocab *corpus.Vocab) (emb *model.Embeddings, sw *Subwords, err error) {
	trainStart := time.Now()
	var last Progress
	o.cfg.Progress = func(p Progress) {
		last = p
		pr.printf("training: %5.1f%%  %s tokens/s  lr %.5f  loss %.4f  elapsed %s  ETA %s", 100*float64(p.Done)/float64(p.Total),
			thousands(int64(p.Rate())), p.LR, p.AvgLoss(), p.Elapsed.Round(time.Second), p.ETA().Round(time.Second))
	}
	if o.cfg.MaxN > 0 {
		sw, err = TrainSubwords(ctx, enc, vocab, o.cfg)
		if sw != nil {
			emb = sw.Words
		}
	} else {
		emb, err = Train(ctx, enc, vocab, o.cfg)
	}
	pr.end()
	if err != nil {
		return nil, nil, err
	}
	log.Info("trained", "epochs", o.cfg.Epochs, "threads", o.cfg.Threads, "seconds", time.Since(trainStart).Seconds(),
		"tokens/s", int64(last.Rate()), "pairs", last.Pairs, "negatives", last.Negatives, "avg loss", last.AvgLoss())
	return emb, sw, nil
}

// writeOutputs writes the word vectors (only the words --out-min-count
// keeps), and of subword training sw (nil: none) the n-gram vectors, the
// output vectors and the held words, and the counts of every corpus word, as
// o asks.
func writeOutputs(o *options, log *slog.Logger, emb *model.Embeddings, sw *Subwords, all *corpus.Vocab) error {
	emb, err := keepFrequent(emb, o.outMin)
	if err != nil {
		return err
	}
	if err := model.SaveEmbeddings(o.out, emb, o.format == "binary"); err != nil {
		return err
	}
	log.Info("wrote embeddings", "file", o.out, "words", emb.Len(), "dim", emb.Dim, "format", o.format)
	if o.ngramsOut != "" {
		ngrams := sw.Ngrams
		if o.ngramsMax > 0 && ngrams.Len() > o.ngramsMax {
			ngrams, err = model.NewEmbeddings(ngrams.Dim, ngrams.Words[:o.ngramsMax], ngrams.Vectors[:o.ngramsMax*ngrams.Dim], ngrams.Counts[:o.ngramsMax])
			if err != nil {
				return err
			}
		}
		if err := model.SaveEmbeddings(o.ngramsOut, ngrams, o.format == "binary"); err != nil {
			return err
		}
		log.Info("wrote n-gram vectors", "file", o.ngramsOut, "ngrams", ngrams.Len(), "minn", o.cfg.MinN, "maxn", o.cfg.MaxN)
	}
	if o.outputsOut != "" {
		if err := model.SaveEmbeddings(o.outputsOut, sw.Outputs, o.format == "binary"); err != nil {
			return err
		}
		log.Info("wrote output vectors", "file", o.outputsOut, "words", sw.Outputs.Len())
	}
	if o.heldOut != "" {
		err := atomicfile.Write(o.heldOut, atomicfile.Readable, func(w *bufio.Writer) error {
			for _, word := range sw.Held {
				w.WriteString(word)
				w.WriteByte('\n')
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("--held-words-out: %w", err)
		}
		log.Info("wrote held words", "file", o.heldOut, "words", len(sw.Held))
	}
	if o.countsOut != "" {
		n, err := saveCounts(o.countsOut, all, log)
		if err != nil {
			return err
		}
		log.Info("wrote counts", "file", o.countsOut, "words", n)
	}
	return nil
}

// keepFrequent returns the words of e with at least minCount occurrences, in
// their order (all of e for minCount 0). runTrainEmbeddings has checked
// before training that at least one word is kept.
func keepFrequent(e *model.Embeddings, minCount int64) (*model.Embeddings, error) {
	if minCount == 0 {
		return e, nil
	}
	if len(e.Counts) != e.Len() {
		return nil, fmt.Errorf("--out-min-count: %d counts for %d words", len(e.Counts), e.Len())
	}
	var words []string
	var vecs []float32
	var counts []int64
	for i, c := range e.Counts {
		if c >= minCount {
			words, counts = append(words, e.Words[i]), append(counts, c)
			vecs = append(vecs, e.Row(int32(i))...)
		}
	}
	kept, err := model.NewEmbeddings(e.Dim, words, vecs, counts)
	if err != nil {
		return nil, fmt.Errorf("--out-min-count: %w", err)
	}
	return kept, nil
}

// saveCounts writes every word of v (all corpus words) as "word count" lines,
// atomically. Words too long for the embedding formats (model.MaxWordBytes) are
// left out with a warning on log. It returns the number of lines written.
func saveCounts(path string, v *corpus.Vocab, log *slog.Logger) (int, error) {
	words, counts := v.Words, v.Counts
	skipped := 0
	for _, w := range words {
		if len(w) > model.MaxWordBytes {
			skipped++
		}
	}
	if skipped > 0 {
		log.Warn("counts: words longer than the embedding formats allow are left out",
			"words", skipped, "limit bytes", model.MaxWordBytes)
		words, counts = make([]string, 0, len(v.Words)-skipped), make([]int64, 0, len(v.Words)-skipped)
		for i, w := range v.Words {
			if len(w) <= model.MaxWordBytes {
				words, counts = append(words, w), append(counts, v.Counts[i])
			}
		}
	}
	err := atomicfile.Write(path, atomicfile.Readable, func(w *bufio.Writer) error {
		return model.WriteCounts(w, words, counts)
	})
	if err != nil {
		return 0, fmt.Errorf("save counts: %w", err)
	}
	return len(words), nil
}

// progressPrinter rewrites one status line on a terminal, and prints a line
// every 10 seconds otherwise.
type progressPrinter struct {
	w        io.Writer
	terminal bool
	quiet    bool
	last     time.Time
	pending  bool
}

// newProgressPrinter returns a printer of progress on w; quiet prints nothing.
func newProgressPrinter(w io.Writer, quiet bool) *progressPrinter {
	return &progressPrinter{w: w, terminal: cli.IsTerminal(w), quiet: quiet}
}

func (p *progressPrinter) printf(format string, args ...any) {
	now := time.Now()
	if p.quiet {
		return
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K"+format, args...)
		p.pending = true
		return
	}
	if now.Sub(p.last) >= 10*time.Second {
		fmt.Fprintf(p.w, format+"\n", args...)
		p.last = now
	}
}

// end finishes the status line.
func (p *progressPrinter) end() {
	if p.pending {
		fmt.Fprintln(p.w)
		p.pending = false
	}
	p.last = time.Time{}
}

// thousands formats n with commas.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
