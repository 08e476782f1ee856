package weaviatemem

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// tally is what a copy has read: the number of objects and the sum of their
// keys (the digest of ScopeStats.Version), and the ids of the objects read
// or written lately, which the next incremental read may list again.
//
// recent holds only the objects created at or after the start of the next
// incremental read (prune drops the others), so it is bounded by the
// objects created within Options.Lookback and a refresh period, not by the
// objects of the tenant. An object is counted once while its id is in
// recent; Weaviate gives an object written again a new creation time, so
// one written again after its id left recent (a context of a word a copy
// had evicted, a passage whose hash a copy had forgotten) is counted again.
// So is a server's own write read back later than the lookback.
type tally struct {
	recent map[uuid.UUID]int64 // id → creation time (ms; for a write of this server's, its clock)
	count  int64
	digest uint64
}

func newTally() tally { return tally{recent: make(map[uuid.UUID]int64)} }

// add adds to mem the objects not among the recent ids, and counts them.
// A server's own writes are added and counted once Weaviate has them, so
// that its copy, its count and its digest move together; read back, they
// are among the recent ids.
func (t *tally) add(mem *memory.Memory, objs []object) error {
	var obs []memory.Observation
	var ps []memory.Passage
	for _, o := range objs {
		if _, ok := t.recent[o.id]; ok {
			continue
		}
		t.recent[o.id] = o.at
		t.count++
		t.digest += o.key()
		switch {
		case o.bad:
		case o.passage:
			ps = append(ps, o.p)
		default:
			obs = append(obs, o.obs)
		}
	}
	if err := mem.Remember(obs); err != nil {
		return fmt.Errorf("copy contexts: %w", err)
	}
	if err := mem.CountHashed(ps); err != nil {
		return fmt.Errorf("copy passages: %w", err)
	}
	return nil
}

// prune forgets the ids of the objects created before floor (ms): no
// incremental read lists them again.
func (t *tally) prune(floor int64) {
	for id, at := range t.recent {
		if at < floor {
			delete(t.recent, id)
		}
	}
}

// version is ScopeStats.Version: the objects counted and their digest.
func (t *tally) version() string { return fmt.Sprintf("%d-%016x", t.count, t.digest) }
