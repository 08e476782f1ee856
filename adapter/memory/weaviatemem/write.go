package weaviatemem

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

const (
	// queueLen bounds the lessons waiting to be written; a request whose
	// lesson finds the queue full waits for room (up to its deadline).
	queueLen = 64
	// writers is the number of batches in flight at once.
	writers = 2
	// maxBatchItems bounds the contexts and passages of one batch (lessons
	// of several requests share a batch up to it; a larger lesson is one
	// batch).
	maxBatchItems = 4 * maxLessonItems
	// writeAttempts is how often a batch is tried (failures other than a
	// refusal: Weaviate unreachable, timed out or answering 5xx).
	writeAttempts = 3
)

// part is what a lesson teaches one scope.
type part struct {
	sc *scope
	t  teaching
}

// lesson is one request's parts to write.
type lesson struct {
	ctx   context.Context
	parts []part
	n     int        // contexts and passages
	done  chan error // receives the outcome once
}

// write queues the parts and waits until they are written and added to the
// copies. The error wraps ctx's when the request ended first.
func (s *Store) write(ctx context.Context, parts ...part) error {
	l := &lesson{ctx: ctx, parts: parts, done: make(chan error, 1)}
	for _, p := range parts {
		l.n += p.t.items()
	}
	if l.n == 0 {
		return nil
	}
	select {
	case <-s.stop:
		return errClosed
	default:
	}
	select {
	case s.queue <- l:
	case <-ctx.Done():
		return fmt.Errorf("wait for room in the write queue: %w", ctx.Err())
	case <-s.stop:
		return errClosed
	}
	var err error
	select {
	case err = <-l.done:
	case <-ctx.Done():
		return fmt.Errorf("wait for the write: %w", ctx.Err())
	case <-s.closed: // queued as the store closed: written, or never to be
		select {
		case err = <-l.done:
		default:
			err = errClosed
		}
	}
	if err != nil {
		s.writeErrors.Add(1)
	}
	return err
}

// errClosed is a write to a closed store.
var errClosed = errors.New("the store is closed")

// writer writes the queued lessons until the store closes, several at once
// in one batch when they wait together.
func (s *Store) writer() {
	defer s.bg.Done()
	for {
		var first *lesson
		select {
		case first = <-s.queue:
		case <-s.stop:
			return
		}
		batch, n := []*lesson{first}, first.n
	more:
		for n < maxBatchItems {
			select {
			case l := <-s.queue:
				batch, n = append(batch, l), n+l.n
			default:
				break more
			}
		}
		s.send(batch)
	}
}

// send writes the lessons still awaited in one batch and tells each its
// outcome: one object per scope, or several for a scope taught more than an
// object holds (lessonObjects).
func (s *Store) send(batch []*lesson) {
	var scopes []*scope
	var awaited []*lesson
	merged := make(map[*scope]*teaching)
	for _, l := range batch {
		if err := l.ctx.Err(); err != nil {
			l.done <- err // a request that left is not written
			continue
		}
		awaited = append(awaited, l)
		for _, p := range l.parts {
			m := merged[p.sc]
			if m == nil {
				m, scopes = &teaching{}, append(scopes, p.sc)
				merged[p.sc] = m
			}
			m.obs, m.ps = append(m.obs, p.t.obs...), append(m.ps, p.t.ps...)
		}
	}
	objs := make([][]object, len(scopes))
	for i, sc := range scopes {
		objs[i] = lessonObjects(*merged[sc])
	}
	err := s.writeObjects(scopes, objs)
	for _, l := range awaited {
		l.done <- err
	}
}

// writeObjects writes objs[i] to the tenant of scopes[i], all in one batch
// at consistency QUORUM, trying again after a failure to reach Weaviate,
// and adds them to the copies.
func (s *Store) writeObjects(scopes []*scope, objs [][]object) error {
	var body []map[string]any
	for i, sc := range scopes {
		for _, o := range objs[i] {
			body = append(body, o.batchObject(s.o.Class, sc.tenant))
		}
	}
	if len(body) == 0 {
		return nil
	}
	var err error
	for attempt := range writeAttempts {
		if err = s.guardClass(); err == nil {
			err = weaviateapi.Batch(context.Background(), s.call, body, "QUORUM")
		}
		if err == nil || refused(err) {
			break
		}
		s.o.Logger.Warn("context memory: a write to Weaviate failed", "url", s.base, "attempt", attempt+1, "err", err)
		time.Sleep(weaviateapi.RetryWait(attempt, ""))
	}
	if err != nil {
		return fmt.Errorf("%w: write %d objects to %s at %s: %w", memstore.ErrUnavailable, len(body), s.o.Class, s.base, err)
	}
	s.written.Add(int64(len(body)))
	now := time.Now().UnixMilli()
	for _, batch := range objs {
		for i := range batch {
			batch[i].created = now
		}
	}
	var errs []error
	for i, sc := range scopes { // each copy, whatever another's outcome
		if err := sc.apply(objs[i], true, 0); err != nil {
			errs = append(errs, fmt.Errorf("add the objects written to the copy of tenant %s: %w", sc.tenant, err))
		}
	}
	return errors.Join(errs...)
}

// guardClass checks, before a batch, that the class is there and can hold
// the memory: a batch to a class that is not there would have Weaviate's
// auto-schema create one that cannot (not multi-tenant, with the default
// vectorizer). A class that is gone is created again as ensureClass does
// (unless the witness says it was deleted), and its creation witnessed as
// at start, beside the batch; one gone or unlike a memory for good marks
// the store lost and fails with the refusal.
func (s *Store) guardClass() error {
	ctx := context.Background()
	err := s.inspectConfirmed(ctx)
	if notFound(err) {
		var created bool
		if created, err = s.ensureClass(ctx); created {
			s.witnessLater()
		}
	}
	if errors.Is(err, memstore.ErrRefused) {
		s.lose(err)
		return fmt.Errorf("check the class before writing: %w", err)
	}
	if err != nil {
		return fmt.Errorf("check the class before writing: %w", err)
	}
	return nil
}

// refused reports an error that a retry cannot mend: Weaviate refused the
// request (4xx other than 408 and 429) or an object of the batch, or the
// memory is refused (its class lost).
func refused(err error) bool {
	if errors.Is(err, memstore.ErrRefused) {
		return true
	}
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) {
		return he.Status/100 == 4 && he.Status != http.StatusRequestTimeout && he.Status != http.StatusTooManyRequests
	}
	return errors.Is(err, weaviateapi.ErrRefused)
}
