package memory

import (
	"hash/maphash"
	"unsafe"
)

// wordStore holds the words with contexts and their bottom-k contexts in a
// layout without Go pointers: the bytes of every word and context in one
// byte arena, each word's contexts as (hash, offset, length) references in
// one reference arena, the words' entries in one slice indexed by id and an
// open-addressing table of ids. The garbage collector marks four objects
// for the whole store, however many words and contexts it holds, and scans
// none of them.
//
// The arenas are append-only: a context's bytes never change after they are
// written, and an arena that runs out of room is rebuilt into a new array
// holding only the live parts (the old one is left to the collector). So the
// strings handed out by word and context, which point into an arena, stay valid
// and unchanged for as long as anyone holds them.
type wordStore struct {
	text    []byte   // the bytes of the words and contexts
	refs    []ctxRef // the contexts of every word: entry.at, .n, .cap
	ents    []entry  // by id; free ids in free
	free    []int32
	table   []int32 // id+1 of a word at its hash's slot or after it (linear probing); 0: empty
	seed    maphash.Seed
	words   int   // live entries
	head    int32 // least recently changed word (-1: none)
	tail    int32 // most recently changed word
	textUse int   // live bytes in text
	refsUse int   // reserved (live) references in refs
}

// ctxRef is one kept context: its hash and its bytes in the text arena.
type ctxRef struct {
	hash uint64
	off  int
	n    int
}

// entry is one word: its bytes, its contexts refs[at:at+n] (room for cap),
// the version of its contexts and its neighbours in the list of words by
// last change.
type entry struct {
	version    uint64
	whash      uint64 // the word's hash in table
	woff       int
	wlen       int
	at         int
	n, cap     int32
	prev, next int32 // -1: none
	live       bool
}

// growth is the room an arena is rebuilt with: its live size times 5/4
// (the heap the store holds stays within 1.25 times what it keeps).
func growth(live, need int) int { return live + live/4 + need + 64 }

func newWordStore() *wordStore {
	return &wordStore{seed: maphash.MakeSeed(), head: -1, tail: -1, table: make([]int32, 16)}
}

// len is the number of words.
func (s *wordStore) len() int { return s.words }

// find returns the id of word, or -1.
func (s *wordStore) find(word string) int32 {
	h := maphash.String(s.seed, word)
	mask := len(s.table) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		id := s.table[i] - 1
		if id < 0 {
			return -1
		}
		if e := &s.ents[id]; e.whash == h && s.word(id) == word {
			return id
		}
	}
}

// word returns the word of id (a view of the arena).
func (s *wordStore) word(id int32) string {
	e := &s.ents[id]
	return s.view(e.woff, e.wlen)
}

// context returns the context of r (a view of the arena).
func (s *wordStore) context(r ctxRef) string { return s.view(r.off, r.n) }

func (s *wordStore) view(off, n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&s.text[off], n)
}

// appendTexts appends the contexts of id to dst (views of the arena).
func (s *wordStore) appendTexts(dst []string, id int32) []string {
	for _, r := range s.contexts(id) {
		dst = append(dst, s.context(r))
	}
	return dst
}

// contexts returns the contexts of id, sorted by (hash, text); the slice is
// valid until the store changes.
func (s *wordStore) contexts(id int32) []ctxRef {
	e := &s.ents[id]
	return s.refs[e.at : e.at+int(e.n)]
}

// add adds word (not in the store) with no contexts, as the most recently
// changed word, and returns its id.
func (s *wordStore) add(word string) int32 {
	if 2*(s.words+1) > len(s.table) {
		s.rehash(2 * len(s.table))
	}
	var id int32
	if n := len(s.free); n > 0 {
		id, s.free = s.free[n-1], s.free[:n-1]
	} else {
		id = int32(len(s.ents))
		s.ents = append(s.ents, entry{})
	}
	off := s.appendText(word)
	s.ents[id] = entry{whash: maphash.String(s.seed, word), woff: off, wlen: len(word), prev: -1, next: -1, live: true}
	s.place(id)
	s.words++
	s.pushBack(id)
	return id
}

// place puts id into the table.
func (s *wordStore) place(id int32) {
	mask := len(s.table) - 1
	i := int(s.ents[id].whash) & mask
	for s.table[i] != 0 {
		i = (i + 1) & mask
	}
	s.table[i] = id + 1
}

// rehash rebuilds the table with size slots (a power of two).
func (s *wordStore) rehash(size int) {
	s.table = make([]int32, size)
	for id := range s.ents {
		if s.ents[id].live {
			s.place(int32(id))
		}
	}
}

// remove deletes word id and its contexts.
func (s *wordStore) remove(id int32) {
	e := &s.ents[id]
	mask := len(s.table) - 1
	i := int(e.whash) & mask
	for s.table[i] != id+1 {
		i = (i + 1) & mask
	}
	// Backward-shift deletion: move later ids of the run into the hole
	// when their home slot is not after it.
	for j := (i + 1) & mask; s.table[j] != 0; j = (j + 1) & mask {
		home := int(s.ents[s.table[j]-1].whash) & mask
		if (j-home)&mask >= (j-i)&mask {
			s.table[i], i = s.table[j], j
		}
	}
	s.table[i] = 0
	s.unlink(id)
	for _, r := range s.contexts(id) {
		s.textUse -= r.n
	}
	s.textUse -= e.wlen
	s.refsUse -= int(e.cap)
	*e = entry{}
	s.free = append(s.free, id)
	s.words--
}

// insert puts the context ctx of hash h at position i of id's contexts.
func (s *wordStore) insert(id int32, i int, h uint64, ctx string) {
	if e := &s.ents[id]; e.n == e.cap {
		s.growRefs(id)
	}
	off := s.appendText(ctx)
	e := &s.ents[id]
	list := s.refs[e.at : e.at+int(e.n)+1]
	copy(list[i+1:], list[i:])
	list[i] = ctxRef{hash: h, off: off, n: len(ctx)}
	e.n++
}

// truncate drops the contexts of id after the first k.
func (s *wordStore) truncate(id int32, k int) {
	e := &s.ents[id]
	for _, r := range s.refs[e.at+k : e.at+int(e.n)] {
		s.textUse -= r.n
	}
	e.n = int32(k)
}

// growRefs gives id room for twice as many contexts at the end of refs.
func (s *wordStore) growRefs(id int32) {
	e := &s.ents[id]
	c := max(2, 2*int(e.cap))
	if len(s.refs)+c > cap(s.refs) {
		s.rebuildRefs(c)
		e = &s.ents[id]
	}
	at := len(s.refs)
	s.refs = s.refs[:at+c]
	copy(s.refs[at:], s.refs[e.at:e.at+int(e.n)])
	s.refsUse += c - int(e.cap)
	e.at, e.cap = at, int32(c)
}

// rebuildRefs moves the live references into a new arena with room for need more.
func (s *wordStore) rebuildRefs(need int) {
	refs := make([]ctxRef, 0, growth(s.refsUse, need))
	for id := range s.ents {
		if e := &s.ents[id]; e.live {
			at := len(refs)
			refs = append(refs, s.refs[e.at:e.at+int(e.cap)]...)
			e.at = at
		}
	}
	s.refs = refs
}

// appendText copies b into the text arena and returns its offset.
func (s *wordStore) appendText(b string) int {
	if len(s.text)+len(b) > cap(s.text) {
		s.rebuildText(len(b))
	}
	off := len(s.text)
	s.text = append(s.text, b...)
	s.textUse += len(b)
	return off
}

// rebuildText copies the live words and contexts into a new arena with
// room for need more bytes.
func (s *wordStore) rebuildText(need int) {
	text := make([]byte, 0, growth(s.textUse, need))
	for id := range s.ents {
		e := &s.ents[id]
		if !e.live {
			continue
		}
		off := len(text)
		text = append(text, s.text[e.woff:e.woff+e.wlen]...)
		e.woff = off
		for k := range s.contexts(int32(id)) {
			r := &s.refs[e.at+k]
			off := len(text)
			text = append(text, s.text[r.off:r.off+r.n]...)
			r.off = off
		}
	}
	s.text = text
}

// pushBack appends id to the list of words by last change.
func (s *wordStore) pushBack(id int32) {
	e := &s.ents[id]
	e.prev, e.next = s.tail, -1
	if s.tail >= 0 {
		s.ents[s.tail].next = id
	} else {
		s.head = id
	}
	s.tail = id
}

// unlink takes id out of the list of words by last change.
func (s *wordStore) unlink(id int32) {
	e := &s.ents[id]
	if e.prev >= 0 {
		s.ents[e.prev].next = e.next
	} else {
		s.head = e.next
	}
	if e.next >= 0 {
		s.ents[e.next].prev = e.prev
	} else {
		s.tail = e.prev
	}
	e.prev, e.next = -1, -1
}

// touch makes id the most recently changed word.
func (s *wordStore) touch(id int32) {
	if s.tail != id {
		s.unlink(id)
		s.pushBack(id)
	}
}
