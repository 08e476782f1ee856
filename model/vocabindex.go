package model

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"github.com/text2vec-am/text2vec-am/internal/asciiscan"
	"github.com/text2vec-am/text2vec-am/internal/prefetch"
)

// vocabInline is the longest word a vocabulary slot holds in place; a longer
// word also compares its bytes after the first vocabInline with its entry of
// Words.
const vocabInline = 24

// A word's key is its first vocabInline bytes, zero-padded, as three
// little-endian words k0, k1, k2, with its length: two words of up to
// vocabInline bytes are equal exactly when their keys are. Keys are passed as
// scalars, never as a struct: the compiler copies a struct of words with
// 16-byte moves, whose loads of 8-byte stores miss store forwarding.

// vocabSlot is one slot of a vocabIndex: 32 bytes, so that a slot never
// straddles a cache line and a lookup of a word of up to 24 bytes touches one
// line and compares three words, no bytes.
type vocabSlot struct {
	k0, k1, k2 uint64 // the word's key
	n          uint32 // the word's length (clamped to MaxUint32)
	id1        int32  // id + 1; 0: the slot is empty
}

// vocabIndex maps the words of a vocabulary to their ids: an open-addressing
// table with linear probing at a load of at most 5/8. It replaces a
// string-keyed Go map, whose lookup of a word on a large vocabulary is three
// dependent cache misses (control word, key header, key bytes); here it is
// one for words of up to 24 bytes, and hashing a word is two multiplications
// of the words its bytes were loaded in (no call, no byte loop).
type vocabIndex struct {
	seed  [4]uint64
	long  maphash.Seed // hashes the rest of words longer than vocabInline
	mask  uint64
	slots []vocabSlot
	words []string // the vocabulary (long words are compared here)
}

// newVocabIndex returns an empty index sized for the n words of words, which
// insert adds one by one.
func newVocabIndex(words []string) *vocabIndex {
	size := 8
	for size*5 < len(words)*8 {
		size *= 2
	}
	x := &vocabIndex{
		long:  maphash.MakeSeed(),
		mask:  uint64(size - 1),
		slots: make([]vocabSlot, size),
		words: words,
	}
	for i := range x.seed {
		x.seed[i] = rand.Uint64() | 1
	}
	return x
}

// keyOf returns the key of w.
func keyOf(w string) (k0, k1, k2 uint64) {
	n := len(w)
	b := unsafe.Slice(unsafe.StringData(w), n)
	switch {
	case n >= vocabInline:
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	case n > 16: // the last 8 bytes shifted down to the bytes not loaded yet
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[n-8:]) >> (8 * (24 - n))
	case n > 8:
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:]) >> (8 * (16 - n)), 0
	case n == 8:
		return binary.LittleEndian.Uint64(b), 0, 0
	case n >= 4: // two overlapping 4-byte loads
		lo := uint64(binary.LittleEndian.Uint32(b))
		hi := uint64(binary.LittleEndian.Uint32(b[n-4:]))
		return lo | hi<<(8*(n-4)), 0, 0
	}
	for i := n - 1; i >= 0; i-- {
		k0 = k0<<8 | uint64(b[i])
	}
	return k0, 0, 0
}

// byteMask keeps the first n bytes of a little-endian word (all for n ≥ 8,
// none for n ≤ 0): a shift by 64 is 0 in Go, so n = 8 gives ^0.
func byteMask(n int) uint64 {
	return uint64(1)<<(8*uint(min(max(n, 0), 8))) - 1
}

// hash mixes the key of w (wyhash-style multiply-folds under the index's
// random seed).
func (x *vocabIndex) hash(k0, k1, k2 uint64, w string) uint64 {
	return x.mix(k0, k1, k2, len(w)) ^ x.tail(w)
}

// mix is the hash of a word of n ≤ vocabInline bytes with key k0, k1, k2
// (small enough to inline).
func (x *vocabIndex) mix(k0, k1, k2 uint64, n int) uint64 {
	hi, lo := bits.Mul64(k0^x.seed[0], k1^x.seed[1])
	hi, lo = bits.Mul64(hi^lo^k2^x.seed[2], uint64(n)^x.seed[3])
	return hi ^ lo
}

// tail is what the bytes of w after its first vocabInline add to its hash.
func (x *vocabIndex) tail(w string) uint64 {
	if len(w) <= vocabInline {
		return 0
	}
	return x.hashTail(w)
}

// hashTail is tail of a long word (out of line, so that tail inlines: long
// words are rare).
//
//go:noinline
func (x *vocabIndex) hashTail(w string) uint64 { return maphash.String(x.long, w[vocabInline:]) }

// slotLen is the length a slot stores for a word of n bytes.
func slotLen(n int) uint32 { return uint32(min(uint64(n), 1<<32-1)) }

// insert adds words[id]; if the word is present already it adds nothing and
// returns the id it has.
func (x *vocabIndex) insert(id int32) (prev int32, dup bool) {
	w := x.words[id]
	k0, k1, k2 := keyOf(w)
	for i := x.hash(k0, k1, k2, w) & x.mask; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.id1 == 0 {
			s.k0, s.k1, s.k2, s.n, s.id1 = k0, k1, k2, slotLen(len(w)), id+1
			return 0, false
		}
		if x.match(s, k0, k1, k2, w) {
			return s.id1 - 1, true
		}
	}
}

// lookup returns the id of w and whether w is in the vocabulary.
func (x *vocabIndex) lookup(w string) (int32, bool) {
	k0, k1, k2 := keyOf(w)
	return x.probe(x.hash(k0, k1, k2, w)&x.mask, k0, k1, k2, w)
}

// probe looks w (with key k0, k1, k2) up from slot i on.
func (x *vocabIndex) probe(i uint64, k0, k1, k2 uint64, w string) (int32, bool) {
	for ; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.id1 == 0 {
			return 0, false
		}
		if x.match(s, k0, k1, k2, w) {
			return s.id1 - 1, true
		}
	}
}

// match reports whether the occupied slot s holds w (with key k0, k1, k2).
func (x *vocabIndex) match(s *vocabSlot, k0, k1, k2 uint64, w string) bool {
	if s.k0 != k0 || s.k1 != k1 || s.k2 != k2 || s.n != slotLen(len(w)) {
		return false
	}
	return len(w) <= vocabInline || x.words[s.id1-1][vocabInline:] == w[vocabInline:]
}

// lookupBatch is the number of words appendIDs hashes and prefetches the
// slots of before it probes any: enough cache misses in flight to keep the
// core's miss buffers busy, few enough keys to keep on the stack.
const lookupBatch = 32

// appendIDs appends the id of every word of words to dst (-1 for a word not
// in the vocabulary), as lookup gives them; words are mostly substrings of
// text (see hashBatch). For each batch of words it hashes every word and
// prefetches its first slot, so that the slots' cache misses are in flight
// together, and then probes each word (one lookup after the other has the
// misses of only as many words in flight as the core's reorder window holds).
func (x *vocabIndex) appendIDs(dst []int32, words []string, text string) []int32 {
	var keys [lookupBatch][3]uint64
	var slot [lookupBatch]int32 // first slots, as uint32 (a table has at most 1<<32)
	for len(words) > 0 {
		batch := words[:min(len(words), lookupBatch)]
		x.hashBatch(&keys, &slot, batch, text)
		// A slot number of 1<<31 or more reads as negative: not prefetched.
		prefetch.Rows(unsafe.Pointer(unsafe.SliceData(x.slots)), unsafe.Sizeof(vocabSlot{}), unsafe.Sizeof(vocabSlot{}), slot[:len(batch)])
		for k, w := range batch {
			k0, k1, k2 := keys[k][0], keys[k][1], keys[k][2]
			i := uint64(uint32(slot[k]))
			if s := &x.slots[i]; s.id1 != 0 && s.k0 == k0 && s.k1 == k1 && s.k2 == k2 && s.n == uint32(len(w)) && len(w) <= vocabInline {
				dst = append(dst, s.id1-1) // found in its first slot (match, inline)
				continue
			}
			id, ok := x.probe(i, k0, k1, k2, w)
			if !ok {
				id = -1
			}
			dst = append(dst, id)
		}
		words = words[len(batch):]
	}
	return dst
}

// hashBatch writes the key of every word of batch (at most lookupBatch) to
// keys and its first slot to slot. A word is usually a substring of text:
// when text holds vocabInline bytes from the word's start on, its key is
// loaded without a branch on its length, the bytes past the word masked off
// (keyOf's switch on the length mispredicts on every other word of real
// text). Everything is inline (x.mix ^ x.tail is x.hash).
func (x *vocabIndex) hashBatch(keys *[lookupBatch][3]uint64, slot *[lookupBatch]int32, batch []string, text string) {
	base := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	for k, w := range batch {
		var k0, k1, k2 uint64
		off := uintptr(unsafe.Pointer(unsafe.StringData(w))) - base
		if n := len(w); n != 0 && off <= uintptr(len(text)) && uintptr(len(text))-off >= vocabInline {
			b := text[off : off+vocabInline]
			k0, k1, k2 = asciiscan.LE64(b)&byteMask(n), asciiscan.LE64(b[8:])&byteMask(n-8), asciiscan.LE64(b[16:])&byteMask(n-16)
		} else {
			k0, k1, k2 = keyOf(w) // not in text, or too near its end
		}
		keys[k] = [3]uint64{k0, k1, k2}
		slot[k] = int32(uint32((x.mix(k0, k1, k2, len(w)) ^ x.tail(w)) & x.mask))
	}
}
