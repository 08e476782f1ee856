package amtrain

import (
	"math/bits"

	"github.com/text2vec-am/text2vec-am/model"
)

// DefaultWindow is the paper's context cut, model.ContextWindow: at most 25
// tokens on either side (serving cuts its contexts the same way).
const DefaultWindow = model.ContextWindow

// Sampler draws contexts of corpus words from an Index, as ids of a base
// vocabulary, with model.Model.ContextIDs semantics: the target word and
// words without a base vector are dropped (they still count toward the window,
// which is measured in corpus positions and never crosses a line boundary).
type Sampler struct {
	x *Index
	// tokens is the index's token stream re-expressed in base ids: lineSep
	// between lines, noBase for a word without a base vector. It costs 4 bytes
	// per token of memory and saves a table lookup per context word.
	tokens []int32
	toBase []int32 // index id → base id, noBase when the word has no base vector
	window int
}

// noBase marks a token without a base vector in Sampler.tokens.
const noBase int32 = -2

// NewSampler maps the index vocabulary onto base and returns a sampler with
// the given window (tokens on either side of the occurrence).
func NewSampler(x *Index, base *model.Embeddings, window int) *Sampler {
	toBase := make([]int32, x.Len())
	for i, w := range x.Words {
		if id, ok := base.ID(w); ok {
			toBase[i] = id
		} else {
			toBase[i] = noBase
		}
	}
	tokens := make([]int32, len(x.tokens))
	for i, t := range x.tokens {
		if t == lineSep {
			tokens[i] = lineSep
		} else {
			tokens[i] = toBase[t]
		}
	}
	return &Sampler{x: x, tokens: tokens, toBase: toBase, window: window}
}

// AppendContext appends the base ids of the context of the occurrence at
// stream position pos of word type target (an Index id).
func (s *Sampler) AppendContext(dst []int32, target int32, pos uint32) []int32 {
	tokens := s.tokens
	tb := s.toBase[target] // noBase never matches a kept token
	p := int(pos)
	start := p
	for k := 0; k < s.window && tokens[start-1] != lineSep; k++ {
		start--
	}
	end := p + 1
	for k := 0; k < s.window && tokens[end] != lineSep; k++ {
		end++
	}
	for _, t := range tokens[start:p] {
		if t >= 0 && t != tb {
			dst = append(dst, t)
		}
	}
	for _, t := range tokens[p+1 : end] {
		if t >= 0 && t != tb {
			dst = append(dst, t)
		}
	}
	return dst
}

// rng is a small, fast, seedable generator (SplitMix64). Its whole state is one
// word, so an instance's randomness can be derived from (seed, epoch, index)
// and training does not depend on which thread runs which instance.
type rng struct{ s uint64 }

// newRNG returns a generator whose state is derived from parts.
func newRNG(parts ...uint64) rng {
	r := rng{s: 0x9E3779B97F4A7C15}
	for _, p := range parts {
		r.s ^= p
		r.next()
	}
	return r
}

// next returns the next 64 random bits.
func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n), n > 0 (Lemire's multiply-shift with rejection).
func (r *rng) intn(n int) int {
	bound := uint64(n)
	for {
		x := r.next()
		hi, lo := bits.Mul64(x, bound)
		if lo >= bound || lo >= (-bound)%bound {
			return int(hi)
		}
	}
}

// sampleDistinct appends k distinct integers from [0, n) to dst (Floyd's
// algorithm: O(k²) comparisons for the small k used here, no O(n) work).
func sampleDistinct(dst []int, r *rng, n, k int) []int {
	base := len(dst)
	for j := n - k; j < n; j++ {
		t := r.intn(j + 1)
		dup := false
		for _, v := range dst[base:] {
			if v == t {
				dup = true
				break
			}
		}
		if dup {
			t = j
		}
		dst = append(dst, t)
	}
	return dst
}

// contextSet holds the sampled contexts of one instance in one flat buffer.
type contextSet struct {
	flat  []int32
	ends  []int
	picks []int
	ctx   [][]int32
	touch int32 // keeps the prefetching loads of build alive
}

// sample draws k distinct occurrences of target (at most as many as there are)
// and returns their non-empty contexts; the slices are owned by cs.
func (cs *contextSet) sample(s *Sampler, r *rng, target int32, k int) [][]int32 {
	pos := s.x.Positions(target)
	k = min(k, len(pos))
	cs.picks = sampleDistinct(cs.picks[:0], r, len(pos), k)
	return cs.build(s, target, pos, cs.picks)
}

// build returns the non-empty contexts of the occurrences picks (indices into
// target's position list pos); the slices are owned by cs.
func (cs *contextSet) build(s *Sampler, target int32, pos []uint32, picks []int) [][]int32 {
	cs.flat = cs.flat[:0]
	cs.ends = cs.ends[:0]
	// Touch every window first: the loads are independent, so their cache
	// misses overlap instead of being paid one after the other below.
	var touch int32
	for _, i := range picks {
		p := pos[i]
		touch += s.tokens[p-1] + s.tokens[p+1]
	}
	cs.touch = touch
	for _, i := range picks {
		before := len(cs.flat)
		cs.flat = s.AppendContext(cs.flat, target, pos[i])
		if len(cs.flat) > before {
			cs.ends = append(cs.ends, len(cs.flat))
		}
	}
	cs.ctx = cs.ctx[:0]
	start := 0
	for _, e := range cs.ends {
		cs.ctx = append(cs.ctx, cs.flat[start:e:e])
		start = e
	}
	return cs.ctx
}
