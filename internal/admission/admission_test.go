package admission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// chunks is a body of left bytes that arrive n bytes a read.
type chunks struct {
	left, n int
}

func (c *chunks) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(c.left, c.n, len(p))
	c.left -= n
	return n, nil
}

func (c *chunks) Close() error { return nil }

// ledger records what a Budget accepted: a charge enters after the Budget
// accepts it and leaves before the Budget gives it back, so what the ledger
// holds is always a part of what the Budget holds accepted.
type ledger struct {
	mu              sync.Mutex
	max             int64
	bodies, answers int64
	nAnswers        int
	violation       string
}

// add records an accepted charge and checks the Budget's bound: what is
// held is at most max, or one answer beside bodies of at most max.
func (l *ledger) add(body, answer int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bodies += body
	l.answers += answer
	if answer > 0 {
		l.nAnswers++
	}
	if l.bodies+l.answers > l.max && (l.nAnswers != 1 || l.bodies > l.max) && l.violation == "" {
		l.violation = fmt.Sprintf("%d bytes of bodies and %d of %d answers held, over %d",
			l.bodies, l.answers, l.nAnswers, l.max)
	}
}

// fail records an unexpected error.
func (l *ledger) fail(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.violation == "" {
		l.violation = msg
	}
}

func (l *ledger) remove(body, answer int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bodies -= body
	l.answers -= answer
	if answer > 0 {
		l.nAnswers--
	}
}

// request reads a body of random size through a Charge of b, then charges
// a random answer, recording what b accepts in l.
func request(b *Budget, l *ledger, rng *rand.Rand) (refused bool) {
	c := b.NewCharge()
	body := c.Reader(&chunks{left: rng.IntN(400), n: 1 + rng.IntN(64)})
	var accepted int64
	buf := make([]byte, 128)
	for {
		n, err := body.Read(buf)
		if errors.Is(err, ErrFull) {
			refused = true
			break
		}
		accepted += int64(n)
		l.add(int64(n), 0)
		if err != nil {
			break
		}
	}
	var answer int64
	if !refused {
		n := int64(rng.IntN(300)) + 1
		if rng.IntN(10) == 0 {
			n = 3 * b.Max() // larger than the whole budget
		}
		if err := c.Answer(n); err == nil {
			answer = n
			l.add(0, n)
		} else if !errors.Is(err, ErrFull) {
			l.fail(err.Error())
		}
		refused = answer == 0
	}
	time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
	l.remove(accepted, answer)
	c.Release()
	return refused
}

// TestBudgetBoundsConcurrentRequests: requests reading bodies and charging
// answers at once never hold more than the maximum, except one answer
// written alone, whether they wait for room or not; some are refused, and
// every byte is given back.
func TestBudgetBoundsConcurrentRequests(t *testing.T) {
	for _, wait := range []time.Duration{0, 200 * time.Microsecond} {
		t.Run(fmt.Sprintf("wait=%v", wait), func(t *testing.T) {
			b := NewBudget(1000, time.Minute, wait, 1e6)
			l := &ledger{max: b.Max()}
			var wg sync.WaitGroup
			var mu sync.Mutex
			refused := 0
			for g := range 16 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(g), 1))
					for range 300 {
						if request(b, l, rng) {
							mu.Lock()
							refused++
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			if l.violation != "" {
				t.Error(l.violation)
			}
			if refused == 0 {
				t.Error("no request refused: the test never filled the budget")
			}
			if held, answers := b.Held(), b.Answers(); held != 0 || answers != 0 {
				t.Errorf("%d bytes held, %d of answers after every request released, want 0, 0", held, answers)
			}
		})
	}
}

// TestReaderChargesAsItReads: a body's bytes are charged as they are read;
// the read that passes the maximum returns its bytes and ErrFull, and they
// stay charged until Release.
func TestReaderChargesAsItReads(t *testing.T) {
	b := NewBudget(100, time.Minute, 0, 0)
	c := b.NewCharge()
	r := c.Reader(&chunks{left: 150, n: 60})
	buf := make([]byte, 100)
	if n, err := r.Read(buf); n != 60 || err != nil || b.Held() != 60 {
		t.Fatalf("first read: %d, %v, %d held; want 60, nil, 60", n, err, b.Held())
	}
	n, err := r.Read(buf)
	if n != 60 || !errors.Is(err, ErrFull) || b.Held() != 120 {
		t.Fatalf("read past the maximum: %d, %v, %d held; want 60, ErrFull, 120", n, err, b.Held())
	}
	if !strings.Contains(err.Error(), "100 bytes") {
		t.Errorf("error %q does not name the maximum", err)
	}
	c.Release()
	if b.Held() != 0 {
		t.Errorf("%d bytes held after Release, want 0", b.Held())
	}
}

// TestReaderUnderlyingReadsUncharged: what is read from a Reader's own
// ReadCloser (a refused body drained) is not charged.
func TestReaderUnderlyingReadsUncharged(t *testing.T) {
	b := NewBudget(100, time.Minute, 0, 0)
	c := b.NewCharge()
	r := c.Reader(&chunks{left: 1000, n: 64})
	if n, _ := io.Copy(io.Discard, r.ReadCloser); n != 1000 || b.Held() != 0 {
		t.Errorf("drained %d bytes, %d held; want 1000, 0", n, b.Held())
	}
}

// TestAnswerOneAlwaysWritten: an answer larger than the whole budget is
// charged when no other answer is being written, and refused, charging
// nothing, while one is.
func TestAnswerOneAlwaysWritten(t *testing.T) {
	b := NewBudget(100, time.Minute, 0, 0)
	first := b.NewCharge()
	if err := first.Answer(500); err != nil {
		t.Fatalf("the only answer, 500 bytes of a budget of 100: %v, want it charged", err)
	}
	second := b.NewCharge()
	if err := second.Answer(1); !errors.Is(err, ErrFull) {
		t.Errorf("an answer beside one that fills the budget: %v, want ErrFull", err)
	}
	if held, answers := b.Held(), b.Answers(); held != 500 || answers != 500 {
		t.Errorf("%d held, %d of answers after a refused answer, want 500, 500", held, answers)
	}
	first.Release()
	if err := second.Answer(1); err != nil {
		t.Errorf("an answer within the budget once the other is released: %v", err)
	}
	second.Release()
	if held, answers := b.Held(), b.Answers(); held != 0 || answers != 0 {
		t.Errorf("%d held, %d of answers after Release, want 0, 0", held, answers)
	}
}

// TestAnswerBesideBodies: an answer is charged beside bodies; bodies alone
// do not refuse it (no other answer is being written), but a small answer
// beside another is refused when the bytes held would pass the maximum.
func TestAnswerBesideBodies(t *testing.T) {
	b := NewBudget(100, time.Minute, 0, 0)
	body := b.NewCharge()
	if _, err := io.ReadAll(body.Reader(&chunks{left: 90, n: 90})); err != nil {
		t.Fatal(err)
	}
	lone := b.NewCharge()
	if err := lone.Answer(50); err != nil {
		t.Fatalf("the only answer beside 90 bytes of bodies: %v", err)
	}
	if err := b.NewCharge().Answer(5); !errors.Is(err, ErrFull) {
		t.Errorf("an answer beside bodies and another answer, over the maximum: %v, want ErrFull", err)
	}
	lone.Release()
	body.Release()
}

// TestChargeReleaseTwice: a second Release gives back nothing more; bytes
// charged after a Release are given back by the next.
func TestChargeReleaseTwice(t *testing.T) {
	b := NewBudget(100, time.Minute, 0, 0)
	other := b.NewCharge()
	if err := other.Answer(30); err != nil {
		t.Fatal(err)
	}
	c := b.NewCharge()
	r := c.Reader(&chunks{left: 20, n: 20})
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(10); err != nil {
		t.Fatal(err)
	}
	c.Release()
	c.Release()
	if held, answers := b.Held(), b.Answers(); held != 30 || answers != 30 {
		t.Errorf("%d held, %d of answers after Release twice, want the other's 30, 30", held, answers)
	}
	if err := c.Answer(10); err != nil {
		t.Fatal(err)
	}
	c.Release()
	other.Release()
	if held, answers := b.Held(), b.Answers(); held != 0 || answers != 0 {
		t.Errorf("%d held, %d of answers at the end, want 0, 0", held, answers)
	}
}

// TestSlotsBounded: requests taking slots at once never work more than
// the slots allow, and every slot is given back.
func TestSlotsBounded(t *testing.T) {
	s := NewSlots(3, time.Minute)
	var mu sync.Mutex
	working, most := 0, 0
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for range 20 {
				slot, err := s.Acquire(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				working++
				most = max(most, working)
				mu.Unlock()
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				working--
				mu.Unlock()
				slot.Release()
			}
		})
	}
	wg.Wait()
	if most != 3 {
		t.Errorf("at most %d requests worked at once, want 3", most)
	}
	if n := s.InUse(); n != 0 {
		t.Errorf("%d slots taken at the end, want 0", n)
	}
}

// fill takes every slot of s.
func fill(t *testing.T, s *Slots) []*Slot {
	t.Helper()
	var taken []*Slot
	for range s.Cap() {
		slot, err := s.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, slot)
	}
	return taken
}

// TestSlotsWaitEndsWithErrBusy: with every slot taken, a request waits the
// queue wait and gets ErrBusy; a slot given back meanwhile is taken.
func TestSlotsWaitEndsWithErrBusy(t *testing.T) {
	const wait = 50 * time.Millisecond
	s := NewSlots(2, wait)
	taken := fill(t, s)
	start := time.Now()
	slot, err := s.Acquire(context.Background())
	if !errors.Is(err, ErrBusy) || slot != nil {
		t.Fatalf("every slot taken: %v, %v; want ErrBusy", slot, err)
	}
	if d := time.Since(start); d < wait {
		t.Errorf("ErrBusy after %v, want after the queue wait %v", d, wait)
	}
	time.AfterFunc(wait/5, taken[0].Release)
	if slot, err = s.Acquire(context.Background()); err != nil {
		t.Fatalf("a slot given back during the wait: %v, want it taken", err)
	}
	slot.Release()
	taken[1].Release()
}

// TestSlotsZeroWaitTakesAFreeSlot: without a queue wait a free slot is
// still taken, and a full Slots answers ErrBusy at once.
func TestSlotsZeroWaitTakesAFreeSlot(t *testing.T) {
	s := NewSlots(1, 0)
	for range 100 {
		slot, err := s.Acquire(context.Background())
		if err != nil {
			t.Fatalf("a free slot, no queue wait: %v", err)
		}
		if _, err := s.Acquire(context.Background()); !errors.Is(err, ErrBusy) {
			t.Fatalf("no free slot, no queue wait: %v, want ErrBusy", err)
		}
		slot.Release()
	}
}

// TestSlotsContextEndsTheWait: a request whose context ends while it waits
// stops waiting with the context's error, not ErrBusy.
func TestSlotsContextEndsTheWait(t *testing.T) {
	s := NewSlots(1, time.Minute)
	taken := fill(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := s.Acquire(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrBusy) {
		t.Errorf("context cancelled during the wait: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the wait ended %v after the cancel", d)
	}
	taken[0].Release()
}

// TestSlotReleaseTwice: a second Release, or one of a nil Slot, gives back
// nothing: another request's slot stays taken.
func TestSlotReleaseTwice(t *testing.T) {
	s := NewSlots(2, 0)
	taken := fill(t, s)
	taken[0].Release()
	taken[0].Release()
	var none *Slot
	none.Release()
	if n := s.InUse(); n != 1 {
		t.Errorf("%d slots taken after Release twice, want the other's 1", n)
	}
	taken[1].Release()
	if n := s.InUse(); n != 0 {
		t.Errorf("%d slots taken at the end, want 0", n)
	}
}

// readN reads n bytes of a body through c and returns the error of the last read.
// mustRead reads a body of n bytes charged to c, failing tb if it is
// refused.
func mustRead(tb testing.TB, c *Charge, n int) {
	tb.Helper()
	if err := readN(c, n); err != nil {
		tb.Fatal(err)
	}
}

func readN(c *Charge, n int) error {
	_, err := io.ReadAll(c.Reader(io.NopCloser(strings.NewReader(strings.Repeat("x", n)))))
	return err
}

// TestExposedRequestCutToMakeRoom: a request whose client has set the pace
// past the patience is cut when another finds the Budget full, and the
// other's body is charged instead of refused.
func TestExposedRequestCutToMakeRoom(t *testing.T) {
	b := NewBudget(100, 0, 0, 0)
	slow := b.NewCharge()
	cuts := 0
	end := slow.Expose(func() { cuts++ })
	defer end()
	mustRead(t, slow, 80)
	other := b.NewCharge()
	if err := readN(other, 40); err != nil {
		t.Fatalf("a body beside a request exposed past its patience: %v, want it charged", err)
	}
	if cuts != 1 || !slow.Cut() || other.Cut() || b.Cuts() != 1 {
		t.Fatalf("cut %d times, slow cut %v, other cut %v, Cuts %d; want the slow one cut once",
			cuts, slow.Cut(), other.Cut(), b.Cuts())
	}
	slow.Release()
	if b.Held() != 40 {
		t.Fatalf("held %d after the cut request released, want 40", b.Held())
	}
	if err := readN(b.NewCharge(), 50); err != nil {
		t.Fatalf("a body within the room left: %v", err)
	}
	other.Release()
}

// TestCutOnlyPastPatienceAndExposed: a request within its patience, one
// not exposed (waiting for a slot, working) and one whose exposure ended
// are not cut, and the body that finds the Budget full is refused.
func TestCutOnlyPastPatienceAndExposed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		patience time.Duration
		expose   bool
		end      bool
	}{
		{"within patience", time.Hour, true, false},
		{"not exposed", 0, false, false},
		{"exposure ended", 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBudget(100, tc.patience, 0, 0)
			held := b.NewCharge()
			defer held.Release()
			if tc.expose {
				end := held.Expose(func() { t.Error("cut") })
				if tc.end {
					end()
				} else {
					defer end()
				}
			}
			mustRead(t, held, 80)
			other := b.NewCharge()
			defer other.Release()
			if err := readN(other, 40); !errors.Is(err, ErrFull) {
				t.Fatalf("got %v, want ErrFull", err)
			}
			if held.Cut() || b.Cuts() != 0 {
				t.Fatal("a request that may not be cut was cut")
			}
		})
	}
}

// TestCutOldestFirstAndNoMore: cuts take the requests exposed first, only
// as many as make room, and none already cut twice.
func TestCutOldestFirstAndNoMore(t *testing.T) {
	b := NewBudget(100, 0, 0, 0)
	var order []string
	var charges []*Charge
	for _, name := range []string{"first", "second", "third"} {
		c := b.NewCharge()
		defer c.Release()
		defer c.Expose(func() { order = append(order, name) })()
		mustRead(t, c, 30)
		charges = append(charges, c)
	}
	mustRead(t, b.NewCharge(), 40) // 30 over: the first makes room
	mustRead(t, b.NewCharge(), 5)  // the first's bytes are leaving: still room
	mustRead(t, b.NewCharge(), 30) // 35 over: the second and third
	if got := strings.Join(order, ","); got != "first,second,third" {
		t.Fatalf("cut %s, want first,second,third", got)
	}
	if !charges[0].Cut() || b.Cuts() != 3 {
		t.Fatalf("Cuts %d, want 3", b.Cuts())
	}
}

// TestAnswerCutsAnExposedAnswer: an answer that finds the Budget full
// beside another answer written past its patience cuts that one and is
// charged.
func TestAnswerCutsAnExposedAnswer(t *testing.T) {
	b := NewBudget(100, 0, 0, 0)
	slow := b.NewCharge()
	defer slow.Release()
	if err := slow.Answer(80); err != nil {
		t.Fatal(err)
	}
	cut := false
	defer slow.Expose(func() { cut = true })()
	other := b.NewCharge()
	defer other.Release()
	if err := other.Answer(40); err != nil || !cut {
		t.Fatalf("answer beside an answer written past its patience: %v, cut %v; want charged, the other cut", err, cut)
	}
	if b.Answers() != 120 {
		t.Fatalf("answers held %d, want 120 until the cut one is released", b.Answers())
	}
}

// TestNoCutWithoutRoom: when the requests that may be cut hold too little
// to bring the bytes held within the maximum, none is cut (it would serve
// no one) and the body that found the Budget full is refused.
func TestNoCutWithoutRoom(t *testing.T) {
	b := NewBudget(100, 0, 0, 0)
	slow := b.NewCharge()
	defer slow.Release()
	defer slow.Expose(func() { t.Error("the slow request was cut") })()
	mustRead(t, slow, 10)
	working := b.NewCharge() // not exposed: its body is read, it works
	defer working.Release()
	mustRead(t, working, 80)
	other := b.NewCharge()
	defer other.Release()
	if err := readN(other, 50); !errors.Is(err, ErrFull) { // 40 over, 10 to cut
		t.Fatalf("a body 40 bytes over with 10 that may be cut: %v, want ErrFull", err)
	}
	if slow.Cut() || b.Cuts() != 0 {
		t.Fatalf("slow cut %v, Cuts %d; want none cut", slow.Cut(), b.Cuts())
	}
}

// TestCutRequestCutsNoOther: the bytes a request cut still reads (those
// its connection had received) may take the Budget past its maximum, but
// they cut no other request: they are refused.
func TestCutRequestCutsNoOther(t *testing.T) {
	b := NewBudget(100, 0, 0, 0)
	first := b.NewCharge()
	defer first.Release()
	defer first.Expose(func() {})()
	mustRead(t, first, 50)
	second := b.NewCharge()
	defer second.Release()
	defer second.Expose(func() { t.Error("the second request was cut by the first, already cut") })()
	mustRead(t, second, 40)
	if err := readN(b.NewCharge(), 20); err != nil || !first.Cut() { // 10 over: the first is cut
		t.Fatalf("a body beside the first, exposed past its patience: %v, first cut %v", err, first.Cut())
	}
	if err := readN(first, 45); !errors.Is(err, ErrFull) { // 5 over, by the first's own bytes
		t.Fatalf("the cut request's last bytes past the maximum: %v, want ErrFull", err)
	}
	if second.Cut() || b.Cuts() != 1 {
		t.Fatalf("second cut %v, Cuts %d; want only the first cut", second.Cut(), b.Cuts())
	}
}

// clock is a settable clock for a Budget's now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// budgetAt returns a Budget of limit bytes, patience and minimum rate (bytes
// per second) on clock c.
func budgetAt(c *clock, limit int64, patience time.Duration, minRate float64) *Budget {
	b := NewBudget(limit, patience, 0, minRate)
	b.now = c.now
	b.start = c.t
	return b
}

// TestSteadyBodyNotCut: a body arriving at the minimum rate or faster is
// not cut however long it has been exposed; one that has sent nothing for
// the patience is.
func TestSteadyBodyNotCut(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := budgetAt(c, 200, time.Second, 10)
	sending, stalled := b.NewCharge(), b.NewCharge()
	defer sending.Release()
	defer stalled.Release()
	defer sending.Expose(func() { t.Error("a body arriving at 16 bytes/s was cut") })()
	cut := false
	defer stalled.Expose(func() { cut = true })()
	if readN(stalled, 40) != nil {
		t.Fatal("a body within the budget refused")
	}
	for range 10 { // 8 bytes each 0.5 s for 5 s
		c.t = c.t.Add(500 * time.Millisecond)
		mustRead(t, sending, 8)
	}
	if err := readN(b.NewCharge(), 90); err != nil || !cut { // 210 held
		t.Fatalf("a body beside one stalled for 5 s: %v, stalled cut %v; want charged, the stalled one cut", err, cut)
	}
	if sending.Cut() || b.Cuts() != 1 {
		t.Fatalf("sending cut %v, Cuts %d; want only the stalled one cut", sending.Cut(), b.Cuts())
	}
}

// TestCutFurthestBehindFirst: of two requests past their patience, the one
// furthest behind is cut first, not the one exposed first.
func TestCutFurthestBehindFirst(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := budgetAt(c, 100, time.Second, 10)
	var order []string
	first, second := b.NewCharge(), b.NewCharge()
	defer first.Release()
	defer second.Release()
	defer first.Expose(func() { order = append(order, "first") })()
	if readN(first, 20) != nil {
		t.Fatal("refused")
	}
	c.t = c.t.Add(time.Second)
	defer second.Expose(func() { order = append(order, "second") })()
	if readN(second, 20) != nil {
		t.Fatal("refused")
	}
	c.t = c.t.Add(2 * time.Second)
	if readN(first, 40) != nil { // 4 s at 10 bytes/s: the first has kept up to 3 s, the second to 1 s
		t.Fatal("refused")
	}
	c.t = c.t.Add(5 * time.Second)
	mustRead(t, b.NewCharge(), 30)
	if got := strings.Join(order, ","); got != "second" {
		t.Fatalf("cut %q, want the second (furthest behind) alone", got)
	}
}

// TestTricklingBodiesCut: bodies that filled the Budget at once, then send
// a byte every 0.9 s to look busy, are cut when another body needs the
// room: a trickle falls behind the minimum rate, whatever it sent before.
func TestTricklingBodiesCut(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := budgetAt(c, 1000, time.Second, 100)
	var tricklers []*Charge
	for range 3 {
		trickle := b.NewCharge()
		defer trickle.Release()
		defer trickle.Expose(func() {})()
		if readN(trickle, 300) != nil {
			t.Fatal("bodies within the budget refused")
		}
		tricklers = append(tricklers, trickle)
	}
	admitted, tries := 0, 0
	for step := range 33 { // 1 byte each 0.9 s for 30 s, the body timeout
		c.t = c.t.Add(900 * time.Millisecond)
		for _, ch := range tricklers {
			if !ch.Cut() {
				readN(ch, 1)
			}
		}
		if step == 0 {
			continue // none is a patience behind yet
		}
		other := b.NewCharge()
		tries++
		if readN(other, 200) == nil {
			admitted++
		}
		other.Release()
	}
	if admitted != tries || b.Cuts() == 0 {
		t.Fatalf("beside trickling bodies %d bodies of %d admitted, %d cut; want every one admitted, the trickles cut",
			admitted, tries, b.Cuts())
	}
}

// TestBurstGivesNoCredit: a body that sent much at once, then stalls, is
// behind by the time it stalled, not ahead by what it sent.
func TestBurstGivesNoCredit(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := budgetAt(c, 100, time.Second, 10)
	burst := b.NewCharge()
	defer burst.Release()
	defer burst.Expose(func() {})()
	if readN(burst, 90) != nil { // 9 s of bytes at the minimum rate
		t.Fatal("refused")
	}
	c.t = c.t.Add(1500 * time.Millisecond)
	if err := readN(b.NewCharge(), 30); err != nil || !burst.Cut() {
		t.Fatalf("a body beside one stalled for 1.5 s after a burst: %v, burst cut %v; want charged, the burst cut",
			err, burst.Cut())
	}
}

// TestSlowBodyFallsBehindGradually: a body arriving at half the minimum
// rate falls behind by half the time that passes, so it is cut once it is
// a patience behind, not sooner.
func TestSlowBodyFallsBehindGradually(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := budgetAt(c, 100, time.Second, 20)
	slow := b.NewCharge()
	defer slow.Release()
	defer slow.Expose(func() {})()
	want := map[int]bool{3: false, 5: true} // after 1.5 s, 0.75 s behind; after 2.5 s, 1.25 s
	for step := 1; step <= 5; step++ {
		c.t = c.t.Add(500 * time.Millisecond)
		if readN(slow, 5) != nil { // 10 bytes/s
			t.Fatal("refused")
		}
		cut, ok := want[step]
		if !ok {
			continue
		}
		other := b.NewCharge()
		err := readN(other, 100)
		other.Release()
		if slow.Cut() != cut || (err == nil) != cut {
			t.Fatalf("after %v at half the rate: cut %v, other body %v; want cut %v", time.Duration(step)*500*time.Millisecond,
				slow.Cut(), err, cut)
		}
	}
}

// TestNoMinimumRateAnyByteKeepsUp: with no minimum rate, a body that sends
// a byte within each patience is not cut.
func TestNoMinimumRateAnyByteKeepsUp(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := budgetAt(c, 100, time.Second, 0)
	trickle := b.NewCharge()
	defer trickle.Release()
	defer trickle.Expose(func() { t.Error("a body sending each 0.9 s was cut") })()
	if readN(trickle, 90) != nil {
		t.Fatal("refused")
	}
	for range 5 {
		c.t = c.t.Add(900 * time.Millisecond)
		readN(trickle, 1)
	}
	if err := readN(b.NewCharge(), 30); !errors.Is(err, ErrFull) {
		t.Fatalf("beside a body keeping up: %v, want ErrFull", err)
	}
}

// TestWaitCutsOnceBehind: a body that finds the Budget full of a request
// still within its patience waits, and cuts it once it has fallen the
// patience behind.
func TestWaitCutsOnceBehind(t *testing.T) {
	b := NewBudget(100, 30*time.Millisecond, 5*time.Second, 0)
	slow := b.NewCharge()
	end := slow.Expose(func() {})
	defer end()
	mustRead(t, slow, 80)
	other := b.NewCharge()
	start := time.Now()
	if err := readN(other, 40); err != nil {
		t.Fatalf("a body beside a request within its patience: %v, want it charged once that one is behind", err)
	}
	if waited := time.Since(start); !slow.Cut() || waited < 30*time.Millisecond {
		t.Fatalf("slow cut %v after %v, want cut after the patience", slow.Cut(), waited)
	}
	slow.Release()
	if b.Held() != 40 {
		t.Fatalf("held %d after the cut request released, want 40", b.Held())
	}
	other.Release()
}

// TestWaitForBytesGivenBack: a body that finds the Budget full of bytes no
// cut can free waits for them to be given back.
func TestWaitForBytesGivenBack(t *testing.T) {
	b := NewBudget(100, time.Hour, 5*time.Second, 0)
	working := b.NewCharge()
	mustRead(t, working, 80)
	time.AfterFunc(20*time.Millisecond, working.Release)
	other := b.NewCharge()
	if err := readN(other, 40); err != nil {
		t.Fatalf("a body while another's bytes are given back: %v, want it charged", err)
	}
	if b.Held() != 40 || b.Cuts() != 0 {
		t.Fatalf("held %d, %d cuts; want 40, 0", b.Held(), b.Cuts())
	}
	other.Release()
}

// TestWaitEndsWithErrFull: a body waits at most the Budget's wait; then it
// is refused and its bytes stay charged until Release.
func TestWaitEndsWithErrFull(t *testing.T) {
	b := NewBudget(100, time.Hour, 20*time.Millisecond, 0)
	working := b.NewCharge()
	mustRead(t, working, 80)
	other := b.NewCharge()
	start := time.Now()
	if err := readN(other, 40); !errors.Is(err, ErrFull) || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("read %v after %v, want ErrFull after the wait", err, time.Since(start))
	}
	if b.Held() != 120 {
		t.Fatalf("held %d after the refusal, want 120", b.Held())
	}
	other.Release()
	working.Release()
	if b.Held() != 0 {
		t.Fatalf("held %d after both released, want 0", b.Held())
	}
}

// TestWaitingRequestNotCut: a request waiting for room is held up by the
// Budget, not by its client: another that needs room does not cut it, and
// both go on once bytes are given back.
func TestWaitingRequestNotCut(t *testing.T) {
	b := NewBudget(100, 0, 5*time.Second, 0) // patience 0: an exposed request may be cut at once
	working := b.NewCharge()
	mustRead(t, working, 80)
	waiting := b.NewCharge()
	end := waiting.Expose(func() { t.Error("the waiting request was cut") })
	defer end()
	done := make(chan error)
	go func() {
		_, err := io.ReadAll(waiting.Reader(&chunks{left: 30, n: 10})) // the third chunk waits
		done <- err
	}()
	for b.Held() != 100 || !isWaiting(waiting) {
		time.Sleep(time.Millisecond)
	}
	time.AfterFunc(50*time.Millisecond, working.Release)
	if err := readN(b.NewCharge(), 15); err != nil {
		t.Fatalf("a body beside a waiting request: %v, want it charged once bytes are given back", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the waiting body: %v, want it charged", err)
	}
	if waiting.Cut() || b.Cuts() != 0 {
		t.Fatalf("waiting request cut %v, %d cuts; want none", waiting.Cut(), b.Cuts())
	}
}

func isWaiting(c *Charge) bool {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.waiting
}

// TestAnswerWaitsForAnswerWritten: an answer that would pass the maximum
// beside another being written waits for that one to end.
func TestAnswerWaitsForAnswerWritten(t *testing.T) {
	b := NewBudget(100, time.Hour, 5*time.Second, 0)
	first := b.NewCharge()
	if err := first.Answer(150); err != nil {
		t.Fatalf("an answer alone: %v", err)
	}
	time.AfterFunc(20*time.Millisecond, first.Release)
	second := b.NewCharge()
	if err := second.Answer(50); err != nil {
		t.Fatalf("an answer once the other is written: %v, want it charged", err)
	}
	if b.Held() != 50 || b.Answers() != 50 {
		t.Fatalf("held %d, answers %d; want 50, 50", b.Held(), b.Answers())
	}
	second.Release()
}
