// Package nn finds the base words nearest a word or a text by cosine, as
// fastText's nn does: the "text2vec-am nn" command.
package nn

import (
	"container/heap"
	"errors"
	"fmt"
	"math"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// MaxK bounds the neighbours asked for in one query.
const MaxK = 1000

// Index scores every base word against a query with the SIMD kernels
// (simd.MatVec over the base matrix, norms by simd.Dot). It holds one
// float32 per base word besides the model; it is not safe for concurrent use.
type Index struct {
	e      *model.Embeddings
	inv    []float32 // 1/‖row‖, 0 for a zero row
	scores []float32 // scratch: row·query
}

// NewIndex returns an index over e's rows.
func NewIndex(e *model.Embeddings) (*Index, error) {
	if e == nil || e.Len() == 0 {
		return nil, errors.New("the model has no base words")
	}
	ix := &Index{e: e, inv: make([]float32, e.Len()), scores: make([]float32, e.Len())}
	for i := range ix.inv {
		row := e.Row(int32(i))
		if n := simd.Dot(row, row); n > 0 {
			ix.inv[i] = float32(1 / math.Sqrt(float64(n)))
		}
	}
	return ix, nil
}

// Neighbour is a base word and its cosine with the query.
type Neighbour struct {
	Word   string
	Cosine float32
}

// Nearest returns the k base words (1 ≤ k ≤ MaxK) nearest q by cosine, best
// first (ties by vocabulary order), leaving out the words in skip.
func (ix *Index) Nearest(q []float32, k int, skip map[string]bool) ([]Neighbour, error) {
	switch {
	case len(q) != ix.e.Dim:
		return nil, fmt.Errorf("query of dimension %d, the base words have %d", len(q), ix.e.Dim)
	case k < 1 || k > MaxK:
		return nil, fmt.Errorf("k = %d: want 1 to %d", k, MaxK)
	}
	qn := simd.Dot(q, q)
	if !(qn > 0) || math.IsInf(float64(qn), 0) {
		return nil, errors.New("the query vector is zero or not finite")
	}
	qinv := float32(1 / math.Sqrt(float64(qn)))
	simd.MatVec(ix.scores, ix.e.Vectors, ix.e.Len(), ix.e.Dim, q)
	top := make(minHeap, 0, k+1)
	for i, s := range ix.scores {
		c := s * ix.inv[i] * qinv
		if c != c { // NaN: a row that is not finite
			continue
		}
		if len(top) == k && !better(c, int32(i), top[0]) {
			continue
		}
		if skip[ix.e.Words[i]] {
			continue
		}
		heap.Push(&top, scored{c, int32(i)})
		if len(top) > k {
			heap.Pop(&top)
		}
	}
	out := make([]Neighbour, len(top))
	for i := len(top) - 1; i >= 0; i-- {
		s := heap.Pop(&top).(scored)
		out[i] = Neighbour{Word: ix.e.Words[s.id], Cosine: s.cos}
	}
	return out, nil
}

// scored is one base word's cosine.
type scored struct {
	cos float32
	id  int32
}

// better orders neighbours: higher cosine, then earlier in the vocabulary.
func better(c float32, id int32, than scored) bool {
	return c > than.cos || (c == than.cos && id < than.id)
}

// minHeap keeps the k best so far with the worst on top.
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return better(h[j].cos, h[j].id, h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
