package model

import "hash/maphash"

// vocabInline is the longest word a vocabulary slot holds in place; a longer
// word is compared with its entry of Words.
const vocabInline = 23

// vocabSlot is one slot of a vocabIndex: 32 bytes, so that a slot never
// straddles a cache line and a lookup of a word of up to 23 bytes touches one
// line (the tag, the id and the word's bytes together).
type vocabSlot struct {
	tag uint32            // the hash's upper 32 bits
	id1 int32             // id + 1; 0: the slot is empty
	key [vocabInline]byte // the word, when n ≤ vocabInline
	n   uint8             // the word's length, or vocabLong
}

// vocabLong marks a slot whose word is longer than vocabInline.
const vocabLong = 0xFF

// vocabIndex maps the words of a vocabulary to their ids: an open-addressing
// table with linear probing at a load of at most 5/8. It replaces a
// string-keyed Go map, whose lookup of a word on a large vocabulary is three
// dependent cache misses (control word, key header, key bytes); here it is
// one for words of up to 23 bytes.
type vocabIndex struct {
	seed  maphash.Seed
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
	return &vocabIndex{
		seed:  maphash.MakeSeed(),
		mask:  uint64(size - 1),
		slots: make([]vocabSlot, size),
		words: words,
	}
}

// insert adds words[id]; if the word is present already it adds nothing and
// returns the id it has.
func (x *vocabIndex) insert(id int32) (prev int32, dup bool) {
	w := x.words[id]
	h := maphash.String(x.seed, w)
	tag := uint32(h >> 32)
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.id1 == 0 {
			s.tag, s.id1 = tag, id+1
			if len(w) <= vocabInline {
				s.n = uint8(copy(s.key[:], w))
			} else {
				s.n = vocabLong
			}
			return 0, false
		}
		if s.tag == tag && x.match(s, w) {
			return s.id1 - 1, true
		}
	}
}

// lookup returns the id of w and whether w is in the vocabulary.
func (x *vocabIndex) lookup(w string) (int32, bool) {
	h := maphash.String(x.seed, w)
	tag := uint32(h >> 32)
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.id1 == 0 {
			return 0, false
		}
		if s.tag == tag && x.match(s, w) {
			return s.id1 - 1, true
		}
	}
}

// match reports whether the occupied slot s holds w.
func (x *vocabIndex) match(s *vocabSlot, w string) bool {
	if s.n == vocabLong {
		return len(w) > vocabInline && x.words[s.id1-1] == w
	}
	return int(s.n) == len(w) && string(s.key[:s.n]) == w
}
