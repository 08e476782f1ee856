package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/admission"
	"github.com/text2vec-am/text2vec-am/internal/admission/admissiontest"
)

// TestDrainReadsARefusedBodyUncharged: a body refused because the bytes
// held reach MaxBodyBuffer is drained whole (the client reads its 503, not
// a reset), and what is drained is not charged.
func TestDrainReadsARefusedBodyUncharged(t *testing.T) {
	s := &Server{limits: DefaultLimits(), budget: admission.NewBudget(100, time.Minute, 0, 0)}
	r := httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(strings.Repeat(" ", 10_000)))
	held := s.budget.NewCharge()
	defer held.Release()
	r.Body = held.Reader(r.Body)
	if _, err := io.ReadAll(io.LimitReader(r.Body, 200)); !errors.Is(err, admission.ErrFull) {
		t.Fatalf("body past the budget: %v, want ErrFull", err)
	}
	charged := s.budget.Held()
	rec := httptest.NewRecorder()
	s.drain(rec, r)
	if n, _ := r.Body.Read(make([]byte, 1)); n != 0 {
		t.Error("the body was not drained whole")
	}
	if s.budget.Held() != charged || rec.Header().Get("Connection") != "close" {
		t.Errorf("%d bytes held after the drain, Connection %q; want %d, close",
			s.budget.Held(), rec.Header().Get("Connection"), charged)
	}
}

// TestAdmitCutAsItsBodyEnds: a request cut to make room as the last bytes
// of its body arrive is answered 408 naming the cut, its connection closed,
// and not served: the room was made counting its bytes as leaving, and its
// connection's deadline is in the past.
func TestAdmitCutAsItsBodyEnds(t *testing.T) {
	s := &Server{limits: DefaultLimits(), budget: admission.NewBudget(100, 0, 0, 0)}
	other := s.budget.NewCharge()
	defer other.Release()
	r := httptest.NewRequest(http.MethodPost, "/vectors", admissiontest.CutAtEOF(`{"text":"a"}`, other))
	held := s.budget.NewCharge()
	defer held.Release()
	r.Body = held.Reader(r.Body)
	w := admissiontest.NewRecorder()
	err := s.admit(w, r, &bytes.Buffer{}, held)
	if !held.Cut() {
		t.Fatal("the request was not cut")
	}
	var he *httpError
	if !errors.As(err, &he) || he.status != http.StatusRequestTimeout || !strings.Contains(he.msg, "cut to make room") {
		t.Fatalf("a request cut as its body ended: %v, want 408 naming the cut", err)
	}
	if w.Header().Get("Connection") != "close" {
		t.Errorf("Connection %q, want close", w.Header().Get("Connection"))
	}
}

// slowBody is a request body whose text arrives after delay.
type slowBody struct {
	io.Reader
	delay time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	time.Sleep(b.delay)
	b.delay = 0
	return b.Reader.Read(p)
}

func (b *slowBody) Close() error { return nil }

// TestAdmitReadDeadlineCountsFromTheBodyEnd: once a body is in, the
// connection's read deadline leaves the rest of the request QueueWait,
// RequestTimeout and readSlack counted from the body's end, however long
// the body took: net/http's read after the body ends the connection's
// context when that deadline passes, which would stop the work.
func TestAdmitReadDeadlineCountsFromTheBodyEnd(t *testing.T) {
	s := &Server{limits: DefaultLimits(), budget: admission.NewBudget(1<<20, time.Second, 0, 0)}
	r := httptest.NewRequest(http.MethodPost, "/vectors",
		&slowBody{Reader: strings.NewReader(`{"text":"a"}`), delay: 300 * time.Millisecond})
	held := s.budget.NewCharge()
	defer held.Release()
	r.Body = held.Reader(r.Body)
	w := admissiontest.NewRecorder()
	if err := s.admit(w, r, &bytes.Buffer{}, held); err != nil {
		t.Fatal(err)
	}
	want := s.limits.QueueWait + s.limits.RequestTimeout + readSlack
	if left := time.Until(w.LastRead); left < want-100*time.Millisecond {
		t.Errorf("read deadline %v after a body of 300 ms, want %v", left.Round(time.Millisecond), want)
	}
}

// TestWriteAnswerReadDeadlineOutlastsTheAnswer: while an answer is
// written, the connection's read deadline is past its write deadline, so a
// slow reader of a large answer does not end the connection's context
// (and with it the next request's on a kept-alive connection).
func TestWriteAnswerReadDeadlineOutlastsTheAnswer(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxBodyBytes = 64
	s := &Server{limits: lim, budget: admission.NewBudget(1<<20, time.Second, 0, 0)}
	held := s.budget.NewCharge()
	defer held.Release()
	w := admissiontest.NewRecorder()
	w.LastRead = time.Now().Add(lim.QueueWait + lim.RequestTimeout + readSlack) // as admit leaves it
	// An answer of 10 × MaxBodyBytes: 11 × BodyTimeout to write it.
	s.writeAnswer(w, bytes.Repeat([]byte(" "), 640), held)
	if w.LastWrite.IsZero() || !w.LastRead.After(w.LastWrite) {
		t.Errorf("read deadline %v, write deadline %v: want the read deadline past the write deadline",
			time.Until(w.LastRead).Round(time.Second), time.Until(w.LastWrite).Round(time.Second))
	}
}

func TestCheckKeys(t *testing.T) {
	for _, c := range []struct {
		body, want string // want "" = accepted
	}{
		{`{"text":"f1","config":{"task_type":"query"}}`, ""},
		{`{"Text":"f1"}`, `unknown field "Text"`},
		{`{"\u0054ext":"f1"}`, `unknown field "Text"`},
		{`{"text":"a","te\u0078t":"b"}`, `duplicate key "text"`},
		{`{"text":"f1","config":{"a":1,"b":{"a":1},"a":2}}`, `duplicate key "a"`},
		{`{"text":"{\"a\":1,\"a\":2}","config":{}}`, ""},
		{`{"texts":[{"x":1,"x":2}]}`, `duplicate key "x"`},
		{`{"text":"\\","config":{"k":[1,2,{"k":true}],"k2":null}}`, ""},
		{`{"text":`, ""}, // malformed: decodeJSON reports it
		{`["text","text"]`, ""},
	} {
		err := checkKeys([]byte(c.body), []string{"text", "texts", "config"})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}

func TestCheckKeysShapeLimits(t *testing.T) {
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	if err := checkKeys([]byte(`{"text":`+deep+`}`), []string{"text"}); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("%d levels under the top object: %v", maxJSONDepth, err)
	}
	if err := checkKeys([]byte(`{"text":`+deep[1:len(deep)-1]+`}`), []string{"text"}); err != nil {
		t.Errorf("%d levels: %v", maxJSONDepth, err)
	}
	var b strings.Builder
	b.WriteString(`{"config":{`)
	for i := range maxJSONObjectKeys + 1 {
		fmt.Fprintf(&b, `"k%d":0,`, i)
	}
	if err := checkKeys([]byte(b.String()), []string{"config"}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d keys: %v", maxJSONObjectKeys+1, err)
	}
	b.Reset()
	b.WriteString(`{"config":{`)
	for i := range maxJSONObjectKeys - 1 {
		fmt.Fprintf(&b, `"k%d":0,`, maxJSONObjectKeys-1-i)
	}
	b.WriteString(`"k1":1}}`)
	if err := checkKeys([]byte(b.String()), []string{"config"}); err == nil || !strings.Contains(err.Error(), `duplicate key "k1"`) {
		t.Errorf("duplicate among %d keys: %v", maxJSONObjectKeys, err)
	}
}
