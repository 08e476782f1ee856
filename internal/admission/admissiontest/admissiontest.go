// Package admissiontest provides what tests of the front ends that use
// package admission need: a response recorder whose connection takes
// deadlines, a response writer whose client reads nothing, and a body that
// has another request cut its own as it ends.
package admissiontest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/admission"
)

// Recorder is an httptest.ResponseRecorder whose connection takes deadlines
// (http.ResponseController finds SetReadDeadline and SetWriteDeadline), as a
// server's does. It counts the deadlines set on it and keeps the last of
// each.
type Recorder struct {
	*httptest.ResponseRecorder
	// Deadlines counts the calls of SetReadDeadline and SetWriteDeadline.
	Deadlines int
	// LastRead and LastWrite are the last read and write deadlines set (zero:
	// none).
	LastRead, LastWrite time.Time
}

// NewRecorder returns a Recorder with no deadline set.
func NewRecorder() *Recorder { return &Recorder{ResponseRecorder: httptest.NewRecorder()} }

// SetReadDeadline counts the deadline and keeps it in LastRead.
func (r *Recorder) SetReadDeadline(t time.Time) error { r.Deadlines++; r.LastRead = t; return nil }

// SetWriteDeadline counts the deadline and keeps it in LastWrite.
func (r *Recorder) SetWriteDeadline(t time.Time) error { r.Deadlines++; r.LastWrite = t; return nil }

// CutAtEOF returns a request body holding text that, as it ends, charges
// other with 100 bytes of a body: when the Budget is then full, the request
// reading the body, exposed and behind by its Budget's patience, is cut to
// make room for other.
func CutAtEOF(text string, other *admission.Charge) io.ReadCloser {
	return &cutAtEOF{Reader: strings.NewReader(text), other: other}
}

// cutAtEOF is the body CutAtEOF returns.
type cutAtEOF struct {
	io.Reader
	other *admission.Charge
}

// Read reads the text; at its end it has other read 100 bytes.
func (c *cutAtEOF) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	if err == io.EOF {
		io.ReadAll(c.other.Reader(io.NopCloser(strings.NewReader(strings.Repeat(" ", 100)))))
	}
	return n, err
}

// Close does nothing.
func (c *cutAtEOF) Close() error { return nil }

// StalledWriter is the ResponseWriter of a connection whose client reads
// nothing more, its buffers full: a write blocks until Release. Its
// connection takes deadlines, as a server's does.
type StalledWriter struct {
	header      http.Header
	writing     chan struct{} // closed as the first write blocks
	release     chan struct{}
	first, free sync.Once
}

// NewStalledWriter returns a StalledWriter that has not been written to.
func NewStalledWriter() *StalledWriter {
	return &StalledWriter{header: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
}

// Header returns the answer's header.
func (w *StalledWriter) Header() http.Header { return w.header }

// WriteHeader does nothing: the status line waits with the rest.
func (w *StalledWriter) WriteHeader(int) {}

// Write blocks until Release, then reports p written.
func (w *StalledWriter) Write(p []byte) (int, error) {
	w.first.Do(func() { close(w.writing) })
	<-w.release
	return len(p), nil
}

// Writing returns a channel closed once a write has begun (and blocks).
func (w *StalledWriter) Writing() <-chan struct{} { return w.writing }

// Release lets the blocked writes and every later one through.
func (w *StalledWriter) Release() { w.free.Do(func() { close(w.release) }) }

// SetReadDeadline does nothing: the connection takes deadlines.
func (w *StalledWriter) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline does nothing: the connection takes deadlines.
func (w *StalledWriter) SetWriteDeadline(time.Time) error { return nil }
