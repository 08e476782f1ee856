package memory

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// CountPassage counts one passage of the collection whose tokens are words
// (a word occurring several times counts once): the passage count and the
// document frequency of each word grow by one, durably as Remember's changes.
// Empty, too long or invalid UTF-8 words, and new words beyond
// MaxDocFreqWords, are not counted (Stats.DocFreqRejected). When the log
// write fails, nothing was counted (the counts are taken back from RAM and
// the log cut back), so the passage may be counted again. With SyncAlways a
// failed fsync after a good write also returns an error, but the passage
// stays counted: other writers may have appended after it, so it cannot be
// taken back (a retry counts it twice; see the package documentation).
func (m *Memory) CountPassage(words []string) error {
	return m.CountPassages([][]string{words})
}

// CountPassages counts each element of passages as CountPassage does, all
// in one log write: when the write fails none of them was counted; when
// only the fsync of SyncAlways fails, all of them were.
//
// A passage is counted once: its content hash (PassageHash of its tokens) is
// remembered, and a passage whose hash is remembered counts nothing, so a
// resent or retried passage, or two passages of the same tokens, count once.
// The most recent MaxPassageHashes distinct passages are remembered (oldest
// forgotten first); a passage resent after that many others counts again.
func (m *Memory) CountPassages(passages [][]string) error {
	return m.countPassages(len(passages), nil, func(i int) (uint64, []string, []int32) {
		return PassageHash(passages[i]), passages[i], nil
	})
}

// Passage is a passage identified by its content hash: Hash is PassageHash
// of its tokens, Words are its words (its tokens, or only its distinct ones).
type Passage struct {
	Hash  uint64
	Words []string
}

// CountHashed counts each passage as CountPassages does, identified by its
// Hash rather than by the hash of its Words: a copy of a memory kept
// elsewhere counts a passage stored as its hash and its distinct words as
// the memory that saw its tokens counted it. A Hash of 0 is refused.
func (m *Memory) CountHashed(passages []Passage) error {
	for i, p := range passages {
		if p.Hash == 0 {
			return fmt.Errorf("count passages: passage %d has no content hash", i)
		}
	}
	return m.countPassages(len(passages), nil, func(i int) (uint64, []string, []int32) {
		return passages[i].Hash, passages[i].Words, nil
	})
}

// countPassages counts the n passages passage returns (hash, words and, for
// t, their rows or nil), in one log write, each whose hash is not remembered.
func (m *Memory) countPassages(n int, t *RowTable, passage func(i int) (uint64, []string, []int32)) error {
	if n == 0 {
		return nil
	}
	var before, rejected int64 // the counts before, to take them back
	var added []seenAdd
	var counted [][]string
	return m.change(func(buf []byte, persist bool) ([]byte, int) {
		before, rejected = m.passages, m.dfRejected
		added, counted = added[:0], counted[:0]
		records := 0
		cells := t.cellsLocked(m)
		for i := range n {
			h, words, rows := passage(i)
			if m.seen.contains(h) {
				continue
			}
			old, forgot := m.seen.add(h, m.opts.MaxPassageHashes)
			added = append(added, seenAdd{h, old, forgot})
			counted = append(counted, words)
			var k int
			buf, k = m.countLocked(buf, words, h, persist, cells, rows)
			records += k
		}
		return buf, records
	}, func() {
		m.uncountLocked(counted, before, rejected)
		for i := len(added) - 1; i >= 0; i-- {
			m.seen.undo(added[i].h, added[i].old, added[i].forgot)
		}
	})
}

// seenAdd is one passageSet.add, to take back.
type seenAdd struct {
	h, old uint64
	forgot bool
}

// markSeenLocked remembers passage hashes read from a file.
func (m *Memory) markSeenLocked(hashes ...uint64) {
	for _, h := range hashes {
		if h != 0 && !m.seen.contains(h) {
			m.seen.add(h, m.opts.MaxPassageHashes)
		}
	}
}

// countLocked counts one passage of content hash h and, when persist is
// set, appends its records to buf; it returns buf and the number of records
// appended. rows (nil: none) are the rows of words in cells, a RowTable's
// counters (see cellsLocked).
func (m *Memory) countLocked(buf []byte, words []string, h uint64, persist bool,
	cells []*docCount, rows []int32) ([]byte, int) {
	m.passages++
	dw := docFreqWriter{passages: uint64(m.passages), hash: h, start: -1}
	rejected := 0
	for i, w := range words {
		c := m.counterLocked(w, cells, rowOf(cells, rows, i))
		if c == nil {
			rejected++
			continue
		}
		if c.last == m.passages {
			continue // already counted in this passage
		}
		c.n++
		c.last = m.passages
		if persist {
			buf = dw.add(buf, w, uint64(c.n))
		}
	}
	if rejected > 0 {
		m.dfRejected += int64(countDistinct(words, rejected, m.df))
	}
	if !persist {
		return buf, 0
	}
	return dw.finish(buf)
}

// counterLocked returns the counter of w, made when the table has room and
// w is countable (nil: w is not counted). row (-1: none) is w's row in
// cells, a RowTable's counters, which it fills.
func (m *Memory) counterLocked(w string, cells []*docCount, row int32) *docCount {
	if row >= 0 && cells[row] != nil {
		return cells[row]
	}
	c := m.df[w]
	if c == nil {
		if len(m.df) >= m.opts.MaxDocFreqWords || !m.countable(w) {
			return nil
		}
		c = &docCount{}
		m.df[strings.Clone(w)] = c // never pin the caller's text
	}
	if row >= 0 {
		cells[row] = c
	}
	return c
}

// uncountLocked takes back the counting of passages, whose log write failed:
// the passage count and the rejected count return to before and rejected,
// and each word loses one per passage that holds it. A word's entry exists
// after counting only if it was counted in every one of those passages (the
// table never shrinks while counting); one left at zero is removed. Its last
// passage is reset, as the next passage counted reuses the numbers.
func (m *Memory) uncountLocked(passages [][]string, before, rejected int64) {
	seen := make(map[string]struct{})
	for _, words := range passages {
		clear(seen)
		for _, w := range words {
			c := m.df[w]
			if _, dup := seen[w]; dup || c == nil {
				continue
			}
			seen[w] = struct{}{}
			c.n--
			c.last = 0
			if c.n <= 0 {
				delete(m.df, w)
				m.dfGen++ // the row tables may hold its counter
			}
		}
	}
	m.passages, m.dfRejected = before, rejected
}

// docCount is the document frequency of one word.
type docCount struct {
	n    int64 // passages containing the word
	last int64 // the passage that counted it last (duplicates in one passage count once)
}

// countDistinct returns the number of distinct words of words that are not in
// df (the rejected ones; rejected is their number with repetitions, so the
// common case of one rejection needs no set).
func countDistinct(words []string, rejected int, df map[string]*docCount) int {
	if rejected == 1 {
		return 1
	}
	seen := make(map[string]struct{}, rejected)
	for _, w := range words {
		if df[w] == nil {
			seen[w] = struct{}{}
		}
	}
	return len(seen)
}

// countable reports whether CountPassage counts word (when there is room).
func (m *Memory) countable(word string) bool {
	return word != "" && len(word) <= m.opts.MaxWordBytes && utf8.ValidString(word)
}

// applyDocFreqLocked applies a recDocFreq record read from a file. Words that
// CountPassage would not count (MaxWordBytes or MaxDocFreqWords lowered since
// the record was written) are skipped, as CountPassage skips them, and
// counted in Stats.DocFreqRejected. A passage
// count lower than the one already read is corruption: the files of one
// memory count passages up, and a smaller count under larger document
// frequencies would weigh words by df > N.
func (m *Memory) applyDocFreqLocked(r record) error {
	if int64(r.passages) < m.passages {
		return fmt.Errorf("%w: passage count %d after %d", errCorrupt, r.passages, m.passages)
	}
	m.passages = int64(r.passages)
	m.markSeenLocked(r.hash)
	for _, x := range r.dfs {
		c := m.df[x.word]
		if c == nil {
			if len(m.df) >= m.opts.MaxDocFreqWords || !m.countable(x.word) {
				m.dfRejected++
				continue
			}
			c = &docCount{}
			m.df[x.word] = c
		}
		c.n = int64(x.df)
	}
	return nil
}

// DocFreqs writes to dst[i] the number of counted passages that contain
// words[i] (0 for a word never counted) and returns the number of passages.
// dst must be at least as long as words.
func (m *Memory) DocFreqs(dst []int64, words []string) (passages int64) {
	return m.DocFreqsRows(dst, words, nil, nil)
}

// DocFreqsRows is DocFreqs for words whose rows in t are rows (see
// RowTable); with t nil, or a table of another memory, it is DocFreqs.
func (m *Memory) DocFreqsRows(dst []int64, words []string, t *RowTable, rows []int32) (passages int64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.passages == 0 {
		clear(dst[:len(words)])
		return 0
	}
	cells := t.readCellsLocked(m)
	for i, w := range words {
		var c *docCount
		if row := rowOf(cells, rows, i); row >= 0 {
			c = cells[row]
		}
		if c == nil {
			c = m.df[w]
		}
		if c != nil {
			dst[i] = c.n
		} else {
			dst[i] = 0
		}
	}
	return m.passages
}
