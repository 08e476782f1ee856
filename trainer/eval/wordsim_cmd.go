package eval

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
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

	// served returns the vectorizer that gives the space's words their
	// vectors as one-word texts (--as-text) and the options to call it
	// with; nil where it has none.
	served servedFunc
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
	asText := fs.Bool("as-text", false, "score each word by the vector the vectorizer gives it as a one-word text, as Weaviate stores a one-word property or query (the memory empty, under the vectorizer's settings flags, which apply only with --as-text): the common space taken out; --fasttext models through the same vectorizer over their word vectors")
	vopts := vectorizer.DefaultOptions()
	vectorizer.RegisterFlags(fs, &vopts)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval wordsim [--embeddings FILE|BUNDLE|default…] [--fasttext FILE.bin…] [--subwords FILE --subword-ngrams FILE] [--oov none|form|form-all] [--model FILE] [--as-text] PAIRS…\n\n"+
			"PAIRS files hold \"word1 word2 score\" lines (tabs or spaces). Prints Spearman's ρ of cosine\n"+
			"similarity vs gold and the coverage: with --oov none over the pairs where both words have a\n"+
			"vector, with --oov form over the pairs where both have one after the form model fills in.\n"+
			"With two or more spaces, a second table gives each one's ρ minus the first row's over the\n"+
			"pairs both cover, with a paired bootstrap's 95 % interval and p.")
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
	case *asText && *oov == "form-all":
		return cli.UsageError("--as-text scores the vectors the vectorizer serves, which are not forms alone: drop --oov form-all")
	case *asText && sw.given():
		return cli.UsageError("--as-text: --subwords has no vectorizer; give its words as --embeddings (word2vec) instead")
	}
	if err := checkVectorizerFlags(fs, vopts, *asText); err != nil {
		return err
	}
	useForm, formAll := *oov != "none", *oov == "form-all"
	sets, setNames, err := loadWordPairSets(fs.Args())
	if err != nil {
		return err
	}
	tab := report.Table{Header: wordSimHeader(setNames, useForm)}
	var spaces []func() (wordSimSpace, error)
	for _, path := range embs {
		spaces = append(spaces, func() (wordSimSpace, error) { return embeddingsSpace(path, *formModel, useForm) })
	}
	if sw.given() {
		spaces = append(spaces, func() (wordSimSpace, error) { return subwordSpace(sw, useForm) })
	}
	var words []string
	if *asText && useForm {
		words = pairTokens(sets)
	}
	for _, path := range fts {
		spaces = append(spaces, func() (wordSimSpace, error) { return fastTextSpace(path, useForm, words) })
	}
	sc := wordSimScoring{sets: sets, useForm: useForm, formAll: formAll, asText: *asText, opts: vopts}
	var scored []scoredSpace
	for _, load := range spaces {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := sc.score(load)
		if err != nil {
			return err
		}
		tab.AddRow(wordSimRow(s, useForm)...)
		scored = append(scored, s)
	}
	if err := tab.WriteMarkdown(env.Stdout); err != nil {
		return err
	}
	return writeWordSimDiffs(env.Stdout, scored, sets, setNames)
}

// loadWordPairSets loads the word-pair files at paths, and names them.
func loadWordPairSets(paths []string) ([][]dataset.WordPair, []string, error) {
	sets, names := make([][]dataset.WordPair, len(paths)), make([]string, len(paths))
	for i, path := range paths {
		p, err := dataset.LoadWordPairs(path)
		if err != nil {
			return nil, nil, err
		}
		sets[i], names[i] = p, datasetName(path)
	}
	return sets, names, nil
}

// wordSimHeader is the header of the table of ρ on the sets names.
func wordSimHeader(names []string, useForm bool) []string {
	col := " ρ (covered)"
	if useForm {
		col = " ρ (own + form / pairs)"
	}
	h := []string{"embeddings"}
	for _, name := range names {
		h = append(h, name+col)
	}
	return h
}

// wordSimScoring is what eval wordsim does to every space it scores.
type wordSimScoring struct {
	sets             [][]dataset.WordPair
	useForm, formAll bool               // --oov form, --oov form-all
	asText           bool               // --as-text, under opts
	opts             vectorizer.Options // the vectorizer's settings flags
}

// score loads a space and scores it on every pair set.
func (sc wordSimScoring) score(load func() (wordSimSpace, error)) (scoredSpace, error) {
	sp, err := load()
	if err != nil {
		return scoredSpace{}, err
	}
	defer sp.close()
	if sc.formAll {
		sp.own, sp.name = func(string) []float32 { return nil }, sp.name+" (form only)"
	}
	if sc.asText {
		if sp, err = asTextSpace(sp, sc.opts); err != nil {
			return scoredSpace{}, err
		}
	}
	s := scoredSpace{name: sp.name}
	for _, pairs := range sc.sets {
		s.results = append(s.results, WordSimOOV(sp.own, sp.form, pairs))
	}
	if err := sp.err(); err != nil {
		return scoredSpace{}, fmt.Errorf("%s: %w", sp.name, err)
	}
	return s, nil
}

// wordSimRow is a scored space's row: ρ on every pair set with the
// coverage, split into own vectors and form vectors when useForm.
func wordSimRow(s scoredSpace, useForm bool) []string {
	row := []string{s.name}
	for _, r := range s.results {
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
	sp.served = baseServed(e)
	if m != nil {
		sp.served = modelServed(m)
	}
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
	sp.form, sp.served = FormLookup(m), modelServed(m)
	return sp, nil
}

// checkVectorizerFlags checks the vectorizer's settings flags: valid
// values, and given only with --as-text, which uses them.
func checkVectorizerFlags(fs *flag.FlagSet, o vectorizer.Options, asText bool) error {
	if err := o.Validate(); err != nil {
		return cli.UsageError("%s", vectorizer.Describe(err, vectorizer.SurfaceFlag))
	}
	names := vectorizer.Names(vectorizer.SurfaceFlag)
	var set string
	fs.Visit(func(f *flag.Flag) {
		if set == "" && slices.Contains(names, f.Name) {
			set = f.Name
		}
	})
	if set != "" && !asText {
		return cli.UsageError("--%s is a setting of the vectorizer, which only --as-text uses: add --as-text", set)
	}
	return nil
}

// servedFunc makes a space's vectorizer under the settings o and returns it
// with the options to call it with.
type servedFunc func(o vectorizer.Options) (*vectorizer.Vectorizer, vectorizer.Options, error)

// modelServed gives a space the vectorizer of m: base rows for the words it
// holds, AM from the form for the others.
func modelServed(m *model.Model) servedFunc {
	return func(o vectorizer.Options) (*vectorizer.Vectorizer, vectorizer.Options, error) {
		v, err := vectorizer.New(m, nil, o)
		return v, o, err
	}
}

// baseServed gives a space the vectorizer of its word vectors alone, every
// word by its row (BaseOnlyVectorizer's options).
func baseServed(e *model.Embeddings) servedFunc {
	return func(o vectorizer.Options) (*vectorizer.Vectorizer, vectorizer.Options, error) {
		return BaseOnlyVectorizer(e, o)
	}
}

// fastTextSpace opens a fastText model: its dictionary words' vectors and,
// with useForm, n-gram vectors for the other words. Its vectorizer
// (--as-text) holds the dictionary's word vectors and the form vectors of
// formWords (tokens) outside it.
func fastTextSpace(path string, useForm bool, formWords []string) (wordSimSpace, error) {
	m, err := fasttext.Open(path)
	if err != nil {
		return wordSimSpace{}, err
	}
	s := newFTSpace(m, m.Dim)
	sp := wordSimSpace{name: filepath.Base(path), own: s.InDict, err: s.Err, close: func() { m.Close() }}
	if useForm {
		sp.form = s.Form
	}
	sp.served = func(o vectorizer.Options) (*vectorizer.Vectorizer, vectorizer.Options, error) {
		// A form vector counts once: its weight in a one-word text only
		// scales the vector, and it holds no part of the common space.
		e, err := m.Embeddings(formWords, 1)
		if err != nil {
			return nil, o, err
		}
		return baseServed(e)(o)
	}
	return sp, nil
}

// asTextSpace gives each word of sp that has a vector (own, or of its form
// where sp has forms) the vector its vectorizer makes of the word as a
// one-word text, a query with an empty memory.
func asTextSpace(sp wordSimSpace, o vectorizer.Options) (wordSimSpace, error) {
	if sp.served == nil {
		return sp, fmt.Errorf("%s: --as-text: no vectorizer for this space", sp.name)
	}
	v, o, err := sp.served(o)
	if err != nil {
		return sp, fmt.Errorf("%s: --as-text: %w", sp.name, err)
	}
	var first error
	text := func(has Lookup) Lookup {
		if has == nil {
			return nil
		}
		return func(w string) []float32 {
			if has(w) == nil {
				return nil
			}
			vec, err := v.Vectorize(w, vectorizer.TaskQuery, o)
			if err != nil && !errors.Is(err, vectorizer.ErrNoWords) && first == nil {
				first = fmt.Errorf("vectorize %q: %w", w, err)
			}
			return vec
		}
	}
	spaceErr := sp.err
	sp.own, sp.form = text(sp.own), text(sp.form)
	sp.err = func() error { return errors.Join(spaceErr(), first) }
	sp.name += " (as text)"
	return sp, nil
}

// pairTokens returns the distinct tokens of the pair sets' words, as the
// vectorizer of a word list (BaseOnlyVectorizer) splits them: a word such
// as "self-discipline" is the two-word text "self discipline".
func pairTokens(sets [][]dataset.WordPair) []string {
	tok := model.DefaultTokenizer()
	seen := make(map[string]bool)
	var words, toks []string
	for _, pairs := range sets {
		for _, p := range pairs {
			toks = tok.AppendTokens(toks[:0], p.A)
			toks = tok.AppendTokens(toks, p.B)
			for _, w := range toks {
				if !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
	}
	return words
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
