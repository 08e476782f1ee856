// Package demo is the "text2vec-am demo" subcommand: the project's main job on
// the embedded default model, with no network and no Weaviate.
//
// It vectorizes a bundled set of jargon-heavy documents (the package
// documentation of the Go distribution, see data/NOTICE), teaches the context
// memory from them, and answers hand-written searches twice: with base
// vectors only (words missing from the base vocabulary are dropped) and with
// Attentive Mimicking (such words get a vector from their surface form and the
// contexts the memory saw them in). Both use the adapter's vectorizer exactly
// as the inference server does; the base-only vector is the text vector made
// the same way from the words the base vocabulary covers alone. It then explains one
// jargon word: its contexts with their attention weights ρ and the gate α.
package demo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// DefaultExplainWord is the word explained when Options.Explain is empty: it
// never occurs in the general English corpus of the default model, and the
// bundled documents use it in a dozen different sentences.
const DefaultExplainWord = "goroutine"

// mrrCutoff is the depth of the MRR@k reported over the queries.
const mrrCutoff = 10

// Options configure one run of the demo.
type Options struct {
	// ModelName describes the model in the header (e.g. "embedded default").
	ModelName string
	// LoadTime is how long loading the model took (shown in the header).
	LoadTime time.Duration
	// Top is the number of results shown per query and method.
	Top int
	// Show is the number of bundled queries printed side by side (all of them
	// are scored); a negative value shows all.
	Show int
	// Query is an extra search shown side by side (not scored); "" for none.
	Query string
	// Explain is the word whose AM inference is explained; "" means
	// DefaultExplainWord.
	Explain string
	// NextNote is an extra line under the closing NextCommand ("" for none).
	NextNote string
	// ServeModel is the --model the closing ServeCommand names ("" for the
	// embedded default model).
	ServeModel string
	// Color turns on ANSI styling (only for a terminal).
	Color bool
	// Vectorizer overrides the server's default vectorizer options when
	// non-nil.
	Vectorizer *vectorizer.Options
}

// Result is what the demo measured, for callers and tests.
type Result struct {
	Documents int
	DataName  string
	// Observations is the number of context observations the documents offered to the memory.
	Observations int
	Memory       memory.Stats
	Queries      []QueryResult
	// MRRBase and MRRAM are the MRR@10 over the bundled queries.
	MRRBase, MRRAM float64
	// Explained is the explanation of the explained word (nil if it had no vector).
	Explained *vectorizer.WordExplanation
	Elapsed   time.Duration
}

// QueryResult is one scored query: the 1-based rank of its first relevant
// document under each method (0 when the query text had no usable word).
type QueryResult struct {
	Query
	RankBase, RankAM int
	// AMWords are the query's words that the base vectors do not cover.
	AMWords []string
}

// Data is the document collection and the scored queries.
type Data struct {
	// Name describes the collection in the header.
	Name    string
	Docs    []Document
	Queries []Query
}

// BundledData returns the embedded documents and queries.
func BundledData() (Data, error) {
	docs, err := BundledDocuments()
	if err != nil {
		return Data{}, err
	}
	qs, err := BundledQueries(docs)
	if err != nil {
		return Data{}, err
	}
	return Data{Name: "Go package docs (demo/data, BSD-3-Clause)", Docs: docs, Queries: qs}, nil
}

// encoded is a text vectorized both ways. A nil vector means the text has no
// word the method can use.
type encoded struct {
	base, am []float32
	amWords  []string // words the base vectors do not cover (source "am")
}

// searcher holds the vectorized collection.
type searcher struct {
	vz   *vectorizer.Vectorizer
	opts vectorizer.Options
	docs []Document
	vecs []encoded
}

// encode vectorizes text as a query under opts (a document's are
// Options.ForObjects): the AM vector is the vectorizer's own, the base vector
// the same weighted combination (through Vectorizer.TextVector) without the
// words that only AM can give a vector.
func (s *searcher) encode(text string, opts vectorizer.Options) (encoded, error) {
	ex, err := s.vz.Explain(text, opts)
	if errors.Is(err, vectorizer.ErrNoWords) {
		return encoded{}, nil
	}
	if err != nil {
		return encoded{}, err
	}
	e := encoded{am: ex.Vector}
	base := s.vz.Model().Base
	e.base = make([]float32, s.vz.Dim())
	any := false
	var weights float32
	for _, w := range ex.Words {
		switch w.Source {
		case vectorizer.SourceBase, vectorizer.SourceAMSkip:
			id, ok := base.ID(w.Word)
			if !ok {
				return encoded{}, fmt.Errorf("vectorizer used word %q from the base vocabulary, which does not hold it", w.Word)
			}
			simd.Axpy(w.Weight, base.Row(id), e.base)
			weights += w.Weight
			any = true
		case vectorizer.SourceAM:
			if !slices.Contains(e.amWords, w.Word) {
				e.amWords = append(e.amWords, w.Word)
			}
		}
	}
	if !any || s.vz.TextVector(e.base, weights, opts) != nil {
		e.base = nil
	}
	return e, nil
}

// hit is one ranked document.
type hit struct {
	doc   int
	score float32
}

// rank returns all documents by decreasing cosine with q (ties by document
// order); documents without a vector come last.
func (s *searcher) rank(q []float32, pick func(encoded) []float32) []hit {
	hits := make([]hit, 0, len(s.docs))
	if q == nil {
		return hits
	}
	for i, e := range s.vecs {
		if v := pick(e); v != nil {
			hits = append(hits, hit{i, simd.Dot(q, v)})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	return hits
}

func pickBase(e encoded) []float32 { return e.base }
func pickAM(e encoded) []float32   { return e.am }

// firstRelevant is the 1-based rank of the first relevant hit, 0 if none.
func (s *searcher) firstRelevant(hits []hit, relevant []string) int {
	for i, h := range hits {
		if slices.Contains(relevant, s.docs[h.doc].ID) {
			return i + 1
		}
	}
	return 0
}

// reciprocal is 1/rank within the MRR cutoff, else 0.
func reciprocal(rank int) float64 {
	if rank < 1 || rank > mrrCutoff {
		return 0
	}
	return 1 / float64(rank)
}

// Run loads nothing itself: it runs the demo on m over data, printing to w.
func Run(ctx context.Context, w io.Writer, m *model.Model, data Data, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Top < 1 {
		return nil, fmt.Errorf("top must be at least 1, got %d", opts.Top)
	}
	if opts.Explain == "" {
		opts.Explain = DefaultExplainWord
	}
	vopts := vectorizer.DefaultOptions()
	if opts.Vectorizer != nil {
		vopts = *opts.Vectorizer
	}
	if err := vopts.Validate(); err != nil {
		return nil, fmt.Errorf("vectorizer options: %w", err)
	}
	// The memory lives in RAM only: the demo leaves nothing behind.
	mopts := memory.DefaultOptions()
	mopts.Sync = memory.SyncNever
	mem, err := memory.Open("", mopts)
	if err != nil {
		return nil, fmt.Errorf("open in-memory context memory: %w", err)
	}
	defer mem.Close()
	vz, err := vectorizer.New(m, mem, vopts)
	if err != nil {
		return nil, fmt.Errorf("make the vectorizer: %w", err)
	}
	s := &searcher{vz: vz, opts: vopts, docs: data.Docs, vecs: make([]encoded, len(data.Docs))}
	res := &Result{Documents: len(data.Docs), DataName: data.Name}

	if err := teachAndEncode(ctx, s, mem, data, res); err != nil {
		return nil, err
	}
	p := newPrinter(w, opts.Color)
	p.header(m, opts.ModelName, opts.LoadTime, vopts, res, time.Since(start))

	if err := search(ctx, s, p, data, opts, res); err != nil {
		return nil, err
	}
	if err := explainWord(p, s, m, opts.Explain, res); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	p.footer(opts.NextNote, opts.ServeModel, opts.LoadTime, res.Elapsed)
	return res, p.err
}

// neighbour is a base word near a vector.
type neighbour struct {
	word string
	cos  float32
}

// nearest returns the k base words whose vectors have the largest cosine with
// v (unit length), skipping the word itself. With counts, only words seen at
// least minCount times are candidates: rarer rows of a serving bundle hold AM
// vectors themselves, and neighbours should be words with a trusted vector.
func nearest(base *model.Embeddings, v []float32, self string, minCount int64, k int) []neighbour {
	if base == nil || len(v) != base.Dim {
		return nil
	}
	var best []neighbour
	for id := range int32(base.Len()) {
		row := base.Row(id)
		n := simd.Dot(row, row)
		if !(n > 0) || base.Words[id] == self || base.Counts != nil && base.Count(id) < minCount {
			continue
		}
		c := simd.Dot(row, v) / float32(math.Sqrt(float64(n)))
		if len(best) == k && c <= best[k-1].cos {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, c, func(a neighbour, c float32) int { return cmp.Compare(c, a.cos) })
		best = slices.Insert(best, i, neighbour{base.Words[id], c})
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// teachAndEncode teaches the memory from every document, as Weaviate's import
// would, then vectorizes the documents with the full memory.
func teachAndEncode(ctx context.Context, s *searcher, mem *memory.Memory, data Data, res *Result) error {
	vz, vopts := s.vz, s.opts
	// 1. Teach the memory from every document, as Weaviate's import would.
	for _, d := range data.Docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := vz.Learn(d.Text, vopts)
		if err != nil {
			return fmt.Errorf("teach the memory from document %q: %w", d.ID, err)
		}
		res.Observations += n
	}
	res.Memory = mem.Stats()
	// 2. Vectorize the documents with the full memory.
	for i, d := range data.Docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, err := s.encode(d.Text, s.opts.ForObjects())
		if err != nil {
			return fmt.Errorf("vectorize document %q: %w", d.ID, err)
		}
		s.vecs[i] = v
	}
	return nil
}

// search runs every query of data (printing up to opts.Show of them) and
// opts.Query, and sums the reciprocal ranks into res.
func search(ctx context.Context, s *searcher, p *printer, data Data, opts Options, res *Result) error {
	// 3. Search.
	shown := 0
	for i, q := range data.Queries {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, err := s.encode(q.Text, s.opts)
		if err != nil {
			return fmt.Errorf("vectorize query %q: %w", q.ID, err)
		}
		hb, ha := s.rank(e.base, pickBase), s.rank(e.am, pickAM)
		qr := QueryResult{Query: q, RankBase: s.firstRelevant(hb, q.Relevant), RankAM: s.firstRelevant(ha, q.Relevant), AMWords: e.amWords}
		res.Queries = append(res.Queries, qr)
		res.MRRBase += reciprocal(qr.RankBase)
		res.MRRAM += reciprocal(qr.RankAM)
		if opts.Show < 0 || shown < opts.Show {
			shown++
			p.query(fmt.Sprintf("%d/%d", i+1, len(data.Queries)), q, e, s, hb, ha, opts.Top, &qr)
		}
	}
	if n := len(data.Queries); n > 0 {
		res.MRRBase /= float64(n)
		res.MRRAM /= float64(n)
		p.summary(res, shown)
	}
	if opts.Query != "" {
		e, err := s.encode(opts.Query, s.opts)
		if err != nil {
			return fmt.Errorf("vectorize --query %q: %w", opts.Query, err)
		}
		p.query("your query", Query{Text: opts.Query}, e, s, s.rank(e.base, pickBase), s.rank(e.am, pickAM), opts.Top, nil)
	}

	return nil
}

// explainWord prints the explanation of one word and its nearest base words.
func explainWord(p *printer, s *searcher, m *model.Model, word string, res *Result) error {
	vz, vopts := s.vz, s.opts
	// 4. Explain one word. Its vector is compared with base words, which keep
	// the common component a text vector loses: it is the weighted sum itself.
	vopts.CommonComponents = 0
	ex, err := vz.Explain(word, vopts)
	switch {
	case errors.Is(err, vectorizer.ErrNoWords):
		p.noExplanation(word)
	case err != nil:
		return fmt.Errorf("explain %q: %w", word, err)
	default:
		if len(ex.Words) > 0 {
			we := ex.Words[0]
			res.Explained = &we
			p.explain(we, nearest(m.Base, ex.Vector, we.Word, vopts.FrequentMin, 6))
		} else {
			p.noExplanation(word)
		}
	}
	return nil
}
