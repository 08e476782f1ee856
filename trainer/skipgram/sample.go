package skipgram

import (
	"errors"
	"math"
)

// rng is splitmix64: tiny, fast, and good enough for sampling; each worker has
// its own stream.
type rng struct{ s uint64 }

// newRNG returns the generator of stream number stream for seed.
func newRNG(seed, stream uint64) rng {
	r := rng{s: seed ^ (stream * 0xd1342543de82ef95)}
	r.next()
	return r
}

// window returns a window size drawn uniformly from 1..max, word2vec's
// shrunk window.
func (r *rng) window(max int) int {
	return max - int((uint64(uint32(r.next()))*uint64(max))>>32)
}

// next returns 64 uniformly distributed bits.
func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// aliasTable samples word ids from the unigram distribution raised to a power
// (word2vec's negative-sampling distribution) in constant time by Walker's
// alias method. It draws exactly the distribution word2vec.c approximates with
// its 10⁸-entry table, in 8 bytes per word.
type aliasTable struct {
	// entry i: high 32 bits the probability (scaled to 2³²) of keeping i, low
	// 32 bits the alias returned otherwise.
	entries []uint64
}

// newAliasTable builds the table for weights counts[i]^power.
func newAliasTable(counts []int64, power float64) (aliasTable, error) {
	n := len(counts)
	if n == 0 || n > math.MaxInt32 {
		return aliasTable{}, errors.New("negative sampling table: vocabulary size out of range")
	}
	p := make([]float64, n)
	var sum float64
	for i, c := range counts {
		p[i] = math.Pow(float64(max(c, 0)), power)
		sum += p[i]
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return aliasTable{}, errors.New("negative sampling table: all word counts are zero")
	}
	small, large := make([]int32, 0, n), make([]int32, 0, n)
	for i := range p {
		p[i] *= float64(n) / sum
		if p[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	entries := make([]uint64, n)
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		entries[s] = uint64(p[s]*(1<<32))<<32 | uint64(uint32(l))
		p[l] -= 1 - p[s]
		if p[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What remains has probability 1 up to rounding.
	for _, i := range append(small, large...) {
		entries[i] = uint64(math.MaxUint32)<<32 | uint64(uint32(i))
	}
	return aliasTable{entries: entries}, nil
}

// sample draws one id.
func (a *aliasTable) sample(r *rng) int32 {
	x := r.next()
	i := ((x >> 32) * uint64(len(a.entries))) >> 32
	e := a.entries[i]
	if uint32(x) < uint32(e>>32) {
		return int32(i)
	}
	return int32(uint32(e))
}
