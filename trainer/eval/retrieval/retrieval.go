// Package retrieval scores ranked retrieval: BM25, dense retrieval over
// given unit vectors (DenseIndex, DenseRun), top-k selection, score fusion
// (min-max as Weaviate's relative-score fusion, RRF, z-score), MRR@10,
// Recall@1 and Recall@10, and the paired sign test of two runs. It knows
// nothing of the vectorizer: callers pass the vectors.
package retrieval

import (
	"fmt"
	"math"
	"sort"

	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// Hit is one retrieved document: its index in the collection and its score.
type Hit struct {
	Doc   int
	Score float64
}

// TopK returns the k documents with the highest scores, best first (ties by
// lower index). Documents whose score does not satisfy keep (nil keeps all)
// are left out, so fewer than k hits may come back.
func TopK(scores []float64, k int, keep func(float64) bool) []Hit {
	if k <= 0 {
		return nil
	}
	// A min-heap of the best k so far: h[0] is the worst kept hit.
	h := make([]Hit, 0, min(k, len(scores)))
	for d, s := range scores {
		if math.IsNaN(s) || (keep != nil && !keep(s)) {
			continue
		}
		hit := Hit{Doc: d, Score: s}
		if len(h) < k {
			h = append(h, hit)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if !worse(h[0], hit) {
			continue
		}
		h[0] = hit
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < len(h) && worse(h[l], h[m]) {
				m = l
			}
			if r < len(h) && worse(h[r], h[m]) {
				m = r
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	sort.Slice(h, func(i, j int) bool { return worse(h[j], h[i]) })
	return h
}

// worse reports whether a ranks below b: a lower score, or an equal score and a higher index.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc > b.Doc
}

// Positive keeps scores above zero (BM25: documents matching a query term).
func Positive(s float64) bool { return s > 0 }

// FuseMinMax combines ranked lists by relative-score fusion, as Weaviate's
// hybrid search does: each list's scores are min-max normalized to [0, 1]
// (all equal: 1), multiplied by the list's weight and summed per document;
// a document missing from a list gets nothing from it. The result is sorted
// best first (ties by lower index).
func FuseMinMax(lists [][]Hit, weights []float64) []Hit {
	if len(lists) != len(weights) {
		panic(fmt.Sprintf("eval: FuseMinMax got %d lists and %d weights", len(lists), len(weights)))
	}
	sum := map[int]float64{}
	for i, l := range lists {
		if len(l) == 0 {
			continue
		}
		lo, hi := l[0].Score, l[0].Score
		for _, h := range l {
			lo, hi = math.Min(lo, h.Score), math.Max(hi, h.Score)
		}
		for _, h := range l {
			s := weights[i]
			if hi != lo {
				s *= (h.Score - lo) / (hi - lo)
			}
			sum[h.Doc] += s
		}
	}
	return sortedHits(sum)
}

// FuseRRF combines ranked lists by reciprocal-rank fusion, as Weaviate's
// rankedFusion does: a document at 0-based position j of list i gets
// weights[i]/(j + 60), summed over lists; the result is sorted best first
// (ties by lower index).
func FuseRRF(lists [][]Hit, weights []float64) []Hit {
	if len(lists) != len(weights) {
		panic(fmt.Sprintf("eval: FuseRRF got %d lists and %d weights", len(lists), len(weights)))
	}
	sum := map[int]float64{}
	for i, l := range lists {
		for j, h := range l {
			sum[h.Doc] += weights[i] / float64(j+60)
		}
	}
	return sortedHits(sum)
}

// FuseZScore combines ranked lists by z-score fusion (distribution-based
// score fusion): each list's scores are standardized by the mean and standard
// deviation of that list (all equal: 0), multiplied by the list's weight and
// summed per document; a document missing from a list gets that list's lowest
// standardized score, as if it ranked last. The result is sorted best first
// (ties by lower index). Weaviate has no such fusion; it is here to show
// whether a fusion other than Weaviate's could use the dense scores better.
func FuseZScore(lists [][]Hit, weights []float64) []Hit {
	if len(lists) != len(weights) {
		panic(fmt.Sprintf("eval: FuseZScore got %d lists and %d weights", len(lists), len(weights)))
	}
	sum := map[int]float64{}
	for _, l := range lists {
		for _, h := range l {
			sum[h.Doc] = 0
		}
	}
	for i, l := range lists {
		if len(l) == 0 {
			continue
		}
		var mean, sq float64
		for _, h := range l {
			mean += h.Score
		}
		mean /= float64(len(l))
		for _, h := range l {
			sq += (h.Score - mean) * (h.Score - mean)
		}
		sd := math.Sqrt(sq / float64(len(l)))
		z := func(x float64) float64 {
			if sd == 0 {
				return 0
			}
			return (x - mean) / sd
		}
		present := make(map[int]bool, len(l))
		lowest := math.Inf(1)
		for _, h := range l {
			present[h.Doc] = true
			zs := z(h.Score)
			lowest = math.Min(lowest, zs)
			sum[h.Doc] += weights[i] * zs
		}
		for d := range sum {
			if !present[d] {
				sum[d] += weights[i] * lowest
			}
		}
	}
	return sortedHits(sum)
}

// sortedHits returns the documents of sum with their scores, best first (ties by lower index).
func sortedHits(sum map[int]float64) []Hit {
	out := make([]Hit, 0, len(sum))
	for d, s := range sum {
		out = append(out, Hit{Doc: d, Score: s})
	}
	sort.Slice(out, func(i, j int) bool { return worse(out[j], out[i]) })
	return out
}

// Metrics are the averages over queries of the reciprocal rank of
// the first relevant document within the top 10 (0 when none), and of the
// fraction of relevant documents found in the top 1 and top 10.
type Metrics struct {
	Queries  int
	MRR10    float64
	Recall1  float64
	Recall10 float64
	// RR10 is each query's reciprocal rank within the top 10 (0 when no
	// relevant document is there), in query order: for paired comparisons.
	RR10 []float64
}

// MetricsAccumulator sums per-query retrieval metrics.
type MetricsAccumulator struct {
	n           int
	rr, r1, r10 float64
	perQuery    []float64
}

// Add scores one query's ranking (best first) against its relevant documents.
func (a *MetricsAccumulator) Add(ranked []Hit, relevant []int) {
	a.n++
	a.perQuery = append(a.perQuery, 0)
	if len(relevant) == 0 {
		return
	}
	rel := make(map[int]bool, len(relevant))
	for _, r := range relevant {
		rel[r] = true
	}
	found := 0
	for i, h := range ranked {
		if i >= 10 {
			break
		}
		if !rel[h.Doc] {
			continue
		}
		if found == 0 {
			a.rr += 1 / float64(i+1)
			a.perQuery[len(a.perQuery)-1] = 1 / float64(i+1)
		}
		found++
		if i == 0 {
			a.r1 += 1 / float64(len(rel))
		}
	}
	a.r10 += float64(found) / float64(len(rel))
}

// Metrics returns the averages so far.
func (a *MetricsAccumulator) Metrics() Metrics {
	if a.n == 0 {
		return Metrics{}
	}
	n := float64(a.n)
	return Metrics{Queries: a.n, MRR10: a.rr / n, Recall1: a.r1 / n, Recall10: a.r10 / n, RR10: append([]float64(nil), a.perQuery...)}
}

// PairedRR compares two runs over the same queries by their per-query
// reciprocal ranks: the queries where a ranks the relevant document higher
// (within the top 10), those where b does, and the two-sided sign-test p-value
// of that split (ties left out; the paper's binomial test).
func PairedRR(a, b Metrics) (aBetter, bBetter int, p float64, err error) {
	if len(a.RR10) != len(b.RR10) {
		return 0, 0, 0, fmt.Errorf("paired comparison: runs over %d and %d queries", len(a.RR10), len(b.RR10))
	}
	for i := range a.RR10 {
		switch {
		case a.RR10[i] > b.RR10[i]:
			aBetter++
		case a.RR10[i] < b.RR10[i]:
			bBetter++
		}
	}
	return aBetter, bBetter, stats.BinomialTest(aBetter, aBetter+bBetter, 0.5), nil
}

// TextVectorizer turns a text into a vector (all of one dimension). A nil or
// all-zero vector means the text has no usable word: such a query retrieves
// nothing.
type TextVectorizer func(text string) ([]float32, error)

// DenseIndex holds unit-length document vectors for cosine retrieval.
type DenseIndex struct {
	Dim  int
	rows int
	vecs []float32 // rows × Dim, each row unit length or zero
}

// NewDenseIndexFromVectors indexes document vectors (nil or zero: the
// document can never be retrieved by a positive cosine). All non-nil vectors
// must have one dimension.
func NewDenseIndexFromVectors(vecs [][]float32) (*DenseIndex, error) {
	ix := &DenseIndex{rows: len(vecs)}
	for i, v := range vecs {
		if len(v) == 0 {
			continue
		}
		if ix.Dim == 0 {
			ix.Dim = len(v)
			ix.vecs = make([]float32, len(vecs)*ix.Dim)
		}
		if len(v) != ix.Dim {
			return nil, fmt.Errorf("dense index: document %d has dimension %d, earlier documents %d", i, len(v), ix.Dim)
		}
		row := ix.vecs[i*ix.Dim : (i+1)*ix.Dim]
		copy(row, v)
		unit(row)
	}
	if ix.Dim == 0 {
		return nil, fmt.Errorf("dense index: no document got a vector")
	}
	return ix, nil
}

// unit scales v to unit length in place; it returns false for a zero vector.
func unit(v []float32) bool {
	n := math.Sqrt(float64(simd.Dot(v, v)))
	if n == 0 || math.IsNaN(n) {
		return false
	}
	simd.Scale(float32(1/n), v)
	return true
}

// Scores writes the cosine of query with every document to dst (grown as
// needed) and returns it, or nil when query is empty or zero.
func (ix *DenseIndex) Scores(query []float32, dst []float64) ([]float64, error) {
	if len(query) == 0 {
		return nil, nil
	}
	if len(query) != ix.Dim {
		return nil, fmt.Errorf("query vector has dimension %d, documents %d", len(query), ix.Dim)
	}
	q := append([]float32(nil), query...)
	if !unit(q) {
		return nil, nil
	}
	if cap(dst) < ix.rows {
		dst = make([]float64, ix.rows)
	}
	dst = dst[:ix.rows]
	for i := range dst {
		dst[i] = float64(simd.Dot(ix.vecs[i*ix.Dim:(i+1)*ix.Dim], q))
	}
	return dst, nil
}

// docIDs maps document ids to a canonical document index (the first
// document with the id), so that documents sharing an id count as one item.
type docIDs struct {
	canon []int // canon[d]: the first index with docs[d].ID
	rel   [][]int
}

// relevantIndices maps each query's relevant ids to canonical document indices.
func relevantIndices(docs []dataset.Document, queries []dataset.RetrievalQuery) (*docIDs, error) {
	byID := make(map[string]int, len(docs))
	ids := &docIDs{canon: make([]int, len(docs)), rel: make([][]int, len(queries))}
	for i, d := range docs {
		first, ok := byID[d.ID]
		if !ok {
			first = i
			byID[d.ID] = i
		}
		ids.canon[i] = first
	}
	for i, q := range queries {
		for _, id := range q.Relevant {
			d, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("query %q: relevant document %q is not in the collection", q.ID, id)
			}
			ids.rel[i] = append(ids.rel[i], d)
		}
	}
	return ids, nil
}

// add scores query i's hits, each document mapped to its canonical index
// and repeats of one id left out.
func (ids *docIDs) add(acc *MetricsAccumulator, i int, hits []Hit) {
	out := make([]Hit, 0, len(hits))
	seen := make(map[int]bool, len(hits))
	for _, h := range hits {
		c := ids.canon[h.Doc]
		if seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, Hit{Doc: c, Score: h.Score})
	}
	acc.Add(out, ids.rel[i])
}

// DenseRun ranks the documents of ix for every query vector (nil: the query
// retrieves nothing) and returns the metrics and the top depth hits of each query.
func DenseRun(docs []dataset.Document, queries []dataset.RetrievalQuery, ix *DenseIndex, queryVecs [][]float32, depth int) (Metrics, [][]Hit, error) {
	if len(queryVecs) != len(queries) || ix.rows != len(docs) {
		return Metrics{}, nil, fmt.Errorf("dense run: %d query vectors for %d queries, %d indexed for %d documents", len(queryVecs), len(queries), ix.rows, len(docs))
	}
	rel, err := relevantIndices(docs, queries)
	if err != nil {
		return Metrics{}, nil, err
	}
	var acc MetricsAccumulator
	var scores []float64
	runs := make([][]Hit, len(queries))
	for i, q := range queries {
		s, err := ix.Scores(queryVecs[i], scores)
		if err != nil {
			return Metrics{}, nil, fmt.Errorf("query %q: %w", q.ID, err)
		}
		if s != nil {
			scores = s
			runs[i] = TopK(s, max(depth, 10), nil)
		}
		rel.add(&acc, i, runs[i])
	}
	return acc.Metrics(), runs, nil
}

// BM25Run ranks the documents for every query with BM25 over tokens from
// tokenize and returns the metrics and the top depth hits (score > 0) of each query.
func BM25Run(docs []dataset.Document, queries []dataset.RetrievalQuery, tokenize func(string) []string, k1, b float64, depth int) (Metrics, [][]Hit, error) {
	rel, err := relevantIndices(docs, queries)
	if err != nil {
		return Metrics{}, nil, err
	}
	toks := make([][]string, len(docs))
	for i, d := range docs {
		toks[i] = tokenize(d.Text)
	}
	ix := NewBM25(toks, k1, b)
	var acc MetricsAccumulator
	var scores []float64
	runs := make([][]Hit, len(queries))
	for i, q := range queries {
		scores = ix.Scores(tokenize(q.Text), scores)
		runs[i] = TopK(scores, max(depth, 10), Positive)
		rel.add(&acc, i, runs[i])
	}
	return acc.Metrics(), runs, nil
}

// Fusion combines ranked lists with weights: FuseMinMax or FuseRRF.
type Fusion func(lists [][]Hit, weights []float64) []Hit

// HybridRun fuses two runs per query with fuse (weights 1 − alpha for the
// first, alpha for the second, as Weaviate's hybrid alpha) and returns the metrics.
func HybridRun(docs []dataset.Document, queries []dataset.RetrievalQuery, keyword, dense [][]Hit, alpha float64, fuse Fusion) (Metrics, error) {
	rel, err := relevantIndices(docs, queries)
	if err != nil {
		return Metrics{}, err
	}
	var acc MetricsAccumulator
	for i := range queries {
		rel.add(&acc, i, fuse([][]Hit{keyword[i], dense[i]}, []float64{1 - alpha, alpha}))
	}
	return acc.Metrics(), nil
}
