package module

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/admission/admissiontest"
)

// tracingWriter wraps a ResponseWriter as Weaviate's tracing middleware
// does: an embedded writer, the status and size recorded, no Unwrap.
type tracingWriter struct {
	http.ResponseWriter
	status int
	size   int64
}

func (w *tracingWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *tracingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.size += int64(n)
	return n, err
}

// TestSlowBodyTimedOutBehindAWrapper: behind a wrapper without Unwrap, a
// body that stops arriving is still answered 408 when bodyTimeout passes,
// and the answer goes through the wrapper.
func TestSlowBodyTimedOutBehindAWrapper(t *testing.T) {
	m := newTestModule(t, true)
	m.adm.bodyTimeout = 300 * time.Millisecond
	served := make(chan *tracingWriter, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &tracingWriter{ResponseWriter: w}
		m.RootHandler().ServeHTTP(tw, r)
		served <- tw
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /vectors/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"texts\":[")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("slow body behind a wrapper: no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("slow body behind a wrapper: %d, want 408", resp.StatusCode)
	}
	select {
	case tw := <-served:
		if tw.status != http.StatusRequestTimeout || tw.size == 0 {
			t.Errorf("the wrapper saw status %d, %d bytes; want the 408 written through it", tw.status, tw.size)
		}
	case <-time.After(10 * time.Second):
		t.Error("the handler did not return")
	}
}

// TestConnControllerLooksThroughWrappers: deadlines reach the connection
// through wrappers embedding the writer, nested too; a wrapper around no
// writer gives an error, not a panic.
func TestConnControllerLooksThroughWrappers(t *testing.T) {
	type hidden struct{ http.ResponseWriter }
	for name, wrap := range map[string]func(http.ResponseWriter) http.ResponseWriter{
		"none":     func(w http.ResponseWriter) http.ResponseWriter { return w },
		"embedded": func(w http.ResponseWriter) http.ResponseWriter { return &tracingWriter{ResponseWriter: w} },
		"nested": func(w http.ResponseWriter) http.ResponseWriter {
			return &tracingWriter{ResponseWriter: &hidden{&tracingWriter{ResponseWriter: w}}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec := admissiontest.NewRecorder()
			if err := connController(wrap(rec)).SetReadDeadline(time.Now()); err != nil || rec.Deadlines != 1 {
				t.Fatalf("SetReadDeadline: %v, %d deadlines reached the connection, want 1", err, rec.Deadlines)
			}
		})
	}
	if err := connController(&tracingWriter{}).SetReadDeadline(time.Now()); err == nil {
		t.Fatal("a wrapper around no writer: deadline set, want an error")
	}
}

// writer is http.ResponseWriter under a name that is not exported.
type writer = http.ResponseWriter

// unexportedField is a wrapper embedding the writer as an unexported field.
type unexportedField struct{ writer }

// cyclicWriter is a wrapper that embeds itself.
type cyclicWriter struct{ http.ResponseWriter }

// nilUnwrapper is a wrapper whose Unwrap finds no writer.
type nilUnwrapper struct{ http.ResponseWriter }

func (nilUnwrapper) Unwrap() http.ResponseWriter { return nil }

// TestConnControllerOddWrappers: wrappers connController cannot look
// through give an error for the deadlines, never a panic or a hang.
func TestConnControllerOddWrappers(t *testing.T) {
	rec := admissiontest.NewRecorder()
	type byValue struct{ http.ResponseWriter }
	type FlushWriter interface {
		http.ResponseWriter
		http.Flusher
	}
	type otherInterface struct{ FlushWriter }
	cyclic := &cyclicWriter{}
	cyclic.ResponseWriter = cyclic
	for name, w := range map[string]http.ResponseWriter{
		"struct value":          byValue{rec},
		"other interface":       &otherInterface{rec},
		"unexported field":      &unexportedField{rec},
		"cycle":                 cyclic,
		"nil pointer":           (*tracingWriter)(nil),
		"unwraps to nil":        nilUnwrapper{rec},
		"embedded nil":          &tracingWriter{ResponseWriter: &tracingWriter{}},
		"unwrap then embedding": nilUnwrapper{&tracingWriter{}},
	} {
		t.Run(name, func(t *testing.T) {
			if err := connController(w).SetReadDeadline(time.Now()); err == nil || rec.Deadlines != 0 {
				t.Fatalf("SetReadDeadline: %v, %d deadlines reached the connection; want an error, none", err, rec.Deadlines)
			}
		})
	}
}
