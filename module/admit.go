package module

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/admission"
)

// Bounds of the module's own endpoints (RootHandler). Weaviate mounts them
// ahead of its authentication and bounds neither their number nor their
// bodies, so the module does: no client can hold the node's cores or memory
// away from Weaviate's imports and searches, nor keep refresh out.
const (
	// maxBodiesHeld bounds the bytes of request bodies held at once, counted
	// as they arrive, and of answers being written; a body that would pass
	// it is answered 503, and so is an answer unless no other is written.
	maxBodiesHeld = 64 << 20
	// bodyTimeout bounds the reading of a body, which happens before the
	// request waits for a slot: a slow client holds no slot (408). It bounds
	// the writing of an answer too, after the slot is given back.
	bodyTimeout = 30 * time.Second
	// queueWait is how long a request waits for a slot, or for room in
	// maxBodiesHeld, before its 503.
	queueWait = time.Second
	// requestTimeout bounds the work of one request (503 when it passes).
	requestTimeout = 60 * time.Second
	// patience is how far a client's body may fall behind minBodyRate, or
	// how long its answer may be read, before its request may be cut (its
	// connection's deadline put in the past) to make room for another that
	// finds maxBodiesHeld full.
	patience = time.Second
	// minBodyRate is the rate, in bytes per second, below which a body falls
	// behind: the largest body (maxBatchBytes) in bodyTimeout. A client that
	// fills the bytes held, then sends a byte now and then, falls behind.
	minBodyRate = float64(maxBatchBytes) / float64(bodyTimeout/time.Second)
)

// errBusy is the error of a request refused because the endpoints are busy:
// its answer is 503 with Retry-After.
var errBusy = errors.New("busy")

// gate bounds the requests the module's endpoints serve at once and the
// bytes of bodies and answers they hold.
type gate struct {
	slots       *admission.Slots  // 2 × GOMAXPROCS requests vectorize at once, queueWait
	budget      *admission.Budget // maxBodiesHeld
	bodyTimeout time.Duration     // bodyTimeout
	timeout     time.Duration     // requestTimeout
}

func newGate() *gate {
	return &gate{slots: admission.NewSlots(2*runtime.GOMAXPROCS(0), queueWait),
		budget:      admission.NewBudget(maxBodiesHeld, patience, queueWait, minBodyRate),
		bodyTimeout: bodyTimeout, timeout: requestTimeout}
}

// admitted reads r's body, of at most limit bytes, within bodyTimeout and
// charged to the bytes held until h returns, then runs h on it under a
// context that ends with the client or after requestTimeout; h writes its
// answer with held.answer. A body refused is answered here: 413 over limit,
// 503 over the bytes held, 408 late, 400 cut short.
func (a *gate) admitted(limit int64,
	h func(w http.ResponseWriter, r *http.Request, held *hold)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Not every ResponseWriter can set a deadline (an error then): the
		// server's own timeouts bound the body and the answer there.
		// Weaviate's ends the answer a fixed time after the request started
		// (--write-timeout, 60 s by default): the answer gets time of its
		// own after the body and the work. Without deadlines no request
		// can be cut to make room either (admission.Charge.Expose).
		// connController finds the connection under wrappers without Unwrap.
		rc, now := connController(w), time.Now()
		held := &hold{charge: a.budget.NewCharge(), g: a}
		defer held.release()
		readDeadline := rc.SetReadDeadline(now.Add(a.bodyTimeout)) == nil
		if rc.SetWriteDeadline(now.Add(2*a.bodyTimeout+a.timeout)) == nil {
			held.rc = rc
		}
		var body []byte
		err := error(&http.MaxBytesError{Limit: limit}) // a declared length over limit: nothing read
		if r.ContentLength <= limit {
			end := func() {}
			if readDeadline {
				end = held.charge.Expose(func() { rc.SetReadDeadline(time.Now()) })
			}
			body, err = io.ReadAll(held.charge.Reader(http.MaxBytesReader(w, r.Body, limit)))
			end()
		}
		if held.charge.Cut() {
			// Cut, perhaps as its body ended: not served (its bytes were
			// counted as leaving, its connection's deadline is past).
			w.Header().Set("Connection", "close")
			held.fail(w, http.StatusRequestTimeout, fmt.Errorf("body %v behind %.0f bytes/s while the "+
				"request bodies and answers held reached %d bytes: cut to make room", patience, minBodyRate, a.budget.Max()))
			return
		}
		if err != nil {
			// The deadline bounds what the server drains of the body
			// before the answer; net/http lifts it once a body is read whole.
			status, err := a.bodyStatus(err, limit)
			held.fail(w, status, err)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), a.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r, held)
	}
}

// bodyStatus returns the status and error that answer err, the error of
// reading a body of at most limit bytes.
func (a *gate) bodyStatus(err error, limit int64) (int, error) {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, fmt.Errorf("body larger than %d bytes", limit)
	case errors.Is(err, admission.ErrFull):
		return http.StatusServiceUnavailable, fmt.Errorf(
			"%w: more than %d bytes of request bodies held at once; retry later", errBusy, a.budget.Max())
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, errors.New("body not received in time")
	}
	return http.StatusBadRequest, fmt.Errorf("read body: %w", err)
}

// acquire takes one of the slots for b's request, waiting at most queueWait
// (then errBusy) or until ctx ends; releaseSlot gives it back, and so does
// release if the request ends holding it (a handler that panicked).
func (b *hold) acquire(ctx context.Context) error {
	slot, err := b.g.slots.Acquire(ctx)
	if errors.Is(err, admission.ErrBusy) {
		return fmt.Errorf("%w: %d requests to %s's endpoints in flight; retry later", errBusy, b.g.slots.Cap(), Name)
	}
	if err != nil {
		return err
	}
	b.slot = slot
	return nil
}

// releaseSlot gives back the slot b's request holds, if any.
func (b *hold) releaseSlot() {
	b.slot.Release()
	b.slot = nil
}

// vectorizeHeld vectorizes texts as queries for b's request holding one of
// the slots (vectorizeTexts): err is also errBusy when no slot comes, and the
// request's end (stopped) when its context ends before the work is done.
func (m *Module) vectorizeHeld(ctx context.Context, b *hold, collection string, texts []string,
	opts vectorizer.Options) ([][]float32, []error, error) {
	if err := b.acquire(ctx); err != nil {
		return nil, nil, err
	}
	vecs, errs, err := m.vectorizeTexts(ctx, collection, texts, vectorizer.TaskQuery, opts)
	b.releaseSlot()
	if err == nil {
		err = m.adm.stopped(ctx)
	}
	return vecs, errs, err
}

// stopped returns the error of work whose context ended before it was
// done: requestTimeout passed or the client left. Such work is answered 503,
// not 200 with every text failed; nil while ctx lasts.
func (a *gate) stopped(ctx context.Context) error {
	switch err := ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("the request was not done within %v; the work was stopped", a.timeout)
	case err != nil:
		return fmt.Errorf("the work was stopped: %w", err)
	}
	return nil
}

// hold is what one request holds: the bytes of its body, charged as they
// arrive, then those of its answer while it is written, and a slot while it
// works.
type hold struct {
	charge *admission.Charge
	g      *gate
	slot   *admission.Slot          // while the request holds one of the slots
	rc     *http.ResponseController // nil when the connection's deadlines cannot be set
}

// release gives back the bytes charged and the slot.
func (b *hold) release() {
	b.releaseSlot()
	b.charge.Release()
}

// fail gives back what b's request holds, then writes err as its error
// answer with status. Writing an error, bounded only by the server's write
// deadline, is not cut to make room as an answer is: a client that does not
// read it would hold the body that long (and a request cut, its bytes past
// maxBodiesHeld).
func (b *hold) fail(w http.ResponseWriter, status int, err error) {
	b.release()
	writeModuleError(w, status, err)
}

// answer writes v as the request's JSON answer, charged beside the body
// until the request ends, within bodyTimeout: a client slow to read it holds
// its bytes no longer, and no longer than patience once another request
// needs the room. It is refused (503, Retry-After) when the bytes held
// would pass maxBodiesHeld while another answer is being written: what
// answers hold is at most maxBodiesHeld or one answer.
func (b *hold) answer(w http.ResponseWriter, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		b.fail(w, http.StatusInternalServerError, fmt.Errorf("encode the answer: %w", err))
		return
	}
	if err := b.charge.Answer(int64(len(out))); err != nil {
		b.fail(w, http.StatusServiceUnavailable, fmt.Errorf(
			"%w: more than %d bytes of request bodies and answers held at once; retry later", errBusy, b.g.budget.Max()))
		return
	}
	if rc := b.rc; rc != nil && rc.SetWriteDeadline(time.Now().Add(b.g.bodyTimeout)) == nil {
		defer b.charge.Expose(func() { rc.SetWriteDeadline(time.Now()) })()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}
