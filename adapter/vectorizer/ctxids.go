package vectorizer

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// contextIDBytes bounds the memory of the cache of remembered contexts'
// token ids (both generations together).
const contextIDBytes = 32 << 20

// mapEntryBytes is what a reading's entry costs in a generation's map: its
// key and value (96 bytes) and control byte, at the lowest load a map's
// table has (7/16, just after it grew), or a new generation's map made for
// as many entries as the last one held.
const mapEntryBytes = 224

// readingKey identifies a cached reading: the word, and the memory its
// contexts came from (its address, 0 for a store that is not a
// *memory.Memory), so that local memories holding the same word (a
// collection's and a tenant's) keep a reading each instead of replacing
// each other's. Other stores (copies kept in Weaviate, snapshots) share
// scope 0: one reading per word among them, replaced as they differ. The
// address only keeps readings apart, it never makes one valid: a reading's
// texts are compared with those the store gives, whatever it was read from.
type readingKey struct {
	word  string
	scope uintptr
}

// wordContexts is the reading of one word's remembered contexts: each
// context's text and the base rows of its tokens, the word itself left out,
// as model.ContextIDs gives them. It is never modified once cached.
type wordContexts struct {
	key readingKey // its word the cache's own copy
	ctx []string   // the contexts, in the memory's order
	// ids[:len(ctx)] are where the ids of each context end in ids: those of
	// ctx[i] are ids[ids[i-1]:ids[i]], the first ones start at len(ctx).
	ids []int32
}

// newWordContexts returns an empty reading of n contexts for key, room for
// idCap ids, which shares its copy of the word with old (none: copies it).
func newWordContexts(key readingKey, n, idCap int, old wordContexts) wordContexts {
	if old.key.word != "" {
		key.word = old.key.word
	} else {
		key.word = strings.Clone(key.word) // never the caller's bytes as a key
	}
	return wordContexts{key: key, ctx: make([]string, n), ids: make([]int32, n, n+idCap)}
}

// bytes is what r is charged in the cache: the heap its word, texts and
// ids take, each allocation rounded up as the allocator does, and its map
// entry.
func (r *wordContexts) bytes() int64 {
	n := mapEntryBytes + allocBytes(len(r.key.word)) + allocBytes(16*cap(r.ctx)) + allocBytes(4*cap(r.ids))
	for _, c := range r.ctx {
		n += allocBytes(len(c))
	}
	return n
}

// allocBytes is at least the size of the heap block that holds n bytes:
// n rounded up to 16 bytes, above 256 to an eighth of the next power of
// two, as Go's size classes do at most.
func allocBytes(n int) int64 {
	if n <= 256 {
		return int64(n+15) &^ 15
	}
	step := 1 << (bits.Len(uint(n-1)) - 3)
	return int64(n+step-1) &^ int64(step-1)
}

// contextIDs returns the ids of context i of r.
func (r *wordContexts) contextIDs(i int) []int32 {
	start := int32(len(r.ctx))
	if i > 0 {
		start = r.ids[i-1]
	}
	return r.ids[start:r.ids[i]]
}

// holds reports whether r holds exactly the contexts texts: the same
// strings, or with content, the same bytes.
func (r *wordContexts) holds(texts []string, content bool) bool {
	if len(r.ctx) != len(texts) {
		return false
	}
	for i, c := range r.ctx {
		if !sameString(c, texts[i]) {
			return content && slices.Equal(r.ctx[i:], texts[i:])
		}
	}
	return true
}

// find returns the index of text among r's contexts from j on, -1 if it is
// not there. The same string is looked for first, which reads no bytes of
// the texts (a memory hands out its own strings each time, so the same
// string is the same context); with content, the same bytes at j and just
// after (a copy of the memory's contexts keeps their order, inserting and
// dropping some as the memory learns).
func (r *wordContexts) find(text string, j int, content bool) int {
	for k := j; k < len(r.ctx); k++ {
		if sameString(r.ctx[k], text) {
			return k
		}
	}
	for k := j; content && k < min(j+2, len(r.ctx)); k++ {
		if r.ctx[k] == text {
			return k
		}
	}
	return -1
}

// sameString reports whether a and b are the same bytes in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// contextIDCache keeps, by word, the reading of the word's remembered
// contexts (wordContexts), so that an inference does not tokenize them and
// look their words up in the vocabulary again each time: only the contexts
// the memory added since the last reading are tokenized. A reading depends
// only on the contexts' texts, the word, the tokenizer and the vocabulary,
// and the texts are compared with those the memory gives, so an entry is
// never stale, whatever the memory did since (a reload, an eviction, a
// clear). It holds two generations: lookups read the current one and then
// the previous one (a hit there moves the entry to the current one); when
// the current one reaches half the budget, it becomes the previous one and
// the one before is dropped, so the cache keeps what was used lately,
// within limit bytes in all. Safe for concurrent use; it keeps copies of the
// words and texts it is given unless told that a text is the memory's own
// (never the caller's, a request body's, memory).
type contextIDCache struct {
	mu        sync.Mutex
	cur, prev map[readingKey]wordContexts // by value: no object of its own per word
	curBytes  int64
	half      int64 // bytes per generation
}

func newContextIDCache(limit int64) *contextIDCache {
	return &contextIDCache{cur: make(map[readingKey]wordContexts), half: limit / 2}
}

// get returns the reading cached for key and whether there is one; the
// caller must not modify its slices.
func (c *contextIDCache) get(key readingKey) (wordContexts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.cur[key]; ok {
		return r, true
	}
	r, ok := c.prev[key]
	if ok {
		c.insertLocked(r)
	}
	return r, ok
}

// put stores r, which the cache now owns, as the reading of r.key.
func (c *contextIDCache) put(r wordContexts) {
	if r.bytes() > c.half {
		return // a reading larger than a generation is not worth a generation
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.cur[r.key]; ok {
		c.curBytes -= old.bytes()
	}
	c.insertLocked(r)
}

// insertLocked sets r as its key's reading in the current generation,
// starting a new generation first when it would not fit.
func (c *contextIDCache) insertLocked(r wordContexts) {
	n := r.bytes()
	if c.curBytes+n > c.half {
		c.prev, c.cur, c.curBytes = c.cur, make(map[readingKey]wordContexts, len(c.cur)), 0
	}
	c.cur[r.key] = r
	c.curBytes += n
}
