package admission_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/admission"
)

// A request's body is charged as it is read, its answer beside it, and both
// are given back when the request ends.
func ExampleBudget() {
	budget := admission.NewBudget(16, time.Minute, 0, 1<<20)
	held := budget.NewCharge()
	defer held.Release()
	body, err := io.ReadAll(held.Reader(io.NopCloser(strings.NewReader(`{"text":"a"}`))))
	fmt.Println(len(body), err, budget.Held())
	fmt.Println(held.Answer(100), budget.Held()) // the only answer: always charged

	other := budget.NewCharge()
	defer other.Release()
	_, err = io.ReadAll(other.Reader(io.NopCloser(strings.NewReader(`{"text":"b"}`))))
	fmt.Println(errors.Is(err, admission.ErrFull)) // answered 503 by the front end
	// Output:
	// 12 <nil> 12
	// <nil> 112
	// true
}

// A request works holding a slot; with every slot taken, it waits the queue
// wait and gets ErrBusy.
func ExampleSlots() {
	slots := admission.NewSlots(1, 10*time.Millisecond)
	slot, err := slots.Acquire(context.Background())
	fmt.Println(err, slots.InUse(), slots.Cap())
	_, err = slots.Acquire(context.Background())
	fmt.Println(errors.Is(err, admission.ErrBusy)) // answered 503 with Retry-After
	slot.Release()
	slot.Release() // a second Release gives back nothing
	fmt.Println(slots.InUse())
	// Output:
	// <nil> 1 1
	// true
	// 0
}

// A client that holds its request's bytes by sending its body slowly, or
// by not reading its answer, is cut when another request needs the room.
func ExampleCharge_Expose() {
	budget := admission.NewBudget(100, 0, 0, 1<<20) // patience 0: cut at once when room is needed
	slow := budget.NewCharge()
	defer slow.Release()
	end := slow.Expose(func() { fmt.Println("cut: a deadline in the past for the slow connection") })
	io.ReadAll(slow.Reader(io.NopCloser(strings.NewReader(strings.Repeat(" ", 90)))))

	other := budget.NewCharge()
	defer other.Release()
	_, err := io.ReadAll(other.Reader(io.NopCloser(strings.NewReader(`{"text":"hello"}`))))
	end()
	fmt.Println(err, slow.Cut())
	// Output:
	// cut: a deadline in the past for the slow connection
	// <nil> true
}
