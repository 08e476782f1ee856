package vectorizer

import (
	"strings"
	"sync"
)

// contextIDBytes bounds the memory of the cache of remembered contexts'
// token ids (both generations together).
const contextIDBytes = 32 << 20

// minCachedContext is the length of the shortest context cached: a shorter
// one (a few words) is tokenized as fast as it is found in the cache.
const minCachedContext = 32

// contextEntryOverhead is what a cached context costs besides its bytes and
// ids: the map entry, the string and slice headers, the allocations' headers.
const contextEntryOverhead = 64

// contextIDCache keeps, for remembered contexts, the base rows of their
// tokens in order (every token the base vocabulary holds, the word the
// context was remembered for included), so that a word's AM inference does
// not tokenize its remembered contexts again each time. A context's ids
// depend only on its text, the tokenizer and the vocabulary, which never
// change for a vectorizer: an entry is never stale, whatever the memory did
// since (a reload, an eviction, a clear). It holds two generations: lookups
// read the current one and then the previous one (a hit there moves the
// entry to the current one); when the current one reaches half the budget,
// it becomes the previous one and the one before is dropped, so the cache
// keeps what was used lately, within limit bytes in all. Safe for
// concurrent use; it keeps copies of the strings it is given, never the
// caller's (a request body's) memory.
type contextIDCache struct {
	mu        sync.Mutex
	cur, prev map[string][]int32
	curBytes  int64
	half      int64 // bytes per generation
}

func newContextIDCache(limit int64) *contextIDCache {
	return &contextIDCache{cur: make(map[string][]int32), half: limit / 2}
}

// entryBytes is what one cached context is charged.
func entryBytes(ctx string, ids []int32) int64 {
	return int64(len(ctx)+4*cap(ids)) + contextEntryOverhead
}

// get returns the ids of ctx, which the caller must not modify.
func (c *contextIDCache) get(ctx string) ([]int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ids, ok := c.cur[ctx]; ok {
		return ids, true
	}
	ids, ok := c.prev[ctx]
	if ok {
		c.insertLocked(strings.Clone(ctx), ids) // never the caller's bytes as a key
	}
	return ids, ok
}

// put stores ids, which the cache now owns, as the ids of a copy of ctx.
func (c *contextIDCache) put(ctx string, ids []int32) {
	if entryBytes(ctx, ids) > c.half {
		return // a context larger than a generation is not worth a generation
	}
	ctx = strings.Clone(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[ctx]; !ok {
		c.insertLocked(ctx, ids)
	}
}

// insertLocked adds ctx to the current generation (ctx already the cache's
// own string), starting a new generation first when it would not fit.
func (c *contextIDCache) insertLocked(ctx string, ids []int32) {
	n := entryBytes(ctx, ids)
	if c.curBytes+n > c.half {
		c.prev, c.cur, c.curBytes = c.cur, make(map[string][]int32, len(c.cur)), 0
	}
	c.cur[ctx] = ids
	c.curBytes += n
}
