package vectorizer

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// ramDocFreq counts the passages of WeightSIFCollection in RAM for a
// vectorizer without a DocFreqStore. It counts exactly as a memory.Memory in
// RAM with memory.DefaultOptions does (the same caps, the same counts), but
// keeps the counts of base words by row, in the vectorizer's rowMeta (the
// cache line classifying the token read already), so that counting and
// reading a passage of known words costs no string hashing and no other
// cache miss: the rows come from the token classification done anyway.
type ramDocFreq struct {
	v            *Vectorizer // the base vocabulary (ids of words)
	maxWords     int         // distinct words counted at most (memory's MaxDocFreqWords)
	maxWordBytes int         // longer words are not counted (memory's MaxWordBytes)

	mu       sync.RWMutex
	passages int64
	other    map[string]*docCell // words not in the base vocabulary (base words: v.rows[id].df)
	distinct int                 // words counted so far, base and other
}

// docCell is the document frequency of one word.
type docCell struct {
	n    int64 // passages containing the word
	last int64 // the passage that counted it last (a word counts once per passage)
}

// newRAMDocFreq returns the counter of v, which keeps the counts of base
// words in v.rows: one counter per vectorizer.
func newRAMDocFreq(v *Vectorizer) *ramDocFreq {
	o := memory.DefaultOptions()
	return &ramDocFreq{v: v, maxWords: o.MaxDocFreqWords, maxWordBytes: o.MaxWordBytes, other: map[string]*docCell{}}
}

// countable reports whether a word may be counted (memory's rule).
func (r *ramDocFreq) countable(w string) bool {
	return w != "" && len(w) <= r.maxWordBytes && utf8.ValidString(w)
}

// CountPassage counts one passage of words (DocFreqStore).
func (r *ramDocFreq) CountPassage(words []string) error {
	r.countIDs(words, nil)
	return nil
}

// countIDs counts one passage; info, when not nil, holds the base row of
// every word (id -1: not a base word).
func (r *ramDocFreq) countIDs(words []string, info []tokInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passages++
	for i, w := range words {
		c := r.cell(w, r.id(w, info, i))
		if c == nil || c.last == r.passages {
			continue // not countable, or counted already in this passage
		}
		c.n++
		c.last = r.passages
	}
}

// countRead counts one passage, as countIDs does, and writes the document
// frequency of every word to dst as docFreqIDs then would, in one pass under
// one lock; it returns the number of passages.
func (r *ramDocFreq) countRead(dst []int64, words []string, info []tokInfo) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passages++
	for i, w := range words {
		dst[i] = 0
		c := r.cell(w, info[i].id)
		if c == nil {
			continue // not countable: no counter, frequency 0
		}
		if c.last != r.passages { // a word counts once per passage
			c.n++
			c.last = r.passages
		}
		dst[i] = c.n
	}
	return r.passages
}

// cell returns the counter of w (base row id, or -1), adding a counter when
// w is countable and the cap allows; nil when w is not counted.
func (r *ramDocFreq) cell(w string, id int32) *docCell {
	var c *docCell
	if id >= 0 {
		c = &r.v.rows[id].df
		if c.n > 0 {
			return c
		}
	} else if c = r.other[w]; c != nil {
		return c
	}
	if r.distinct >= r.maxWords || !r.countable(w) {
		return nil
	}
	r.distinct++
	if c == nil {
		c = &docCell{}
		r.other[strings.Clone(w)] = c // never pin the caller's text
	}
	return c
}

// id returns the base row of words[i]: from info when given, else looked up.
func (r *ramDocFreq) id(w string, info []tokInfo, i int) int32 {
	if info != nil {
		return info[i].id
	}
	if id, ok := r.v.base.ID(w); ok {
		return id
	}
	return -1
}

// DocFreqs writes the document frequency of every word to dst and returns
// the number of passages (DocFreqStore).
func (r *ramDocFreq) DocFreqs(dst []int64, words []string) int64 {
	return r.docFreqIDs(dst, words, nil)
}

// docFreqIDs is DocFreqs with the base rows of words in info (nil: look up).
func (r *ramDocFreq) docFreqIDs(dst []int64, words []string, info []tokInfo) int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.passages == 0 {
		clear(dst[:len(words)])
		return 0
	}
	for i, w := range words {
		dst[i] = 0
		if id := r.id(w, info, i); id >= 0 {
			dst[i] = r.v.rows[id].df.n
		} else if c := r.other[w]; c != nil {
			dst[i] = c.n
		}
	}
	return r.passages
}
