package vectorizer

import "errors"

// Cache holds AM vectors by word and context version for vectorizers made by
// WithStores: share one among the vectorizers whose stores give versions of
// the same memory (a version names one state of a word's contexts only
// within one memory). It is safe for concurrent use.
type Cache struct{ c *amCache }

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{c: newAMCache()} }

// NewBoundedCache returns an empty cache that holds at most maxBytes, as
// Bytes estimates them (maxBytes ≤ 0: no bound but the number of vectors).
func NewBoundedCache(maxBytes int64) *Cache {
	c := newAMCache()
	c.limit = max(maxBytes, 0)
	return &Cache{c: c}
}

// Bytes estimates the RAM the cache holds: at most 16,384 vectors, each with
// its word's form (both its dimensions × 4 bytes, as allocated), its word and
// about 160 bytes more, and at most the bound of a NewBoundedCache.
func (c *Cache) Bytes() int64 {
	c.c.mu.Lock()
	defer c.c.mu.Unlock()
	return c.c.bytes
}

func newAMCache() *amCache { return &amCache{entries: make(map[cacheKey]cacheEntry)} }

// WithStores returns a vectorizer that shares v's model, options and
// precomputed tables but reads and writes the contexts in store and the
// passage counts in df: for example a collection's memory, or a read-only
// copy of a memory kept in Weaviate. It does no per-row work, so it is cheap
// enough to make per request. cache (nil: a new one) keeps its AM vectors;
// its counts of words, inferences and cache lookups add to v's (Stats).
func (v *Vectorizer) WithStores(store ContextStore, df DocFreqStore, cache *Cache) (*Vectorizer, error) {
	if store == nil || df == nil {
		return nil, errors.New("vectorizer with stores: want a context store and a document-frequency store")
	}
	if cache == nil {
		cache = NewCache()
	}
	c := &Vectorizer{
		m:         v.m,
		base:      v.base,
		tok:       v.tok,
		store:     store,
		opts:      v.opts,
		dim:       v.dim,
		hasCounts: v.hasCounts,
		total:     v.total,
		rows:      v.rows,
		common:    v.common,
		charScale: v.charScale,
		seen:      v.seen,
		chars:     v.chars,
		cache:     cache.c,
		cnt:       v.cnt,
		ctxCache:  v.ctxCache, // a reading of contexts depends on the model only
		pool:      v.pool,     // so does a work
		arenas:    v.arenas,   // and a parse arena
		df:        df,
		dfInStore: true,
	}
	c.ctxScope = readingScope(store)
	return c, nil
}
