package eval

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// vecmapModels are the rows of the paper's Table 1 this command can build, in order.
var vecmapModels = []string{"skipgram", "fasttext", "fcm", "am", "fcm-dagger", "am-dagger"}

// vecmapRowName is the row label of a model in the tables.
func vecmapRowName(m string) string {
	switch m {
	case "fasttext":
		return "fastText"
	case "fcm":
		return "FCM"
	case "am":
		return "AM"
	case "fcm-dagger":
		return "FCM†"
	case "am-dagger":
		return "AM†"
	}
	return m
}

type vecmapRun struct {
	dir, exe, fasttext string
	corpus             []string
	gold               string
	dim, threads       int
	dictMin            int64
	mapping            VecMapMapping
	sel                VecMapSelection
	preferred          []string
	models             []string
	env                cli.Env
}

func (r *vecmapRun) path(name string) string { return filepath.Join(r.dir, name) }

// step runs fn unless every output exists already.
func (r *vecmapRun) step(ctx context.Context, name string, outputs []string, fn func() error) error {
	done := true
	for _, o := range outputs {
		if _, err := os.Stat(o); err != nil {
			done = false
		}
	}
	if done {
		slog.Info("vecmap step already done", "step", name)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	slog.Info("vecmap step", "step", name)
	start := time.Now()
	if err := fn(); err != nil {
		return fmt.Errorf("step %s: %w", name, err)
	}
	slog.Info("vecmap step finished", "step", name, "seconds", time.Since(start).Seconds())
	return nil
}

// cmdFiles names the files of an external program in the work directory: its
// log (stderr, and stdout when out is empty), its output (stdout; "" for the
// log) and its input (a path; "" for none).
type cmdFiles struct{ log, out, in string }

// command runs an external program with the files of fs. An output file never
// gets the program's stderr, so a warning cannot end up among the vectors.
func (r *vecmapRun) command(ctx context.Context, fs cmdFiles, name string, args ...string) error {
	log, err := os.Create(r.path(fs.log))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = log, log
	var out *os.File
	if fs.out != "" {
		if out, err = os.Create(r.path(fs.out)); err != nil {
			return err
		}
		defer out.Close()
		cmd.Stdout = out
	}
	if fs.in != "" {
		in, err := os.Open(fs.in)
		if err != nil {
			return err
		}
		defer in.Close()
		cmd.Stdin = in
	}
	slog.Info("running", "command", name+" "+strings.Join(args, " "), "log", r.path(fs.log))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w (see %s)", filepath.Base(name), strings.Join(args, " "), err, r.path(fs.log))
	}
	if out != nil {
		if err := out.Close(); err != nil {
			return fmt.Errorf("%s: %w", r.path(fs.out), err)
		}
	}
	return nil
}

// prepare selects the test words, downsamples the corpus and collects the test words' contexts.
func (r *vecmapRun) prepare(ctx context.Context) error {
	preferred, err := LoadVecMapLists(r.preferred)
	if err != nil {
		return err
	}
	slog.Info("reading the corpus", "paths", r.corpus)
	c, err := corpus.Read(ctx, r.corpus, corpus.Options{Tokenizer: model.DefaultTokenizer(), Sentences: true})
	if err != nil {
		return fmt.Errorf("read corpus: %w", err)
	}
	words, err := SelectVecMapWords(c.Words, c.Counts, preferred, r.sel)
	if err != nil {
		return err
	}
	nPreferred := 0
	for _, w := range words {
		if preferred[w.Word] == w.Occurrences {
			nPreferred++
		}
	}
	slog.Info("test words selected", "words", len(words), "from_paper_lists", nPreferred)
	del, err := Downsample(c, words, r.sel.Seed)
	if err != nil {
		return err
	}
	if r.gold == "" { // the gold skipgram trains on the full corpus, tokenized the same way
		if err := WriteTokenized(r.path("full.txt"), c, nil); err != nil {
			return err
		}
	}
	if err := WriteTokenized(r.path("down.txt"), c, del); err != nil {
		return err
	}
	counts := make([]int64, len(c.Counts))
	copy(counts, c.Counts)
	for p, d := range del {
		if d {
			counts[c.IDs[p]]--
		}
	}
	var b strings.Builder
	for i, w := range c.Words {
		if counts[i] > 0 {
			fmt.Fprintf(&b, "%s %d\n", w, counts[i])
		}
	}
	if err := atomicfile.WriteFile(r.path("down-counts.txt"), []byte(b.String()), atomicfile.Readable); err != nil {
		return err
	}
	if err := WriteContexts(r.path("contexts.jsonl"), CollectContexts(c, words, del, 25)); err != nil {
		return err
	}
	var wl strings.Builder
	for _, w := range words {
		wl.WriteString(w.Word + "\n")
	}
	if err := atomicfile.WriteFile(r.path("test-words.txt"), []byte(wl.String()), atomicfile.Readable); err != nil {
		return err
	}
	return WriteVecMapWords(r.path("words.tsv"), words)
}

func (r *vecmapRun) skipgram(ctx context.Context, corpusFile, out string, minCount int) error {
	return r.command(ctx, cmdFiles{log: filepath.Base(out) + ".log"}, r.exe, "train-embeddings", "--corpus", corpusFile, "--out", out,
		"--dim", strconv.Itoa(r.dim), "--min-count", strconv.Itoa(minCount), "--threads", strconv.Itoa(r.threads))
}

func (r *vecmapRun) am(ctx context.Context, mode, out string, dagger bool) error {
	args := []string{"train", "--mode", mode, "--corpus", r.path("down.txt"), "--embeddings", r.path("sg-down.vec"),
		"--out", out, "--threads", strconv.Itoa(r.threads), "--work-dir", r.path("am-index"), "--quiet"}
	if dagger {
		args = append(args, "--include", r.path("test-words.txt"), "--include-missing", "skip")
	} else {
		// The test words must not be training targets: the 128-occurrence
		// bucket would otherwise pass the threshold of 100. A counts file
		// giving them count 0 excludes exactly them (train takes every other
		// word's count from the corpus).
		args = append(args, "--counts", r.path("exclude-counts.txt"))
	}
	if err := os.MkdirAll(r.path("am-index"), 0o755); err != nil {
		return err
	}
	test, err := LoadVecMapWords(r.path("words.tsv"))
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, w := range test {
		b.WriteString(w.Word + " 0\n")
	}
	if err := atomicfile.WriteFile(r.path("exclude-counts.txt"), []byte(b.String()), atomicfile.Readable); err != nil {
		return err
	}
	return r.command(ctx, cmdFiles{log: filepath.Base(out) + ".log"}, r.exe, args...)
}

func runVecMap(ctx context.Context, env cli.Env) error {
	r, plotPath, err := parseVecMap(env)
	if err != nil {
		return err
	}
	return r.run(ctx, plotPath)
}

// parseVecMap parses eval vecmap's flags into a run and the plot path.
func parseVecMap(env cli.Env) (*vecmapRun, string, error) {
	fs := cli.NewFlagSet("eval vecmap", env)
	r := &vecmapRun{env: env, sel: DefaultVecMapSelection()}
	var corpusPaths cli.Paths
	fs.Var(&corpusPaths, "corpus", "full corpus `PATH` (file or directory; repeatable)")
	fs.StringVar(&r.dir, "work-dir", "", "`DIR` for the downsampled corpus, models and logs; finished steps are skipped on a rerun")
	fs.StringVar(&r.gold, "gold", "", "gold embeddings `FILE` (default: skipgram trained here on the full corpus)")
	fs.StringVar(&r.fasttext, "fasttext", "/usr/bin/fasttext", "fastText CLI `PATH`")
	models := fs.String("models", strings.Join(vecmapModels, ","), "rows to build: "+strings.Join(vecmapModels, ","))
	fs.IntVar(&r.dim, "dim", 100, "embedding dimension of skipgram, fastText and the gold space")
	fs.IntVar(&r.threads, "threads", 2, "threads of every training")
	fs.Int64Var(&r.dictMin, "dict-min-count", 50, "dictionary words occur at least this often in the downsampled corpus")
	fs.Int64Var(&r.sel.MinCount, "min-count", r.sel.MinCount, "test words occur at least this often in the full corpus")
	fs.Int64Var(&r.sel.MaxCount, "max-count", r.sel.MaxCount, "test words occur at most this often (0: no limit)")
	fs.IntVar(&r.sel.PerBucket, "per-bucket", r.sel.PerBucket, "test words per bucket")
	fs.IntVar(&r.sel.Buckets, "buckets", r.sel.Buckets, "buckets (1, 2, 4 … 2^(buckets−1) occurrences)")
	fs.Uint64Var(&r.sel.Seed, "seed", r.sel.Seed, "random seed (word choice, downsampling)")
	mapping := fs.String("mapping", MappingSupervised.String(), "how each space and gold are brought together: supervised (VecMap's --supervised recipe: whiten, orthogonal map, re-weight, de-whiten) or orthogonal (Procrustes only)")
	plotPath := fs.String("plot", "", "write a PNG plot of the mean cosine by occurrences to `FILE`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval vecmap --corpus PATH --work-dir DIR [flags] [PAPER_LIST…]\n\n"+
			"The paper's Table 1 (VecMap) protocol. PAPER_LIST files (selected-words-N.txt) name preferred\n"+
			"test words for the bucket of N occurrences. Steps (each skipped when its output exists):\n"+
			"prepare (select words, downsample, contexts) → gold skipgram → skipgram, fastText, FCM, AM,\n"+
			"FCM†, AM† on the downsampled corpus → VecMap mapping with gold, mean cosine ×100 per bucket and\n"+
			"the binomial significance table.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return nil, "", err
	}
	mp, err := ParseVecMapMapping(*mapping)
	if err != nil {
		return nil, "", cli.UsageError("--mapping: %w", err)
	}
	r.mapping = mp
	r.corpus = corpusPaths
	r.preferred = fs.Args()
	if len(r.corpus) == 0 || r.dir == "" {
		return nil, "", cli.UsageError("--corpus and --work-dir are required")
	}
	if r.dim < 1 || r.threads < 1 {
		return nil, "", cli.UsageError("--dim and --threads must be ≥ 1")
	}
	for _, m := range strings.Split(*models, ",") {
		if !containsStr(vecmapModels, m) {
			return nil, "", cli.UsageError("--models: unknown model %q (want %s)", m, strings.Join(vecmapModels, ","))
		}
		r.models = append(r.models, m)
	}
	if err := r.checkPlot(*plotPath); err != nil {
		return nil, "", err
	}
	return r, *plotPath, nil
}

// checkPlot refuses --plot before any work when it cannot be drawn or
// written, or would replace an input (checkPlotOutput: a --corpus file,
// --gold, --fasttext or a PAPER_LIST) or a file the run keeps in --work-dir,
// which a rerun would take for a finished step. Those files are not PNGs:
// in the work directory only a .png is allowed.
func (r *vecmapRun) checkPlot(plot string) error {
	inputs := append(corpusFiles(r.corpus), outpath.File{Flag: "--gold", Path: r.gold}, outpath.File{Flag: "--fasttext", Path: r.fasttext})
	for _, p := range r.preferred {
		inputs = append(inputs, outpath.File{Flag: "PAPER_LIST", Path: p})
	}
	if err := checkPlotOutput(plot, "", inputs); err != nil || plot == "" {
		return err
	}
	if outpath.SamePath(plot, r.dir) || outpath.Within(plot, r.dir) && !strings.EqualFold(filepath.Ext(plot), ".png") {
		return cli.UsageError("--plot %s is inside --work-dir %s, where the run keeps its files: name it .png or write it elsewhere",
			plot, r.dir)
	}
	return nil
}

// run takes every step not done yet (prepare, gold, the models) and scores.
func (r *vecmapRun) run(ctx context.Context, plotPath string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	r.exe = exe
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return fmt.Errorf("--work-dir: %w", err)
	}
	prepared := []string{r.path("words.tsv"), r.path("down.txt"), r.path("contexts.jsonl"), r.path("down-counts.txt"), r.path("test-words.txt")}
	if r.gold == "" {
		prepared = append(prepared, r.path("full.txt"))
	}
	if err := r.step(ctx, "prepare", prepared, func() error { return r.prepare(ctx) }); err != nil {
		return err
	}
	if r.gold == "" {
		r.gold = r.path("gold.vec")
		if err := r.step(ctx, "gold skipgram (full corpus)", []string{r.gold}, func() error { return r.skipgram(ctx, r.path("full.txt"), r.gold, 5) }); err != nil {
			return err
		}
	}
	needSG := false
	for _, m := range r.models {
		needSG = needSG || m != "fasttext"
	}
	if needSG {
		if err := r.step(ctx, "skipgram (downsampled corpus)", []string{r.path("sg-down.vec")}, func() error {
			return r.skipgram(ctx, r.path("down.txt"), r.path("sg-down.vec"), 1)
		}); err != nil {
			return err
		}
	}
	for _, m := range r.models {
		if err := r.trainModel(ctx, m); err != nil {
			return err
		}
	}
	return r.score(ctx, plotPath)
}

// trainModel builds the row m on the downsampled corpus unless it is built.
func (r *vecmapRun) trainModel(ctx context.Context, m string) error {
	var err error
	switch m {
	case "fasttext":
		err = r.step(ctx, "fastText (downsampled corpus)", []string{r.path("ft.bin"), r.path("ft.vec"), r.path("ft-test.txt")}, func() error {
			if err := r.command(ctx, cmdFiles{log: "ft.log"}, r.fasttext, "skipgram", "-input", r.path("down.txt"), "-output", r.path("ft"),
				"-dim", strconv.Itoa(r.dim), "-thread", strconv.Itoa(r.threads)); err != nil {
				return err
			}
			return r.command(ctx, cmdFiles{log: "ft-test.log", out: "ft-test.txt.tmp", in: r.path("test-words.txt")}, r.fasttext, "print-word-vectors", r.path("ft.bin"))
		})
		if err == nil {
			err = os.Rename(r.path("ft-test.txt.tmp"), r.path("ft-test.txt"))
			if os.IsNotExist(err) {
				err = nil
			}
		}
	case "fcm", "am", "fcm-dagger", "am-dagger":
		mode := strings.TrimSuffix(m, "-dagger")
		err = r.step(ctx, vecmapRowName(m), []string{r.path(m + ".am")}, func() error {
			return r.am(ctx, mode, r.path(m+".am"), strings.HasSuffix(m, "-dagger"))
		})
	}
	return err
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loadFastTextWords reads print-word-vectors output ("word v1 … vd" per line).
func loadFastTextWords(path string, dim int) (map[string][]float32, error) {
	out := map[string][]float32{}
	err := dataset.ForEachLine(path, func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil
		}
		if len(f) != dim+1 {
			return fmt.Errorf("%s:%d: want a word and %d values, got %d fields", path, n, dim, len(f))
		}
		v := make([]float32, dim)
		for k, s := range f[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				return fmt.Errorf("%s:%d: value %d: %w", path, n, k+1, err)
			}
			v[k] = float32(x)
		}
		out[f[0]] = v
		return nil
	})
	return out, err
}

// score maps every space onto gold and prints Table 1 and its significance table.
func (r *vecmapRun) score(ctx context.Context, plotPath string) error {
	test, err := LoadVecMapWords(r.path("words.tsv"))
	if err != nil {
		return err
	}
	dict, err := r.dictionary(test)
	if err != nil {
		return err
	}
	gold, err := loadEmbeddings(r.gold)
	if err != nil {
		return err
	}
	var sg *model.Embeddings
	if _, err := os.Stat(r.path("sg-down.vec")); err == nil {
		if sg, err = loadEmbeddings(r.path("sg-down.vec")); err != nil {
			return err
		}
	}
	contexts, err := LoadContexts(r.path("contexts.jsonl"))
	if err != nil {
		return err
	}
	ctxByWord := make(map[string][][]string, len(contexts))
	for _, c := range contexts {
		ctxByWord[c.Word] = c.Contexts
	}
	testWords := make([]string, len(test))
	for i, w := range test {
		testWords[i] = w.Word
	}
	var results []vecmapResult
	for _, m := range r.models {
		if err := ctx.Err(); err != nil {
			return err
		}
		space, err := r.space(m, sg, testWords, ctxByWord)
		if err != nil {
			return err
		}
		cos, n, err := VecMapScores(EmbeddingLookup(gold), space, gold.Dim, dict, test, r.mapping)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		slog.Info("vecmap scored", "model", m, "dictionary_pairs", n)
		results = append(results, vecmapResult{vecmapRowName(m), cos})
	}
	return writeVecMap(r.env.Stdout, r.mapping, test, results, plotPath)
}

// dictionary returns the words of the downsampled corpus with at least
// dictMin occurrences that are not test words: the mapping's dictionary.
func (r *vecmapRun) dictionary(test []VecMapWord) ([]string, error) {
	isTest := make(map[string]bool, len(test))
	for _, w := range test {
		isTest[w.Word] = true
	}
	var dict []string
	err := dataset.ForEachLine(r.path("down-counts.txt"), func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) != 2 {
			return fmt.Errorf("%s:%d: want word count", r.path("down-counts.txt"), n)
		}
		c, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", r.path("down-counts.txt"), n, err)
		}
		if c >= r.dictMin && !isTest[f[0]] {
			dict = append(dict, f[0])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return dict, nil
}

// space returns the vectors of row m: skipgram, fastText (its vectors of the
// test words, else its word vectors) or a model's inferred test words over
// skipgram.
func (r *vecmapRun) space(m string, sg *model.Embeddings, testWords []string, ctxByWord map[string][][]string) (Lookup, error) {
	var space Lookup
	switch m {
	case "skipgram":
		space = EmbeddingLookup(sg)
	case "fasttext":
		ftAll, err := loadEmbeddings(r.path("ft.vec"))
		if err != nil {
			return nil, err
		}
		ftTest, err := loadFastTextWords(r.path("ft-test.txt"), r.dim)
		if err != nil {
			return nil, err
		}
		space = func(w string) []float32 {
			if v, ok := ftTest[w]; ok {
				return v
			}
			return EmbeddingLookup(ftAll)(w)
		}
	default:
		mod, err := loadModel(r.path(m+".am"), sg, false)
		if err != nil {
			return nil, err
		}
		vecs := InferWords(mod, testWords, ctxByWord)
		inferred := make(map[string][]float32, len(testWords))
		for i, w := range testWords {
			inferred[w] = vecs[i]
		}
		base := EmbeddingLookup(sg)
		space = func(w string) []float32 {
			if v, ok := inferred[w]; ok {
				return v
			}
			return base(w)
		}
	}
	return space, nil
}

// vecmapResult is one row's cosine per test word.
type vecmapResult struct {
	name string
	cos  []float64
}

// writeVecMap writes the table of mean cosines by occurrences, the table of
// significant differences and, when plotPath is set, the plot.
func writeVecMap(out io.Writer, mapping VecMapMapping, test []VecMapWord, results []vecmapResult, plotPath string) error {
	tab := report.Table{Header: []string{"model"}}
	var occ []int
	p := report.LinePlot{Title: "VecMap: mean cosine to gold", XLabel: "occurrences", YLabel: "cosine × 100", LogX: true}
	for i, res := range results {
		o, mean := VecMapBuckets(test, res.cos)
		if i == 0 {
			occ = o
			for _, x := range o {
				tab.Header = append(tab.Header, strconv.Itoa(x))
				p.X = append(p.X, float64(x))
			}
		}
		cells := []string{res.name}
		for _, v := range mean {
			cells = append(cells, report.Num(v, 1))
		}
		tab.AddRow(cells...)
		p.Series = append(p.Series, report.Series{Name: res.name, Y: mean})
	}
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "Mean cosine ×100 between each model's vector and the gold vector, both mapped (%s mapping):\n", mapping)
	fmt.Fprintln(w)
	if err := tab.WriteMarkdown(w); err != nil {
		return err
	}
	sig := report.Table{Header: []string{"better than →"}}
	for _, res := range results {
		sig.Header = append(sig.Header, res.name)
	}
	for _, a := range results {
		cells := []string{a.name}
		for _, b := range results {
			if a.name == b.name {
				cells = append(cells, "–")
				continue
			}
			better, worse := Wins(test, a.cos, b.cos)
			var list []string
			for _, o := range occ {
				n := better[o] + worse[o]
				if better[o] > worse[o] && stats.BinomialTest(better[o], n, 0.5) < 0.05 {
					list = append(list, strconv.Itoa(o))
				}
			}
			cells = append(cells, strings.Join(list, ","))
		}
		sig.AddRow(cells...)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Occurrence counts where the row model is significantly better than the column model (binomial test, p < 0.05):")
	fmt.Fprintln(w)
	if err := sig.WriteMarkdown(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if plotPath != "" {
		return p.WritePNG(plotPath)
	}
	return nil
}
