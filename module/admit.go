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
	"sync/atomic"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
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
	// queueWait is how long a request waits for a slot before its 503.
	queueWait = time.Second
	// requestTimeout bounds the work of one request (503 when it passes).
	requestTimeout = 60 * time.Second
)

// errBusy is the error of a request refused because the endpoints are busy:
// its answer is 503 with Retry-After.
var errBusy = errors.New("busy")

// admission bounds the requests the module's endpoints serve at once and
// the bytes of bodies and answers they hold.
type admission struct {
	slots       chan struct{} // 2 × GOMAXPROCS requests vectorize at once
	held        atomic.Int64  // bytes of bodies and answers held now
	answers     atomic.Int64  // bytes of answers held now
	maxHeld     int64         // maxBodiesHeld
	bodyTimeout time.Duration // bodyTimeout
	queueWait   time.Duration // queueWait
	timeout     time.Duration // requestTimeout
}

func newAdmission() *admission {
	return &admission{slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)), maxHeld: maxBodiesHeld,
		bodyTimeout: bodyTimeout, queueWait: queueWait, timeout: requestTimeout}
}

// admitted reads r's body, of at most limit bytes, within bodyTimeout and
// charged to the bytes held until h returns, then runs h on it under a
// context that ends with the client or after requestTimeout; h writes its
// answer with held.answer. A body refused is answered here: 413 over limit,
// 503 over the bytes held, 408 late, 400 cut short.
func (a *admission) admitted(limit int64,
	h func(w http.ResponseWriter, r *http.Request, held *hold)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Not every ResponseWriter can set a deadline (an error then): the
		// server's own timeouts bound the body and the answer there.
		// Weaviate's ends the answer a fixed time after the request started
		// (--write-timeout, 60 s by default): the answer gets time of its
		// own after the body and the work.
		rc, now := http.NewResponseController(w), time.Now()
		_ = rc.SetReadDeadline(now.Add(a.bodyTimeout))
		_ = rc.SetWriteDeadline(now.Add(2*a.bodyTimeout + a.timeout))
		held := &hold{r: http.MaxBytesReader(w, r.Body, limit), a: a}
		defer held.release()
		var body []byte
		err := error(&http.MaxBytesError{Limit: limit}) // a declared length over limit: nothing read
		if r.ContentLength <= limit {
			body, err = io.ReadAll(held)
		}
		if err != nil {
			// The deadline bounds what the server drains of the body
			// before the answer; net/http lifts it once a body is read whole.
			status, err := bodyStatus(err, limit)
			writeModuleError(w, status, err)
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
func bodyStatus(err error, limit int64) (int, error) {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, fmt.Errorf("body larger than %d bytes", limit)
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable, err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, errors.New("body not received in time")
	}
	return http.StatusBadRequest, fmt.Errorf("read body: %w", err)
}

// acquire takes one of the slots for b's request, waiting at most queueWait
// (then errBusy) or until ctx ends; releaseSlot gives it back, and so does
// release if the request ends holding it (a handler that panicked).
func (b *hold) acquire(ctx context.Context) error {
	t := time.NewTimer(b.a.queueWait)
	defer t.Stop()
	select {
	case b.a.slots <- struct{}{}:
		b.slot = true
		return nil
	case <-t.C:
		return fmt.Errorf("%w: %d requests to %s's endpoints in flight; retry later", errBusy, cap(b.a.slots), Name)
	case <-ctx.Done():
		return fmt.Errorf("wait for a slot: %w", ctx.Err())
	}
}

// releaseSlot gives back the slot b's request holds, if any.
func (b *hold) releaseSlot() {
	if b.slot {
		<-b.a.slots
		b.slot = false
	}
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
func (a *admission) stopped(ctx context.Context) error {
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
	r       io.ReadCloser
	a       *admission
	n       int64 // bytes charged
	answerN int64 // bytes of the answer among them, charged to answers too
	slot    bool  // the request holds one of the slots
}

func (b *hold) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.n += int64(n)
		if b.a.held.Add(int64(n)) > b.a.maxHeld {
			return 0, fmt.Errorf("%w: more than %d bytes of request bodies held at once; retry later", errBusy, b.a.maxHeld)
		}
	}
	return n, err
}

func (b *hold) Close() error { return b.r.Close() }

// release gives back the bytes charged and the slot.
func (b *hold) release() {
	b.releaseSlot()
	b.a.held.Add(-b.n)
	b.a.answers.Add(-b.answerN)
}

// answer writes v as the request's JSON answer, charged beside the body
// until the request ends, within bodyTimeout: a client slow to read it holds
// its bytes no longer. It is refused (503, Retry-After) when the bytes held
// would pass maxHeld while another answer is being written: what answers
// hold is at most maxHeld or one answer.
func (b *hold) answer(w http.ResponseWriter, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		writeModuleError(w, http.StatusInternalServerError, fmt.Errorf("encode the answer: %w", err))
		return
	}
	n := int64(len(out))
	others := b.a.answers.Add(n) - n
	if b.a.held.Add(n) > b.a.maxHeld && others > 0 {
		b.a.answers.Add(-n)
		b.a.held.Add(-n)
		writeModuleError(w, http.StatusServiceUnavailable, fmt.Errorf(
			"%w: more than %d bytes of request bodies and answers held at once; retry later", errBusy, b.a.maxHeld))
		return
	}
	b.n += n
	b.answerN += n
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(b.a.bodyTimeout))
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}
