package weaviatemem

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// tally is what a copy has read: the keys of the objects read (or written
// by this server), their number and their sum (the digest of
// ScopeStats.Version), and the keys of the passages counted. Every object
// is counted once, whenever it was created and however often it is listed
// or written again, so a copy's version is a function of the set of
// objects it read: two copies that read the same objects have the same
// version. Every passage is counted once, however many objects carry it
// and in whatever order they are read, so that two such copies hold the
// same passage counts too.
type tally struct {
	ids    idSet
	count  int64
	digest uint64
}

// add adds to mem the objects it has not counted yet, and counts them. A
// server's own writes are added and counted once Weaviate has them, so that
// its copy, its count and its digest move together; read back, they are
// among the ids. A context or passage that two objects carry (a lesson
// written again in another grouping) changes mem once: a word keeps the
// contexts of smallest hash, and a passage is counted only when its key
// (passageKey) joins the ids, which keep it however many passages were
// counted since (mem remembers only the most recent hashes).
func (t *tally) add(mem *memory.Memory, objs []object) error {
	var ps []memory.Passage
	for _, o := range objs {
		k := o.key()
		if !t.ids.insert(k) {
			continue
		}
		t.count++
		t.digest += k
		if err := mem.RememberAt(o.obs, o.created); err != nil {
			return fmt.Errorf("copy contexts: %w", err)
		}
		for _, p := range o.ps {
			if t.ids.insert(passageKey(p.Hash)) {
				ps = append(ps, p)
			}
		}
	}
	if err := mem.CountHashed(ps); err != nil {
		return fmt.Errorf("copy passages: %w", err)
	}
	return nil
}

// knows reports whether t counted the object of id, as Weaviate lists it.
func (t *tally) knows(id string) bool {
	k, ok := idKey(id)
	return ok && t.ids.contains(k)
}

// passageKey is the 64-bit key of the passage of content hash h among a
// tally's ids: the key of an id of its own name space ("counted passage"),
// which no object of the memory has.
func passageKey(h uint64) uint64 {
	return object{id: uuid.NewSHA1(idSpace, []byte("counted passage\x00"+hashString(h)))}.key()
}

// version is ScopeStats.Version: the objects counted and their digest.
func (t *tally) version() string { return fmt.Sprintf("%d-%016x", t.count, t.digest) }

// The RAM of an idSet, measured (TestIDSetBytes): a key of the sorted
// slice takes 8 bytes; a key of the map of recent ones at most 37 (a Go
// map[uint64]struct{} of 1,000 to 2,000,000 keys measured 23.6 to 36.9
// bytes a key).
const (
	sortedIDBytes = 8
	recentIDBytes = 37
)

// minRecentIDs is the least number of recent keys merged into the sorted ones.
const minRecentIDs = 4096

// idSet is an exact set of 64-bit keys (of objects and passages): the sorted keys and a map of
// the recent ones, merged into them once it holds a sixteenth as many (at
// least minRecentIDs). A key costs about 10 bytes (bytes), and lookups
// are a map access and a binary search.
type idSet struct {
	sorted []uint64
	recent map[uint64]struct{}
}

// insert adds k; false if the set holds it already.
func (s *idSet) insert(k uint64) bool {
	if s.contains(k) {
		return false
	}
	if s.recent == nil {
		s.recent = make(map[uint64]struct{})
	}
	s.recent[k] = struct{}{}
	if len(s.recent) >= max(minRecentIDs, len(s.sorted)/16) {
		s.merge()
	}
	return true
}

// contains reports whether the set holds k.
func (s *idSet) contains(k uint64) bool {
	_, ok := s.recent[k]
	if !ok {
		_, ok = slices.BinarySearch(s.sorted, k)
	}
	return ok
}

// merge moves the recent keys into the sorted ones.
func (s *idSet) merge() {
	add := make([]uint64, 0, len(s.recent))
	for k := range s.recent {
		add = append(add, k)
	}
	slices.Sort(add)
	out := make([]uint64, 0, len(s.sorted)+len(add))
	i, j := 0, 0
	for i < len(s.sorted) && j < len(add) {
		if s.sorted[i] < add[j] {
			out, i = append(out, s.sorted[i]), i+1
		} else {
			out, j = append(out, add[j]), j+1
		}
	}
	out = append(append(out, s.sorted[i:]...), add[j:]...)
	s.sorted, s.recent = out, nil
}

// bytes estimates the RAM of the set (Options.MaxBytes).
func (s *idSet) bytes() int64 {
	return int64(len(s.sorted))*sortedIDBytes + int64(len(s.recent))*recentIDBytes
}
