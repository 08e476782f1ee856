package weaviatemem

import (
	"maps"
	"slices"
	"time"
)

// The RAM of a copy beyond its budget bytes, estimated per item as
// measured (deploy's TestHolderMemoryHoldsBudget for the counts).
const (
	// docFreqWordBytes is a word's passage count (memory.Options.MaxDocFreqWords).
	docFreqWordBytes = 115
	// passageHashBytes is a counted passage's hash (memory.Options.MaxPassageHashes).
	passageHashBytes = 33
	// recentIDBytes is an id of a tally's recent ids (a Go map of a
	// million measured 83.8 bytes an id).
	recentIDBytes = 84
)

// bytes estimates the RAM of the copy (Options.MaxBytes).
func (sc *scope) bytes() int64 {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	st := sc.mem.Stats()
	return st.BudgetBytes + int64(st.DocFreqWords)*docFreqWordBytes + int64(st.PassageHashes)*passageHashBytes +
		int64(len(sc.read.recent))*recentIDBytes
}

// usedAt returns when the copy was last used.
func (sc *scope) usedAt() time.Time {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.used
}

// trim drops the least recently used copies while the copies together
// exceed o.MaxBytes, never the most recently used one; it returns the
// estimated bytes of the copies kept.
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
	for _, c := range sizes[:len(sizes)-1] {
		if total <= s.o.MaxBytes {
			break
		}
		if s.drop(c.sc) {
			total -= c.bytes
			s.o.Logger.Info("context memory: a copy is dropped to keep the copies within their RAM",
				"scope", c.sc.name, "bytes", c.bytes, "max_bytes", s.o.MaxBytes)
		}
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
	delete(s.scopes, sc.name)
	s.dropped++
	return true
}
