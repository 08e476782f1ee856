package admission

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestWaiterBeatenToRoomWaitsOn: a request waiting for room whose room is
// taken for a moment by another, as it is made, waits on rather than being
// refused. The cut callback stands in for a concurrent read's charge
// landing as the room is made.
func TestWaiterBeatenToRoomWaitsOn(t *testing.T) {
	b := NewBudget(100, 30*time.Millisecond, 2*time.Second, 0)
	slow := b.NewCharge()
	intruder := b.NewCharge()
	end := slow.Expose(func() {
		intruder.n.Add(70) // a concurrent read's transient charge…
		b.held.Add(70)
		time.AfterFunc(5*time.Millisecond, func() { // …given back soon after (as take does)
			intruder.n.Add(-70)
			b.held.Add(-70)
		})
	})
	defer end()
	mustRead(t, slow, 80)
	other := b.NewCharge()
	start := time.Now()
	err := readN(other, 40)
	took := time.Since(start)
	t.Logf("waiter: %v after %v (wait 2s; slow cut %v)", err, took, slow.Cut())
	if errors.Is(err, ErrFull) && took < time.Second {
		t.Errorf("waiter refused after %v, well within its 2 s wait, though room (slow's 80 bytes, cut) was there once the transient went", took)
	}
}

// TestNoEarlyErrFullUnderContention: requests that find the Budget full
// while every holder gives its bytes back within a moment are not refused
// before their wait ends.
func TestNoEarlyErrFullUnderContention(t *testing.T) {
	const wait = 2 * time.Second
	b := NewBudget(1000, time.Hour, wait, 0)
	var mu sync.Mutex
	early, late, ok := 0, 0, 0
	var wg sync.WaitGroup
	stop := time.Now().Add(1500 * time.Millisecond)
	for range 32 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				c := b.NewCharge()
				start := time.Now()
				err := readN(c, 300)
				took := time.Since(start)
				time.Sleep(100 * time.Microsecond)
				c.Release()
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case took < wait/2:
					early++
				default:
					late++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("charged %d, ErrFull before half the wait %d, after %d", ok, early, late)
	if early > 0 {
		t.Errorf("%d reads refused well before the 2 s wait while every holder gives its bytes back within ~0.1 ms", early)
	}
}

// TestWaitingAnswersDoNotBlockEachOther: two answers waiting beside one
// being written: once it ends, one of them is written at once (one answer
// is always written), not both kept out until their wait ends.
func TestWaitingAnswersDoNotBlockEachOther(t *testing.T) {
	b := NewBudget(100, time.Hour, 300*time.Millisecond, 0)
	body := b.NewCharge() // a body being worked on
	mustRead(t, body, 60)
	defer body.Release()
	first := b.NewCharge()
	if err := first.Answer(50); err != nil { // alone: written
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, first.Release)
	errs := make(chan error, 2)
	start := time.Now()
	for range 2 {
		go func() {
			c := b.NewCharge()
			err := c.Answer(50)
			t.Logf("answer: %v after %v", err, time.Since(start))
			if err == nil && time.Since(start) > 150*time.Millisecond {
				t.Errorf("answer written only after %v though the one before it ended at 20 ms", time.Since(start))
			}
			errs <- err
			time.Sleep(10 * time.Millisecond)
			c.Release()
		}()
	}
	e1, e2 := <-errs, <-errs
	t.Logf("answers: %v / %v", e1, e2)
	if e1 != nil && e2 != nil {
		t.Error("both answers refused after the wait though the one being written ended after 20 ms: one answer is always written")
	}
}

// TestReadBesideWaitersKeepsLag: a body far behind that reads a byte while
// another request waits stays behind: a wait pauses a body's lag, and a
// read that fits takes its room without waiting, so neither erases it.
func TestReadBesideWaitersKeepsLag(t *testing.T) {
	clk := &clock{t: time.Unix(0, 0)}
	b := budgetAt(clk, 100, time.Second, 1e6)
	b.wait = 300 * time.Millisecond
	slow := b.NewCharge()
	defer slow.Release()
	defer slow.Expose(func() {})()
	mustRead(t, slow, 10)
	working := b.NewCharge()
	defer working.Release()
	if err := working.Answer(60); err != nil {
		t.Fatal(err)
	}
	// A waiter that cutting slow (10 bytes) cannot serve: needs 50, over by 20+.
	waiter := b.NewCharge()
	done := make(chan error)
	go func() { done <- waiter.Answer(50) }()
	for !isWaiting(waiter) {
		time.Sleep(time.Millisecond)
	}
	clk.t = clk.t.Add(1500 * time.Millisecond) // slow 1.5 s behind
	lag := func() time.Duration { return b.elapsed() - time.Duration(slow.pace.Load()) }
	before := lag()
	mustRead(t, slow, 1) // fits (held 71 of 100), passes through the queue
	after := lag()
	<-done
	waiter.Release()
	t.Logf("slow's lag before its 1-byte read %v, after %v (patience 1s, 1 byte at 1 MB/s = 1µs)", before, after)
	if after < time.Second {
		t.Errorf("one byte read while another request waits took a body %v behind to %v: no longer cuttable", before, after)
	}
}

// TestWaitingAnswersBounded: answers waiting for room are made but not
// charged, so the answers that may wait hold at most the maximum, or one.
func TestWaitingAnswersBounded(t *testing.T) {
	b := NewBudget(1<<20, time.Hour, 300*time.Millisecond, 0)
	first := b.NewCharge()
	if err := first.Answer(1 << 20); err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			c := b.NewCharge()
			c.Answer(4 << 20) // 4 MiB answer, computed, waiting
			c.Release()
		})
	}
	time.Sleep(100 * time.Millisecond)
	b.mu.Lock()
	n := len(b.queue)
	b.mu.Unlock()
	t.Logf("held %d, answers %d, %d waiting answers of 4 MiB: %d MiB held in memory outside the 1 MiB bound",
		b.Held(), b.Answers(), n, n*4)
	if n > 1 || b.Answers() > b.Held() {
		t.Errorf("%d answers of 4 MiB wait uncharged beside a bound of 1 MiB (answers %d > held %d): want at most the bound, or one",
			n, b.Answers(), b.Held())
	}
	wg.Wait()
}

// BenchmarkSmallReadBesideWaiters: the cost of a small request that fits
// while many others wait for room (each wake-up reaches only those that
// may go on, not every request waiting).
func BenchmarkSmallReadBesideWaiters(bm *testing.B) {
	for _, waiters := range []int{0, 1000} {
		bm.Run(fmt.Sprintf("waiters=%d", waiters), func(bm *testing.B) {
			b := NewBudget(1<<20, time.Hour, time.Minute, 0)
			hold := b.NewCharge()
			mustRead(bm, hold, 1<<20-100)
			var wg sync.WaitGroup
			for range waiters {
				wg.Go(func() {
					c := b.NewCharge()
					readN(c, 200) // waits: never fits until hold is released
					c.Release()
				})
			}
			for b.queued.Load() != int64(waiters) {
				time.Sleep(time.Millisecond)
			}
			bm.ResetTimer()
			for range bm.N {
				c := b.NewCharge()
				mustRead(bm, c, 10)
				c.Release()
			}
			bm.StopTimer()
			hold.Release()
			wg.Wait()
		})
	}
}

// TestWaitCountsPerRequest: the waits of one request's reads count
// together: once it has waited the Budget's wait, a read that finds no room
// is refused at once.
func TestWaitCountsPerRequest(t *testing.T) {
	b := NewBudget(100, time.Hour, 40*time.Millisecond, 0)
	working := b.NewCharge()
	mustRead(t, working, 90)
	c := b.NewCharge()
	r := c.Reader(&chunks{left: 40, n: 20})
	buf := make([]byte, 64)
	start := time.Now()
	if _, err := r.Read(buf); !errors.Is(err, ErrFull) || time.Since(start) < 40*time.Millisecond {
		t.Fatalf("first read: %v after %v, want ErrFull after the wait", err, time.Since(start))
	}
	start = time.Now()
	if _, err := r.Read(buf); !errors.Is(err, ErrFull) || time.Since(start) > 20*time.Millisecond {
		t.Fatalf("second read: %v after %v, want ErrFull at once (the wait is spent)", err, time.Since(start))
	}
	c.Release()
	working.Release()
}

// TestAnswerHopelessHeadLetsOthersCut: an answer larger than the maximum,
// waiting first for the answer being written to end, does not keep the
// requests after it from cutting one behind: a body that a cut serves goes
// on at once.
func TestAnswerHopelessHeadLetsOthersCut(t *testing.T) {
	b := NewBudget(100, 10*time.Millisecond, 2*time.Second, 1e6)
	stale := b.NewCharge()
	defer stale.Expose(func() {})()
	mustRead(t, stale, 90)
	written := b.NewCharge()
	if err := written.Answer(5); err != nil {
		t.Fatal(err)
	}
	defer written.Release()
	huge := b.NewCharge()
	go huge.Answer(200) // waits to be alone; no cut can serve it
	defer huge.Release()
	for !isWaiting(huge) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // stale is now past the patience
	c := b.NewCharge()
	start := time.Now()
	if err := readN(c, 20); err != nil || time.Since(start) > 200*time.Millisecond {
		t.Fatalf("a body that cutting serves, behind an answer no cut can serve: %v after %v, want it charged at once",
			err, time.Since(start))
	}
	if !stale.Cut() {
		t.Error("the body behind was not cut")
	}
	c.Release()
}
