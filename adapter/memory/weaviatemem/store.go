package weaviatemem

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// Store is a context memory kept in Weaviate (memstore.Store). It is safe
// for concurrent use.
type Store struct {
	o    Options
	base string // Weaviate's URL without credentials
	http *http.Client

	mu      sync.Mutex
	scopes  map[string]*scope
	absent  map[string]time.Time // scopes found without a tenant, when (at most maxAbsent)
	ready   bool                 // the class is there
	lost    bool                 // the class was found gone or unlike a memory, not checked again yet
	err     error                // the last failure of the background work (nil after a success)
	dropped int64                // copies dropped for MaxScopes or MaxBytes
	past    memory.Stats         // the events counted by the copies dropped (forget)
	factor  int                  // the collection's replication factor as last read or created (0: not yet)

	// empty is the memory a query of a scope without a tenant reads, with
	// its cache of AM vectors.
	empty      *memory.Memory
	emptyCache *vectorizer.Cache

	queue       chan *lesson
	unwitnessed unwitnessed // the witness of the class's creation, while it fails to be written
	written     atomic.Int64
	writeErrors atomic.Int64
	refreshes   counters
	stop        chan struct{}
	closed      chan struct{} // closed once the writers stopped and the queue was emptied
	wake        chan struct{} // a new scope to read
	bg          sync.WaitGroup
	closeOnce   sync.Once

	established   chan struct{} // closed once the class was first found or created
	establishOnce sync.Once

	// life is the store's lifetime: the background work's calls end with it
	// (end cancels it, at Close).
	life context.Context
	end  context.CancelFunc
}

// Open returns a store of the memory in Weaviate at o.URL and starts its
// background work: creating or checking the class, reading the copies of
// the scopes named (and of any scope used later), refreshing them, writing.
// It fails only on bad options: Weaviate may be slow to start.
func Open(o Options, scopes ...string) (*Store, error) {
	base, user, err := o.defaults()
	if err != nil {
		return nil, err
	}
	s := &Store{o: o, base: base, http: o.client(base, user), scopes: make(map[string]*scope),
		absent: make(map[string]time.Time), emptyCache: vectorizer.NewBoundedCache(emptyCacheBytes),
		queue: make(chan *lesson, queueLen), stop: make(chan struct{}), closed: make(chan struct{}),
		wake: make(chan struct{}, 1), established: make(chan struct{})}
	if s.empty, err = memory.Open("", o.Memory); err != nil {
		return nil, err
	}
	for _, name := range scopes {
		if _, err := s.scope(name); err != nil {
			return nil, err
		}
	}
	s.life, s.end = context.WithCancel(context.Background())
	s.bg.Add(1 + writers)
	go s.run()
	for range writers {
		go s.writer()
	}
	return s, nil
}

// call is the weaviateapi.Caller of the store: the API key, the
// credentials of the URL and the timeout on every call.
func (s *Store) call(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	return weaviateapi.Call(ctx, s.http, method, s.base+path, s.o.APIKey, body, out)
}

// run makes sure the class exists, then refreshes every copy every
// o.Refresh, retrying failures with backoff, until the store closes; when
// the class is found gone or unlike a memory (lost), it starts again.
func (s *Store) run() {
	defer s.bg.Done()
	for s.establish(s.life) && s.refreshLoop(s.life) {
	}
}

// establish makes sure the class exists, retrying with backoff; false when
// the store closed first.
func (s *Store) establish(ctx context.Context) bool {
	for attempt := 0; ; attempt++ {
		_, err := s.ensureClass(ctx)
		if err == nil {
			s.setErr(nil, true)
			s.establishOnce.Do(func() { close(s.established) })
			s.witnessLater() // created or found: a collection of an older version gets its record too
			return true
		}
		s.setErr(err, false)
		if errors.Is(err, memstore.ErrRefused) {
			if attempt%10 == 0 {
				s.o.Logger.Error("context memory refused; checking again until its collection is rebuilt", "url", s.base,
					"err", err)
			}
		} else {
			s.o.Logger.Warn("context memory: Weaviate is not ready for it yet; retrying", "url", s.base, "err", err)
		}
		if !s.sleep(backoff(attempt)) {
			return false
		}
	}
}

// refreshLoop refreshes every copy every o.Refresh until the store closes
// (false) or its class is lost (true): a write found it so, or a refresh
// failed and the class is gone or unlike a memory.
func (s *Store) refreshLoop(ctx context.Context) bool {
	for failures := 0; ; {
		if s.isLost() {
			return true
		}
		err := s.refreshAll(ctx)
		if err != nil && s.classLost(ctx) {
			s.isLost() // establish checks it now: its refusal, or the class mended, must stand
			return true
		}
		s.setErr(err, true)
		wait := s.o.Refresh
		if err != nil {
			s.refreshes.add("error")
			s.o.Logger.Warn("context memory: reading Weaviate failed; the copy stays as it is", "url", s.base, "err", err)
			wait = max(wait, backoff(failures))
			failures++
		} else {
			failures = 0
			if s.unwitnessed.due(time.Now()) {
				s.witnessLater()
			}
		}
		if !s.sleep(wait) {
			return false
		}
	}
}

// classLost reports whether the class is gone (Weaviate's 404) or cannot
// hold the memory, and if so marks the store lost.
func (s *Store) classLost(ctx context.Context) bool {
	err := s.inspectConfirmed(ctx)
	if notFound(err) {
		err = fmt.Errorf("%w: the memory's collection %s in Weaviate at %s is gone", memstore.ErrUnavailable, s.o.Class,
			s.base)
	} else if !errors.Is(err, errNotAMemory) {
		return false
	}
	s.lose(err)
	return true
}

// goneChecks and goneInterval are how often, and how far apart, a class
// Weaviate answered 404 for is read again before it is taken as gone: a
// node catching up on the schema, or a leader election, can answer 404 for
// a moment for a class that is there.
const (
	goneChecks   = 3
	goneInterval = 300 * time.Millisecond
)

// inspectConfirmed reads the class as inspectClass does and, while Weaviate
// answers 404, again goneInterval apart, at most goneChecks more times; it
// returns the last read's error (nil: the class is there and can hold the
// memory).
func (s *Store) inspectConfirmed(ctx context.Context) error {
	_, err := s.inspectClass(ctx)
	for range goneChecks {
		if !notFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.stop:
			return fmt.Errorf("%w: the store is closed", memstore.ErrUnavailable)
		case <-time.After(goneInterval):
		}
		_, err = s.inspectClass(ctx)
	}
	return err
}

// lose marks the store not ready because of err, its class lost: every
// request fails at once while err is a refusal, and run checks the class
// again.
func (s *Store) lose(err error) {
	s.mu.Lock()
	s.err, s.ready, s.lost = err, false, true
	s.mu.Unlock()
	s.o.Logger.Error("context memory: its collection in Weaviate is lost; nothing is written to it until it is mended",
		"url", s.base, "class", s.o.Class, "err", err)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// isLost reports whether the class was found lost since run last checked
// it, and clears the mark.
func (s *Store) isLost() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	lost := s.lost
	s.lost = false
	return lost
}

// backoff is the wait after attempt+1 failures: from 100 ms doubling, at most 10 s.
func backoff(attempt int) time.Duration {
	return min(time.Duration(1<<min(attempt, 10))*100*time.Millisecond, 10*time.Second)
}

// sleep waits d, less when a new scope waits for its first read; false
// when the store closed.
func (s *Store) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.stop:
		return false
	case <-s.wake:
		return true
	case <-t.C:
		return true
	}
}

func (s *Store) setErr(err error, ready bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return // lose's error stands until run checks the class again
	}
	s.err = err
	if ready {
		s.ready = true
	}
}

// refreshAll refreshes every copy, creating the tenant of a copy not read
// yet, then keeps the copies within o.MaxBytes; the error is the first one.
func (s *Store) refreshAll(ctx context.Context) error {
	s.mu.Lock()
	scopes := slices.Collect(maps.Values(s.scopes))
	s.mu.Unlock()
	var first error
	for _, sc := range scopes {
		if err := s.refreshScope(ctx, sc); err != nil && first == nil {
			first = fmt.Errorf("scope %q (tenant %s): %w", sc.name, sc.tenant, err)
		}
	}
	s.trim()
	return first
}

// refreshScope refreshes sc unless its memory was deleted, creating its
// tenant first if it is not read yet and taught. A refresh that fails
// because the tenant is gone (deleted) drops the copy: its tenant is
// created again only by teaching.
func (s *Store) refreshScope(ctx context.Context, sc *scope) error {
	sc.reading.Lock()
	defer sc.reading.Unlock()
	if sc.deleted {
		return nil
	}
	err := ctx.Err()
	loaded, teach := sc.isLoaded(), sc.teach.Load()
	if err == nil && !loaded && teach {
		err = s.ensureTenant(ctx, sc.tenant)
	}
	if err == nil {
		err = s.refresh(ctx, sc)
	}
	if err != nil && ctx.Err() == nil && (loaded || !teach) && s.dropIfGone(ctx, sc) {
		return fmt.Errorf("%w (%w)", errTenantGone, err)
	}
	return err
}

// forget removes the copy sc from the store, keeping its counts of events
// in s.past. s.mu must be held.
func (s *Store) forget(sc *scope) {
	delete(s.scopes, sc.name)
	addEvents(&s.past, sc.memStats())
}

// scope returns the copy of name to teach (its tenant is created unless
// the store is read-only), creating it as openScope does.
func (s *Store) scope(name string) (*scope, error) {
	return s.openScope(name, !s.o.ReadOnly)
}

// openScope returns the copy of name, creating it (and dropping the least
// recently used one beyond MaxScopes); teach lets its tenant be created
// (scope.teach).
func (s *Store) openScope(name string, teach bool) (*scope, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if teach {
		delete(s.absent, name)
	}
	if sc := s.scopes[name]; sc != nil {
		if teach {
			sc.teach.Store(true)
		}
		return sc, nil
	}
	if len(s.scopes) >= s.o.MaxScopes {
		var oldest *scope
		for _, sc := range s.scopes {
			if sc.mu.RLock(); oldest == nil || sc.used.Before(oldest.used) {
				oldest = sc
			}
			sc.mu.RUnlock()
		}
		s.forget(oldest)
		s.dropped++
	}
	sc, err := newScope(name, s.o)
	if err != nil {
		return nil, err
	}
	sc.teach.Store(teach)
	s.scopes[name] = sc
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return sc, nil
}

// loadedScope returns the copy of name to teach once it is read (waiting
// up to ctx's end).
func (s *Store) loadedScope(ctx context.Context, name string) (*scope, error) {
	sc, err := s.scope(name)
	if err != nil {
		return nil, err
	}
	return s.waitLoaded(ctx, sc, true)
}

// refusal returns the store's refusal (a *DroppedError) while it is not
// ready because of one, else nil.
func (s *Store) refusal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready && errors.Is(s.err, memstore.ErrRefused) {
		return fmt.Errorf("%w: %w", memstore.ErrUnavailable, s.err)
	}
	return nil
}

// lastErr describes the last failure of the background work.
func (s *Store) lastErr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return "reading"
	}
	return s.err.Error()
}

// VectorizeBatch vectorizes texts as task with v over the memory of scope:
// a passage's lesson is first written to Weaviate (only what can change the
// memory) and added to the copy; then every text is vectorized as a query
// over the copy. A query (or a passage of a read-only store) of a scope
// whose tenant Weaviate does not hold reads an empty memory and creates
// nothing.
func (s *Store) VectorizeBatch(ctx context.Context, v *vectorizer.Vectorizer, scope string, texts []string,
	task vectorizer.Task, opts vectorizer.Options) ([][]float32, []error, error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	teach := task == vectorizer.TaskPassage && !s.o.ReadOnly
	sc, err := s.requestScope(ctx, scope, teach)
	if err != nil {
		return nil, nil, err
	}
	if task == vectorizer.TaskPassage {
		opts = opts.ForObjects() // vectorized below as a read of the copy
	}
	if teach {
		if _, err := s.teach(ctx, v, sc, texts, opts); err != nil {
			return nil, nil, err
		}
	}
	rv, err := s.reader(v, sc)
	if err != nil {
		return nil, nil, err
	}
	vecs, errs := rv.VectorizeBatchContext(ctx, texts, vectorizer.TaskQuery, opts)
	return vecs, errs, nil
}

// requestScope returns the copy of name that a request reads once it is
// read: to teach it (its tenant created) or for a query (nil when Weaviate
// holds no tenant of it).
func (s *Store) requestScope(ctx context.Context, name string, teach bool) (*scope, error) {
	if teach {
		return s.loadedScope(ctx, name)
	}
	return s.queryScope(ctx, name, true)
}

// Teach writes what texts teach the memory of scope, as VectorizeBatch does
// for passages, without vectorizing them; refused counts the texts refused
// (vectorizer.ErrTooManyAMWords). A read-only store refuses to teach.
func (s *Store) Teach(ctx context.Context, v *vectorizer.Vectorizer, scope string, texts []string,
	opts vectorizer.Options) (refused int, err error) {
	if s.o.ReadOnly {
		return 0, errors.New("the memory kept in Weaviate is read-only here: nothing is taught")
	}
	if err := opts.Validate(); err != nil {
		return 0, err
	}
	sc, err := s.loadedScope(ctx, scope)
	if err != nil {
		return 0, err
	}
	return s.teach(ctx, v, sc, texts, opts)
}

// teach writes what texts teach the memory of sc (and, with SharedCounts,
// their passages to the shared memory's) and adds it to the copies; refused
// counts the texts refused.
func (s *Store) teach(ctx context.Context, v *vectorizer.Vectorizer, sc *scope, texts []string,
	opts vectorizer.Options) (refused int, err error) {
	l, refused, err := v.Lesson(texts, opts)
	if err != nil {
		return 0, err
	}
	parts := []part{{sc, lessonOf(sc, l)}}
	if s.o.SharedCounts && sc.name != "" && len(l.Passages) > 0 {
		shared, err := s.loadedScope(ctx, "")
		if err != nil {
			return 0, err
		}
		parts = append(parts, part{shared, lessonOf(shared, vectorizer.Lesson{Passages: l.Passages})})
	}
	return refused, s.write(ctx, parts...)
}

// Reader returns v over the copy of scope as it is now, as a query reads
// it: over an empty memory when Weaviate holds no tenant of scope (none is
// created); an error when the copy is not read yet. It waits for nothing
// but, for a scope it holds no copy of, Weaviate's answer whether its
// tenant exists (within Options.Timeout).
func (s *Store) Reader(v *vectorizer.Vectorizer, scope string) (*vectorizer.Vectorizer, error) {
	sc, err := s.queryScope(s.life, scope, false)
	if err != nil {
		return nil, err
	}
	return s.reader(v, sc)
}

// Prepare starts reading the copy of scope to teach it, creating its
// tenant in Weaviate if need be, as Teach does, without waiting: it returns
// nil once the copy is read, else why not (wrapping memstore.ErrUnavailable;
// memstore.ErrRefused too when an operator must act). A read-only store
// refuses, as Teach does.
func (s *Store) Prepare(scope string) error {
	if s.o.ReadOnly {
		return errors.New("the memory kept in Weaviate is read-only here: nothing is taught")
	}
	sc, err := s.scope(scope)
	if err != nil {
		return err
	}
	_, err = s.waitLoaded(s.life, sc, false)
	return err
}

// reader returns v over the copy sc, or over an empty memory when sc is nil.
func (s *Store) reader(v *vectorizer.Vectorizer, sc *scope) (*vectorizer.Vectorizer, error) {
	if sc == nil {
		return v.WithStores(readOnly{s.empty}, s.empty, s.emptyCache)
	}
	mem, cache := sc.current()
	return v.WithStores(readOnly{mem}, mem, cache)
}

// readOnly is a copy as vectorizers read it: writes go through the store.
type readOnly struct{ *memory.Memory }

func (readOnly) ReadOnly() bool { return true }

// Ready reports whether the memory can be read and taught: the class is
// there and every copy in use has been read.
func (s *Store) Ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		why := s.err
		if why == nil {
			why = errors.New("not checked yet")
		}
		return fmt.Errorf("%w: the memory's class in Weaviate at %s is not ready: %w", memstore.ErrUnavailable, s.base, why)
	}
	for _, sc := range s.scopes {
		if !sc.isLoaded() {
			return fmt.Errorf("%w: the copy of scope %q is not read yet from Weaviate at %s", memstore.ErrUnavailable, sc.name, s.base)
		}
	}
	return nil
}

// Close stops the background work; the lessons still queued fail.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.end()
		s.bg.Wait()
		defer close(s.closed)
		for {
			select {
			case l := <-s.queue:
				l.done <- errClosed
			default:
				return
			}
		}
	})
	return nil
}
