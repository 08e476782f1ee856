package weaviatemem

import (
	"maps"
	"slices"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// The RAM of a copy beyond its budget bytes, estimated per item as
// measured (deploy's TestStatelessServeMemoryHoldsBudget for the counts):
// the most per entry between 300,000 and 2,000,000 entries, as the tables
// are Go maps whose bytes per entry depend on how far they are from their
// next doubling (a word 118–137 B, a hash 33–48 B: budget_test.go).
const (
	// docFreqWordBytes is a word's passage count (memory.Options.MaxDocFreqWords).
	docFreqWordBytes = 138
	// passageHashBytes is a counted passage's hash (memory.Options.MaxPassageHashes).
	passageHashBytes = 48
)

// capsBytes is the most RAM the capped parts of a copy with options o take:
// its budget, passage counts and passage hashes (a float: caps near the
// largest int64 do not overflow).
func capsBytes(o memory.Options) float64 {
	return float64(o.MaxBytes) + float64(o.MaxDocFreqWords)*docFreqWordBytes + float64(o.MaxPassageHashes)*passageHashBytes
}

// FitCaps scales the budget, passage counts and hashes of o down, in
// proportion, so that they take at most seven eighths of maxBytes (the
// rest is for a copy's AM vectors, at most a sixteenth (amCacheBytes), and
// its keys; the defaults fit in the default MaxBytes as they are): the
// limits a copy of a memory with options o keeps under Options.MaxBytes.
func FitCaps(o *memory.Options, maxBytes int64) {
	reach, room := capsBytes(*o), float64(maxBytes-maxBytes/8)
	if reach <= room {
		return
	}
	scale := func(n int64) int64 { return max(1, int64(float64(n)*(room/reach))) }
	o.MaxBytes = scale(o.MaxBytes)
	o.MaxDocFreqWords = int(scale(int64(o.MaxDocFreqWords)))
	o.MaxPassageHashes = int(scale(int64(o.MaxPassageHashes)))
}

// amCacheBytes bounds the AM vectors a copy caches: a sixteenth of the
// copies' maxBytes (the cache's 16,384 vectors of the default model, 200
// dimensions, each with its word's form, take about 32 MB: from about 515 MB
// on, their number binds first).
func amCacheBytes(maxBytes int64) int64 { return maxBytes / 16 }

// bytes estimates the RAM of the copy (Options.MaxBytes): its budget bytes,
// passage counts and hashes, AM vectors and the keys of the objects and
// passages read, and those of the copy read afresh to replace it, if any.
func (sc *scope) bytes() int64 {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	b := copyBytes(sc.mem, &sc.read.ids) + sc.cache.Bytes()
	if sc.fresh != nil {
		b += sc.fresh.bytes()
	}
	return b
}

// copyBytes estimates the RAM of mem and ids: mem's budget bytes, passage
// counts and hashes, and the keys.
func copyBytes(mem *memory.Memory, ids *idSet) int64 {
	st := mem.Stats()
	return st.BudgetBytes + int64(st.DocFreqWords)*docFreqWordBytes + int64(st.PassageHashes)*passageHashBytes +
		ids.bytes()
}

// usedAt returns when the copy was last used.
func (sc *scope) usedAt() time.Time {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.used
}

// trim drops the least recently used copies while the copies together
// exceed o.MaxBytes; it never drops the most recently used one, a copy not
// read yet (requests wait for it) or, with SharedCounts, the shared copy
// (every passage counts in it). It returns the estimated bytes of the
// copies kept.
func (s *Store) trim() int64 {
	s.mu.Lock()
	scopes := slices.Collect(maps.Values(s.scopes))
	s.mu.Unlock()
	type copySize struct {
		sc    *scope
		used  time.Time
		bytes int64
	}
	sizes, total := make([]copySize, 0, len(scopes)), int64(0)
	for _, sc := range scopes {
		c := copySize{sc, sc.usedAt(), sc.bytes()}
		sizes, total = append(sizes, c), total+c.bytes
	}
	if total <= s.o.MaxBytes {
		return total
	}
	slices.SortFunc(sizes, func(a, b copySize) int { return a.used.Compare(b.used) })
	before, dropped := total, 0
	for _, c := range sizes[:len(sizes)-1] {
		if total <= s.o.MaxBytes {
			break
		}
		if !c.sc.isLoaded() || (s.o.SharedCounts && c.sc.name == "") {
			continue
		}
		if s.drop(c.sc) {
			total -= c.bytes
			dropped++
		}
	}
	if dropped > 0 {
		s.o.Logger.Info("context memory: copies are dropped to keep the copies within their RAM",
			"dropped", dropped, "bytes_before", before, "bytes", total, "max_bytes", s.o.MaxBytes)
	}
	return total
}

// drop forgets the copy sc (read again when next used); false if it was
// dropped already.
func (s *Store) drop(sc *scope) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scopes[sc.name] != sc {
		return false
	}
	s.forget(sc)
	s.dropped++
	return true
}
