package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/fasttext"
)

// wordSimSpace is one row of eval wordsim: a word's own vector and, with
// --oov form, the vector of its surface form for words without one.
type wordSimSpace struct {
	name      string
	own, form Lookup
	err       func() error // the first lookup error (fastText reads), or nil
	close     func()
}

// FormLookup returns the form-only vector m infers for a word (lowercased):
// its character n-grams, no context. Not safe for concurrent use.
func FormLookup(m *model.Model) Lookup {
	ws := m.NewWorkspace()
	return func(w string) []float32 {
		dst := make([]float32, m.Dim)
		m.Infer(ws, strings.ToLower(w), nil, dst)
		return dst
	}
}

func runWordSim(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval wordsim", env)
	var embs, fts cli.Paths
	fs.Var(&embs, "embeddings", "base embeddings: a `FILE` (word2vec text or binary, .gz ok), a serving bundle (.am) or \"default\" (the embedded model); repeat to compare several")
	fs.Var(&fts, "fasttext", "a fastText model `FILE.bin` (repeatable): its word vectors (own row + n-grams) and, with --oov form, n-gram vectors for words outside its dictionary")
	var sw subwordFlags
	sw.register(fs)
	oov := fs.String("oov", "none", "words without a vector: `none` (the pair is skipped) or form (the vector of the surface form: AM's form part for --embeddings, fastText's n-grams for --fasttext, the mean of its n-grams' vectors for --subwords); form-all scores every word by its form vector alone (the form model on its own)")
	formModel := fs.String("model", "", "AM weights `FILE`, bundle or \"default\" whose form part gives OOV vectors (--oov form) for --embeddings files that are not bundles")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval wordsim [--embeddings FILE|BUNDLE|default…] [--fasttext FILE.bin…] [--subwords FILE --subword-ngrams FILE] [--oov none|form|form-all] [--model FILE] PAIRS…\n\n"+
			"PAIRS files hold \"word1 word2 score\" lines (tabs or spaces). Prints Spearman's ρ of cosine\n"+
			"similarity vs gold and the coverage: with --oov none over the pairs where both words have a\n"+
			"vector, with --oov form over the pairs where both have one after the form model fills in.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	switch {
	case len(embs)+len(fts) == 0 && !sw.given():
		return cli.UsageError("give --embeddings, --fasttext and/or --subwords")
	case fs.NArg() == 0:
		return cli.UsageError("no word-pair files given")
	case *oov != "none" && *oov != "form" && *oov != "form-all":
		return cli.UsageError("--oov: want none, form or form-all, got %q", *oov)
	}
	useForm, formAll := *oov != "none", *oov == "form-all"
	sets := make([][]dataset.WordPair, fs.NArg())
	tab := report.Table{Header: []string{"embeddings"}}
	for i, path := range fs.Args() {
		p, err := dataset.LoadWordPairs(path)
		if err != nil {
			return err
		}
		sets[i] = p
		col := " ρ (covered)"
		if useForm {
			col = " ρ (own + form / pairs)"
		}
		tab.Header = append(tab.Header, datasetName(path)+col)
	}
	var spaces []func() (wordSimSpace, error)
	for _, path := range embs {
		spaces = append(spaces, func() (wordSimSpace, error) { return embeddingsSpace(path, *formModel, useForm) })
	}
	if sw.given() {
		spaces = append(spaces, func() (wordSimSpace, error) { return subwordSpace(sw, useForm) })
	}
	for _, path := range fts {
		spaces = append(spaces, func() (wordSimSpace, error) { return fastTextSpace(path, useForm) })
	}
	for _, load := range spaces {
		if err := ctx.Err(); err != nil {
			return err
		}
		sp, err := load()
		if err != nil {
			return err
		}
		if formAll {
			sp.own, sp.name = func(string) []float32 { return nil }, sp.name+" (form only)"
		}
		row := wordSimRow(sp, sets, useForm)
		err = sp.err()
		sp.close()
		if err != nil {
			return fmt.Errorf("%s: %w", sp.name, err)
		}
		tab.AddRow(row...)
	}
	return tab.WriteMarkdown(env.Stdout)
}

// wordSimRow scores sp on every pair set: ρ with the coverage, split into
// own vectors and form vectors when useForm.
func wordSimRow(sp wordSimSpace, sets [][]dataset.WordPair, useForm bool) []string {
	row := []string{sp.name}
	for _, pairs := range sets {
		r := WordSimOOV(sp.own, sp.form, pairs)
		cell := fmt.Sprintf("%s (%d/%d)", report.Num(r.Spearman, 3), r.Covered, r.Pairs)
		if useForm {
			cell = fmt.Sprintf("%s (%d + %d / %d)", report.Num(r.Spearman, 3), r.Covered-r.FromForm, r.FromForm, r.Pairs)
		}
		row = append(row, cell)
	}
	return row
}

// embeddingsSpace loads an embeddings file or bundle; with useForm its OOV
// words get the form vector of the bundle's model or of formModel.
func embeddingsSpace(path, formModel string, useForm bool) (wordSimSpace, error) {
	e, m, err := loadBaseOrBundle(path)
	if err != nil {
		return wordSimSpace{}, err
	}
	sp := wordSimSpace{name: filepath.Base(path), own: EmbeddingLookup(e), err: func() error { return nil }, close: func() {}}
	if !useForm {
		return sp, nil
	}
	if m == nil || formModel != "" {
		if formModel == "" {
			return sp, cli.UsageError("--oov form: %s is not a bundle; give --model (AM weights whose form part fills in)", path)
		}
		if m, err = loadModel(formModel, e, false); err != nil {
			return sp, err
		}
		sp.name += " + form of " + filepath.Base(formModel)
	}
	if m.Mode == model.ModeContext || m.Mode == model.ModeFCMContext {
		return sp, fmt.Errorf("--oov form: the model for %s was trained context-only (mode %s): it has no form part", path, m.Mode)
	}
	sp.form = FormLookup(m)
	return sp, nil
}

// fastTextSpace opens a fastText model: its dictionary words' vectors and,
// with useForm, n-gram vectors for the other words.
func fastTextSpace(path string, useForm bool) (wordSimSpace, error) {
	m, err := fasttext.Open(path)
	if err != nil {
		return wordSimSpace{}, err
	}
	s := newFTSpace(m, m.Dim)
	sp := wordSimSpace{name: filepath.Base(path), own: s.InDict, err: s.Err, close: func() { m.Close() }}
	if useForm {
		sp.form = s.Form
	}
	return sp, nil
}

// subwordSpace opens our subword model: its words' vectors and, with
// useForm, the mean of the n-gram vectors for the other words.
func subwordSpace(f subwordFlags, useForm bool) (wordSimSpace, error) {
	m, err := f.load()
	if err != nil {
		return wordSimSpace{}, err
	}
	s := newFTSpace(m, m.Words.Dim)
	sp := wordSimSpace{name: filepath.Base(f.words), own: s.InDict, err: s.Err, close: func() {}}
	if useForm {
		sp.form = s.Form
	}
	return sp, nil
}
