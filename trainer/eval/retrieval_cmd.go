package eval

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/eval/retrieval"
)

// BaseOnlyVectorizer returns the adapter's vectorizer restricted to the base
// embeddings: every word of the vocabulary uses its base row and unknown
// words are dropped (a context-only model given no context yields nothing).
// It is the "dense, base vectors only" baseline, built exactly as the adapter
// builds vectors otherwise under opts (same tokenizer, weights, common
// components, normalization); opts' thresholds and contexts are overridden.
func BaseOnlyVectorizer(base *model.Embeddings, opts vectorizer.Options) (*vectorizer.Vectorizer, vectorizer.Options, error) {
	cfg := model.Config{Dim: base.Dim, Mode: model.ModeContext, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab(nil, cfg.Ngram), base, 1)
	if err != nil {
		return nil, vectorizer.Options{}, fmt.Errorf("base-only vectorizer: %w", err)
	}
	opts.FrequentMin, opts.RareMin, opts.MaxContexts = 1, 1, 0
	v, err := vectorizer.New(m, nil, opts)
	if err != nil {
		return nil, opts, fmt.Errorf("base-only vectorizer: %w", err)
	}
	return v, opts, nil
}

// VectorizeAll vectorizes texts with v as queries (the memory is read, never
// written), in parallel. A text without any word that yields a vector gets nil.
func VectorizeAll(v *vectorizer.Vectorizer, texts []string, opts vectorizer.Options) ([][]float32, int, error) {
	vecs, errs := v.VectorizeBatch(texts, vectorizer.TaskQuery, opts)
	empty := 0
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, vectorizer.ErrNoWords):
			vecs[i] = nil
			empty++
		default:
			return nil, 0, fmt.Errorf("vectorize text %d: %w", i, err)
		}
	}
	return vecs, empty, nil
}

// ImportSequentially vectorizes texts one after another as passages, as an
// import without warm-up does: text i is weighted by the document
// frequencies of texts 0…i (sif-collection) and AM draws on the contexts
// they taught. A text without any word that yields a vector gets nil.
func ImportSequentially(ctx context.Context, v *vectorizer.Vectorizer, texts []string, opts vectorizer.Options) ([][]float32, int, error) {
	vecs := make([][]float32, len(texts))
	empty := 0
	for i, t := range texts {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		vec, err := v.Vectorize(t, vectorizer.TaskPassage, opts)
		switch {
		case err == nil:
			vecs[i] = vec
		case errors.Is(err, vectorizer.ErrNoWords):
			empty++
		default:
			return nil, 0, fmt.Errorf("import text %d: %w", i, err)
		}
	}
	return vecs, empty, nil
}

// TeachMemory offers the sentences of every text to the vectorizer's memory
// (the contexts AM then draws on), as importing the texts as passages does.
func TeachMemory(ctx context.Context, v *vectorizer.Vectorizer, texts []string, opts vectorizer.Options) (int, error) {
	total := 0
	for i, t := range texts {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return total, err
			}
		}
		n, err := v.Learn(t, opts)
		if err != nil {
			return total, fmt.Errorf("teach memory from text %d: %w", i, err)
		}
		total += n
	}
	return total, nil
}

// retrievalOptions are eval retrieval's flags and arguments, parsed and checked.
type retrievalOptions struct {
	base                  baseFlags
	amPath, ftPath        string
	sub                   subwordFlags       // our subword model: the dense-subwords row
	vec                   vectorizer.Options // the dense rows' settings (dense AM: all of them)
	importMode            string
	opaque                bool // --opaque-words
	alphaList, fusionName string
	alphas                []float64
	fuse                  retrieval.Fusion
	depth                 int // 0: every document
	k1, b                 float64
	docsPath, queriesPath string
}

func (o *retrievalOptions) register(fs *flag.FlagSet) {
	o.base.register(fs)
	fs.StringVar(&o.amPath, "model", "", "AM serving bundle or weights `FILE`, or \"default\" (a weights file takes --embeddings as its base; a bundle keeps its own, with its AM+skip rows); adds the dense-AM and hybrid-AM rows")
	fs.StringVar(&o.ftPath, "fasttext", "", "a fastText model `FILE.bin`: adds the dense-fastText row (its word vectors, n-gram vectors for words outside its dictionary, weighted like the other dense rows)")
	o.sub.register(fs) // adds the dense-subwords row, as --fasttext's; the SIF weights come from --counts
	// The vectorizer settings of the dense rows, as serve's flags.
	o.vec = vectorizer.DefaultOptions()
	o.vec.CollectionB = vectorizer.DefaultCollectionB
	vectorizer.RegisterFlags(fs, &o.vec)
	fs.StringVar(&o.importMode, "import", "warm", "how the documents reach the dense rows: `warm|sequential`; warm: every document counted and taught first (as after memory warm), then vectorized; sequential: vectorized one after another as passages, each with the counts and contexts of the documents before it (an import without warm-up)")
	fs.BoolVar(&o.opaque, "opaque-words", false, "replace every word of the documents and queries that --embeddings does not hold by an opaque word drawn from a hash of it (the default tokenizer's words, lowercased: the same word, the same opaque word: \"q\" and eight consonants), so that the new words' spellings say nothing, as product codes do, and dense AM learns of them from their contexts alone")
	fs.StringVar(&o.alphaList, "alpha", "0.5", "hybrid: weight(s) of the dense scores (1 − alpha for BM25), as Weaviate's hybrid alpha; comma-separated for one row each")
	fs.StringVar(&o.fusionName, "fusion", "relative", "hybrid fusion: relative (min-max, Weaviate's relativeScoreFusion), ranked (reciprocal rank, Weaviate's rankedFusion) or zscore (standardized scores; not in Weaviate)")
	fs.IntVar(&o.depth, "depth", 100, "hybrid: candidates taken from each retriever before fusion (0: every document)")
	fs.Float64Var(&o.k1, "k1", 1.2, "BM25 k1")
	fs.Float64Var(&o.b, "b", 0.75, "BM25 b")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval retrieval [--embeddings FILE [--counts FILE]] [--model FILE|default]\n"+
			"         [--fasttext FILE.bin] [--subwords FILE --subword-ngrams FILE --counts FILE] DOCS.jsonl QUERIES.jsonl\n\n"+
			"Give at least one of --embeddings, --model, --fasttext and --subwords; --model default alone\n"+
			"evaluates the embedded model.\n"+
			"DOCS: {\"id\", \"text\"} per line; QUERIES: {\"id\", \"text\", \"relevant\": [doc id]} per line.\n"+
			"Prints MRR@10, Recall@1 and Recall@10 of BM25 and of each dense row with its hybrid fusions:\n"+
			"--embeddings adds dense retrieval with base vectors only (unknown words dropped), --model dense\n"+
			"AM (the adapter's vectorizer, its memory empty, then taught from the documents first).")
		fs.PrintDefaults()
	}
}

// check validates the parsed flags and takes the two file arguments.
func (o *retrievalOptions) check(args []string) error {
	if len(args) != 2 {
		return cli.UsageError("want DOCS and QUERIES files, got %d arguments", len(args))
	}
	o.docsPath, o.queriesPath = args[0], args[1]
	if err := o.vec.Validate(); err != nil {
		return cli.UsageError("%s", vectorizer.Describe(err, vectorizer.SurfaceFlag))
	}
	if o.importMode != "warm" && o.importMode != "sequential" {
		return cli.UsageError("--import: want warm or sequential, got %q", o.importMode)
	}
	switch o.fusionName {
	case "relative":
		o.fuse = retrieval.FuseMinMax
	case "ranked":
		o.fuse = retrieval.FuseRRF
	case "zscore":
		o.fuse = retrieval.FuseZScore
	default:
		return cli.UsageError("--fusion: want relative, ranked or zscore, got %q", o.fusionName)
	}
	for _, f := range strings.Split(o.alphaList, ",") {
		a, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(a >= 0 && a <= 1) {
			return cli.UsageError("--alpha: %q is not a number in [0, 1]", f)
		}
		o.alphas = append(o.alphas, a)
	}
	if !(o.k1 >= 0) || !(o.b >= 0 && o.b <= 1) {
		return cli.UsageError("BM25 wants k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 %v, b %v", o.k1, o.b)
	}
	if o.depth != 0 && o.depth < 10 {
		return cli.UsageError("--depth must be 0 (every document) or ≥ 10, got %d", o.depth)
	}
	if o.base.embeddings == "" && o.amPath == "" && o.ftPath == "" && !o.sub.given() {
		return cli.UsageError("give --embeddings (base vectors), --model (a bundle), --fasttext and/or --subwords")
	}
	if o.opaque && o.base.embeddings == "" {
		return cli.UsageError("--opaque-words needs --embeddings (the words it keeps)")
	}
	if o.sub.given() && o.base.counts == "" {
		return cli.UsageError("--subwords needs --counts (the counts of its words, for the SIF weights)")
	}
	return nil
}

func runRetrieval(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval retrieval", env)
	var o retrievalOptions
	o.register(fs)
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if err := o.check(fs.Args()); err != nil {
		return err
	}
	return retrieve(ctx, &o, env.Stdout)
}

// retrievalRun is one eval retrieval: the collection, BM25's run (the anchor
// of every paired test) and the table of rows.
type retrievalRun struct {
	o                    *retrievalOptions
	docs                 []dataset.Document
	queries              []dataset.RetrievalQuery
	docTexts, queryTexts []string
	base                 *model.Embeddings // --embeddings (nil without)
	am                   *model.Model      // --model (nil without)
	bm                   retrieval.Metrics
	bmRuns               [][]retrieval.Hit
	tab                  report.Table
}

// retrieve runs eval retrieval with checked options o and writes its table to w.
func retrieve(ctx context.Context, o *retrievalOptions, w io.Writer) error {
	r := &retrievalRun{o: o, tab: report.Table{Header: []string{"method", "MRR@10", "R@1", "R@10", "vs BM25: better / worse (p)"}}}
	var err error
	if r.docs, err = dataset.LoadDocuments(o.docsPath); err != nil {
		return err
	}
	if r.queries, err = dataset.LoadQueries(o.queriesPath); err != nil {
		return err
	}
	if o.depth == 0 {
		o.depth = len(r.docs)
	}
	if err := r.loadModels(); err != nil {
		return err
	}
	if o.opaque {
		if err := r.opaqueWords(); err != nil {
			return err
		}
	}
	for _, d := range r.docs {
		r.docTexts = append(r.docTexts, d.Text)
	}
	for _, q := range r.queries {
		r.queryTexts = append(r.queryTexts, q.Text)
	}
	tok := model.DefaultTokenizer()
	r.bm, r.bmRuns, err = retrieval.BM25Run(r.docs, r.queries, func(s string) []string { return tok.AppendTokens(nil, s) }, o.k1, o.b, o.depth)
	if err != nil {
		return err
	}
	r.row("BM25", r.bm, "–")
	if err := r.baseRow(ctx); err != nil {
		return err
	}
	if o.ftPath != "" {
		if err := r.denseFastText(ctx); err != nil {
			return err
		}
	}
	if o.sub.given() {
		if err := r.denseSubwords(ctx); err != nil {
			return err
		}
	}
	if o.amPath != "" {
		if err := r.amRow(ctx); err != nil {
			return err
		}
	}
	return r.tab.WriteMarkdown(w)
}

// loadModels loads --embeddings and --model before any row is run, so that
// a model that does not fit the embeddings (another dimension) is refused
// before the first row's minutes of work.
func (r *retrievalRun) loadModels() error {
	if r.o.base.embeddings != "" {
		e, err := r.o.base.load()
		if err != nil {
			return err
		}
		r.base = e
	}
	if r.o.amPath != "" {
		m, err := loadModel(r.o.amPath, r.base, true)
		if err != nil {
			return err
		}
		r.am = m
	}
	return nil
}

// opaqueWords replaces every word of the documents and queries that
// --embeddings does not hold by its opaque word (opaqueText).
func (r *retrievalRun) opaqueWords() error {
	e := r.base
	tok := model.DefaultTokenizer()
	known := func(w string) bool { _, ok := e.ID(w); return ok }
	for i := range r.docs {
		r.docs[i].Text = opaqueText(r.docs[i].Text, tok, known)
	}
	for i := range r.queries {
		r.queries[i].Text = opaqueText(r.queries[i].Text, tok, known)
	}
	return nil
}

func (r *retrievalRun) row(name string, m retrieval.Metrics, paired string) {
	r.tab.AddRow(name, report.Num(m.MRR10, 3), report.Num(m.Recall1, 3), report.Num(m.Recall10, 3), paired)
	slog.Info("retrieval", "method", name, "mrr10", m.MRR10, "r1", m.Recall1, "r10", m.Recall10, "queries", m.Queries)
}

// add adds a row with its per-query sign test against BM25.
func (r *retrievalRun) add(name string, m retrieval.Metrics) error {
	better, worse, p, err := retrieval.PairedRR(m, r.bm)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.row(name, m, fmt.Sprintf("%d / %d (%s)", better, worse, report.Num(p, 3)))
	return nil
}

// dense adds the dense row of v and its hybrid rows with BM25.
func (r *retrievalRun) dense(ctx context.Context, name string, v *vectorizer.Vectorizer, opts vectorizer.Options) error {
	start := time.Now()
	var dv [][]float32
	var emptyDocs int
	var err error
	if r.o.importMode == "sequential" {
		dv, emptyDocs, err = ImportSequentially(ctx, v, r.docTexts, opts)
	} else {
		dv, emptyDocs, err = VectorizeAll(v, r.docTexts, opts)
	}
	if err != nil {
		return err
	}
	qv, emptyQueries, err := VectorizeAll(v, r.queryTexts, opts)
	if err != nil {
		return err
	}
	slog.Info("vectorized", "method", name, "seconds", time.Since(start).Seconds(), "docs_without_vector", emptyDocs, "queries_without_vector", emptyQueries)
	ix, err := retrieval.NewDenseIndexFromVectors(dv)
	if err != nil {
		return err
	}
	m, runs, err := retrieval.DenseRun(r.docs, r.queries, ix, qv, r.o.depth)
	if err != nil {
		return err
	}
	if err := r.add(name, m); err != nil {
		return err
	}
	for _, a := range r.o.alphas {
		h, err := retrieval.HybridRun(r.docs, r.queries, r.bmRuns, runs, a, r.o.fuse)
		if err != nil {
			return err
		}
		if err := r.add(fmt.Sprintf("hybrid %s BM25 + %s (α %.2g)", r.o.fusionName, name, a), h); err != nil {
			return err
		}
	}
	return nil
}

// baseRow adds the dense base-only row when --embeddings is given.
func (r *retrievalRun) baseRow(ctx context.Context) error {
	e := r.base
	if e == nil {
		return nil
	}
	if e.Counts == nil && r.o.vec.Weighting != vectorizer.WeightMean {
		slog.Warn("base embeddings without counts: SIF weights are all 1 (give --counts)")
	}
	v, opts, err := BaseOnlyVectorizer(e, r.o.vec)
	if err != nil {
		return cli.UsageError("%w", err)
	}
	if r.o.importMode != "sequential" {
		if err := observeAll(v, r.docTexts); err != nil {
			return err
		}
	}
	return r.dense(ctx, "dense base only", v, opts)
}

// amRow adds the dense AM rows: the adapter's vectorizer over --model, its
// memory taught from the documents first unless the import is sequential.
// A warm import first adds the row of the same vectorizer with the same
// passage counts and no remembered contexts (each text's own sentences
// only): the two rows side by side are what the memory's contexts are worth.
func (r *retrievalRun) amRow(ctx context.Context) error {
	m := r.am
	opts := r.o.vec
	name := fmt.Sprintf("dense AM (%s, rare_min %d, frequent_min %d)", m.Mode, opts.RareMin, opts.FrequentMin)
	if r.o.importMode == "sequential" {
		return r.amMemoryRow(ctx, m, name, false)
	}
	if err := r.amMemoryRow(ctx, m, name+", memory empty", false); err != nil {
		return err
	}
	return r.amMemoryRow(ctx, m, name+", memory warmed", true)
}

// amMemoryRow adds the dense AM row of m over a memory in RAM that counted
// every document (warm import) or none (sequential), and, with teach, holds
// the documents' contexts too.
func (r *retrievalRun) amMemoryRow(ctx context.Context, m *model.Model, name string, teach bool) error {
	mem, err := memory.Open("", memory.DefaultOptions())
	if err != nil {
		return fmt.Errorf("context memory: %w", err)
	}
	defer mem.Close()
	opts := r.o.vec
	v, err := vectorizer.New(m, mem, opts)
	if err != nil {
		return err
	}
	start := time.Now()
	switch {
	case teach:
		n, err := TeachMemory(ctx, v, r.docTexts, opts)
		if err != nil {
			return err
		}
		st := mem.Stats()
		slog.Info("memory taught from the documents", "observations", n, "words", st.Words, "contexts", st.Contexts,
			"seconds", time.Since(start).Seconds())
	case r.o.importMode != "sequential":
		if err := observeAll(v, r.docTexts); err != nil {
			return err
		}
	}
	return r.dense(ctx, name, v, opts)
}

// denseFastText adds the dense row of fastText's vectors (see
// FastTextEmbeddings).
func (r *retrievalRun) denseFastText(ctx context.Context) error {
	fe, oov, err := FastTextEmbeddings(r.o.ftPath, r.allTexts(), model.DefaultTokenizer())
	if err != nil {
		return err
	}
	slog.Info("fastText vectors", "words", fe.Len(), "from_ngrams_only", oov)
	return r.denseTable(ctx, "dense fastText (n-grams for OOV words)", fe)
}

// denseSubwords adds the dense row of our subword model's vectors (see
// Subwords.Embeddings), its words weighted by the counts of --counts.
func (r *retrievalRun) denseSubwords(ctx context.Context) error {
	s, err := r.o.sub.load()
	if err != nil {
		return err
	}
	counts, err := model.LoadCounts(r.o.base.counts)
	if err != nil {
		return fmt.Errorf("--subwords: %w", err)
	}
	se, oov, err := s.Embeddings(counts, r.allTexts(), model.DefaultTokenizer())
	if err != nil {
		return err
	}
	slog.Info("subword vectors", "words", se.Len(), "from_ngrams_only", oov)
	return r.denseTable(ctx, "dense subwords (n-grams for OOV words)", se)
}

// allTexts returns the documents' texts followed by the queries'.
func (r *retrievalRun) allTexts() []string {
	return append(append([]string{}, r.docTexts...), r.queryTexts...)
}

// denseTable runs the dense row of the word-vector table e through the
// base-only vectorizer, so that its vectors are weighted exactly like the
// other dense rows.
func (r *retrievalRun) denseTable(ctx context.Context, name string, e *model.Embeddings) error {
	v, opts, err := BaseOnlyVectorizer(e, r.o.vec)
	if err != nil {
		return err
	}
	if r.o.importMode != "sequential" {
		if err := observeAll(v, r.docTexts); err != nil {
			return err
		}
	}
	return r.dense(ctx, name, v, opts)
}

// observeAll counts every document for the document frequencies of sif-collection.
func observeAll(v *vectorizer.Vectorizer, docTexts []string) error {
	for i, t := range docTexts {
		if err := v.Observe(t); err != nil {
			return fmt.Errorf("count document %d: %w", i, err)
		}
	}
	return nil
}
