package module

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/admission"
	"github.com/text2vec-am/text2vec-am/internal/admission/admissiontest"
)

const batchBody = `{"texts":["w1 w2 unseenword","w5 r7"]}`

// post sends body to path of the module's endpoints and returns the answer.
func post(h http.Handler, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	return rec
}

// TestEndpointsWaitForASlot: when every slot is taken, a request waits
// queueWait and is answered 503 with Retry-After, naming why; once a slot is
// free it is served.
func TestEndpointsWaitForASlot(t *testing.T) {
	m := newTestModule(t, true)
	m.env.VectorsEndpoint = true
	m.adm.slots = admission.NewSlots(m.adm.slots.Cap(), 50*time.Millisecond)
	var taken []*admission.Slot
	for range m.adm.slots.Cap() {
		slot, err := m.adm.slots.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, slot)
	}
	h := m.RootHandler()
	for _, c := range []struct{ path, body string }{{"/vectors/batch", batchBody}, {"/vectors", `{"text":"w1"}`}} {
		rec := post(h, c.path, c.body)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
			!strings.Contains(rec.Body.String(), "in flight") {
			t.Errorf("%s with every slot taken: %d Retry-After %q %s", c.path, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	taken[0].Release()
	for _, c := range []struct{ path, body string }{{"/vectors/batch", batchBody}, {"/vectors", `{"text":"w1"}`}} {
		if rec := post(h, c.path, c.body); rec.Code != http.StatusOK {
			t.Errorf("%s with a slot free: %d %s", c.path, rec.Code, rec.Body)
		}
	}
	if n := m.adm.slots.InUse(); n != m.adm.slots.Cap()-1 {
		t.Errorf("%d slots taken after the requests, want %d: a request kept its slot", n, m.adm.slots.Cap()-1)
	}
}

// TestEndpointsBoundTheBytesHeld: a body that would take the bytes held at
// once past their bound is answered 503 with Retry-After; every request gives
// back what it held, refused or served.
func TestEndpointsBoundTheBytesHeld(t *testing.T) {
	m := newTestModule(t, true)
	m.adm.budget = admission.NewBudget(int64(len(batchBody))+10, time.Minute, 0, 0)
	h := m.RootHandler()
	other := holdBody(t, m.adm.budget, 20) // another request's body
	rec := post(h, "/vectors/batch", batchBody)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), "bytes of request bodies held at once") {
		t.Errorf("body past the bytes held: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if n := m.adm.budget.Held(); n != 20 {
		t.Fatalf("%d bytes held after a refused body, want 20", n)
	}
	other.Release()
	if rec := post(h, "/vectors/batch", batchBody); rec.Code != http.StatusOK {
		t.Errorf("body within the bytes held: %d %s", rec.Code, rec.Body)
	}
	if n := m.adm.budget.Held(); n != 0 {
		t.Errorf("%d bytes held after the request, want 0", n)
	}
}

// TestSlowBodyHoldsNoSlot: a client that sends its body slowly holds no slot
// (another is served meanwhile) and is answered 408 when bodyTimeout passes.
func TestSlowBodyHoldsNoSlot(t *testing.T) {
	m := newTestModule(t, true)
	m.adm.slots = admission.NewSlots(1, queueWait)
	m.adm.bodyTimeout = 300 * time.Millisecond
	srv := httptest.NewServer(m.RootHandler())
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 10 bytes of a body of 100, then nothing.
	if _, err := conn.Write([]byte("POST /vectors/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"texts\":[")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := http.Post(srv.URL+"/vectors/batch", "application/json", strings.NewReader(batchBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || time.Since(start) > m.adm.bodyTimeout {
		t.Errorf("request beside a slow body: %d after %s", resp.StatusCode, time.Since(start))
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	slow, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("slow body: no answer: %v", err)
	}
	slow.Body.Close()
	if slow.StatusCode != http.StatusRequestTimeout {
		t.Errorf("slow body: %d, want 408", slow.StatusCode)
	}
}

// TestAdmittedWorkOutlivesTheBodyDeadline: the deadline that bounds reading
// the body does not end the request's work when it passes.
func TestAdmittedWorkOutlivesTheBodyDeadline(t *testing.T) {
	a := newGate()
	a.bodyTimeout = 50 * time.Millisecond
	srv := httptest.NewServer(a.admitted(1024, func(w http.ResponseWriter, r *http.Request, _ *hold) {
		time.Sleep(4 * a.bodyTimeout)
		if err := r.Context().Err(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("work past the body deadline: %d, want 200", resp.StatusCode)
	}
}

// TestAdmittedWorkEndsAtTheRequestTimeout: the request's context ends when
// requestTimeout passes, whatever the client does.
func TestAdmittedWorkEndsAtTheRequestTimeout(t *testing.T) {
	a := newGate()
	a.timeout = 50 * time.Millisecond
	rec := httptest.NewRecorder()
	a.admitted(1024, func(w http.ResponseWriter, r *http.Request, _ *hold) {
		select {
		case <-r.Context().Done():
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-time.After(10 * time.Second):
		}
	})(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`)))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("work past the request timeout: %d, want its context ended (503)", rec.Code)
	}
}

// TestEndpointsAnswer503WhenTheWorkIsStopped: work stopped by requestTimeout
// is answered 503, which refresh retries, not 200 with every text failed
// (refresh keeps those objects' vectors) nor 422.
func TestEndpointsAnswer503WhenTheWorkIsStopped(t *testing.T) {
	m := newTestModule(t, true)
	m.env.VectorsEndpoint = true
	m.adm.timeout = time.Nanosecond
	h := m.RootHandler()
	for range 20 { // the slot or the deadline: either may come first
		for _, c := range []struct{ path, body string }{{"/vectors/batch", batchBody}, {"/vectors", `{"text":"w1"}`}} {
			if rec := post(h, c.path, c.body); rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("%s past the request timeout: %d %s, want 503", c.path, rec.Code, rec.Body)
			}
		}
	}
}

// TestAdmittedAnswersPastTheServerWriteTimeout: Weaviate's server bounds the
// writing of an answer from the start of its request (--write-timeout, 60 s
// by default, the request timeout); the answer of work within requestTimeout
// still reaches the client.
func TestAdmittedAnswersPastTheServerWriteTimeout(t *testing.T) {
	a := newGate()
	srv := httptest.NewUnstartedServer(a.admitted(1024, func(w http.ResponseWriter, r *http.Request, _ *hold) {
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte(`{}`))
	}))
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatalf("work past the server's write timeout: %v, want its answer", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("work past the server's write timeout: %d, want 200", resp.StatusCode)
	}
}

// TestEndpointsChargeTheirAnswers: an answer is held beside its body while
// it is written (a client that does not read it keeps it): it is refused 503
// with Retry-After when the bytes held would pass their bound while another
// answer is being written, and written when none is.
func TestEndpointsChargeTheirAnswers(t *testing.T) {
	m := newTestModule(t, true)
	h := m.RootHandler()
	// Room for the body, not for its answer.
	m.adm.budget = admission.NewBudget(int64(len(batchBody))+100, time.Minute, 0, 0)
	other := m.adm.budget.NewCharge()
	if err := other.Answer(50); err != nil { // another request's answer, being written
		t.Fatal(err)
	}
	rec := post(h, "/vectors/batch", batchBody)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), "answers held") {
		t.Errorf("answer past the bytes held: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if held, answers := m.adm.budget.Held(), m.adm.budget.Answers(); held != 50 || answers != 50 {
		t.Fatalf("%d bytes held, %d of answers after a refused answer, want 50, 50", held, answers)
	}
	other.Release()
	holdBody(t, m.adm.budget, 50) // no other answer is being written: this one is
	if rec := post(h, "/vectors/batch", batchBody); rec.Code != http.StatusOK {
		t.Errorf("the only answer past the bytes held: %d %s, want 200", rec.Code, rec.Body)
	}
	if held, answers := m.adm.budget.Held(), m.adm.budget.Answers(); held != 50 || answers != 0 {
		t.Errorf("%d bytes held, %d of answers after the request, want 50, 0", held, answers)
	}
}

// TestAdmittedAnswerNotReadIsCut: a client that does not read its answer
// holds the answer's bytes for bodyTimeout at most.
func TestAdmittedAnswerNotReadIsCut(t *testing.T) {
	a := newGate()
	a.bodyTimeout = 500 * time.Millisecond
	srv := httptest.NewServer(a.admitted(1024, func(w http.ResponseWriter, r *http.Request, held *hold) {
		held.answer(w, strings.Repeat("x", 32<<20))
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for a.budget.Held() < 32<<20 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if a.budget.Held() < 32<<20 {
		t.Fatalf("%d bytes held while the answer is written, want its 32 MiB", a.budget.Held())
	}
	for a.budget.Held() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.budget.Held(); n != 0 {
		t.Errorf("%d bytes held 5 s after an answer nobody reads, want 0 after %v", n, a.bodyTimeout)
	}
}

// TestAdmittedHeldBodyCutToMakeRoom: a client holding a half-sent body
// that fills the bytes held cannot keep others out: past the patience, a
// new body cuts it (408) and is served.
func TestAdmittedHeldBodyCutToMakeRoom(t *testing.T) {
	heldBodyCut(t, admission.NewBudget(1000, 20*time.Millisecond, 0, 0), 50*time.Millisecond)
}

// TestAdmittedFreshHeldBodyWaitedOut: a body that finds the bytes held
// full of a half-sent body still within the patience waits (up to the
// queue wait) until that one can be cut, and is served.
func TestAdmittedFreshHeldBodyWaitedOut(t *testing.T) {
	heldBodyCut(t, admission.NewBudget(1000, 100*time.Millisecond, queueWait, 0), 0)
}

// heldBodyCut holds 800 bytes of a 900-byte body on one connection, waits
// pause, then posts a 300-byte body beside it: the new body must be
// answered 200 and the held one 408, cut to make room, under budget.
func heldBodyCut(t *testing.T, budget *admission.Budget, pause time.Duration) {
	t.Helper()
	a := newGate()
	a.budget = budget
	srv := httptest.NewServer(a.admitted(1000, func(w http.ResponseWriter, r *http.Request, held *hold) {
		held.answer(w, "ok")
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n" + strings.Repeat(" ", 800))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for a.budget.Held() < 800 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(pause)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(strings.Repeat(" ", 300)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a body beside one held: %d, want 200", resp.StatusCode)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	held, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the held body: no answer: %v", err)
	}
	held.Body.Close()
	if held.StatusCode != http.StatusRequestTimeout {
		t.Errorf("the held body: %d, want 408", held.StatusCode)
	}
}

// TestAdmittedCutAsItsBodyEnds: a request cut to make room as the last
// bytes of its body arrive is answered 408 naming the cut, not served: the
// room was made counting its bytes as leaving, and its connection's
// deadline is in the past.
func TestAdmittedCutAsItsBodyEnds(t *testing.T) {
	a := newGate()
	a.budget = admission.NewBudget(100, 0, 0, 0)
	other := a.budget.NewCharge()
	defer other.Release()
	h := a.admitted(1000, func(w http.ResponseWriter, r *http.Request, held *hold) {
		t.Error("a request cut was served")
		held.answer(w, "ok")
	})
	rec := admissiontest.NewRecorder()
	h(rec, httptest.NewRequest(http.MethodPost, "/", admissiontest.CutAtEOF(`{"text":"a"}`, other)))
	if rec.Code != http.StatusRequestTimeout || !strings.Contains(rec.Body.String(), "cut to make room") {
		t.Errorf("a request cut as its body ended: %d %s, want 408 naming the cut", rec.Code, rec.Body)
	}
	if a.budget.Cuts() != 1 {
		t.Errorf("Cuts %d, want 1", a.budget.Cuts())
	}
}

// TestAdmittedGivesBackTheSlotOfAPanic: a handler that panics holding a slot
// (the server recovers) gives it back.
func TestAdmittedGivesBackTheSlotOfAPanic(t *testing.T) {
	a := newGate()
	h := a.admitted(1024, func(w http.ResponseWriter, r *http.Request, held *hold) {
		if err := held.acquire(r.Context()); err != nil {
			t.Fatal(err)
		}
		panic("handler")
	})
	func() {
		defer func() { _ = recover() }()
		h(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`)))
	}()
	if n := a.slots.InUse(); n != 0 {
		t.Errorf("%d slots taken after a handler panicked, want 0", n)
	}
}

// TestAdmittedRefusesADeclaredLengthOverTheLimit: a body whose declared
// length passes the limit is answered 413 before a byte of it is read.
func TestAdmittedRefusesADeclaredLengthOverTheLimit(t *testing.T) {
	a := newGate()
	body := &countingReader{r: strings.NewReader(strings.Repeat(" ", 2048))}
	req := httptest.NewRequest(http.MethodPost, "/", body)
	req.ContentLength = 2048
	rec := httptest.NewRecorder()
	a.admitted(1024, func(http.ResponseWriter, *http.Request, *hold) { t.Error("handler ran") })(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || body.n != 0 {
		t.Errorf("declared length 2048 over 1024: %d after reading %d bytes, want 413 after none", rec.Code, body.n)
	}
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// holdBody charges n bytes of another request's body to b, as that
// request's read charges them; Release gives them back.
func holdBody(t *testing.T, b *admission.Budget, n int) *admission.Charge {
	t.Helper()
	c := b.NewCharge()
	if _, err := io.ReadAll(c.Reader(io.NopCloser(strings.NewReader(strings.Repeat(" ", n))))); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEndpointsUnreadErrorHoldsNoBody: a client that does not read the
// error answering its body (its connection's buffers full of earlier
// answers) holds none of the body's bytes, nor a slot, while the error
// waits to be written: an error is not cut to make room as an answer is.
func TestEndpointsUnreadErrorHoldsNoBody(t *testing.T) {
	m := newTestModule(t, true)
	big := `{"texts":["` + strings.Repeat("w1 ", maxVectorBytes/3) + `"]}`
	for _, c := range []struct{ name, path, body string }{
		{"malformed JSON", "/vectors/batch", `{"texts":["w1"]` + strings.Repeat(" ", 3000) + `,}`},
		{"body over the limit", "/vectors", big},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(c.body))
			r.ContentLength = -1 // unknown: the limit is found reading
			w := admissiontest.NewStalledWriter()
			done := make(chan struct{})
			go func() {
				defer close(done)
				m.RootHandler().ServeHTTP(w, r)
			}()
			select {
			case <-w.Writing():
			case <-time.After(10 * time.Second):
				t.Fatal("no answer written")
			}
			held, slots := m.adm.budget.Held(), m.adm.slots.InUse()
			w.Release()
			<-done
			if held != 0 || slots != 0 {
				t.Errorf("while the error waits to be written: %d bytes held, %d slots taken; want 0, 0", held, slots)
			}
		})
	}
}

// TestAdmittedCutAnswerHoldsNoBody: a request cut to make room gives back
// its bytes before its 408 is written, so that a client that does not read
// it cannot keep them past the maximum.
func TestAdmittedCutAnswerHoldsNoBody(t *testing.T) {
	a := newGate()
	a.budget = admission.NewBudget(100, 0, 0, 0)
	other := a.budget.NewCharge()
	defer other.Release()
	h := a.admitted(1000, func(w http.ResponseWriter, r *http.Request, held *hold) { t.Error("a request cut was served") })
	body := admissiontest.CutAtEOF(`{"text":"`+strings.Repeat("a", 80)+`"}`, other)
	w := admissiontest.NewStalledWriter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h(w, httptest.NewRequest(http.MethodPost, "/", body))
	}()
	select {
	case <-w.Writing():
	case <-time.After(10 * time.Second):
		t.Fatal("no answer written")
	}
	held := a.budget.Held()
	w.Release()
	<-done
	if held != 100 || a.budget.Cuts() != 1 {
		t.Errorf("while the 408 of a request cut waits to be written: %d bytes held, %d cuts; want the other's 100, 1",
			held, a.budget.Cuts())
	}
}
