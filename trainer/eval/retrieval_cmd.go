package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// BaseOnlyVectorizer returns the adapter's vectorizer restricted to the base
// embeddings: every word of the vocabulary uses its base row and unknown
// words are dropped (a context-only model given no context yields nothing).
// It is the "dense, base vectors only" baseline, built exactly as the adapter
// builds vectors otherwise (same tokenizer, SIF weights, normalization).
func BaseOnlyVectorizer(base *model.Embeddings, weighting vectorizer.Weighting, sifA, collectionB float64) (*vectorizer.Vectorizer, vectorizer.Options, error) {
	cfg := model.Config{Dim: base.Dim, Mode: model.ModeContext, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab(nil, cfg.Ngram), base, 1)
	if err != nil {
		return nil, vectorizer.Options{}, fmt.Errorf("base-only vectorizer: %w", err)
	}
	opts := vectorizer.DefaultOptions()
	opts.Weighting, opts.SIFA, opts.CollectionB = weighting, sifA, collectionB
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

func runRetrieval(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval retrieval", env)
	var base baseFlags
	base.register(fs)
	amPath := fs.String("model", "", "AM serving bundle or weights `FILE`, or \"default\" (a weights file takes --embeddings as its base; a bundle keeps its own, with its AM+skip rows); adds the dense-AM and hybrid-AM rows")
	ftPath := fs.String("fasttext", "", "a fastText model `FILE.bin`: adds the dense-fastText row (its word vectors, n-gram vectors for words outside its dictionary, weighted like the other dense rows)")
	// The vectorizer settings of the dense rows (dense AM: all of them), as serve's flags.
	vopts := vectorizer.DefaultOptions()
	vopts.CollectionB = vectorizer.DefaultCollectionB
	vectorizer.RegisterFlags(fs, &vopts)
	importMode := fs.String("import", "warm", "how the documents reach the dense rows: `warm|sequential`; warm: every document counted and taught first (as after memory warm), then vectorized; sequential: vectorized one after another as passages, each with the counts and contexts of the documents before it (an import without warm-up)")
	alphaList := fs.String("alpha", "0.5", "hybrid: weight(s) of the dense scores (1 − alpha for BM25), as Weaviate's hybrid alpha; comma-separated for one row each")
	fusionName := fs.String("fusion", "relative", "hybrid fusion: relative (min-max, Weaviate's relativeScoreFusion), ranked (reciprocal rank, Weaviate's rankedFusion) or zscore (standardized scores; not in Weaviate)")
	depth := fs.Int("depth", 100, "hybrid: candidates taken from each retriever before fusion (0: every document)")
	k1 := fs.Float64("k1", 1.2, "BM25 k1")
	b := fs.Float64("b", 0.75, "BM25 b")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval retrieval --embeddings FILE --counts FILE [--model FILE] DOCS.jsonl QUERIES.jsonl\n\n"+
			"DOCS: {\"id\", \"text\"} per line; QUERIES: {\"id\", \"text\", \"relevant\": [doc id]} per line.\n"+
			"Prints MRR@10, Recall@1 and Recall@10 of BM25, dense retrieval with base vectors only (unknown\n"+
			"words dropped), dense with AM (the adapter's vectorizer, its memory taught from the documents\n"+
			"first), and hybrid min-max fusions.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return cli.UsageError("want DOCS and QUERIES files, got %d arguments", fs.NArg())
	}
	if err := vopts.Validate(); err != nil {
		return cli.UsageError("%s", vectorizer.Describe(err, vectorizer.SurfaceFlag))
	}
	w := vopts.Weighting
	if *importMode != "warm" && *importMode != "sequential" {
		return cli.UsageError("--import: want warm or sequential, got %q", *importMode)
	}
	sequential := *importMode == "sequential"
	var fuse Fusion
	switch *fusionName {
	case "relative":
		fuse = FuseMinMax
	case "ranked":
		fuse = FuseRRF
	case "zscore":
		fuse = FuseZScore
	default:
		return cli.UsageError("--fusion: want relative, ranked or zscore, got %q", *fusionName)
	}
	var alphas []float64
	for _, f := range strings.Split(*alphaList, ",") {
		a, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(a >= 0 && a <= 1) {
			return cli.UsageError("--alpha: %q is not a number in [0, 1]", f)
		}
		alphas = append(alphas, a)
	}

	if !(*k1 >= 0) || !(*b >= 0 && *b <= 1) {
		return cli.UsageError("BM25 wants k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 %v, b %v", *k1, *b)
	}
	docs, err := LoadDocuments(fs.Arg(0))
	if err != nil {
		return err
	}
	queries, err := LoadQueries(fs.Arg(1))
	if err != nil {
		return err
	}
	if *depth != 0 && *depth < 10 {
		return cli.UsageError("--depth must be 0 (every document) or ≥ 10, got %d", *depth)
	}
	if *depth == 0 {
		*depth = len(docs)
	}
	if base.embeddings == "" && *amPath == "" && *ftPath == "" {
		return cli.UsageError("give --embeddings (base vectors), --model (a bundle) and/or --fasttext")
	}
	docTexts := make([]string, len(docs))
	for i, d := range docs {
		docTexts[i] = d.Text
	}
	queryTexts := make([]string, len(queries))
	for i, q := range queries {
		queryTexts[i] = q.Text
	}

	tok := model.DefaultTokenizer()
	bm, bmRuns, err := BM25Run(docs, queries, func(s string) []string { return tok.AppendTokens(nil, s) }, *k1, *b, *depth)
	if err != nil {
		return err
	}
	tab := Table{Header: []string{"method", "MRR@10", "R@1", "R@10", "vs BM25: better / worse (p)"}}
	row := func(name string, m RetrievalMetrics, paired string) {
		tab.AddRow(name, fmtNum(m.MRR10, 3), fmtNum(m.Recall1, 3), fmtNum(m.Recall10, 3), paired)
		slog.Info("retrieval", "method", name, "mrr10", m.MRR10, "r1", m.Recall1, "r10", m.Recall10, "queries", m.Queries)
	}
	row("BM25", bm, "–")
	// add adds a row with its per-query sign test against BM25.
	add := func(name string, m RetrievalMetrics) error {
		better, worse, p, err := PairedRR(m, bm)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		row(name, m, fmt.Sprintf("%d / %d (%s)", better, worse, fmtNum(p, 3)))
		return nil
	}

	dense := func(name string, v *vectorizer.Vectorizer, opts vectorizer.Options) error {
		start := time.Now()
		var dv [][]float32
		var emptyDocs int
		var err error
		if sequential {
			dv, emptyDocs, err = ImportSequentially(ctx, v, docTexts, opts)
		} else {
			dv, emptyDocs, err = VectorizeAll(v, docTexts, opts)
		}
		if err != nil {
			return err
		}
		qv, emptyQueries, err := VectorizeAll(v, queryTexts, opts)
		if err != nil {
			return err
		}
		slog.Info("vectorized", "method", name, "seconds", time.Since(start).Seconds(), "docs_without_vector", emptyDocs, "queries_without_vector", emptyQueries)
		ix, err := NewDenseIndexFromVectors(dv)
		if err != nil {
			return err
		}
		m, runs, err := DenseRun(docs, queries, ix, qv, *depth)
		if err != nil {
			return err
		}
		if err := add(name, m); err != nil {
			return err
		}
		for _, a := range alphas {
			h, err := HybridRun(docs, queries, bmRuns, runs, a, fuse)
			if err != nil {
				return err
			}
			if err := add(fmt.Sprintf("hybrid %s BM25 + %s (α %.2g)", *fusionName, name, a), h); err != nil {
				return err
			}
		}
		return nil
	}

	var e *model.Embeddings
	if base.embeddings != "" {
		if e, err = base.load(); err != nil {
			return err
		}
		if e.Counts == nil && w != vectorizer.WeightMean {
			slog.Warn("base embeddings without counts: SIF weights are all 1 (give --counts)")
		}
		v, opts, err := BaseOnlyVectorizer(e, w, vopts.SIFA, vopts.CollectionB)
		if err != nil {
			return cli.UsageError("%v", err)
		}
		if !sequential {
			if err := observeAll(v, docTexts); err != nil {
				return err
			}
		}
		if err := dense("dense base only", v, opts); err != nil {
			return err
		}
	}
	if *ftPath != "" {
		if err := denseFastText(*ftPath, append(append([]string{}, docTexts...), queryTexts...), docTexts, sequential, w, vopts.SIFA, vopts.CollectionB, dense); err != nil {
			return err
		}
	}
	if *amPath != "" {
		m, err := loadModel(*amPath, e, true)
		if err != nil {
			return err
		}
		mem, err := memory.Open("", memory.DefaultOptions())
		if err != nil {
			return fmt.Errorf("context memory: %w", err)
		}
		defer mem.Close()
		opts := vopts
		v, err := vectorizer.New(m, mem, opts)
		if err != nil {
			return err
		}
		if !sequential {
			start := time.Now()
			n, err := TeachMemory(ctx, v, docTexts, opts)
			if err != nil {
				return err
			}
			st := mem.Stats()
			slog.Info("memory taught from the documents", "observations", n, "words", st.Words, "contexts", st.Contexts, "seconds", time.Since(start).Seconds())
		}
		name := fmt.Sprintf("dense AM (%s, rare_min %d, frequent_min %d)", m.Mode, opts.RareMin, opts.FrequentMin)
		if err := dense(name, v, opts); err != nil {
			return err
		}
	}
	return tab.WriteMarkdown(env.Stdout)
}

// denseFastText runs the dense row of fastText's vectors (see
// FastTextEmbeddings) through the base-only vectorizer, so that they are
// weighted exactly like the other dense rows.
func denseFastText(path string, texts, docTexts []string, sequential bool, w vectorizer.Weighting, sifA, collectionB float64,
	dense func(string, *vectorizer.Vectorizer, vectorizer.Options) error) error {
	fe, oov, err := FastTextEmbeddings(path, texts, model.DefaultTokenizer())
	if err != nil {
		return err
	}
	slog.Info("fastText vectors", "words", fe.Len(), "from_ngrams_only", oov)
	v, opts, err := BaseOnlyVectorizer(fe, w, sifA, collectionB)
	if err != nil {
		return err
	}
	if !sequential {
		if err := observeAll(v, docTexts); err != nil {
			return err
		}
	}
	return dense("dense fastText (n-grams for OOV words)", v, opts)
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
