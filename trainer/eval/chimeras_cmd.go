package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// baseFlags are the flags naming base embeddings and their counts.
type baseFlags struct {
	embeddings, counts string
}

func (b *baseFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&b.embeddings, "embeddings", "", "base embeddings: a `FILE` (word2vec text or binary, .gz ok), a serving bundle (.am, its base vectors and counts) or \"default\" (the embedded model)")
	fs.StringVar(&b.counts, "counts", "", "word counts `FILE` (\"word count\" lines, .gz ok) attached to the base embeddings")
}

// load loads the base embeddings (required) and attaches the counts if given.
func (b *baseFlags) load() (*model.Embeddings, error) {
	if b.embeddings == "" {
		return nil, cli.UsageError("--embeddings is required")
	}
	e, err := loadEmbeddings(b.embeddings)
	if err != nil {
		return nil, err
	}
	if b.counts != "" {
		c, err := model.LoadCounts(b.counts)
		if err != nil {
			return nil, fmt.Errorf("load counts %s: %w", b.counts, err)
		}
		e.AttachCounts(c)
	}
	return e, nil
}

// loadWithStopWords is load, with the nStop most frequent words of the
// embeddings (MostFrequent): the stop words the additive − sw rows leave out.
// A stop list of every word is a usage error naming --stopwords and the
// vocabulary size: those rows would silently have no word, and no vector,
// left.
func (b *baseFlags) loadWithStopWords(nStop int) (*model.Embeddings, map[string]bool, error) {
	e, err := b.load()
	if err != nil {
		return nil, nil, err
	}
	if nStop > 0 && nStop >= e.Len() {
		return nil, nil, cli.UsageError("--stopwords %d leaves no word of the %d-word vocabulary for the additive − sw rows (give fewer, or 0)", nStop, e.Len())
	}
	return e, MostFrequent(e, nStop), nil
}

// contextPart loads the weights at path onto base and runs them context-only
// in mode want (ModeContext for AM-ctx, ModeFCMContext for FCM-ctx). It
// returns the model and the mode the weights were trained in. Weights trained
// context-only in want itself (the reference implementation's context_only
// combinator, which its CHIMERAS evaluator runs as trained) and weights of the
// full model of the same family (am for AM-ctx, fcm for FCM-ctx: their context
// part) are accepted; other weights are refused, naming the flag and the file:
// FCM and form-only training never train AM's attention matrix M, and AM's A
// was trained on attention-weighted contexts.
func contextPart(flag, path string, base *model.Embeddings, want model.Mode) (*model.Model, model.Mode, error) {
	full := model.ModeAM
	if want == model.ModeFCMContext {
		full = model.ModeFCM
	}
	m, err := loadModel(path, base, false)
	if err != nil {
		return nil, 0, err
	}
	trained := m.Mode
	if trained != want && trained != full {
		return nil, 0, fmt.Errorf("%s %s: weights trained in mode %s; %s needs weights trained in mode %s or %s",
			flag, path, trained, chimeraRowName(want), want, full)
	}
	return contextOnly(m, want), trained, nil
}

// contextOnly returns m run in the context-only mode want (ModeContext:
// AM-ctx, v = A·v_ctx with AM's attention; ModeFCMContext: FCM-ctx), its
// weights shared with m.
func contextOnly(m *model.Model, want model.Mode) *model.Model {
	c := *m
	c.Mode = want
	return &c
}

// chimeraRowName is the table row of a context-only mode.
func chimeraRowName(mode model.Mode) string {
	if mode == model.ModeFCMContext {
		return "FCM-ctx"
	}
	return "AM-ctx"
}

func runChimeras(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval chimeras", env)
	var base baseFlags
	base.register(fs)
	am := fs.String("am", "", "AM weights `FILE` or bundle, trained with --mode context (the paper's AM-ctx) or am (its context part): the AM-ctx row")
	fcm := fs.String("fcm", "", "FCM weights `FILE` or bundle, trained with --mode fcm-context (the paper's FCM-ctx) or fcm (its context part): the FCM-ctx row")
	nStop := fs.Int("stopwords", 50, "the additive − sw row leaves out this many most frequent words (by --counts, else vocabulary order)")
	var alaCarte alaCarteFlag
	alaCarte.register(fs, "nothing is left out (the nonces are made-up words)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval chimeras --embeddings FILE [--counts FILE] [--am FILE] [--fcm FILE] [--alacarte-corpus PATH] CHIMERAS_FILE…\n\n"+
			"CHIMERAS files: id TAB sentences joined by \" @@ \" (nonce written ___) TAB probes TAB ratings.\n"+
			"Score: mean over instances of Spearman(cos(nonce, probe), rating); probes without a vector\n"+
			"score cosine 0; instances with undefined ρ count 0.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.UsageError("no CHIMERAS files given")
	}
	if *nStop < 0 {
		return cli.UsageError("--stopwords must be ≥ 0, got %d", *nStop)
	}
	sets := make([][]dataset.ChimeraInstance, fs.NArg())
	for i, p := range fs.Args() {
		insts, err := dataset.LoadChimeras(p)
		if err != nil {
			return err
		}
		sets[i] = insts
	}
	e, stop, err := base.loadWithStopWords(*nStop)
	if err != nil {
		return err
	}
	if e.Counts == nil {
		slog.Warn("no counts: stop words are the first words of the vocabulary (word2vec files are sorted by frequency)", "n", *nStop)
	}
	rows := []chimeraRow{
		{"additive", func() NonceFunc { return Additive(e, nil) }},
		{"additive − sw", func() NonceFunc { return Additive(e, stop) }},
	}
	var weights []string // "row: file (trained in mode …)", and what A La Carte was fitted on
	f, fitted, err := alaCarte.nonce(ctx, e, AlaCarteHoldout{})
	if err != nil {
		return err
	}
	if f != nil {
		rows = append(rows, chimeraRow{"A La Carte", func() NonceFunc { return f }})
		weights = append(weights, fitted)
	}
	for _, r := range []struct {
		flag, path string
		mode       model.Mode
	}{{"--fcm", *fcm, model.ModeFCMContext}, {"--am", *am, model.ModeContext}} {
		if r.path == "" {
			continue
		}
		m, trained, err := contextPart(r.flag, r.path, e, r.mode)
		if err != nil {
			return err
		}
		name := chimeraRowName(r.mode)
		weights = append(weights, fmt.Sprintf("%s: %s (trained in mode %s)", name, r.path, trained))
		rows = append(rows, chimeraRow{name, func() NonceFunc { return ModelNonce(m) }})
	}
	return scoreChimeras(ctx, env.Stdout, fs.Args(), sets, rows, weights, *am != "" && *fcm != "", e)
}

// chimeraColumn names a column "N sent." when all instances have N sentences.
func chimeraColumn(path string, insts []dataset.ChimeraInstance) string {
	n := len(insts[0].Sentences)
	for _, in := range insts {
		if len(in.Sentences) != n {
			return datasetName(path)
		}
	}
	return fmt.Sprintf("%d sent.", n)
}

// chimeraRow is one row of the CHIMERAS table: a name and how it infers a nonce.
type chimeraRow struct {
	name  string
	nonce func() NonceFunc
}

// scoreChimeras scores every row on every file, writes the table, the weights
// files used and, when paired, the per-instance comparison of the last two
// rows (AM-ctx vs FCM-ctx).
func scoreChimeras(ctx context.Context, w io.Writer, files []string, sets [][]dataset.ChimeraInstance, rows []chimeraRow, weights []string, paired bool, e *model.Embeddings) error {
	tab := report.Table{Header: []string{"model"}}
	for i, p := range files {
		tab.Header = append(tab.Header, chimeraColumn(p, sets[i]))
	}
	tok := model.DefaultTokenizer()
	perInstance := make([][][]float64, len(rows)) // row, file, instance
	for ri, r := range rows {
		cells := []string{r.name}
		perInstance[ri] = make([][]float64, len(sets))
		for i, insts := range sets {
			if err := ctx.Err(); err != nil {
				return err
			}
			res := Chimeras(tok, insts, r.nonce(), EmbeddingLookup(e))
			slog.Info("chimeras", "model", r.name, "file", files[i], "instances", res.Instances,
				"spearman", res.Spearman, "undefined", res.Undefined, "missing_probes", res.MissingProbes)
			cells = append(cells, report.Num(res.Spearman, 3))
			perInstance[ri][i] = res.PerInstance
		}
		tab.AddRow(cells...)
	}
	if err := tab.WriteMarkdown(w); err != nil {
		return err
	}
	if len(weights) > 0 {
		fmt.Fprintln(w)
		for _, line := range weights {
			fmt.Fprintln(w, line)
		}
	}
	// Paired comparison of the last two rows (AM-ctx vs FCM-ctx when both are given).
	if paired {
		a, f := len(rows)-1, len(rows)-2
		fmt.Fprintln(w)
		for i := range sets {
			wins, losses := stats.PairedWins(perInstance[a][i], perInstance[f][i])
			fmt.Fprintf(w, "%s: AM-ctx better on %d instances, FCM-ctx on %d (two-sided binomial p = %.3f)\n",
				tab.Header[i+1], wins, losses, stats.BinomialTest(wins, wins+losses, 0.5))
		}
	}
	return nil
}
