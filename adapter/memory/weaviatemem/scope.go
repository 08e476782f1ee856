package weaviatemem

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// scope is this server's copy of one scope's memory.
type scope struct {
	name       string // "", "Class" or "Class/tenant"
	tenant     string // the Weaviate tenant holding it
	opts       memory.Options
	cacheBytes int64         // the bound of cache (amCacheBytes)
	loaded     chan struct{} // closed after the first full read
	// teach: the scope's tenant may be created, before its first read. A
	// scope is taught (Teach, a passage) or named at Open; one a query
	// found a tenant of is not, so that only teaching creates tenants.
	teach atomic.Bool

	// reading is held while the refresh loop reads the scope; deleted,
	// set under it, keeps the loop from reading (and so creating the
	// tenant of) a scope whose memory was deleted.
	reading sync.Mutex
	deleted bool

	mu        sync.RWMutex
	mem       *memory.Memory
	cache     *vectorizer.Cache // AM vectors of mem's versions
	read      tally             // the objects read
	newest    int64             // the newest creation time read (ms)
	since     int64             // the next incremental read starts here (ms, before the lookback)
	lookback  int64             // Options.Lookback (ms)
	refreshed time.Time
	used      time.Time
	full      bool // the next refresh reads every object
	lastFull  time.Time
	// noIncremental: until then reads are full ones, at most every
	// fullReadEvery (Weaviate refused the incremental query, or answered
	// it with creation times that order nothing).
	noIncremental time.Time
	fresh         *freshCopy   // the copy read afresh that replaces mem once read (nil: none)
	past          memory.Stats // the events counted by the copies mem replaced (addEvents)
}

// newScope returns an empty copy of the scope name with the options of o.
func newScope(name string, o Options) (*scope, error) {
	sc := &scope{name: name, tenant: tenantName(name), opts: o.Memory, cacheBytes: amCacheBytes(o.MaxBytes),
		loaded: make(chan struct{}), used: time.Now(), lookback: o.Lookback.Milliseconds()}
	var err error
	if sc.mem, err = memory.Open("", sc.opts); err != nil {
		return nil, err
	}
	sc.cache = vectorizer.NewBoundedCache(sc.cacheBytes)
	return sc, nil
}

// isLoaded reports whether the first full read is done.
func (sc *scope) isLoaded() bool {
	select {
	case <-sc.loaded:
		return true
	default:
		return false
	}
}

// current returns the copy and its cache, and marks the scope used.
func (sc *scope) current() (*memory.Memory, *vectorizer.Cache) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.used = time.Now()
	return sc.mem, sc.cache
}

// memStats returns the copy's statistics, its counts of events including
// those of the copies it replaced, without marking the scope used, so that
// reading them (/meta, metrics) leaves the least recently used scope as it
// is.
func (sc *scope) memStats() memory.Stats {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	st := sc.mem.Stats()
	addEvents(&st, sc.past)
	return st
}

// apply adds the objects not in the copy yet (own says they are this
// server's writes, which a copy being read afresh gets too; newest is the
// newest creation time among them, 0 if unknown).
func (sc *scope) apply(objs []object, own bool, newest int64) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if own && sc.fresh != nil {
		sc.fresh.addOwn(objs)
	}
	sc.newest = max(sc.newest, newest)
	return sc.read.add(sc.mem, objs)
}

// objects returns the objects the copy counted.
func (sc *scope) objects() int64 {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.read.count
}

// knows reports whether the copy counted the object of id already.
func (sc *scope) knows(id string) bool {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.read.knows(id)
}

// caughtUp ends a full read into the copy: since is where the next
// incremental read starts.
func (sc *scope) caughtUp(since int64) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.since, sc.full, sc.lastFull, sc.refreshed = since, false, time.Now(), time.Now()
	sc.closeLoaded()
}

// markLoaded ends the wait for the first read.
func (sc *scope) markLoaded() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.closeLoaded()
}

// closeLoaded closes sc.loaded unless it is closed. sc.mu must be held.
func (sc *scope) closeLoaded() {
	select {
	case <-sc.loaded:
	default:
		close(sc.loaded)
	}
}

// freshCopy is a copy being read from every object, to replace one that
// may hold objects Weaviate no longer has. Its own lock guards it: the
// refresh loop fills it while the scope's writes add to it.
type freshCopy struct {
	mu     sync.Mutex
	mem    *memory.Memory
	read   tally
	newest int64
	err    error // the first failure to add a write (the copy is then dropped)
}

// add adds a page of objects read, of which newest was created last.
func (r *freshCopy) add(objs []object, newest int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.newest = max(r.newest, newest)
	return r.read.add(r.mem, objs)
}

// knows reports whether the copy counted the object of id already.
func (r *freshCopy) knows(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read.knows(id)
}

// addOwn adds the server's own writes.
func (r *freshCopy) addOwn(objs []object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.read.add(r.mem, objs); err != nil && r.err == nil {
		r.err = err
	}
}

// bytes estimates the RAM of the copy.
func (r *freshCopy) bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return copyBytes(r.mem, &r.read.ids)
}

// beginFresh starts a copy read afresh, which the server's own writes from
// now on go to as well.
func (sc *scope) beginFresh() (*freshCopy, error) {
	mem, err := memory.Open("", sc.opts)
	if err != nil {
		return nil, err
	}
	r := &freshCopy{mem: mem}
	sc.mu.Lock()
	sc.fresh = r
	sc.mu.Unlock()
	return r, nil
}

// endFresh replaces the copy by r, read in full unless failed is set;
// since is where the next incremental read starts.
func (sc *scope) endFresh(r *freshCopy, failed error, since int64) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.fresh = nil
	if failed != nil {
		return failed
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return fmt.Errorf("add the own writes to the copy read in full: %w", r.err)
	}
	addEvents(&sc.past, sc.mem.Stats())
	sc.mem, sc.read, sc.newest = r.mem, r.read, r.newest
	sc.cache = vectorizer.NewBoundedCache(sc.cacheBytes) // versions of another memory
	sc.since, sc.full, sc.lastFull, sc.refreshed = since, false, time.Now(), time.Now()
	return nil
}

// stats describe the copy.
func (sc *scope) stats() memstore.ScopeStats {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	st := sc.mem.Stats()
	return memstore.ScopeStats{Tenant: sc.tenant, Objects: sc.read.count, Version: sc.read.version(),
		Passages: st.Passages, Contexts: st.Contexts, Refreshed: sc.refreshed}
}
