// Package admission bounds what the requests an HTTP front end serves hold
// at once: the bytes of their bodies and answers (Budget) and the slots of
// the requests working at once (Slots). Its errors are checkable with
// errors.Is (ErrFull, ErrBusy); each front end answers them in its own
// terms: status, message, metrics.
package admission

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
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
//
// A client that sends its body slowly, or reads its answer slowly or not at
// all, would hold its bytes for as long as its deadlines allow; such
// clients could keep every other request out. So a request whose client
// sets the pace (Charge.Expose) and has fallen behind by the Budget's
// patience is cut, the furthest behind first, when another request finds
// the Budget full and the cuts make room for it (none is cut otherwise):
// that body or answer is charged, and the bytes held pass the maximum only
// until the cut requests give theirs back. A body keeps up while its bytes
// arrive at the Budget's minimum rate: each byte moves it ahead by the
// time it takes at that rate, never past the present, so a body that keeps
// the rate is never cut however long it takes, while one that stalls, or
// sends a byte now and then, falls behind as time passes, whatever it sent
// before. An answer's progress is not seen: it is behind from the start of
// its writing. A request cut cuts no other.
//
// A body or an answer that finds the Budget full and no request far enough
// behind to cut waits, up to the Budget's wait, for bytes given back or for
// a request to fall that far behind: with a wait as long as the patience,
// a client that fills the Budget with bodies it stops sending cannot keep
// a newcomer out by sending them anew, each fresh one not yet behind. A
// Budget is safe for concurrent use.
type Budget struct {
	limit    int64
	patience time.Duration
	wait     time.Duration    // how long a request waits for room before ErrFull
	minRate  float64          // bytes per second a body must keep; ≤ 0: any byte keeps up
	now      func() time.Time // the clock (time.Now; tests set another)
	start    time.Time        // the clock when the Budget was made
	held     atomic.Int64     // bytes of bodies and answers held now
	answers  atomic.Int64     // bytes of answers held now
	leaving  atomic.Int64     // bytes of requests cut, held until they release them
	cuts     atomic.Int64     // requests cut to make room

	mu      sync.Mutex
	exposed map[*Charge]exposure // requests whose client sets the pace now
	seq     uint64               // exposures so far
	queue   []*Charge            // requests waiting for room, in the order they came
	queued  atomic.Int64         // len(queue)
	// minNeed is the fewest bytes a body in queue waits for (MaxInt64:
	// none); answersWaiting and answersPending the answers in queue and
	// their bytes.
	minNeed                        int64
	answersWaiting, answersPending int64
}

// exposure is a phase of a request in which its client sets the pace.
type exposure struct {
	seq uint64 // order of the exposures (times may be equal)
	cut func()
}

// NewBudget returns a Budget of limit bytes whose requests may be cut to
// make room once their clients have fallen patience behind: a body that
// arrives at less than minRate bytes per second falls behind, as does an
// answer being written. A minRate ≤ 0 lets any byte of a body keep up. A
// request that finds the Budget full waits at most wait for room (0: it
// fails at once).
func NewBudget(limit int64, patience, wait time.Duration, minRate float64) *Budget {
	b := &Budget{limit: limit, patience: max(patience, 0), wait: max(wait, 0), minRate: minRate, now: time.Now,
		exposed: map[*Charge]exposure{}, minNeed: math.MaxInt64}
	b.start = b.now()
	return b
}

// elapsed returns the time since the Budget was made, on its clock.
func (b *Budget) elapsed() time.Duration { return b.now().Sub(b.start) }

// Max returns the bytes the Budget bounds.
func (b *Budget) Max() int64 { return b.limit }

// Held returns the bytes of bodies and answers charged now, bytes refused
// to a body among them until its request releases them.
func (b *Budget) Held() int64 { return b.held.Load() }

// Answers returns the bytes of answers charged now.
func (b *Budget) Answers() int64 { return b.answers.Load() }

// Cuts returns the number of requests cut to make room so far.
func (b *Budget) Cuts() int64 { return b.cuts.Load() }

// NewCharge returns the account of one request's bytes in b: its body,
// charged as it is read (Reader), then its answer (Answer), until Release.
func (b *Budget) NewCharge() *Charge { return &Charge{b: b} }

// over returns by how many bytes what is held, but for the bytes of cut
// requests, passes the maximum.
func (b *Budget) over() int64 { return b.held.Load() - b.leaving.Load() - b.limit }

// charge adds n bytes to c and to what the Budget holds, to its answers
// too for an answer (n < 0 gives them back).
func (b *Budget) charge(c *Charge, n int64, answer bool) {
	c.n.Add(n)
	b.held.Add(n)
	if answer {
		b.answers.Add(n)
	}
}

// fits reports whether the bytes held, c's n more among them, fit: within
// the maximum but for those of requests cut, or, for an answer, no other
// answer being written.
func (b *Budget) fits(c *Charge, n int64, answer bool) bool {
	return b.over() <= 0 || answer && b.answers.Load() == n+c.answer
}

// makeRoom makes room for self: for need bytes more (charged once they fit;
// 0: its bytes are charged already), by cutting requests other than self
// that are exposed and have fallen behind (Charge.pace) by the Budget's
// patience, the furthest behind first, as many as bring what is held, and
// need bytes more, within the maximum; it reports whether they are within
// it (then need is charged). It cuts none when they cannot (a cut would
// serve no one), nor for a request cut itself, nor for one waiting behind
// another that cutting may serve (firstServable). When it reports false, soon
// is the time after which the next request may have fallen far enough
// behind to be cut (< 0: none may), and hope whether room may yet be made
// for self (false for a request cut).
func (b *Budget) makeRoom(self *Charge, need int64, answer bool) (ok bool, soon time.Duration, hope bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Charged, then checked, as take does: of two requests charging at
	// once, neither takes the other's room.
	b.charge(self, need, answer)
	if b.fits(self, need, answer) {
		return true, 0, true
	}
	b.charge(self, -need, answer)
	if self.cut {
		return false, -1, false
	}
	if self.waiting && !b.firstServable(self) {
		return false, -1, true // its turn comes when those before it leave the queue
	}
	over := b.over() + need
	now := b.elapsed()
	soon = -1
	var old []*Charge
	exposed := int64(0) // the bytes cutting could ever free
	for c := range b.exposed {
		if c == self || c.cut || c.waiting || c.n.Load() <= 0 {
			continue
		}
		exposed += c.n.Load()
		if behind := now - time.Duration(c.pace.Load()); behind >= b.patience {
			old = append(old, c)
		} else if soon < 0 || b.patience-behind < soon {
			soon = b.patience - behind
		}
	}
	slices.SortFunc(old, func(x, y *Charge) int {
		return cmp.Or(cmp.Compare(x.pace.Load(), y.pace.Load()), cmp.Compare(b.exposed[x].seq, b.exposed[y].seq))
	})
	held := make([]int64, 0, len(old))
	room := int64(0)
	for _, c := range old {
		if room >= over {
			break
		}
		held = append(held, c.n.Load())
		room += held[len(held)-1]
	}
	if room < over {
		if stuck := exposed < over; self.waiting && stuck != self.stuck {
			self.stuck = stuck
			b.wake() // the next waiting may cut in its place
		}
		return false, soon, true
	}
	// need is charged before the cuts count as leaving: a request that sees
	// the room made sees it taken.
	b.charge(self, need, answer)
	for i, c := range old[:len(held)] {
		b.exposed[c].cut()
		c.cut, c.leaving = true, held[i]
		b.leaving.Add(c.leaving)
		b.cuts.Add(1)
	}
	b.wake() // the cuts may make room for more than self
	return true, 0, true
}

// wake tells the requests waiting for room that some may have been made:
// the first in the queue that cutting may serve (and those stuck before
// it), and those whose bytes fit now; the
// others are not woken, and while no bytes fit none is looked at, so that
// bytes given back cost one wake-up, not one per request waiting. The
// caller holds b.mu.
func (b *Budget) wake() {
	if len(b.queue) == 0 {
		return
	}
	for _, c := range b.queue { // the first that may cut, and those before it
		signal(c)
		if !c.stuck {
			break
		}
	}
	room := -b.over()
	if room < b.minNeed && b.answersWaiting == 0 {
		return
	}
	for _, c := range b.queue[1:] {
		if c.need <= room || c.needAnswer && b.answers.Load() == c.answer {
			signal(c)
		}
	}
}

// firstServable reports whether c, waiting, is the first in the queue that
// cutting may serve: every request before it waits for more than cutting
// every exposed request could free (stuck), so that one such (an answer
// larger than the maximum, beside another being written) does not keep
// the others from cutting. The caller holds b.mu.
func (b *Budget) firstServable(c *Charge) bool {
	for _, q := range b.queue {
		if q == c {
			return true
		}
		if !q.stuck {
			return false
		}
	}
	return false
}

// signal wakes c if it is not woken already.
func signal(c *Charge) {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// take charges c n bytes more, an answer's or a body's, and reports whether
// they fit (Budget.fits). When they do not fit at once, nor once requests
// are cut to make room (makeRoom), or others wait for room already, c waits
// at most the Budget's wait, its n bytes not charged meanwhile, for bytes
// given back or for a request to fall far enough behind to be cut; the
// first waiting is the one that cuts. A body's bytes that do not fit stay
// charged (they were received); an answer's are not charged.
func (b *Budget) take(c *Charge, n int64, answer bool) bool {
	if b.queued.Load() == 0 { // else it waits its turn
		b.charge(c, n, answer)
		if b.fits(c, n, answer) {
			return true
		}
		if ok, _, _ := b.makeRoom(c, 0, false); ok {
			return true
		}
		if b.wait <= 0 {
			if answer {
				b.charge(c, -n, answer)
			}
			return false
		}
		b.mu.Lock() // wake those its bytes kept out meanwhile
		b.charge(c, -n, answer)
		b.wake()
		b.mu.Unlock()
	} else if b.tryTake(c, n, answer) { // bytes that fit need no turn
		return true
	}
	if b.waitRoom(c, n, answer) {
		return true
	}
	if !answer {
		b.charge(c, n, answer)
	}
	return false
}

// tryTake charges c n bytes more if they fit (Budget.fits), as one waiting
// would, and reports whether they did.
func (b *Budget) tryTake(c *Charge, n int64, answer bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.charge(c, n, answer); b.fits(c, n, answer) {
		return true
	}
	b.charge(c, -n, answer)
	return false
}

// waitRoom waits for room for n bytes more of c, not charged, and charges
// them once they fit (take): at most what is left of the Budget's wait for
// c's request, whose waits, one per read that found no room, count
// together, so that the server's waits cannot take a body past its own
// deadline.
func (b *Budget) waitRoom(c *Charge, n int64, answer bool) bool {
	left := b.wait - c.waited
	if left <= 0 || !b.setWaiting(c, n, answer, true) {
		return false
	}
	start := time.Now()
	defer func() {
		b.setWaiting(c, 0, false, false)
		c.waited += time.Since(start)
	}()
	var deadline, behind *time.Timer
	for last := false; ; {
		ok, soon, hope := b.makeRoom(c, n, answer)
		if ok {
			return true
		}
		if last || !hope {
			return false
		}
		if deadline == nil {
			deadline = time.NewTimer(left)
			defer deadline.Stop()
			behind = time.NewTimer(time.Hour)
			defer behind.Stop()
		}
		if soon < 0 { // a request exposed later may fall behind: look again then
			soon = max(b.patience, time.Millisecond)
		}
		behind.Reset(soon)
		select {
		case <-c.ready:
		case <-behind.C:
		case <-deadline.C:
			last = true
		}
	}
}

// setWaiting puts c, waiting for n bytes more (an answer's or a body's), at
// the end of the queue of requests waiting for room, or takes it out: while
// it waits it is not cut, and it does not fall behind (its client is not
// the one holding it up): its pace moves on by the time it waited. It
// reports false, putting c in no queue, for an answer when the answers
// waiting, c's among them, would pass the maximum: an answer waiting is
// made but not charged, so what they hold is at most the maximum or one
// answer (a body waiting holds at most a Read's 64 KiB).
func (b *Budget) setWaiting(c *Charge, n int64, answer, waiting bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.elapsed()
	if waiting {
		if answer && b.answersWaiting > 0 && b.answersPending+n > b.limit {
			b.wake() // bytes it charged before it came may have kept them out
			return false
		}
		if c.ready == nil {
			c.ready = make(chan struct{}, 1)
		}
		c.waiting, c.need, c.needAnswer, c.waitFrom = true, n, answer, now
		b.queue = append(b.queue, c)
		if answer {
			b.answersWaiting++
			b.answersPending += n
		} else if len(b.queue) == 1 || n < b.minNeed {
			b.minNeed = n
		}
	} else {
		c.waiting = false
		c.pace.Add(int64(now - c.waitFrom))
		if c.needAnswer {
			b.answersWaiting--
			b.answersPending -= c.need
		}
		b.minNeed = math.MaxInt64
		b.queue = slices.DeleteFunc(b.queue, func(q *Charge) bool {
			if q != c && !q.needAnswer {
				b.minNeed = min(b.minNeed, q.need)
			}
			return q == c
		})
		c.need, c.needAnswer, c.stuck = 0, false, false
		select { // a wake-up it did not use
		case <-c.ready:
		default:
		}
	}
	b.queued.Store(int64(len(b.queue)))
	b.wake() // the next in the queue may cut; bytes given back before the wait may fit others
	return true
}

// Charge is what one request holds of a Budget. Its methods are for the
// request's own goroutine: a Charge is not safe for concurrent use.
type Charge struct {
	b      *Budget
	n      atomic.Int64 // bytes charged, the answer's among them (read by makeRoom)
	answer int64        // bytes of the answer, charged to Budget.answers too
	// pace is the time on the Budget's clock (Budget.elapsed) that the
	// request has kept up to: its exposure's start, moved on by the bytes
	// of its body that arrived since (Budget.keepUp). Written by the
	// request's goroutine, read by makeRoom.
	pace atomic.Int64
	// cut, waiting (for room, Budget.waitRoom) with what it waits for and
	// since when, and leaving (the bytes counted in Budget.leaving) are
	// guarded by the Budget's mu.
	cut        bool
	waiting    bool
	stuck      bool          // waiting for more than cutting could free, when it last looked
	need       int64         // bytes it waits for
	needAnswer bool          // they are an answer's
	waitFrom   time.Duration // when its wait began (Budget.elapsed)
	ready      chan struct{} // a wake-up (Budget.wake), made with its first wait
	waited     time.Duration // the time its request waited for room so far (its goroutine's)
	leaving    int64
}

// Reader returns rc charging c the bytes read from it as they arrive, so a
// slow client holds only what it has sent. A read that would take the
// Budget past its maximum, with no room made by cutting nor within what is
// left of the request's wait (none once it is spent), returns its bytes
// and an error wrapping ErrFull; they stay charged (they were received)
// until Release.
func (c *Charge) Reader(rc io.ReadCloser) *Reader { return &Reader{ReadCloser: rc, c: c} }

// Answer charges an answer of n bytes, held until Release. It fails with
// ErrFull, charging nothing, when the bytes held would pass the maximum
// while another answer is being written, cutting makes no room and none
// comes within the Budget's wait, or the answers waiting would hold more
// than the maximum.
func (c *Charge) Answer(n int64) error {
	b := c.b
	if !b.take(c, n, true) {
		return fmt.Errorf("%w: an answer of %d bytes beside others being written, over %d bytes", ErrFull, n, b.limit)
	}
	c.answer += n
	return nil
}

// Expose marks the start of a phase of c's request in which its client
// sets the pace: its body is received, or its answer written. Once c has
// fallen the Budget's patience behind (its body arriving slower than the
// Budget's minimum rate, or its answer being written), a request that finds
// the Budget full may cut c: cut is then called once, from that request's
// goroutine, and must make c's request give up soon (a deadline in the past
// on its connection) without blocking. The phase lasts until end is called;
// cut is never called after end returns.
func (c *Charge) Expose(cut func()) (end func()) {
	b := c.b
	b.mu.Lock()
	b.seq++
	b.exposed[c] = exposure{seq: b.seq, cut: cut}
	c.pace.Store(int64(b.elapsed()))
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.exposed, c)
		b.mu.Unlock()
	}
}

// keepUp returns where a request that had kept up to pace (on the Budget's
// clock) stands once n more bytes of its body arrived at now: pace moved on
// by the time n bytes take at the minimum rate, and never past now, so that
// bytes sent early give no credit for a stall later.
func (b *Budget) keepUp(pace time.Duration, n int, now time.Duration) time.Duration {
	if b.minRate <= 0 {
		return now
	}
	if d := float64(n) / b.minRate * float64(time.Second); d < float64(now-pace) {
		return pace + time.Duration(d)
	}
	return now
}

// Cut reports whether c was cut to make room for another request.
func (c *Charge) Cut() bool {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.cut
}

// Release gives back every byte charged to c and ends its exposure. A
// second Release gives back only what was charged since the first (nothing,
// unless c was read again).
func (c *Charge) Release() {
	b := c.b
	b.held.Add(-c.n.Swap(0))
	b.answers.Add(-c.answer)
	c.answer = 0
	b.mu.Lock()
	delete(b.exposed, c)
	b.leaving.Add(-c.leaving)
	c.leaving = 0
	b.wake()
	b.mu.Unlock()
}

// Reader is a body whose bytes are charged to a Charge as they are read.
type Reader struct {
	// ReadCloser is the body, read uncharged: what is discarded holds no
	// memory.
	io.ReadCloser
	c *Charge
}

// maxRead bounds the bytes of one Read, so that a request waiting for room
// holds at most that many past the Budget's maximum.
const maxRead = 64 << 10

// Read reads at most 64 KiB from the body and charges what it read.
func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p[:min(len(p), maxRead)])
	if b := r.c.b; n > 0 {
		r.c.pace.Store(int64(b.keepUp(time.Duration(r.c.pace.Load()), n, b.elapsed())))
		if !b.take(r.c, int64(n), false) {
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
