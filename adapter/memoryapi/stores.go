package memoryapi

import (
	"sync"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// view is a read-only snapshot of what the holder answered for one request:
// the vectorizer's ContextStore and DocFreqStore for that request.
type view struct {
	epoch    string
	passages int64
	df       map[string]int64
	ctx      map[string]Contexts
}

func (v *view) Remember([]memory.Observation) error { return memory.ErrReadOnly }
func (v *view) ReadOnly() bool                      { return true }
func (v *view) CountPassage([]string) error         { return memory.ErrReadOnly }

func (v *view) Contexts(dst []string, word string) ([]string, uint64) {
	c := v.ctx[word]
	return append(dst, c.Contexts...), c.Version
}

func (v *view) DocFreqs(dst []int64, words []string) int64 {
	if v.passages == 0 {
		clear(dst[:len(words)])
		return 0
	}
	for i, w := range words {
		dst[i] = v.df[w]
	}
	return v.passages
}

// contextCache keeps the contexts the holder sent, by word, so that a
// lookup only transfers the contexts that changed since. It is dropped when
// the holder's epoch changes and when it is full.
type contextCache struct {
	mu    sync.Mutex
	epoch string
	words map[string]Contexts
	max   int
}

// have returns the version cached for word (0: none).
func (c *contextCache) have(word string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.words[word].Version
}

// resolve completes an answer with the cached contexts of the words whose
// version did not change, and caches the new ones. It reports false when a
// word's contexts are neither in the answer nor in the cache (the cache was
// dropped meanwhile): the caller asks again without versions.
func (c *contextCache) resolve(epoch string, q []ContextQuery, a []Contexts) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		c.epoch, c.words = epoch, nil
	}
	if c.words == nil || len(c.words)+len(q) > c.max {
		c.words = make(map[string]Contexts)
	}
	ok := true
	for i, cq := range q {
		switch {
		case a[i].Version == 0:
			delete(c.words, cq.Word)
		case cq.Have != 0 && a[i].Version == cq.Have && a[i].Contexts == nil:
			cached, hit := c.words[cq.Word]
			if !hit || cached.Version != cq.Have {
				ok = false
				continue
			}
			a[i] = cached
		default:
			c.words[cq.Word] = a[i]
		}
	}
	return ok
}
