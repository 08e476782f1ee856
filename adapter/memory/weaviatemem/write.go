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
	// maxBatchObjects bounds the objects of one batch (lessons of several
	// requests share a batch up to it; a larger lesson is one batch).
	maxBatchObjects = 1000
	// writeAttempts is how often a batch is tried (failures other than a
	// refusal: Weaviate unreachable, timed out or answering 5xx).
	writeAttempts = 3
)

// part is objects of one scope.
type part struct {
	sc   *scope
	objs []object
}

// lesson is one request's objects to write.
type lesson struct {
	ctx   context.Context
	parts []part
	n     int        // objects
	done  chan error // receives the outcome once
}

// write queues the objects of the parts, waits until they are written and
// adds them to the copies. The error wraps ctx's when the request ended first.
func (s *Store) write(ctx context.Context, parts ...part) error {
	l := &lesson{ctx: ctx, parts: parts, done: make(chan error, 1)}
	for _, p := range parts {
		l.n += len(p.objs)
	}
	if l.n == 0 {
		return nil
	}
	select {
	case s.queue <- l:
	case <-ctx.Done():
		return fmt.Errorf("wait for room in the write queue: %w", ctx.Err())
	case <-s.stop:
		return errors.New("the store is closed")
	}
	select {
	case err := <-l.done:
		if err != nil {
			s.writeErrors.Add(1)
			return err
		}
		for _, p := range parts {
			if err := p.sc.apply(p.objs, true, 0); err != nil {
				return err
			}
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for the write: %w", ctx.Err())
	}
}

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
		for n < maxBatchObjects {
			select {
			case l := <-s.queue:
				batch, n = append(batch, l), n+l.n
			default:
				break more
			}
		}
		err := s.send(batch)
		for _, l := range batch {
			l.done <- err
		}
	}
}

// send writes the objects of the lessons still awaited in one batch at
// consistency QUORUM, trying again after a failure to reach Weaviate.
func (s *Store) send(batch []*lesson) error {
	var objs []map[string]any
	for _, l := range batch {
		if l.ctx.Err() != nil {
			continue // a request that left is not written
		}
		for _, p := range l.parts {
			for _, o := range p.objs {
				objs = append(objs, o.batchObject(s.o.Class, p.sc.tenant))
			}
		}
	}
	if len(objs) == 0 {
		return context.Canceled
	}
	var err error
	for attempt := range writeAttempts {
		if err = weaviateapi.Batch(context.Background(), s.call, objs, "QUORUM"); err == nil || refused(err) {
			break
		}
		s.o.Logger.Warn("context memory: a write to Weaviate failed", "url", s.base, "attempt", attempt+1, "err", err)
		time.Sleep(weaviateapi.RetryWait(attempt, ""))
	}
	if err != nil {
		return fmt.Errorf("%w: write %d objects to %s at %s: %v", memstore.ErrUnavailable, len(objs), s.o.Class, s.base, err)
	}
	s.written.Add(int64(len(objs)))
	return nil
}

// refused reports an error that a retry cannot mend: Weaviate refused the
// request (4xx other than 408 and 429) or an object of the batch.
func refused(err error) bool {
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) {
		return he.Status/100 == 4 && he.Status != http.StatusRequestTimeout && he.Status != http.StatusTooManyRequests
	}
	return errors.Is(err, weaviateapi.ErrRefused)
}
