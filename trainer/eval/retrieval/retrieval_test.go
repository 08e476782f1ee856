package retrieval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

func TestBM25HandComputed(t *testing.T) {
	docs := [][]string{
		{"apple", "pie"},
		{"apple", "apple", "juice", "box"},
		{"cherry"},
	}
	ix := NewBM25(docs, 1.2, 0.75)
	s := ix.Scores([]string{"apple", "apple", "unknown"}, nil)
	// N = 3, df(apple) = 2: idf = ln(1 + 1.5/2.5); avgdl = 7/3.
	idf := math.Log(1 + 1.5/2.5)
	want0 := idf * 1 * 2.2 / (1 + 1.2*(0.25+0.75*2/(7.0/3)))
	want1 := idf * 2 * 2.2 / (2 + 1.2*(0.25+0.75*4/(7.0/3)))
	if math.Abs(s[0]-want0) > 1e-12 || math.Abs(s[1]-want1) > 1e-12 || s[2] != 0 {
		t.Fatalf("scores = %v, want [%v %v 0]", s, want0, want1)
	}
	hits := TopK(s, 10, Positive)
	// tf 2 in a document of length 4 beats tf 1 in one of length 2; doc 2 matches nothing.
	if len(hits) != 2 || hits[0].Doc != 1 || hits[1].Doc != 0 {
		t.Fatalf("TopK = %+v", hits)
	}
}

func TestTopKTiesAndLimit(t *testing.T) {
	hits := TopK([]float64{1, 3, 3, math.NaN(), 2}, 3, nil)
	got := []int{hits[0].Doc, hits[1].Doc, hits[2].Doc}
	if len(hits) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 4 {
		t.Fatalf("TopK = %+v", hits)
	}
}

func TestMetrics(t *testing.T) {
	var a MetricsAccumulator
	a.Add([]Hit{{Doc: 5}, {Doc: 7}}, []int{5})              // rank 1
	a.Add([]Hit{{Doc: 1}, {Doc: 2}, {Doc: 3}}, []int{3, 9}) // rank 3, 1 of 2 relevant found
	a.Add(nil, []int{1})                                    // nothing retrieved
	m := a.Metrics()
	if m.Queries != 3 || math.Abs(m.MRR10-(1+1.0/3)/3) > 1e-12 || math.Abs(m.Recall1-1.0/3) > 1e-12 || math.Abs(m.Recall10-1.5/3) > 1e-12 {
		t.Fatalf("metrics = %+v", m)
	}
	// Beyond rank 10 counts nothing.
	var b MetricsAccumulator
	ranked := make([]Hit, 11)
	for i := range ranked {
		ranked[i].Doc = i
	}
	b.Add(ranked, []int{10})
	if m := b.Metrics(); m.MRR10 != 0 || m.Recall10 != 0 {
		t.Fatalf("rank 11: %+v", m)
	}
}

func TestFuseMinMax(t *testing.T) {
	kw := []Hit{{Doc: 0, Score: 10}, {Doc: 1, Score: 5}, {Doc: 2, Score: 0}}
	dense := []Hit{{Doc: 2, Score: 0.9}, {Doc: 1, Score: 0.8}, {Doc: 3, Score: 0.1}}
	got := FuseMinMax([][]Hit{kw, dense}, []float64{0.5, 0.5})
	// doc 1: 0.5·0.5 + 0.5·(0.7/0.8) = 0.6875; doc 0: 0.5; doc 2: 0 + 0.5; doc 3: 0.
	if got[0].Doc != 1 || math.Abs(got[0].Score-0.6875) > 1e-12 {
		t.Fatalf("fused = %+v", got)
	}
	if got[1].Doc != 0 || got[2].Doc != 2 || got[3].Doc != 3 || got[3].Score != 0 {
		t.Fatalf("fused order = %+v", got)
	}
	one := FuseMinMax([][]Hit{{{Doc: 4, Score: 2}}}, []float64{0.3})
	if one[0].Score != 0.3 {
		t.Fatalf("single equal scores get the weight: %+v", one)
	}
}

func TestRetrievalDense(t *testing.T) {
	docs := []dataset.Document{{ID: "a", Text: "red red"}, {ID: "b", Text: "green"}, {ID: "c", Text: "blue"}}
	queries := []dataset.RetrievalQuery{
		{ID: "q1", Text: "green", Relevant: []string{"b"}},
		{ID: "q2", Text: "blue", Relevant: []string{"c"}},
		{ID: "q3", Text: "nothing", Relevant: []string{"a"}},
	}
	vec := func(text string) ([]float32, error) {
		v := make([]float32, 3)
		for _, w := range strings.Fields(text) {
			switch w {
			case "red":
				v[0]++
			case "green":
				v[1]++
			case "blue":
				v[2]++
			}
		}
		return v, nil
	}
	m, err := Retrieval(docs, queries, vec)
	if err != nil {
		t.Fatal(err)
	}
	if m.Queries != 3 || math.Abs(m.MRR10-2.0/3) > 1e-12 || math.Abs(m.Recall1-2.0/3) > 1e-12 {
		t.Fatalf("metrics = %+v (a zero query vector must retrieve nothing)", m)
	}
	queries[0].Relevant = []string{"zzz"}
	if _, err := Retrieval(docs, queries, vec); err == nil || !strings.Contains(err.Error(), `relevant document "zzz"`) {
		t.Fatalf("unknown relevant id: error = %v", err)
	}
}

func TestTopKMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	scores := make([]float64, 500)
	for i := range scores {
		scores[i] = float64(rng.IntN(50)) // many ties
	}
	all := TopK(scores, len(scores), nil)
	for _, k := range []int{1, 7, 100} {
		got := TopK(scores, k, nil)
		if len(got) != k {
			t.Fatalf("k %d: %d hits", k, len(got))
		}
		for i := range got {
			if got[i] != all[i] {
				t.Fatalf("k %d: hit %d = %+v, full sort has %+v", k, i, got[i], all[i])
			}
		}
	}
	for i := 1; i < len(all); i++ {
		if worse(all[i-1], all[i]) {
			t.Fatalf("full ranking out of order at %d: %+v before %+v", i, all[i-1], all[i])
		}
	}
}

func TestRetrievalRepeatedIDCountsOnce(t *testing.T) {
	docs := []dataset.Document{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}, {ID: "a", Text: "y"}}
	queries := []dataset.RetrievalQuery{{ID: "q", Text: "y", Relevant: []string{"a"}}}
	vec := func(text string) ([]float32, error) {
		if text == "x" {
			return []float32{1, 0}, nil
		}
		return []float32{0, 1}, nil
	}
	// Ranking: doc 1 (b) and doc 2 (a) tie at cosine 1, b first by index; a is at rank 2.
	m, err := Retrieval(docs, queries, vec)
	if err != nil {
		t.Fatal(err)
	}
	if m.MRR10 != 0.5 || m.Recall10 != 1 {
		t.Fatalf("metrics = %+v, want MRR 0.5 and recall 1 (the second document with id a counts as a)", m)
	}
}

func TestFuseRRF(t *testing.T) {
	kw := []Hit{{Doc: 0, Score: 10}, {Doc: 1, Score: 5}}
	dense := []Hit{{Doc: 1, Score: 0.9}, {Doc: 2, Score: 0.8}}
	got := FuseRRF([][]Hit{kw, dense}, []float64{0.5, 0.5})
	// doc 1: 0.5/61 + 0.5/60; doc 0: 0.5/60; doc 2: 0.5/61.
	if len(got) != 3 || got[0].Doc != 1 || got[1].Doc != 0 || got[2].Doc != 2 ||
		math.Abs(got[0].Score-(0.5/61+0.5/60)) > 1e-15 {
		t.Fatalf("fused = %+v", got)
	}
}

func TestFuseZScore(t *testing.T) {
	// kw scores 3, 1 (mean 2, sd 1): z +1, −1. dense 0.9, 0.5, 0.1 (mean 0.5,
	// sd √(0.32/3)): z +1.2247, 0, −1.2247. Doc 3 is missing from kw: it gets
	// kw's lowest z, −1.
	kw := []Hit{{Doc: 0, Score: 3}, {Doc: 1, Score: 1}}
	dense := []Hit{{Doc: 1, Score: 0.9}, {Doc: 3, Score: 0.5}, {Doc: 0, Score: 0.1}}
	got := FuseZScore([][]Hit{kw, dense}, []float64{0.5, 0.5})
	z := 0.4 / math.Sqrt(0.32/3)
	want := map[int]float64{0: 0.5*1 - 0.5*z, 1: -0.5 + 0.5*z, 3: -0.5}
	if len(got) != 3 {
		t.Fatalf("fused = %+v", got)
	}
	for _, h := range got {
		if math.Abs(h.Score-want[h.Doc]) > 1e-12 {
			t.Fatalf("doc %d: fused score %v, want %v (all: %+v)", h.Doc, h.Score, want[h.Doc], got)
		}
	}
	if got[0].Doc != 1 || got[1].Doc != 0 || got[2].Doc != 3 {
		t.Fatalf("fused order = %+v", got)
	}
	flat := FuseZScore([][]Hit{{{Doc: 4, Score: 2}, {Doc: 5, Score: 2}}}, []float64{1})
	if flat[0].Score != 0 || flat[1].Score != 0 {
		t.Fatalf("equal scores standardize to 0: %+v", flat)
	}
}

func TestPairedRR(t *testing.T) {
	var a, b MetricsAccumulator
	ranked := []Hit{{Doc: 0}, {Doc: 1}, {Doc: 2}}
	// Query 0: a finds it at rank 1, b at 3. Query 1: both at 2. Query 2: a misses, b at 1.
	a.Add(ranked, []int{0})
	b.Add(ranked, []int{2})
	a.Add(ranked, []int{1})
	b.Add(ranked, []int{1})
	a.Add(ranked, []int{9})
	b.Add(ranked, []int{0})
	ma, mb := a.Metrics(), b.Metrics()
	if want := []float64{1, 0.5, 0}; !slices.Equal(ma.RR10, want) {
		t.Fatalf("a's per-query RR = %v, want %v", ma.RR10, want)
	}
	better, worse, p, err := PairedRR(ma, mb)
	if err != nil || better != 1 || worse != 1 || p != 1 {
		t.Fatalf("PairedRR = %d, %d, %v, %v; want 1, 1, 1, nil", better, worse, p, err)
	}
	var c MetricsAccumulator
	c.Add(ranked, []int{0})
	if _, _, _, err := PairedRR(ma, c.Metrics()); err == nil {
		t.Fatal("runs over different numbers of queries compared without an error")
	}
}

// Len returns the number of documents indexed.
func (ix *BM25) Len() int { return len(ix.docLen) }

// NewDenseIndex vectorizes every document with vec.
func NewDenseIndex(docs []dataset.Document, vec TextVectorizer) (*DenseIndex, error) {
	vecs := make([][]float32, len(docs))
	for i, d := range docs {
		v, err := vec(d.Text)
		if err != nil {
			return nil, fmt.Errorf("vectorize document %q: %w", d.ID, err)
		}
		vecs[i] = v
	}
	return NewDenseIndexFromVectors(vecs)
}

// Retrieval runs dense retrieval: documents and queries are vectorized with
// vec, documents ranked by cosine, and MRR@10, Recall@1 and Recall@10
// returned. This is the reference the end-to-end tests compare Weaviate with.
func Retrieval(docs []dataset.Document, queries []dataset.RetrievalQuery, vec TextVectorizer) (Metrics, error) {
	ix, err := NewDenseIndex(docs, vec)
	if err != nil {
		return Metrics{}, err
	}
	qv := make([][]float32, len(queries))
	for i, q := range queries {
		if qv[i], err = vec(q.Text); err != nil {
			return Metrics{}, fmt.Errorf("vectorize query %q: %w", q.ID, err)
		}
	}
	m, _, err := DenseRun(docs, queries, ix, qv, 10)
	return m, err
}
