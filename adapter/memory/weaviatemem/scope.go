package weaviatemem

import (
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// scope is this server's copy of one scope's memory.
type scope struct {
	name   string // "", "Class" or "Class/tenant"
	tenant string // the Weaviate tenant holding it
	opts   memory.Options
	loaded chan struct{} // closed after the first full read
	failed bool          // the last refresh failed (only the refresh loop uses it)

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
	scanning      bool     // a full read is under way: own writes are kept in pending
	pending       []object // own writes applied during a full read
	// imported is what Options.Witness counted before the last full read
	// (or since, while lost); lost is that count while the copy has no
	// object (ErrLost), else 0.
	imported, lost int
}

func newScope(name string, opts memory.Options, lookback time.Duration) (*scope, error) {
	sc := &scope{name: name, tenant: tenantName(name), opts: opts, loaded: make(chan struct{}), used: time.Now(),
		lookback: lookback.Milliseconds()}
	var err error
	if sc.mem, err = memory.Open("", opts); err != nil {
		return nil, err
	}
	sc.cache = vectorizer.NewCache()
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

// memStats returns the copy's statistics without marking the scope used, so
// that reading them (/meta, metrics) leaves the least recently used scope as
// it is.
func (sc *scope) memStats() memory.Stats {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.mem.Stats()
}

// apply adds the objects not in the copy yet (own says they are this
// server's writes; newest is the newest creation time among them, 0 if
// unknown).
func (sc *scope) apply(objs []object, own bool, newest int64) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if own && sc.scanning {
		sc.pending = append(sc.pending, objs...)
	}
	sc.newest = max(sc.newest, newest)
	return sc.read.add(sc.mem, objs)
}

// fullRead is a copy being read from every object.
type fullRead struct {
	mem    *memory.Memory
	read   tally
	newest int64
	start  time.Time
}

// beginFull starts a full read: own writes from now on are kept, to be
// added to the new copy.
func (sc *scope) beginFull() (*fullRead, error) {
	mem, err := memory.Open("", sc.opts)
	if err != nil {
		return nil, err
	}
	sc.mu.Lock()
	sc.scanning, sc.pending = true, nil
	sc.mu.Unlock()
	return &fullRead{mem: mem, start: time.Now()}, nil
}

// endFull replaces the copy by the one read (ok), with the own writes made
// meanwhile; since is where the next incremental read starts.
func (sc *scope) endFull(f *fullRead, ok bool, since int64) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	pending := sc.pending
	sc.scanning, sc.pending = false, nil
	if !ok {
		return nil
	}
	if err := f.read.add(f.mem, pending); err != nil {
		return err
	}
	sc.mem, sc.read, sc.newest = f.mem, f.read, f.newest
	sc.cache = vectorizer.NewCache() // versions of another memory
	sc.since, sc.full, sc.lastFull, sc.refreshed = since, false, time.Now(), time.Now()
	sc.judgeLocked()
	select {
	case <-sc.loaded:
	default:
		close(sc.loaded)
	}
	return nil
}

// judgeLocked (mu held) decides whether the memory is lost: no object read
// although the witness counted objects that taught it.
func (sc *scope) judgeLocked() {
	sc.lost = 0
	if sc.read.count == 0 && sc.imported > 0 {
		sc.lost = sc.imported
	}
}

// witnessed records what the witness counted; once the first read is done,
// the copy is judged again (it is asked only while the memory is lost).
func (sc *scope) witnessed(n int) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.imported = n
	if sc.isLoaded() {
		sc.judgeLocked()
	}
}

// isLost reports whether the memory is lost.
func (sc *scope) isLost() bool {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.lost > 0
}

// stats describe the copy.
func (sc *scope) stats() memstore.ScopeStats {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	st := sc.mem.Stats()
	return memstore.ScopeStats{Tenant: sc.tenant, Objects: sc.read.count, Version: sc.read.version(),
		Passages: st.Passages, Contexts: st.Contexts, Refreshed: sc.refreshed}
}
