package memory

import (
	"cmp"
	"container/heap"
	"slices"
)

// recency orders the words for eviction, least recently changed first: by
// the time of their last change (the stamp the caller gave RememberAt, 0
// for Remember) and, of one time, by the order of the changes. It is a
// min-heap of the entries; each entry knows its index.
type recency []*entry

// byChange orders a and b by their last change, least recent first.
func byChange(a, b *entry) int {
	if c := cmp.Compare(a.stamp, b.stamp); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// before reports whether a was changed less recently than b.
func before(a, b *entry) bool { return byChange(a, b) < 0 }

func (r recency) Len() int           { return len(r) }
func (r recency) Less(i, j int) bool { return before(r[i], r[j]) }
func (r recency) Swap(i, j int) {
	r[i], r[j] = r[j], r[i]
	r[i].at, r[j].at = i, j
}

// Push and Pop are heap.Interface's; use heap.Push and heap.Pop.
func (r *recency) Push(x any) {
	e := x.(*entry)
	e.at = len(*r)
	*r = append(*r, e)
}

func (r *recency) Pop() any {
	old := *r
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*r = old[:len(old)-1]
	e.at = -1
	return e
}

// touch marks e changed now, at stamp (or at its last change's, if later).
func (m *Memory) touch(e *entry, stamp int64) {
	m.changes++
	e.seq, e.stamp = m.changes, max(e.stamp, stamp)
	if e.at < 0 {
		heap.Push(&m.recent, e)
	} else {
		heap.Fix(&m.recent, e.at)
	}
}

// leastRecent returns the least recently changed word other than keep, or
// nil.
func (m *Memory) leastRecent(keep *entry) *entry {
	r := m.recent
	if len(r) == 0 || len(r) == 1 && r[0] == keep {
		return nil
	}
	if r[0] != keep {
		return r[0]
	}
	if len(r) == 2 || before(r[1], r[2]) { // keep is the root: the next is one of its children
		return r[1]
	}
	return r[2]
}

// byRecency returns the words least recently changed first.
func (m *Memory) byRecency() []*entry {
	es := slices.Clone(m.recent)
	slices.SortFunc(es, byChange)
	return es
}
