// Package amtrain trains Attentive Mimicking models (Schick & Schütze 2019) on
// a corpus and base embeddings (`text2vec-am train`), builds the serving
// bundle, and infers vectors for words given with their contexts
// (`text2vec-am infer`).
//
// Contexts come from an occurrence Index built once per corpus (memory-mapped
// token ids with per-word position lists) and cached, so sampling k contexts
// of a word costs O(k) window scans. Training follows the paper's appendix:
// words with ≥ 100 occurrences, n(w) = min(⌊f/100⌋, 5) instances per epoch,
// 1–64 contexts of ±25 tokens per instance, squared distance to the base
// embedding, Adam (lr 0.01, batch 64), 5 epochs. Each batch is split over the
// threads, whose gradients are summed before one Adam step; n-gram rows are
// updated lazily (see Adam).
package amtrain

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return []cli.Command{
		{Name: "train", Summary: "train an Attentive Mimicking model on a corpus and base embeddings", Run: runTrain},
		{Name: "infer", Summary: "infer vectors for words given with contexts (word<TAB>context<TAB>…)", Run: runInfer},
	}
}

// PeakGFLOPSPerCore is this project's machine's float32 peak per core (AVX-512 FMA).
const PeakGFLOPSPerCore = 222

type trainFlags struct {
	embeddings, counts, mode, include, includeMissing, onlyWords          string
	ngrams, ngramsSpace                                                   string
	ngramMax, countBuckets                                                int
	contextDraw                                                           string
	ngramLRScale, formShare, contextSIF                                   float64
	corpus                                                                cli.Paths
	out, bundleOut, storage, baseStorage, checkpointDir, resume, workDir  string
	seed                                                                  int64
	epochs, batch, threads, holdout, maxContexts, window, checkpointEvery int
	nmin, nmax, ngramMinCount                                             int
	lr, peak                                                              float64
	minCountTrain, oovMaxCount                                            int64
	quiet, sharedForm, gateAgreement, gateCoverage, alacarteA             bool
}

// ErrTooFewDims reports base embeddings of one dimension: nothing to train on.
var ErrTooFewDims = errors.New("base embeddings need at least 2 dimensions")

// runTrain is `text2vec-am train`: it parses the flags into trainFlags and
// Options and hands them to trainAndSave.
func runTrain(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("train", env)
	def := DefaultOptions()
	var f trainFlags
	f.register(fs, def)
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q (all inputs are flags)", fs.Args())
	}
	o, err := f.options(def)
	if err != nil {
		return err
	}
	save, err := f.saveOptions()
	if err != nil {
		return err
	}
	if err := f.checkFiles(o.CheckpointPath); err != nil {
		return err
	}
	o.Log = slog.New(slog.NewTextHandler(env.Stderr, nil))
	if err := CheckNoUnfinished(o.CheckpointPath, f.resume, o.Log); err != nil {
		return err
	}
	if err := checkResumeHead(&o); err != nil {
		return err
	}
	if !f.quiet {
		o.Progress = env.Stderr
	}
	return trainAndSave(ctx, &f, o, save, env)
}

// checkFiles fails before any work when --out or --bundle-out cannot be
// written or is the same file as the other, when one of them or the
// checkpoint ckpt is an input file (--embeddings, --counts, --resume,
// --include, --ngrams, --ngrams-space or a --corpus file): training would
// end by overwriting it, and when one of them, the checkpoint or the corpus
// index is inside a --corpus directory. The checkpoint may be the --resume
// file (resuming replaces it). The --out directory is created once the
// outputs are known to lie outside the corpus (a refused output leaves no
// directory in it), before the other checks, as the corpus index (kept there
// by default) always created it.
func (f *trainFlags) checkFiles(ckpt string) error {
	outs := []outpath.File{{Flag: "--out", Path: f.out}, {Flag: "--bundle-out", Path: f.bundleOut}}
	if err := f.checkOutsideCorpus(outs); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.out), 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", f.out, err)
	}
	inputs := []outpath.File{{Flag: "--embeddings", Path: f.embeddings}, {Flag: "--counts", Path: f.counts},
		{Flag: "--include", Path: f.include}, {Flag: "--only-words", Path: f.onlyWords}, {Flag: "--ngrams", Path: f.ngrams}, {Flag: "--ngrams-space", Path: f.ngramsSpace}}
	for _, p := range f.corpusPaths() {
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			inputs = append(inputs, outpath.File{Flag: "--corpus", Path: p})
		}
	}
	resume := outpath.File{Flag: "--resume", Path: f.resume}
	if err := outpath.Check(outs, append(inputs, resume)); err != nil {
		return cli.UsageError("%w", err)
	}
	for _, o := range append(outs, inputs...) {
		if o.Path != "" && outpath.SamePath(ckpt, o.Path) {
			return cli.UsageError("the checkpoint %s would overwrite %s %s: choose another --out or --checkpoint-dir", ckpt, o.Flag, o.Path)
		}
	}
	if err := corpus.CheckCheckpoint(ckpt, f.corpusPaths()); err != nil {
		return cli.UsageError("%w", err)
	}
	return nil
}

// checkOutsideCorpus fails when an output (outs) or the corpus index (in
// indexDir) would be written inside a --corpus directory, where the next run
// would read it as corpus.
func (f *trainFlags) checkOutsideCorpus(outs []outpath.File) error {
	if err := corpus.CheckOutputs(f.corpusPaths(), outs); err != nil {
		return cli.UsageError("%w", err)
	}
	for _, p := range f.corpusPaths() {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			continue
		}
		if index := filepath.Join(f.indexDir(), "amindex.idx"); corpus.ReadsFile(p, index) {
			return cli.UsageError("the corpus index would be written in %s (--work-dir, default the --out directory), "+
				"inside the --corpus directory %s, where the next run would read it as corpus: choose a --work-dir "+
				"outside it", filepath.Dir(index), p)
		}
	}
	return nil
}

// indexDir is the directory of the corpus index: --work-dir, or the --out
// directory.
func (f *trainFlags) indexDir() string {
	if f.workDir != "" {
		return f.workDir
	}
	return filepath.Dir(f.out)
}

// saveOptions parses --storage and --base-storage (default: --storage).
func (f *trainFlags) saveOptions() (model.SaveOptions, error) {
	ng, err := model.ParseStorage(f.storage)
	if err != nil {
		return model.SaveOptions{}, cli.UsageError("--storage: %w", err)
	}
	base := ng
	if f.baseStorage != "" && f.bundleOut == "" {
		return model.SaveOptions{}, cli.UsageError("--base-storage %s: only a bundle (--bundle-out) holds base vectors", f.baseStorage)
	}
	if f.baseStorage != "" {
		if base, err = model.ParseStorage(f.baseStorage); err != nil {
			return model.SaveOptions{}, cli.UsageError("--base-storage: %w", err)
		}
	}
	return model.SaveOptions{NgramStorage: ng, BaseStorage: base}, nil
}

// register declares the flags of `train` on fs, with the defaults of def.
func (f *trainFlags) register(fs *flag.FlagSet, def Options) {
	fs.Var(&f.corpus, "corpus", "corpus `PATH`: a text or .gz file or a directory of them; repeatable, and a value may list paths separated by commas (required)")
	fs.StringVar(&f.embeddings, "embeddings", "", "base embeddings, word2vec text/binary or GloVe, .gz ok (required)")
	fs.StringVar(&f.counts, "counts", "", "word counts file (\"word count\" lines, .gz ok); default: counted from the corpus")
	fs.StringVar(&f.mode, "mode", "am", "model: am, fcm, form, context (AM-ctx) or fcm-context (FCM-ctx)")
	fs.StringVar(&f.include, "include", "", "file of extra words (one a line) trained 5 times per epoch whatever their count (the paper's † variant)")
	fs.StringVar(&f.onlyWords, "only-words", "", "train only the words of this `file` (one a line) among those --min-count-train selects: train-embeddings --held-words-out, the words whose n-grams never learned from them")
	fs.StringVar(&f.includeMissing, "include-missing", "fail", "include words without a base vector or not in the corpus: fail or skip (warn)")
	fs.Int64Var(&f.seed, "seed", def.Seed, "random seed (runs are reproducible for the same seed and --threads)")
	fs.IntVar(&f.epochs, "epochs", def.Epochs, "training epochs")
	fs.IntVar(&f.batch, "batch", def.Batch, "batch size")
	fs.Float64Var(&f.lr, "lr", def.LR, "Adam learning rate")
	fs.IntVar(&f.threads, "threads", def.Threads, "threads each batch is split over")
	fs.Int64Var(&f.minCountTrain, "min-count-train", def.MinCountTrain, "train base words occurring at least this often")
	fs.IntVar(&f.maxContexts, "max-contexts", def.MaxContexts, "each instance samples 1..N contexts")
	fs.StringVar(&f.contextDraw, "context-draw", def.ContextDraw.String(), "how many contexts an instance samples: uniform (the paper) or log-uniform (as many with 1-3 contexts as with 16-63)")
	fs.IntVar(&f.countBuckets, "count-buckets", def.CountBuckets, "gate bias per bucket of the number of contexts (1, 2-3, 4-7, ...; the last takes the rest); 0: the paper's gate")
	fs.BoolVar(&f.gateAgreement, "gate-agreement", def.GateAgreement, "give the gate the contexts' agreement (mean cosine between two contexts' means) as one more input")
	fs.BoolVar(&f.gateCoverage, "gate-coverage", def.GateCoverage, "give the gate how far the form's coverage (the share of the word's character n-grams its form takes from the n-gram table) falls below 0.3 as one more input, so that contexts count more for a word whose spelling the model knows little of")
	fs.Float64Var(&f.contextSIF, "context-sif", def.ContextSIF, "weigh each context word by its SIF weight `a`/(a + p(w)), p(w) its share of the counts, in its context's mean (0: the paper's plain mean; 1e-3 weighs \"the\" about 0.02)")
	fs.BoolVar(&f.alacarteA, "alacarte-a", def.AlaCarteA, "start A from the A La Carte map of the training words (least squares from context means to base vectors)")
	fs.IntVar(&f.window, "window", def.Window, "context words kept on either side")
	fs.IntVar(&f.nmin, "nmin", def.Ngram.MinN, "shortest character n-gram")
	fs.IntVar(&f.nmax, "nmax", def.Ngram.MaxN, "longest character n-gram")
	fs.IntVar(&f.ngramMinCount, "ngram-min-count", def.Ngram.MinCount, "keep n-grams found in at least this many training words")
	fs.StringVar(&f.ngrams, "ngrams", "", "start the n-gram table from these subword vectors (train-embeddings --ngrams-out, the same base); --nmin/--nmax/--ngram-min-count are then ignored")
	fs.StringVar(&f.ngramsSpace, "ngrams-space", "", "with --ngrams: the word vectors trained with them (train-embeddings --out); the n-grams are mapped into the --embeddings space by least squares over the shared words")
	fs.IntVar(&f.ngramMax, "ngram-max", 0, "with --ngrams: keep the first N n-grams of the file (0: all)")
	fs.Float64Var(&f.ngramLRScale, "ngram-lr-scale", def.NgramLRScale, "multiplies --lr for the n-gram table (0 freezes it)")
	fs.BoolVar(&f.sharedForm, "shared-form", def.SharedForm, "train each word's form from the n-grams it shares with another base word only, the form a new word has (inference unchanged)")
	fs.Float64Var(&f.formShare, "form-share", def.FormShare, "with --shared-form: also leave out of a word's training form the n-grams of which it holds more than `P` of the occurrences (0 < P < 1; 0: off, only those no other word has)")
	fs.IntVar(&f.holdout, "holdout", 0, "hold out N training words (never trained) and report mean cosine to their base vectors")
	fs.StringVar(&f.out, "out", "", "output weights file (required)")
	fs.StringVar(&f.bundleOut, "bundle-out", "", "also write a serving bundle: base vectors with AM+skip rows for 1 ≤ f < 32, and counts")
	fs.Int64Var(&f.oovMaxCount, "bundle-oov-max-count", 5, "bundle: add AM rows for corpus words without a base vector and 1 ≤ f < N (0: none)")
	fs.StringVar(&f.storage, "storage", "float32", "storage of n-gram (and bundle base) vectors: float32, float16, int8 or int4")
	fs.StringVar(&f.baseStorage, "base-storage", "", "storage of the bundle's base vectors (default: --storage)")
	fs.StringVar(&f.checkpointDir, "checkpoint-dir", "", "directory of the checkpoint written after every epoch and on Ctrl-C (default: the --out directory)")
	fs.IntVar(&f.checkpointEvery, "checkpoint-every", 1, "write the checkpoint after every `N` epochs (and after the last)")
	fs.StringVar(&f.resume, "resume", "", "checkpoint file to continue training from")
	fs.StringVar(&f.workDir, "work-dir", "", "directory of the cached corpus index (default: the --out directory)")
	fs.Float64Var(&f.peak, "peak-gflops", float64(PeakGFLOPSPerCore*runtime.NumCPU()), "machine float32 peak in GFLOP/s, for the utilisation report")
	cli.QuietFlag(fs, &f.quiet)
}

// trainAndSave loads the inputs f names, trains with o and writes the
// weights, the optional bundle (vectors stored as save says) and the report.
func trainAndSave(ctx context.Context, f *trainFlags, o Options, save model.SaveOptions, env cli.Env) error {
	d, extra, err := loadTrainData(ctx, f, o.Log)
	if err != nil {
		return err
	}
	defer d.Index.Close()
	if f.ngrams != "" {
		if o.Pretrained, err = loadPretrained(f, d.Base.Dim); err != nil {
			return err
		}
	}
	if f.include != "" {
		d.Include, err = ReadInclude(f.include, d.Tokenizer, d.Base, d.Index, f.includeMissing == "skip", o.Log)
		if err != nil {
			return err
		}
	}
	if f.onlyWords != "" {
		if d.Only, err = ReadInclude(f.onlyWords, d.Tokenizer, d.Base, d.Index, true, o.Log); err != nil {
			return err
		}
	}
	res, err := Train(ctx, d, o)
	if err != nil {
		if errors.Is(err, ErrInterrupted) {
			// cli.Main prints only "interrupted" for a cancelled context: say where the checkpoint is.
			fmt.Fprintf(env.Stderr, "text2vec-am train: %v\n", err)
		}
		return err
	}
	if err := saveTrained(ctx, f, o, save, res.Model, d, extra); err != nil {
		return err
	}
	writeReport(env.Stdout, res, f.peak)
	return nil
}

// loadTrainData loads the base embeddings, opens (or builds) the corpus
// index and takes each base word's count from the --counts file or the
// corpus; extra is the counts file (nil without one). The caller closes
// d.Index.
func loadTrainData(ctx context.Context, f *trainFlags, log *slog.Logger) (d *Data, extra map[string]int64, err error) {
	base, err := model.LoadEmbeddings(f.embeddings)
	if err != nil {
		return nil, nil, fmt.Errorf("--embeddings: %w", err)
	}
	if base.Dim < 2 {
		return nil, nil, fmt.Errorf("--embeddings %s: %w: vectors of dimension %d", f.embeddings, ErrTooFewDims, base.Dim)
	}
	tok := model.DefaultTokenizer()
	workDir := f.indexDir()
	began := time.Now()
	x, err := OpenIndex(ctx, f.corpusPaths(), tok, workDir, log)
	if err != nil {
		return nil, nil, err
	}
	log.Info("corpus ready", "tokens", x.Tokens(), "types", x.Len(), "seconds", time.Since(began).Seconds())
	if f.counts != "" {
		if extra, err = model.LoadCounts(f.counts); err != nil {
			x.Close()
			return nil, nil, fmt.Errorf("counts: %w", err)
		}
	}
	counts, missing := baseCounts(base, x, extra)
	if missing > 0 {
		log.Warn("base words missing from the counts file; using their corpus counts", "file", f.counts, "words", missing)
	}
	return &Data{Index: x, Base: base, Counts: counts, Tokenizer: tok}, extra, nil
}

// loadPretrained loads the --ngrams vectors (and the --ngrams-space words)
// and checks them against the base dimension dim.
func loadPretrained(f *trainFlags, dim int) (*PretrainedNgrams, error) {
	nv, err := model.LoadEmbeddings(f.ngrams)
	if err != nil {
		return nil, fmt.Errorf("--ngrams: %w", err)
	}
	p := &PretrainedNgrams{Vectors: nv, Max: f.ngramMax}
	if f.ngramsSpace != "" {
		if p.Space, err = model.LoadEmbeddings(f.ngramsSpace); err != nil {
			return nil, fmt.Errorf("--ngrams-space: %w", err)
		}
	}
	if _, err := p.config(dim); err != nil {
		return nil, fmt.Errorf("--ngrams %s: %w", f.ngrams, err)
	}
	return p, nil
}

// saveTrained writes the weights of m to --out and, with --bundle-out, the
// serving bundle built from m and d.
func saveTrained(ctx context.Context, f *trainFlags, o Options, save model.SaveOptions, m *model.Model, d *Data, extra map[string]int64) error {
	if err := m.SaveFile(f.out, save); err != nil {
		return fmt.Errorf("save weights: %w", err)
	}
	o.Log.Info("weights written", "file", f.out)
	if f.bundleOut == "" {
		return nil
	}
	bt := time.Now()
	emb, st, err := BuildBundle(ctx, m, d, extra, BundleOptions{MaxContexts: o.MaxContexts, Window: o.Window, OOVMaxCount: f.oovMaxCount, Seed: o.Seed})
	if err != nil {
		return err
	}
	base := m.Base
	m.Base = emb
	save.IncludeBase = true
	err = m.SaveFile(f.bundleOut, save)
	m.Base = base
	if err != nil {
		return fmt.Errorf("save bundle: %w", err)
	}
	o.Log.Info("bundle written", "file", f.bundleOut, "words", emb.Len(), "amskip_rows", st.AMSkip, "oov_rows", st.OOV, "seconds", time.Since(bt).Seconds())
	return nil
}

// corpusPaths returns every --corpus path, comma-separated lists split.
func (f *trainFlags) corpusPaths() []string {
	var paths []string
	for _, c := range f.corpus {
		paths = append(paths, strings.Split(c, ",")...)
	}
	return paths
}

// options turns the flags into Options, or a usage error naming the flag.
func (f *trainFlags) options(o Options) (Options, error) {
	switch {
	case len(f.corpus) == 0:
		return o, cli.UsageError("--corpus is required")
	case f.embeddings == "":
		return o, cli.UsageError("--embeddings is required")
	case f.out == "":
		return o, cli.UsageError("--out is required")
	case f.includeMissing != "fail" && f.includeMissing != "skip":
		return o, cli.UsageError("--include-missing must be fail or skip, got %q", f.includeMissing)
	case f.oovMaxCount < 0:
		return o, cli.UsageError("--bundle-oov-max-count must be ≥ 0, got %d", f.oovMaxCount)
	case !(f.peak > 0):
		return o, cli.UsageError("--peak-gflops must be positive, got %v", f.peak)
	}
	for _, c := range f.corpus {
		for _, p := range strings.Split(c, ",") {
			if p == "" {
				return o, cli.UsageError("--corpus %q has an empty path", c)
			}
		}
	}
	mode, err := model.ParseMode(f.mode)
	if err != nil {
		return o, cli.UsageError("--mode: %w", err)
	}
	if flags := f.formFlags(o); len(flags) > 0 && !mode.UsesForm() {
		return o, cli.UsageError("%w", noFormError(mode, flags))
	}
	o.Mode, o.Seed, o.Epochs, o.Batch, o.LR, o.Threads = mode, f.seed, f.epochs, f.batch, f.lr, f.threads
	o.MinCountTrain, o.MaxContexts, o.Window, o.Holdout = f.minCountTrain, f.maxContexts, f.window, f.holdout
	o.Resume = f.resume
	o.NgramLRScale, o.CountBuckets, o.SharedForm, o.FormShare = f.ngramLRScale, f.countBuckets, f.sharedForm, f.formShare
	o.GateAgreement, o.AlaCarteA, o.CheckpointEvery, o.ContextSIF = f.gateAgreement, f.alacarteA, f.checkpointEvery, f.contextSIF
	o.GateCoverage = f.gateCoverage
	if o.ContextDraw, err = ParseContextDraw(f.contextDraw); err != nil {
		return o, cli.UsageError("--context-draw: %w", err)
	}
	if f.ngramMax < 0 {
		return o, cli.UsageError("--ngram-max must be ≥ 0, got %d", f.ngramMax)
	}
	if (f.ngramMax > 0 || f.ngramsSpace != "") && f.ngrams == "" {
		return o, cli.UsageError("--ngram-max and --ngrams-space need --ngrams")
	}
	o.Ngram = model.NgramConfig{MinN: f.nmin, MaxN: f.nmax, MinCount: f.ngramMinCount}
	if err := o.Ngram.Validate(); err != nil {
		return o, cli.UsageError("--nmin/--nmax/--ngram-min-count: %w", err)
	}
	dir := f.checkpointDir
	if dir == "" {
		dir = filepath.Dir(f.out)
	}
	o.CheckpointPath = filepath.Join(dir, filepath.Base(f.out)+".ckpt")
	if err := o.Validate(); err != nil {
		return o, cli.UsageError("%w", err)
	}
	return o, nil
}

// formFlags returns the flags given with other values than def's that only
// a model with a form uses: --shared-form, --form-share and the pretrained
// n-gram table's --ngrams, --ngrams-space, --ngram-max and --ngram-lr-scale.
// --nmin, --nmax and --ngram-min-count are not among them: every mode builds
// and stores the n-gram vocabulary they shape, and a loop over the modes may
// give them to all (docs/evaluation.md).
func (f *trainFlags) formFlags(def Options) []string {
	var given []string
	for _, c := range []struct {
		name string
		set  bool
	}{
		{"--shared-form", f.sharedForm != def.SharedForm},
		{"--form-share", f.formShare != def.FormShare},
		{"--ngrams", f.ngrams != ""},
		{"--ngrams-space", f.ngramsSpace != ""},
		{"--ngram-max", f.ngramMax != 0},
		{"--ngram-lr-scale", f.ngramLRScale != def.NgramLRScale},
	} {
		if c.set {
			given = append(given, c.name)
		}
	}
	return given
}

// baseCounts returns f(w) for every base word: the counts file's value when
// given, else the corpus count; missing is the number of base words the counts
// file does not list (they fall back to the corpus count).
func baseCounts(base *model.Embeddings, x *Index, extra map[string]int64) (counts []int64, missing int) {
	counts = make([]int64, base.Len())
	for id, w := range base.Words {
		if extra != nil {
			if c, ok := extra[w]; ok {
				counts[id] = c
				continue
			}
			missing++
		}
		if xid, ok := x.ID(w); ok {
			counts[id] = x.Count(xid)
		}
	}
	return counts, missing
}

// ReadInclude reads an include file: one word a line; blank lines and lines
// starting with # are skipped; duplicates are merged. Each word is normalized
// by the tokenizer and must be one token. A word without a base vector or not
// in the corpus is an error naming its line, unless skipMissing, which logs
// how many were skipped and the first few. Only a regular file is read
// (model.OpenRegular: a FIFO is refused without blocking).
func ReadInclude(path string, tok model.Tokenizer, base *model.Embeddings, x *Index, skipMissing bool, log *slog.Logger) ([]string, error) {
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("include: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var words, skipped []string
	seen := make(map[string]bool)
	var toks []string
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		toks = tok.AppendTokens(toks[:0], s)
		if len(toks) != 1 {
			return nil, fmt.Errorf("include %s:%d: %q is not a single word for the tokenizer (it gives %d tokens)", path, line, s, len(toks))
		}
		w := toks[0]
		if seen[w] {
			continue
		}
		seen[w] = true
		_, inBase := base.ID(w)
		_, inCorpus := x.ID(w)
		if !inBase || !inCorpus {
			why := "has no base embedding"
			if inBase {
				why = "does not occur in the corpus"
			}
			if !skipMissing {
				return nil, fmt.Errorf("include %s:%d: %q %s (use --include-missing skip to skip such words)", path, line, w, why)
			}
			skipped = append(skipped, w)
			continue
		}
		words = append(words, w)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("include %s:%d: %w", path, line+1, err)
	}
	if len(skipped) > 0 {
		log.Warn("include words skipped: no base embedding or not in the corpus", "file", path, "skipped", len(skipped),
			"kept", len(words), "first", skipped[:min(len(skipped), 10)])
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("include %s: no usable words", path)
	}
	return words, nil
}

// writeReport prints the per-epoch table and the held-out scores. Rates are
// given per wall second (GFLOP/s against the machine's peak, peakGFLOPS) and
// per CPU second (against one core's peak, PeakGFLOPSPerCore), which does not
// depend on how busy the machine was.
func writeReport(w io.Writer, res *Result, peakGFLOPS float64) {
	fmt.Fprintf(w, "mode %s: %d training words, %d instances/epoch, %d held out\n",
		res.Model.Mode, len(res.Plan.Words), res.Plan.Instances, len(res.Plan.Holdout))
	fmt.Fprintf(w, "%-5s %8s %7s %7s %8s %9s %8s %7s %9s", "epoch", "loss", "wall_s", "cpu_s", "inst/s", "inst/cpu_s", "GFLOP/s", "peak%", "core_pk%")
	if res.Holdout != nil {
		for _, k := range HoldoutContexts {
			fmt.Fprintf(w, " %7s", fmt.Sprintf("cos@%d", k))
		}
	}
	fmt.Fprintln(w)
	row := func(label string, loss float64, inst, sec, cpu, flops float64) {
		sec, cpu = math.Max(sec, 1e-9), math.Max(cpu, 1e-9)
		gf := flops / sec / 1e9
		fmt.Fprintf(w, "%-5s %8.4f %7.1f %7.1f %8.0f %9.0f %8.2f %6.2f%% %8.2f%%", label, loss, sec, cpu,
			inst/sec, inst/cpu, gf, 100*gf/peakGFLOPS, 100*flops/cpu/1e9/PeakGFLOPSPerCore)
	}
	var inst, sec, cpu, flops float64
	for _, e := range res.Epochs {
		row(fmt.Sprint(e.Epoch), e.Loss, float64(e.Instances), e.Seconds, e.CPUSeconds, e.Flops)
		if h := e.Holdout; h != nil {
			for _, c := range h.Cos {
				fmt.Fprintf(w, " %7.4f", c)
			}
		}
		fmt.Fprintln(w)
		inst += float64(e.Instances)
		sec += e.Seconds
		cpu += e.CPUSeconds
		flops += e.Flops
	}
	if len(res.Epochs) > 0 {
		row("all", res.Epochs[len(res.Epochs)-1].Loss, inst, sec, cpu, flops)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "peak%% = GFLOP/s over %.0f GFLOP/s (the machine); core_pk%% = flops per CPU second over %d GFLOP/s (one core)\n",
		peakGFLOPS, PeakGFLOPSPerCore)
	if h := res.Holdout; h != nil {
		fmt.Fprintf(w, "held-out words: %d, mean cosine to base by contexts:", h.Words)
		for j, k := range HoldoutContexts {
			fmt.Fprintf(w, " %d:%.4f", k, h.Cos[j])
		}
		fmt.Fprintln(w)
	}
}

// checkInferFiles fails before any work when --out cannot be written or is
// one of the files infer reads (--model, --embeddings, --input), which
// writing it would destroy (outpath.Check). "-" is stdin or stdout.
func checkInferFiles(modelRef, embeddings, input, out string) error {
	if out == "-" {
		return nil
	}
	if input == "-" {
		input = ""
	}
	inputs := []outpath.File{{Flag: "--embeddings", Path: embeddings}, {Flag: "--input", Path: input}}
	if !defaultmodel.IsDefault(modelRef) {
		inputs = append(inputs, outpath.File{Flag: "--model", Path: modelRef})
	}
	if err := outpath.Check([]outpath.File{{Flag: "--out", Path: out}}, inputs); err != nil {
		return cli.UsageError("%w", err)
	}
	return nil
}

func runInfer(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("infer", env)
	modelPath := fs.String("model", defaultmodel.Ref, "weights `file` or serving bundle, or \"default\" for the embedded default model")
	embPath := fs.String("embeddings", "", "base embeddings for context words (required when --model has none)")
	input := fs.String("input", "-", "input `file`: word<TAB>context<TAB>context… per line (- for stdin)")
	out := fs.String("out", "-", "output word2vec text `file` (- for stdout)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am infer [--model FILE|default] [--input FILE] [--out FILE]\n\n"+
			"Reads lines word<TAB>context<TAB>context… (a word alone: its form only) from stdin or --input\n"+
			"and writes the inferred vectors as word2vec text to stdout or --out.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.UsageError("unexpected arguments %q (the words come from --input or stdin)", fs.Args())
	case *input == "":
		return cli.UsageError("--input is empty: give a file, or - for stdin")
	case *out == "":
		return cli.UsageError("--out is empty: give a file, or - for stdout")
	}
	if err := checkInferFiles(*modelPath, *embPath, *input, *out); err != nil {
		return err
	}
	m, err := defaultmodel.Open(*modelPath)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if *embPath != "" {
		e, err := model.LoadEmbeddings(*embPath)
		if err != nil {
			return fmt.Errorf("--embeddings: %w", err)
		}
		if err := m.AttachBase(e); err != nil {
			return fmt.Errorf("embeddings %s: %w", *embPath, err)
		}
	}
	if m.Base == nil {
		return cli.UsageError("%s has no base embeddings (a weights file, not a bundle): give --embeddings", *modelPath)
	}
	r := env.Input()
	name := "stdin"
	if *input != "-" {
		fin, err := os.Open(*input)
		if err != nil {
			return fmt.Errorf("input: %w", err)
		}
		defer fin.Close()
		r, name = fin, *input
	}
	if *out == "-" {
		_, err := Infer(m, r, name, env.Stdout)
		return err
	}
	var buf strings.Builder
	st, err := Infer(m, r, name, &buf)
	if err != nil {
		return err
	}
	if err := writeAtomic(*out, []byte(buf.String())); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "inferred %d vectors (%d contexts, %d without a known word) into %s\n", st.Words, st.Contexts, st.EmptyContexts, *out)
	return nil
}
