package skipgram

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// shuffleStream is the random stream of the unit permutation (stream 0
// initialises the vectors, streams 1..Threads are the workers').
const shuffleStream = math.MaxUint64

// unitOrder returns the order in which the workers visit the units of enc:
// nil for file order or, when shuffle is set, a permutation of the unit
// indices fixed by seed (Fisher–Yates). It is drawn once and serves every
// epoch, as a shuffled copy of the corpus would.
func unitOrder(enc *corpus.Encoded, shuffle bool, seed uint64) ([]int32, error) {
	if !shuffle {
		return nil, nil
	}
	n := enc.NumUnits()
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%d units: shuffling handles at most %d", n, math.MaxInt32)
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	r := newRNG(seed, shuffleStream)
	for i := n - 1; i > 0; i-- {
		hi, _ := bits.Mul64(r.next(), uint64(i+1)) // j uniform in 0..i (64-bit draw: no bias worth a word)
		j := int(hi)
		order[i], order[j] = order[j], order[i]
	}
	return order, nil
}

// unitAt returns the unit at position p of order (p itself when order is nil).
func unitAt(order []int32, p int) int {
	if order == nil {
		return p
	}
	return int(order[p])
}

// sweepStarts returns where each of k workers starts its sweep through the
// positions 0..NumUnits-1 of order (nil: file order): worker i at the first
// position with at least i/k of the corpus tokens before it, so the starts
// are evenly spaced by tokens up to a unit (workers may share a start when
// there are fewer units than workers, or long ones).
func sweepStarts(enc *corpus.Encoded, order []int32, k int) []int {
	starts := make([]int, k)
	nu := enc.NumUnits()
	p := 0
	var tokens int64 // tokens of the units at positions below p
	for i := 1; i < k; i++ {
		target := enc.NumTokens() * int64(i) / int64(k)
		for p < nu && tokens < target {
			u := unitAt(order, p)
			tokens += enc.Offsets[u+1] - enc.Offsets[u]
			p++
		}
		starts[i] = p
	}
	return starts
}
