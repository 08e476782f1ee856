package weaviatemem

import (
	"fmt"
	"sync"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
)

// counters count events by kind.
type counters struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *counters) add(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int64)
	}
	c.n[kind]++
}

func (c *counters) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.n))
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// Stats describe the store: the sum of its copies' memories and the state
// of each.
func (s *Store) Stats() memstore.Stats {
	s.mu.Lock()
	scopes := make([]*scope, 0, len(s.scopes))
	for _, sc := range s.scopes {
		scopes = append(scopes, sc)
	}
	ready, err, dropped, past, factor := s.ready, s.err, s.dropped, s.past, s.factor
	s.mu.Unlock()
	r := &memstore.RemoteStats{URL: s.base, Class: s.o.Class, Replicas: factor, ReplicasAsked: s.o.Replicas, State: "ready",
		Scopes: make(map[string]memstore.ScopeStats, len(scopes)), QueuedWrites: len(s.queue),
		Written: s.written.Load(), WriteErrors: s.writeErrors.Load(), Refreshes: s.refreshes.snapshot(),
		MaxBytes: s.o.MaxBytes, Dropped: dropped}
	var sum memory.Stats
	addEvents(&sum, past)
	for _, sc := range scopes {
		r.Scopes[sc.name] = sc.stats()
		if !sc.isLoaded() {
			r.State = "loading"
		}
		addStats(&sum, sc.memStats())
		r.Bytes += sc.bytes()
	}
	switch {
	case !ready:
		r.State = "loading"
	case err != nil && r.State == "ready":
		r.State = "stale"
	}
	if err != nil {
		r.Error = err.Error()
	}
	if factor != 0 && s.o.Replicas != 0 && factor != s.o.Replicas {
		r.ReplicasWarning = fmt.Sprintf("collection %s keeps its replication factor %d, not the %d asked: "+
			"an existing collection keeps its own", s.o.Class, factor, s.o.Replicas)
	}
	sum.ReadOnly, sum.Sync = s.o.ReadOnly, ""
	return memstore.Stats{Backend: memstore.BackendWeaviate, Memory: sum, Remote: r}
}

// addStats adds the sizes and counts of st to sum.
func addStats(sum *memory.Stats, st memory.Stats) {
	sum.Words += st.Words
	sum.Contexts += st.Contexts
	sum.Passages += st.Passages
	sum.DocFreqWords += st.DocFreqWords
	sum.ContextBytes += st.ContextBytes
	sum.BudgetBytes += st.BudgetBytes
	sum.PassageHashes += st.PassageHashes
	addEvents(sum, st)
}

// addEvents adds to sum the counts of events of st, those a memory counts
// from its Open: the store keeps the counts of the copies it dropped or
// replaced, so that its counts only grow.
func addEvents(sum *memory.Stats, st memory.Stats) {
	sum.DocFreqRejected += st.DocFreqRejected
	sum.Evicted += st.Evicted
	sum.EvictedContexts += st.EvictedContexts
	sum.Offered += st.Offered
	sum.Rejected += st.Rejected
}

// setFactor records the collection's replication factor as read from
// Weaviate's schema or created (0: not known, kept as it was).
func (s *Store) setFactor(factor int) {
	if factor == 0 {
		return
	}
	s.mu.Lock()
	s.factor = factor
	s.mu.Unlock()
}
