package retrieval

import (
	"math"
	"sort"
)

// BM25 is an in-memory Okapi BM25 index over tokenized documents, with
// Lucene's (and Weaviate's) idf = ln(1 + (N − df + 0.5)/(df + 0.5)).
type BM25 struct {
	K1, B    float64
	docLen   []float64
	avgLen   float64
	postings map[string][]posting
}

type posting struct {
	doc int32
	tf  float32
}

// NewBM25 indexes docs (each a list of tokens) with parameters k1 and b
// (the usual values are 1.2 and 0.75).
func NewBM25(docs [][]string, k1, b float64) *BM25 {
	ix := &BM25{K1: k1, B: b, docLen: make([]float64, len(docs)), postings: map[string][]posting{}}
	tf := map[string]int{}
	var total float64
	for d, toks := range docs {
		clear(tf)
		for _, t := range toks {
			tf[t]++
		}
		// Sorted terms keep the postings (and so float sums) deterministic.
		terms := make([]string, 0, len(tf))
		for t := range tf {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		for _, t := range terms {
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(d), tf: float32(tf[t])})
		}
		ix.docLen[d] = float64(len(toks))
		total += float64(len(toks))
	}
	if len(docs) > 0 {
		ix.avgLen = total / float64(len(docs))
	}
	return ix
}

// Scores writes the BM25 score of every document for the query tokens to dst
// (grown to Len() if needed) and returns it. Each distinct query term counts
// once; documents matching no term score 0.
func (ix *BM25) Scores(query []string, dst []float64) []float64 {
	if cap(dst) < len(ix.docLen) {
		dst = make([]float64, len(ix.docLen))
	}
	dst = dst[:len(ix.docLen)]
	clear(dst)
	n := float64(len(ix.docLen))
	seen := make(map[string]bool, len(query))
	for _, t := range query {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := ix.K1 * (1 - ix.B + ix.B*ix.docLen[p.doc]/ix.avgLen)
			dst[p.doc] += idf * tf * (ix.K1 + 1) / (tf + norm)
		}
	}
	return dst
}
