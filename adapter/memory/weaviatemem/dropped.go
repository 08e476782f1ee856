package weaviatemem

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/witness"
)

// DroppedError is the error of a memory whose collection Weaviate's witness
// (witness.CollectionID) says was created but which is gone: deleted, with
// everything it held. It wraps memstore.ErrRefused and
// memstore.ErrUnavailable: nothing is vectorized until the memory is
// rebuilt (memory rebuild re-creates the collection, Options.AcceptDropped)
// or a server accepts starting it empty.
type DroppedError struct {
	Class, URL string
	Replicas   int
	// Scopes is whether the memory keeps a scope per collection (the
	// in-process module, rebuilt with --module-scopes).
	Scopes bool
}

func (e *DroppedError) Error() string {
	flags := "--memory-weaviate-class " + e.Class + replicasFlag(e.Replicas)
	rebuild := "text2vec-am memory rebuild --memory-weaviate URL " + flags
	if e.Scopes {
		rebuild += " --module-scopes"
	}
	return fmt.Sprintf("the memory's collection %s in Weaviate at %s is gone, but Weaviate's witness (%s) says it was "+
		"created: it was deleted, and vectors computed without it would disagree with those stored; rebuild it "+
		"(%s --class C, for each collection C, then refresh), or start it empty "+
		"(text2vec-am serve --memory-weaviate URL %s --memory-witness-reset, once)", e.Class, e.URL, witness.Class,
		rebuild, flags)
}

// Is makes errors.Is find memstore.ErrRefused and memstore.ErrUnavailable.
func (e *DroppedError) Is(target error) bool {
	return target == memstore.ErrRefused || target == memstore.ErrUnavailable
}

// witnessTimeout bounds the reading and writing of the witness.
const witnessTimeout = 10 * time.Second

// checkNotDropped is called when the memory's class is not there: a
// *DroppedError if the witness says it was created, unless
// o.AcceptDropped; appeared when another server created it meanwhile (it
// writes the witness after the class). A witness its key may not read
// (Weaviate's 4xx) does not stop the store: the check is skipped with a
// warning; other failures are returned, and retried.
func (s *Store) checkNotDropped(ctx context.Context) (appeared bool, err error) {
	if s.o.AcceptDropped {
		return false, nil
	}
	wctx, cancel := context.WithTimeout(ctx, witnessTimeout)
	n, err := witness.Read(wctx, s.call, witness.CollectionID(s.o.Class))
	cancel()
	if witness.Lasting(err) {
		s.o.Logger.Warn("context memory: its key cannot read whether its collection existed before; creating it",
			"url", s.base, "class", s.o.Class, "err", err)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read whether the memory's collection existed before: %w", err) // retried
	}
	if n < 0 {
		return false, nil
	}
	if err := s.checkClass(ctx); !notFound(err) {
		return err == nil, err
	}
	return false, &DroppedError{Class: s.o.Class, URL: s.base, Replicas: s.o.Replicas, Scopes: s.o.SharedCounts}
}

// witnessLater writes the witness of the class's creation (witnessCreated)
// beside the caller's work, which a slow witness does not delay, within the
// store's lifetime: Close stops it and waits for it. Its caller must be
// background work counted in s.bg (run, a writer), so that s.bg is not
// waited on at zero as it grows.
func (s *Store) witnessLater() {
	s.bg.Add(1)
	go s.witnessCreated(s.life)
}

// witnessCreated writes the witness of the class's creation unless it is
// there (best effort, within witnessTimeout), then marks s.bg done. A failure
// is logged; one that may pass (not Weaviate's 4xx) is retried after a
// successful refresh, backing off (s.unwitnessed), and only its first and
// every tenth failure in a row are logged.
func (s *Store) witnessCreated(ctx context.Context) {
	defer s.bg.Done()
	wctx, cancel := context.WithTimeout(ctx, witnessTimeout)
	defer cancel()
	id := witness.CollectionID(s.o.Class)
	n, err := witness.Read(wctx, s.call, id)
	if err == nil && n < 0 {
		err = witness.Write(wctx, s.call, s.knownFactor(), id, "collection "+s.o.Class, 0)
	}
	if err == nil {
		s.unwitnessed.written()
		return
	}
	retried, failures := !witness.Lasting(err) && ctx.Err() == nil, 1
	if retried {
		if failures = s.unwitnessed.failed(time.Now()); failures%10 != 1 {
			return
		}
	}
	s.o.Logger.Warn("context memory: cannot record in Weaviate that its collection exists; "+
		"a deleted collection would be re-created empty without a check", "url", s.base, "class", s.o.Class,
		"retried_at_next_refresh", retried, "failures", failures, "err", err)
}

// unwitnessed is the retrying of a witness of the class's creation that
// failed to be written for a reason that may pass: after backoff of the
// failures in a row, at the next successful refresh.
type unwitnessed struct {
	mu       sync.Mutex
	failures int       // failures in a row (0: written, or none failed)
	waiting  bool      // a failure waits for its retry
	at       time.Time // the retry's earliest time
}

// failed notes a failure at now and returns the failures in a row.
func (u *unwitnessed) failed(now time.Time) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.failures++
	u.waiting, u.at = true, now.Add(backoff(u.failures-1))
	return u.failures
}

// written notes that the witness is there.
func (u *unwitnessed) written() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.failures, u.waiting = 0, false
}

// due reports whether a failed witness is to be written again at now, and
// if so stops waiting for it: one retry runs at a time.
func (u *unwitnessed) due(now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.waiting || now.Before(u.at) {
		return false
	}
	u.waiting = false
	return true
}
