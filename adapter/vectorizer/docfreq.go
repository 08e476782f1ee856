package vectorizer

import "github.com/text2vec-am/text2vec-am/adapter/memory"

// DocFreqStore keeps the collection statistics of WeightSIFCollection: the
// passages counted and, for every word, how many of them contain it.
// *memory.Memory satisfies it (the counts are then persisted with the
// contexts); a vectorizer without such a store counts in a memory of its own
// in RAM (same caps, lost with the vectorizer).
type DocFreqStore interface {
	// CountPassage counts one passage whose tokens are words (a word
	// occurring several times counts once). words is the caller's: its
	// strings may be reused once the call returns (copy what is kept).
	CountPassage(words []string) error
	// DocFreqs writes to dst[i] the number of counted passages containing
	// words[i] and returns the number of passages; len(dst) ≥ len(words).
	DocFreqs(dst []int64, words []string) (passages int64)
}

// collectionWeight is the collection factor b/(b + df(w)/N) of
// WeightSIFCollection: 1 for a word no passage holds (or before any passage).
func collectionWeight(df, docs int64, b float64) float32 {
	if df <= 0 || docs <= 0 {
		return 1
	}
	return float32(b / (b + float64(df)/float64(docs)))
}

// rowDocFreqs is a memory that keeps the counts of WeightSIFCollection,
// with a table that finds the counters of base words by their rows.
type rowDocFreqs struct {
	mem   *memory.Memory
	table *memory.RowTable
}

// newRowDocFreqs returns the row lookups of store when it is a writable
// memory (nil otherwise: a read-only one never counts, so its table would
// stay empty), for a vocabulary of n rows.
func newRowDocFreqs(store ContextStore, n int) *rowDocFreqs {
	mem, ok := store.(*memory.Memory)
	if !ok || mem.ReadOnly() {
		return nil
	}
	return &rowDocFreqs{mem: mem, table: mem.NewRowTable(n)}
}

// appendRows appends the base row of every token of info (-1: none) to dst.
func appendRows(dst []int32, info []tokInfo) []int32 {
	for _, t := range info {
		dst = append(dst, t.id)
	}
	return dst
}
