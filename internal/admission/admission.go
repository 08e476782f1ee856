// Package admission bounds what the requests an HTTP front end serves hold
// at once: the bytes of their bodies and answers (Budget) and the slots of
// the requests working at once (Slots). Its errors are checkable with
// errors.Is (ErrFull, ErrBusy); each front end answers them in its own
// terms: status, message, metrics.
package admission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// ErrFull reports bytes refused because the Budget they would be charged to
// is full.
var ErrFull = errors.New("byte budget full")

// ErrBusy reports a request that waited for a slot as long as its Slots
// allow and got none.
var ErrBusy = errors.New("no slot free")

// Budget bounds the bytes of request bodies held at once, counted as they
// arrive, and of answers being written. A body read that would take the
// bytes held past the maximum fails; so does an answer, unless no other
// answer is being written: one answer is always written, whatever its
// size, so what answers hold is at most the maximum or one answer.
// A Budget is safe for concurrent use.
type Budget struct {
	limit   int64
	held    atomic.Int64 // bytes of bodies and answers held now
	answers atomic.Int64 // bytes of answers held now
}

// NewBudget returns a Budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Max returns the bytes the Budget bounds.
func (b *Budget) Max() int64 { return b.limit }

// Held returns the bytes of bodies and answers charged now, bytes refused
// to a body among them until its request releases them.
func (b *Budget) Held() int64 { return b.held.Load() }

// Answers returns the bytes of answers charged now.
func (b *Budget) Answers() int64 { return b.answers.Load() }

// NewCharge returns the account of one request's bytes in b: its body,
// charged as it is read (Reader), then its answer (Answer), until Release.
func (b *Budget) NewCharge() *Charge { return &Charge{b: b} }

// Charge is what one request holds of a Budget. Its methods are for the
// request's own goroutine: a Charge is not safe for concurrent use.
type Charge struct {
	b      *Budget
	n      int64 // bytes charged, the answer's among them
	answer int64 // bytes of the answer, charged to Budget.answers too
}

// Reader returns rc charging c the bytes read from it as they arrive, so a
// slow client holds only what it has sent. A read that takes the Budget
// past its maximum returns its bytes and an error wrapping ErrFull; they
// stay charged (they were received) until Release.
func (c *Charge) Reader(rc io.ReadCloser) *Reader { return &Reader{ReadCloser: rc, c: c} }

// Answer charges an answer of n bytes, held until Release. It fails with
// ErrFull, charging nothing, when the bytes held would pass the maximum
// while another answer is being written.
func (c *Charge) Answer(n int64) error {
	b := c.b
	others := b.answers.Add(n) - n
	if b.held.Add(n) > b.limit && others > 0 {
		b.answers.Add(-n)
		b.held.Add(-n)
		return fmt.Errorf("%w: an answer of %d bytes beside others being written, over %d bytes", ErrFull, n, b.limit)
	}
	c.n += n
	c.answer += n
	return nil
}

// Release gives back every byte charged to c. A second Release gives back
// only what was charged since the first (nothing, unless c was read again).
func (c *Charge) Release() {
	c.b.held.Add(-c.n)
	c.b.answers.Add(-c.answer)
	c.n, c.answer = 0, 0
}

// Reader is a body whose bytes are charged to a Charge as they are read.
type Reader struct {
	// ReadCloser is the body, read uncharged: what is discarded holds no
	// memory.
	io.ReadCloser
	c *Charge
}

// Read reads from the body and charges what it read.
func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.c.n += int64(n)
		if b := r.c.b; b.held.Add(int64(n)) > b.limit {
			return n, fmt.Errorf("%w: more than %d bytes of bodies held", ErrFull, b.limit)
		}
	}
	return n, err
}

// Slots bounds the requests working at once: a request takes a slot
// (Acquire) and gives it back (Slot.Release). Slots is safe for concurrent
// use.
type Slots struct {
	ch   chan struct{}
	wait time.Duration
}

// NewSlots returns n slots (at least 1) for which a request waits at most
// wait.
func NewSlots(n int, wait time.Duration) *Slots {
	return &Slots{ch: make(chan struct{}, max(n, 1)), wait: max(wait, 0)}
}

// Cap returns the number of slots.
func (s *Slots) Cap() int { return cap(s.ch) }

// InUse returns the number of slots taken now.
func (s *Slots) InUse() int { return len(s.ch) }

// Acquire takes a slot, at once if one is free, else waiting for one at
// most the Slots' wait (then an error wrapping ErrBusy) or until ctx ends
// (an error wrapping ctx.Err()).
func (s *Slots) Acquire(ctx context.Context) (*Slot, error) {
	select {
	case s.ch <- struct{}{}:
		return &Slot{s: s}, nil
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		return &Slot{s: s}, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: %d taken for %v", ErrBusy, cap(s.ch), s.wait)
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a slot: %w", ctx.Err())
	}
}

// Slot is one slot taken from Slots.
type Slot struct{ s *Slots }

// Release gives the slot back. Calls after the first, and on a nil Slot,
// do nothing; Release is for the goroutine that took the slot.
func (t *Slot) Release() {
	if t == nil || t.s == nil {
		return
	}
	<-t.s.ch
	t.s = nil
}
