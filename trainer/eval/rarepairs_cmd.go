package eval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
	"github.com/text2vec-am/text2vec-am/trainer/fasttext"
)

// rareRow is one row of the rare-pairs table: how the common word is looked
// up and how the rare words' vectors are inferred from sampled contexts.
type rareRow struct {
	name     string
	common   Lookup
	minK     int  // 0: the row has a value without contexts (its form); 1: it needs contexts
	constant bool // the same vectors at every k: computed once
	full     bool // infer takes the sentences with the rare word in them (LoadRareSentences)
	infer    func(contexts map[string][][]string) (map[string][]float32, error)
}

// rareResult is a row's mean ρ and mean count of pairs without a vector, per
// k, both over all the trials: a trial whose ρ is undefined (every cosine
// equal) counts as ρ = 0 (stats.MeanNaNZero, as eval chimeras does), as a
// pair without a vector counts as cosine 0, and is counted in undefined.
type rareResult struct {
	rho, missing []float64
	undefined    []int
}

// maxRareK bounds --max-k: 2^20 contexts per word is far beyond any
// context file, and k, doubling up to it, stays far from overflowing.
const maxRareK = 1 << 20

// maxRareTrials bounds --trials: a sample's seed holds its trial in 16 bits
// (rarePairsRun), so more trials would repeat the samples of other k.
const maxRareTrials = 1 << 16

// rarePairsFlags are the flags of eval rare-pairs.
type rarePairsFlags struct {
	base                baseFlags
	am, fcm, ftPath     string
	sw                  subwordFlags
	swOutputs           string
	alaCarte            alaCarteFlag
	maxK, trials, nStop int
	seed                uint64
	plotPath            string
	blendC              float64
}

func (f *rarePairsFlags) register(fset *flag.FlagSet) {
	f.base.register(fset)
	fset.StringVar(&f.am, "am", "", "AM weights `FILE`, bundle or \"default\": the AM rows (k = 0 is its form alone) and, for full am\n"+
		"weights, AM-ctx (its context part alone, A·v_ctx with the attention)")
	fset.StringVar(&f.fcm, "fcm", "", "FCM weights `FILE`, bundle or \"default\": the FCM row")
	fset.StringVar(&f.ftPath, "fasttext", "", "fastText model `FILE.bin`: its form-only (n-gram) row and ½ form + ½ additive in its own space")
	f.sw.register(fset)
	fset.StringVar(&f.swOutputs, "subword-outputs", "", "the output vectors `FILE` of --subwords (train-embeddings --outputs-out): adds the rare words'\n"+
		"skipgram vectors inferred from their k sentences and, with --am over these word vectors, AM+skip; the\n"+
		"base counts give the subsampling and the negatives")
	f.alaCarte.register(fset, "the pairs' rare words are not fitted on, and every sentence holding one is left out")
	fset.IntVar(&f.maxK, "max-k", 128, "largest number of contexts (k = 1, 2, 4 … max-k; at most 2^20)")
	fset.IntVar(&f.trials, "trials", 5, "random context samples per k, 1 … 2^16 (ρ and the missing counts are averaged)")
	fset.Uint64Var(&f.seed, "seed", 1, "random seed of the context samples")
	fset.IntVar(&f.nStop, "stopwords", 50, "the additive rows leave out this many most frequent words (by the base counts)")
	fset.StringVar(&f.plotPath, "plot", "", "write a PNG plot of ρ by k to `FILE` (replaced atomically; needs --max-k ≥ 2); a mean with\n"+
		"undefined trials (counted as 0, † in the table) is drawn at its value with an open marker, explained in the legend")
	fset.Float64Var(&f.blendC, "context-blend", 0, "with --am: add the row AM + k/(k+`C`)·centred additive − sw (the AM vector plus the mean of the\n"+
		"context words' vectors minus the mean of all base vectors, each at unit length; k: the contexts the\n"+
		"word is given; 0: no such row)")
}

// inputs are the files the command reads, which --plot must not replace.
func (f *rarePairsFlags) inputs(pairs string) []outpath.File {
	return []outpath.File{{Flag: "PAIRS", Path: pairs},
		{Flag: "--embeddings", Path: f.base.embeddings}, {Flag: "--counts", Path: f.base.counts}, {Flag: "--am", Path: f.am},
		{Flag: "--fcm", Path: f.fcm}, {Flag: "--fasttext", Path: f.ftPath}, {Flag: "--subwords", Path: f.sw.words},
		{Flag: "--subword-ngrams", Path: f.sw.ngrams}, {Flag: "--subword-outputs", Path: f.swOutputs},
		{Flag: "--alacarte-corpus", Path: f.alaCarte.corpus}}
}

func runRarePairs(ctx context.Context, env cli.Env) error {
	fset := cli.NewFlagSet("eval rare-pairs", env)
	var f rarePairsFlags
	f.register(fset)
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), rarePairsUsage)
		fset.PrintDefaults()
	}
	if err := cli.ParseFlags(fset, env.Args); err != nil {
		return err
	}
	if fset.NArg() != 2 {
		return cli.UsageError("want PAIRS and CONTEXT_DIR, got %d arguments", fset.NArg())
	}
	if err := checkRarePairsFlags(f.maxK, f.trials, f.nStop, f.blendC, f.am, f.plotPath); err != nil {
		return err
	}
	if (f.sw.words == "") != (f.sw.ngrams == "") || (f.swOutputs != "" && f.sw.words == "") {
		return cli.UsageError("--subwords and --subword-ngrams go together, and --subword-outputs needs them")
	}
	if err := checkPlotOutput(f.plotPath, fset.Arg(1), f.inputs(fset.Arg(0))); err != nil {
		return err
	}
	pairs, err := loadRarePairsInput(fset.Arg(0), fset.Arg(1))
	if err != nil {
		return err
	}
	e, stop, err := f.base.loadWithStopWords(f.nStop)
	if err != nil {
		return err
	}
	rp, contexts, without, err := RarePairsSetup(pairs, fset.Arg(1), model.DefaultTokenizer())
	if err != nil {
		return err
	}
	rareWords := distinctRareWords(rp)
	slog.Info("rare pairs", "pairs", len(rp), "rare_words", len(rareWords), "with_contexts", len(contexts), "pairs_without_contexts", without)
	rows, amModel, fitted, err := f.rows(ctx, e, stop, rareWords)
	if err != nil {
		return err
	}
	var sw *Subwords
	if f.sw.given() {
		if sw, err = f.sw.load(); err != nil {
			return err
		}
	}
	swRows, closeFT, err := subwordModelRows(f.ftPath, sw, stop, rareWords, rp)
	if err != nil {
		return err
	}
	defer closeFT()
	rows = append(rows, swRows...)
	full, skRows, err := f.skip(fset.Arg(1), sw, contexts, e, amModel, rareWords)
	if err != nil {
		return err
	}
	rows = append(rows, skRows...)
	ks := contextCounts(f.maxK)
	res, err := rarePairsRun(ctx, rp, rareSamples{contexts, full}, rareWords, rows, ks, f.trials, f.seed)
	if err != nil {
		return err
	}
	if err := writeRarePairs(env, rows, res, ks, len(rp), without, f.trials, f.plotPath, fitted); err != nil || amModel == nil {
		return err
	}
	gates, err := RareGates(ctx, amModel, contexts, rareWords, ks, f.trials, f.seed)
	if err != nil {
		return err
	}
	return writeRareGates(env.Stdout, gates, ks)
}

// rows builds the rows of rareRows and the A La Carte row after additive −
// sw. It returns the AM model (nil without --am) and what A La Carte was
// fitted on ("" without it).
func (f *rarePairsFlags) rows(ctx context.Context, e *model.Embeddings, stop map[string]bool, rareWords []string) ([]rareRow, *model.Model, string, error) {
	rows, amModel, err := rareRows(e, stop, rareWords, f.am, f.fcm, f.blendC)
	if err != nil {
		return nil, nil, "", err
	}
	held := make(map[string]bool, len(rareWords))
	for _, w := range rareWords {
		held[w] = true
	}
	ac, fitted, err := f.alaCarte.nonce(ctx, e, AlaCarteHoldout{Words: held, Sentences: true})
	if err != nil {
		return nil, nil, "", err
	}
	if ac != nil {
		rows = slices.Insert(rows, 1, contextRow("A La Carte", ac, rareWords, EmbeddingLookup(e)))
	}
	return rows, amModel, fitted, nil
}

// checkPlotOutput refuses --plot plot before any work when this binary
// cannot draw it (report.CheckPlotFlag), when it cannot be written (a
// missing directory, a directory) or when it is one of the inputs
// (outpath.Check) or would be read as a context file of contextDir
// (plotInContextDir): the plot used to replace an input file, or to fail
// only after the whole evaluation.
func checkPlotOutput(plot, contextDir string, inputs []outpath.File) error {
	if err := report.CheckPlotFlag(plot); err != nil || plot == "" {
		return err
	}
	if plotInContextDir(plot, contextDir) {
		return cli.UsageError("--plot %s is the input CONTEXT_DIR %s or would be read as one of its context files: write it elsewhere", plot, contextDir)
	}
	if err := outpath.Check([]outpath.File{{Flag: "--plot", Path: plot}}, inputs); err != nil {
		return cli.UsageError("%w", err)
	}
	return nil
}

// corpusFiles are the files among the --corpus paths, inputs an output must
// not replace. Corpus directories are left out, as train leaves them out: a
// new file there is not read by the run writing it.
func corpusFiles(paths []string) []outpath.File {
	var files []outpath.File
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			files = append(files, outpath.File{Flag: "--corpus", Path: p})
		}
	}
	return files
}

// plotInContextDir reports whether writing plot would change what eval
// rare-pairs reads from dir: plot is dir, a <word>.txt file directly in it,
// or the same file as one of its .txt files (a link's target). Of dir only
// those are read, so a plot elsewhere in it (a .png, a subdirectory, dir
// being the working directory) is allowed.
func plotInContextDir(plot, dir string) bool {
	if dir == "" {
		return false
	}
	if outpath.SamePath(plot, dir) || strings.EqualFold(filepath.Ext(plot), ".txt") && outpath.SamePath(filepath.Dir(plot), dir) {
		return true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		if outpath.SamePath(plot, f) {
			return true
		}
	}
	return false
}

// checkRarePairsFlags validates the numeric flags of eval rare-pairs, and
// --plot (plotPath), which needs two values of k ≥ 1 to draw on its log axis.
func checkRarePairsFlags(maxK, trials, nStop int, blendC float64, am, plotPath string) error {
	switch {
	case maxK < 1 || maxK > maxRareK:
		return cli.UsageError("--max-k must be in 1..2^20 (%d), got %d", maxRareK, maxK)
	case trials < 1 || trials > maxRareTrials:
		return cli.UsageError("--trials must be in 1..2^16 (%d), got %d", maxRareTrials, trials)
	case nStop < 0:
		return cli.UsageError("--stopwords must be ≥ 0, got %d", nStop)
	case !(blendC >= 0) || math.IsInf(blendC, 0):
		return cli.UsageError("--context-blend must be a finite number ≥ 0, got %v", blendC)
	case blendC > 0 && am == "":
		return cli.UsageError("--context-blend needs --am (it blends the AM vector)")
	case plotPath != "" && maxK < 2:
		return cli.UsageError("--plot %s needs two values of k to draw (--max-k ≥ 2), got --max-k %d", plotPath, maxK)
	}
	return nil
}

// loadRarePairsInput checks that dir is a directory and reads the pairs at
// pairsPath, refusing a file on which Spearman's ρ is undefined whatever
// the vectors: fewer than two pairs, or every score equal.
func loadRarePairsInput(pairsPath, dir string) ([]dataset.WordPair, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("context directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("context directory %s is not a directory", dir)
	}
	pairs, err := dataset.LoadWordPairs(pairsPath)
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		if p.Score != pairs[0].Score {
			return pairs, nil
		}
	}
	if len(pairs) < 2 {
		return nil, fmt.Errorf("%s holds %d pair: Spearman's ρ needs at least two pairs with different scores", pairsPath, len(pairs))
	}
	return nil, fmt.Errorf("%s: all %d pairs have the score %g: Spearman's ρ needs at least two pairs with different scores", pairsPath, len(pairs), pairs[0].Score)
}

// distinctRareWords returns the rare words of rp, sorted, each once.
func distinctRareWords(rp []RarePair) []string {
	words := make([]string, 0, len(rp))
	seen := map[string]bool{}
	for _, p := range rp {
		if !seen[p.Rare] {
			seen[p.Rare] = true
			words = append(words, p.Rare)
		}
	}
	sort.Strings(words)
	return words
}

// contextCounts returns the numbers of contexts of the protocol: 0 (the form
// alone), then 1, 2, 4 … up to maxK. k never overflows, whatever maxK: the
// loop stops before doubling past it.
func contextCounts(maxK int) []int {
	ks := []int{0}
	for k := 1; k <= maxK; k *= 2 {
		ks = append(ks, k)
		if k > maxK/2 {
			break
		}
	}
	return ks
}

// rareRows builds the rows: additive − sw, FCM, AM, AM + k/(k+blendC)·centred
// additive (blendC > 0), ½ AM form + ½ additive and the base vector. It
// also returns the AM model (nil without amPath).
func rareRows(e *model.Embeddings, stop map[string]bool, rareWords []string, amPath, fcmPath string, blendC float64) ([]rareRow, *model.Model, error) {
	base := EmbeddingLookup(e)
	additive := Additive(e, stop)
	addAll := func(c map[string][][]string) map[string][]float32 { return inferEach(additive, rareWords, c) }
	var amModel *model.Model
	rows := []rareRow{contextRow("additive − sw", additive, rareWords, base)}
	for _, r := range []struct{ name, path string }{{"FCM", fcmPath}, {"AM", amPath}} {
		if r.path == "" {
			continue
		}
		m, err := loadModel(r.path, e, false)
		if err != nil {
			return nil, nil, err
		}
		if r.name == "AM" {
			amModel = m
		}
		rows = append(rows, modelRareRows(r.name, m, e, addAll, rareWords, blendC)...)
	}
	own := map[string][]float32{}
	for _, w := range rareWords {
		if v := base(w); v != nil {
			own[w] = v
		}
	}
	rows = append(rows, rareRow{name: "base vector (all corpus occurrences)", common: base, constant: true,
		infer: func(map[string][][]string) (map[string][]float32, error) { return own, nil }})
	return rows, amModel, nil
}

// contextRow is a row that needs contexts (no value at k = 0): a rare
// word's vector is f of its sampled contexts.
func contextRow(name string, f NonceFunc, rareWords []string, common Lookup) rareRow {
	return rareRow{name: name, common: common, minK: 1, infer: func(c map[string][][]string) (map[string][]float32, error) {
		return inferEach(f, rareWords, c), nil
	}}
}

// inferEach returns f of the contexts of each rare word that gets a vector.
func inferEach(f NonceFunc, rareWords []string, contexts map[string][][]string) map[string][]float32 {
	out := make(map[string][]float32, len(rareWords))
	for _, w := range rareWords {
		if v := f(contexts[w]); v != nil {
			out[w] = v
		}
	}
	return out
}

// modelRareRows are the rows of model m (named name: "FCM" or "AM") over the
// base embeddings e: its own and, for AM, AM-ctx (full am weights: their
// context part alone, as eval chimeras and nonce run it), AM +
// k/(k+blendC)·centred additive (blendC > 0) and ½ AM form + ½ additive
// (addAll). A model trained without
// a form (context-only) has no value at k = 0 and no ½ form row.
func modelRareRows(name string, m *model.Model, e *model.Embeddings, addAll func(map[string][][]string) map[string][]float32, rareWords []string, blendC float64) []rareRow {
	base := EmbeddingLookup(e)
	infer := func(c map[string][][]string) map[string][]float32 {
		vecs := InferWords(m, rareWords, c)
		out := make(map[string][]float32, len(rareWords))
		for i, w := range rareWords {
			out[w] = vecs[i]
		}
		return out
	}
	minK := 0
	if !m.Mode.UsesForm() {
		minK = 1
		slog.Info("rare-pairs: the model has no form (trained context-only): no value at k = 0, no ½ form row", "row", name, "mode", m.Mode.String())
	}
	rows := []rareRow{{name: fmt.Sprintf("%s (%s)", name, m.Mode), common: base, minK: minK,
		infer: func(c map[string][][]string) (map[string][]float32, error) { return infer(c), nil }}}
	if name == "AM" && m.Mode == model.ModeAM {
		rows = append(rows, contextRow("AM-ctx (its context part)", ModelNonce(contextOnly(m, model.ModeContext)), rareWords, base))
	}
	if name == "AM" && blendC > 0 {
		b := blendRow(infer, addAll, MeanVector(e), rareWords, base, blendC)
		b.minK = minK
		rows = append(rows, b)
	}
	if name == "AM" && minK == 0 {
		rows = append(rows, formMixRow(infer(nil), addAll, rareWords, base))
	}
	return rows
}

// formMixRow is the row ½ AM form + ½ additive − sw (MixUnit): form holds
// the rare words' vectors from their form alone.
func formMixRow(form map[string][]float32, addAll func(map[string][][]string) map[string][]float32, rareWords []string, common Lookup) rareRow {
	return rareRow{name: "½ AM form + ½ additive − sw", common: common, infer: func(c map[string][][]string) (map[string][]float32, error) {
		add := addAll(c)
		out := make(map[string][]float32, len(rareWords))
		for _, w := range rareWords {
			if v := MixUnit(form[w], add[w]); v != nil {
				out[w] = v
			}
		}
		return out, nil
	}}
}

// blendRow is the row AM + k/(k+c)·centred additive − sw (BlendCentred), k
// being the number of contexts each rare word is given: min(the column's k,
// the word's contexts).
func blendRow(infer, addAll func(map[string][][]string) map[string][]float32, mu []float32, rareWords []string, common Lookup, c float64) rareRow {
	return rareRow{name: fmt.Sprintf("AM + k/(k+%g)·centred additive − sw", c), common: common, infer: func(ctxs map[string][][]string) (map[string][]float32, error) {
		am, add := infer(ctxs), addAll(ctxs)
		out := make(map[string][]float32, len(rareWords))
		for _, w := range rareWords {
			if v := BlendCentred(am[w], add[w], mu, len(ctxs[w]), c); v != nil {
				out[w] = v
			}
		}
		return out, nil
	}}
}

// subwordModelRows builds the rows of the fastText model at ftPath and of
// our subword model sw (each when given), in their own spaces; close
// releases the fastText file.
func subwordModelRows(ftPath string, s *Subwords, stop map[string]bool, rareWords []string, rp []RarePair) (rows []rareRow, close func(), err error) {
	close = func() {}
	if s != nil {
		if rows, err = subwordRareRows(newFTSpace(s, s.Words.Dim), "subwords", stop, rareWords, rp); err != nil {
			return nil, nil, err
		}
	}
	if ftPath == "" {
		return rows, close, nil
	}
	ft, err := fasttext.Open(ftPath)
	if err != nil {
		return nil, nil, err
	}
	ftRows, err := subwordRareRows(newFTSpace(ft, ft.Dim), "fastText", stop, rareWords, rp)
	if err != nil {
		ft.Close()
		return nil, nil, err
	}
	return append(rows, ftRows...), func() { ft.Close() }, nil
}

// rareSamples are the contexts of the rare words and, when a row needs them
// (rareRow.full), the same sentences with the rare word in them, index for
// index.
type rareSamples struct{ contexts, full map[string][][]string }

// rarePairsRun scores every row at every k, averaging over trials (see
// rareResult: an undefined ρ counts as 0 and is counted); the samples of a
// (k, trial) are shared by all rows.
func rarePairsRun(ctx context.Context, rp []RarePair, c rareSamples, rareWords []string, rows []rareRow, ks []int, trials int, seed uint64) ([]rareResult, error) {
	res := make([]rareResult, len(rows))
	rhos := make([][]float64, len(rows)) // a row's ρ in each trial of the current k
	for i := range res {
		res[i] = rareResult{rho: make([]float64, len(ks)), missing: make([]float64, len(ks)), undefined: make([]int, len(ks))}
		rhos[i] = make([]float64, trials)
	}
	constants := make([]*rareScore, len(rows))
	for ki, k := range ks {
		for trial := range trials {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			sample := rareSample(c.contexts, rareWords, k, trial, seed)
			full := rareSample(c.full, rareWords, k, trial, seed) // the same draws: the files' lines match
			for ri, r := range rows {
				if k < r.minK {
					continue
				}
				s := sample
				if r.full {
					s = full
				}
				sc, err := scoreRareRow(r, rp, s, &constants[ri])
				if err != nil {
					return nil, err
				}
				rhos[ri][trial] = sc.rho
				res[ri].missing[ki] += float64(sc.missing) / float64(trials)
			}
		}
		for ri, r := range rows {
			if k >= r.minK {
				res[ri].rho[ki], res[ri].undefined[ki] = stats.MeanNaNZero(rhos[ri])
			}
		}
	}
	return res, nil
}

// rareScore is the score of a row on one sample: ρ (NaN when undefined) and
// the pairs without a vector.
type rareScore struct {
	rho     float64
	missing int
}

// scoreRareRow scores row r on the contexts sample; a constant row is
// scored once and kept in *constant.
func scoreRareRow(r rareRow, rp []RarePair, sample map[string][][]string, constant **rareScore) (*rareScore, error) {
	if *constant != nil {
		return *constant, nil
	}
	vecs, err := r.infer(sample)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.name, err)
	}
	rho, missing := RarePairsScore(rp, r.common, vecs)
	sc := &rareScore{rho, missing}
	if r.constant {
		*constant = sc
	}
	return sc, nil
}

// noValue marks a cell of a row that needs contexts at k = 0; an undefined
// ρ is never printed so (it counts as 0, marked undefinedMark).
const noValue = "–"

// undefinedMark follows a mean ρ in which some trials were undefined.
const undefinedMark = "†"

// writeRarePairs prints the ρ table, notes (when not empty), the table of
// pairs without a vector and the plot.
func writeRarePairs(env cli.Env, rows []rareRow, res []rareResult, ks []int, pairs, without, trials int, plotPath, notes string) error {
	rhoTab, missTab := rareTables(rows, res, ks)
	if err := rhoTab.WriteMarkdown(env.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nAll %d pairs scored (%d with a rare word without contexts); ρ is the mean over %d trials.\n", pairs, without, trials)
	if notes != "" {
		fmt.Fprintln(env.Stdout, notes)
	}
	writeUndefinedNote(env.Stdout, rows, res, ks, trials)
	fmt.Fprint(env.Stdout, "Pairs scored 0 for want of a vector (common or rare word), mean over the trials:\n\n")
	if err := missTab.WriteMarkdown(env.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%s: no value, the row needs contexts (k = 0 of the additive rows and of a model trained without a form).\n", noValue)
	if plotPath == "" {
		return nil
	}
	p := rarePlot(rows, res, ks)
	return p.WritePNG(plotPath)
}

// rarePlot is the plot of ρ by k ≥ 1, a curve per row. A mean in which some
// trials were undefined (counted as 0, marked undefinedMark in the table) is
// drawn where the table puts it but with an open marker, which the legend
// explains: the curve shows the table's numbers, and its dips to 0 for want
// of a ρ are told apart from measured ones.
func rarePlot(rows []rareRow, res []rareResult, ks []int) report.LinePlot {
	p := report.LinePlot{Title: "Rare-word pairs", XLabel: "contexts k", YLabel: "Spearman ρ", LogX: true,
		FlaggedNote: fmt.Sprintf("open marker (%s): ρ undefined in some trials, counted as 0", undefinedMark)}
	for _, k := range ks[1:] {
		p.X = append(p.X, float64(k))
	}
	for ri, r := range rows {
		s := report.Series{Name: r.name, Y: res[ri].rho[1:], Flagged: make([]bool, len(ks)-1)}
		for ki, k := range ks[1:] {
			s.Flagged[ki] = k >= r.minK && res[ri].undefined[ki+1] > 0
		}
		p.Series = append(p.Series, s)
	}
	return p
}

// rareTables returns the table of mean ρ and that of the mean number of
// pairs without a vector, a row per model and a column per k.
func rareTables(rows []rareRow, res []rareResult, ks []int) (rhoTab, missTab report.Table) {
	header := []string{"model"}
	for _, k := range ks {
		if k == 0 {
			header = append(header, "k=0 (form)")
		} else {
			header = append(header, fmt.Sprintf("k=%d", k))
		}
	}
	rhoTab, missTab = report.Table{Header: header}, report.Table{Header: header}
	for ri, r := range rows {
		rc, mc := []string{r.name}, []string{r.name}
		for ki, k := range ks {
			if k < r.minK {
				rc, mc = append(rc, noValue), append(mc, noValue)
				continue
			}
			cell := report.Num(res[ri].rho[ki], 3)
			if res[ri].undefined[ki] > 0 {
				cell += undefinedMark
			}
			rc = append(rc, cell)
			mc = append(mc, strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", res[ri].missing[ki]), "0"), "."))
		}
		rhoTab.AddRow(rc...)
		missTab.AddRow(mc...)
	}
	return rhoTab, missTab
}

// writeUndefinedNote lists, under the ρ table, the cells in which some
// trials had an undefined ρ (every cosine equal) and how many.
func writeUndefinedNote(w io.Writer, rows []rareRow, res []rareResult, ks []int, trials int) {
	var lines []string
	for ri, r := range rows {
		var cells []string
		for ki, k := range ks {
			if n := res[ri].undefined[ki]; n > 0 && k >= r.minK {
				cells = append(cells, fmt.Sprintf("k=%d %d of %d", k, n, trials))
			}
		}
		if len(cells) > 0 {
			lines = append(lines, fmt.Sprintf("- %s: %s\n", r.name, strings.Join(cells, ", ")))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "%s ρ undefined (every cosine equal) in some trials, counted as ρ = 0 in the mean, as a pair without\n"+
		"a vector counts as cosine 0; trials undefined:\n\n%s\n", undefinedMark, strings.Join(lines, ""))
}

// rarePairsUsage is the text of eval rare-pairs -h above its flags.
const rarePairsUsage = "Usage: text2vec-am eval rare-pairs --embeddings FILE|BUNDLE|default [--am FILE] [--fcm FILE] [--fasttext FILE.bin] " +
	"[--subwords FILE --subword-ngrams FILE [--subword-outputs FILE]] [--alacarte-corpus PATH] PAIRS CONTEXT_DIR\n\n" +
	"The CRW protocol (Khodak et al. 2018): PAIRS holds \"word1 word2 score\" lines; the rare word of a pair\n" +
	"is the one with CONTEXT_DIR/<word>.txt (one sentence per line; the second word when neither has one).\n" +
	"Every pair is scored: a pair without a vector (or with the zero vector) scores cosine 0 (counted in\n" +
	"the second table); a model trained without a form has no k = 0 value and no ½ form row. For\n" +
	"k = 0 (form only), 1, 2, 4 … max-k the rare word's vector is inferred from k contexts sampled\n" +
	"without replacement (the rare word removed; the skipgram rows of --subword-outputs keep it, to know\n" +
	"where it was), ρ = Spearman(cos(common, rare), score), averaged over\n" +
	"--trials seeded samples shared by every row; a trial whose ρ is undefined (every cosine equal) counts\n" +
	"as ρ = 0 and is reported under the table. A word that cannot name a file of CONTEXT_DIR (empty, \".\",\n" +
	"\"..\", holding / or \\, or longer than a file name) has no contexts: no file outside CONTEXT_DIR is read\n" +
	"(a context file that is a symbolic link leading out of it, or not a regular file, is an error). PAIRS\n" +
	"needs two pairs with different scores at least. With --am a last table gives AM's gate α (mean and\n" +
	"standard deviation over the rare words' inferences of all trials, and how many were form-only) by k."
