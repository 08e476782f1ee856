package memory

// RowTable finds the document-frequency counters of words by a caller's
// numbering of them (the rows of a vocabulary), for CountPassagesRows and
// DocFreqsRows: a word found by its row costs no string hashing and no
// probe of the memory's table of all words, whose size would otherwise
// make every lookup dearer as the memory grows. It holds one pointer per
// row (8 bytes), to a counter the memory keeps anyway, filled as the
// words are counted; words outside the numbering (row -1) are looked up by
// their text. Make one per memory and numbering with NewRowTable. A table
// never changes what the memory counts or stores: it only finds counters.
type RowTable struct {
	m     *Memory
	cells []*docCount // the counter of each row's word, nil: not found yet
	gen   uint64      // the memory's dfGen the cells belong to
}

// NewRowTable returns a table for words numbered 0 … rows-1. The caller
// must give every word the same row each time, and distinct words distinct
// rows.
func (m *Memory) NewRowTable(rows int) *RowTable {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return &RowTable{m: m, cells: make([]*docCount, max(rows, 0)), gen: m.dfGen}
}

// CountPassagesRows is CountPassages of passages whose words have the rows
// rows[i] in t (row -1: a word outside the numbering); with t nil, or a
// table of another memory, it is CountPassages.
func (m *Memory) CountPassagesRows(passages [][]string, t *RowTable, rows [][]int32) error {
	return m.countPassages(len(passages), t, func(i int) (uint64, []string, []int32) {
		var r []int32
		if i < len(rows) {
			r = rows[i]
		}
		return PassageHash(passages[i]), passages[i], r
	})
}

// cellsLocked returns t's counters for the memory's writer (nil: no table,
// or one of another memory), forgetting them when a counter left the
// memory since they were filled.
func (t *RowTable) cellsLocked(m *Memory) []*docCount {
	if t == nil || t.m != m {
		return nil
	}
	if t.gen != m.dfGen {
		clear(t.cells)
		t.gen = m.dfGen
	}
	return t.cells
}

// readCellsLocked returns t's counters for a reader holding the read lock
// (nil: none valid; only the writer refills them).
func (t *RowTable) readCellsLocked(m *Memory) []*docCount {
	if t == nil || t.m != m || t.gen != m.dfGen {
		return nil
	}
	return t.cells
}

// rowOf returns the row of word i in cells, -1 when there are no cells or
// the word has no valid row.
func rowOf(cells []*docCount, rows []int32, i int) int32 {
	if cells == nil || i >= len(rows) {
		return -1
	}
	if r := rows[i]; r >= 0 && int(r) < len(cells) {
		return r
	}
	return -1
}
