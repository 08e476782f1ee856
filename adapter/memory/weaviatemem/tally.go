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
type tally struct {
	recent map[uuid.UUID]seen
	count  int64
	digest uint64
}

// seen is an object in a tally's recent ids: its creation time (ms; for a
// server's own write, the server's clock when it was written) and whether
// it is counted (read from Weaviate) or only written by this server.
type seen struct {
	at      int64
	counted bool
}

func newTally() tally { return tally{recent: make(map[uuid.UUID]seen)} }

// add adds to mem the objects it does not hold yet; read objects are
// counted once. own says the objects are this server's writes, added to
// mem before Weaviate lists them and counted when it does.
func (t *tally) add(mem *memory.Memory, objs []object, own bool) error {
	var obs []memory.Observation
	var ps []memory.Passage
	for _, o := range objs {
		s, ok := t.recent[o.id]
		if ok && (s.counted || own) {
			continue
		}
		if !own {
			t.count++
			t.digest += o.key()
		}
		t.recent[o.id] = seen{at: max(o.at, s.at), counted: !own}
		switch {
		case ok, o.bad: // a write of this server's read back: mem has it
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
	for id, s := range t.recent {
		if s.at < floor {
			delete(t.recent, id)
		}
	}
}

// version is ScopeStats.Version: the objects counted and their digest.
func (t *tally) version() string { return fmt.Sprintf("%d-%016x", t.count, t.digest) }
