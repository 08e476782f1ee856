package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/admission"
)

// routes lists every endpoint with the methods it answers (the Allow header of
// a 405); GET routes also answer HEAD.
var routes = map[string]string{
	"/.well-known/live": "GET, HEAD", "/.well-known/ready": "GET, HEAD", "/meta": "GET, HEAD", "/metrics": "GET, HEAD",
	"/vectors": "POST", "/vectors/": "POST", "/vectors/batch": "POST", "/explain": "POST",
	"/v1/embeddings": "POST", "/passage/v1/embeddings": "POST", "/v2/embed": "POST",
}

// notFound answers every request no route matched: 405 with Allow on a known
// path, 404 otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	writeErr := s.errorWriterFor(r)
	if allow, ok := routes[r.URL.Path]; ok {
		w.Header().Set("Allow", allow)
		writeErr(w, errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
		return
	}
	writeErr(w, errorf(http.StatusNotFound, "no endpoint %s %s", r.Method, r.URL.Path))
}

// errorWriterFor returns how errors are written for r outside its handler:
// under /v1/ and /passage/v1/ (OpenAI clients' base URLs) in OpenAI's shape, under /v2/ (Cohere's) in
// Cohere's.
func (s *Server) errorWriterFor(r *http.Request) func(http.ResponseWriter, error) {
	if strings.HasPrefix(r.URL.Path, "/v2/") {
		return s.writeCohereError
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") || strings.HasPrefix(r.URL.Path, "/passage/v1/") {
		return s.writeOpenAIError
	}
	return s.writeError
}

// admit reads the body of a POST into buf, charged to held, before the
// request takes a slot: the Content-Type (if any) must be application/json,
// the body must arrive within BodyTimeout and fit MaxBodyBytes. While it
// arrives, the request may be cut to make room (Limits.Patience). A refused
// body is drained (within a bound) first, so that the client reads the
// status, not a reset.
//
// A request without Content-Type is accepted: Weaviate's clients send none.
// Browsers always label a cross-origin POST (Sec-Fetch-Site, Origin), and
// those are refused before admit (http.CrossOriginProtection).
func (s *Server) admit(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, held *admission.Charge) error {
	rc := http.NewResponseController(w)
	// The deadline for the rest of the request is set last, after the
	// exposure ends: a cut cannot then leave the connection's deadline in
	// the past for the work and the answer. It counts from the body's end:
	// net/http's read after a body ends the connection's context when the
	// read deadline passes, stopping the work and starting every later
	// request on the connection with its context ended.
	defer func() {
		rc.SetReadDeadline(time.Now().Add(s.limits.QueueWait + s.limits.RequestTimeout + readSlack))
	}()
	end := func() {}
	if rc.SetReadDeadline(time.Now().Add(s.limits.BodyTimeout)) == nil {
		end = held.Expose(func() { rc.SetReadDeadline(time.Now()) })
	}
	defer end()
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if cs := params["charset"]; err != nil || mt != "application/json" || (cs != "" && !strings.EqualFold(cs, "utf-8")) {
			s.drain(w, r)
			return errorf(http.StatusUnsupportedMediaType, "Content-Type %q: want application/json (UTF-8)", ct)
		}
	}
	if r.ContentLength > s.limits.MaxBodyBytes {
		s.drain(w, r)
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes exceeds the limit of %d bytes (--max-body-bytes)", r.ContentLength, s.limits.MaxBodyBytes)
	}
	err := readBody(r, s.limits.MaxBodyBytes, buf)
	if err == nil {
		// A body read whole can no longer be cut; one cut as it ended is
		// not served: its bytes were counted as leaving, and the deadline in
		// the past has ended the request's context.
		end()
	}
	var he *httpError
	switch {
	case held.Cut():
		w.Header().Set("Connection", "close")
		return errorf(http.StatusRequestTimeout, "request body %v behind %.0f bytes/s (--max-body-bytes per "+
			"--body-timeout) while the bodies and answers held reached %d bytes (--max-body-buffer): cut to make room",
			s.limits.Patience, s.limits.minBodyRate(), s.limits.MaxBodyBuffer)
	case err == nil:
		return nil
	case errors.Is(err, admission.ErrFull):
		s.drain(w, r)
		return s.bufferBusy()
	case errors.As(err, &he) && he.status == http.StatusRequestEntityTooLarge:
		s.drain(w, r)
		return err
	case isTimeout(err):
		s.metrics.bodyTimeouts.Inc()
		w.Header().Set("Connection", "close")
		return errorf(http.StatusRequestTimeout, "request body not received within %v (--body-timeout)", s.limits.BodyTimeout)
	}
	return err
}

// readSlack is how far past the time the rest of a request may take its
// connection's read deadline is set once its body is in. It must not pass
// while the handler runs: net/http's read after the body then fails and
// ends the connection's context, that of the request and of every later
// one on the connection.
const readSlack = time.Minute

// drain reads and discards what remains of the body, at most 4 × MaxBodyBytes
// and within the body deadline, and marks the connection to be closed.
func (s *Server) drain(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	body := r.Body
	if br, ok := body.(*admission.Reader); ok {
		body = br.ReadCloser // discarded bytes hold no memory
	}
	io.CopyN(io.Discard, body, 4*s.limits.MaxBodyBytes)
}

// bufferBusy counts and returns the answer to a request refused because the
// request bodies and answers held reach MaxBodyBuffer.
func (s *Server) bufferBusy() *httpError {
	s.metrics.rejected.Inc()
	return &httpError{status: http.StatusServiceUnavailable, retryAfter: 1, msg: fmt.Sprintf(
		"server busy: request bodies and answers held exceed %d bytes (--max-body-buffer); retry later",
		s.limits.MaxBodyBuffer)}
}

// writeAnswer writes a computed answer, charged to held, under a write
// deadline of its own (answerTimeout), so that a client slow to read it
// holds its connection and the answer's bytes no longer than that, and no
// longer than Limits.Patience once another request needs the room.
func (s *Server) writeAnswer(w http.ResponseWriter, out []byte, held *admission.Charge) {
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(s.answerTimeout(len(out)))
	// The read deadline outlasts the answer: once it passes, net/http ends
	// the connection's context (readSlack).
	rc.SetReadDeadline(deadline.Add(readSlack))
	if rc.SetWriteDeadline(deadline) == nil {
		defer held.Expose(func() { rc.SetWriteDeadline(time.Now()) })()
	}
	if err := writeJSON(w, out); err != nil {
		s.metrics.answersCut.Inc()
	}
}

// answerTimeout is how long a client may take to read an answer of n bytes:
// BodyTimeout, and BodyTimeout more per MaxBodyBytes of answer, so a client
// must read a large answer at least as fast as it must send the largest
// body (8 MiB in 30 s by default, 280 KB/s).
func (s *Server) answerTimeout(n int) time.Duration {
	per := float64(n) / float64(s.limits.MaxBodyBytes)
	return s.limits.BodyTimeout + time.Duration(per*float64(s.limits.BodyTimeout))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// stopped maps the error of work cut short by its context (the client left,
// or RequestTimeout passed) to its answer and counts it; other errors pass.
func (s *Server) stopped(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		s.metrics.stopped.WithLabelValues("deadline").Inc()
		return errorf(http.StatusServiceUnavailable, "the request was not done within %v (--request-timeout); the work was stopped", s.limits.RequestTimeout)
	case errors.Is(err, context.Canceled):
		s.metrics.stopped.WithLabelValues("client_gone").Inc()
		return errorf(statusClientClosed, "the client closed the request; the work was stopped")
	case errors.Is(err, vectorizer.ErrTooManyAMWords):
		s.metrics.amWordsRefused.Inc()
	}
	return err
}

// statusClientClosed is recorded (and written to nobody) for a request whose
// client left: nginx's 499.
const statusClientClosed = 499

// JSON shape limits checkKeys applies before anything is allocated for a
// level or a key: no request of this server nests deeper or holds objects
// with more keys, and encoding/json would otherwise spend memory in
// proportion to them.
const (
	maxJSONDepth      = 64
	maxJSONObjectKeys = 1024
)

// keyRef locates one object key: body[start:end], or scratch[start:end] for
// a key holding an escape (stored unquoted).
type keyRef struct {
	start, end int
	unquoted   bool
}

// checkKeys refuses JSON whose top-level object has a key that is not one of
// allowed or echoed (the message lists allowed), spelled exactly (encoding/json would match "Text" to "text"), any
// object, at any depth, with a duplicate key (encoding/json keeps the last),
// nesting deeper than maxJSONDepth and objects with more than
// maxJSONObjectKeys keys. Its work is linear in the body (each object's keys
// are sorted once, when it closes) and its memory is a few bytes per key of
// the open objects; malformed JSON passes, for decodeJSON to report with its
// offset.
func checkKeys(body []byte, allowed []string, echoed ...string) error {
	type frame struct {
		object, expectKey bool
		firstKey          int // index in keys of the object's first key
	}
	var (
		stack   [maxJSONDepth]frame
		depth   int
		keys    []keyRef
		scratch []byte
	)
	for i := 0; i < len(body); {
		c := body[i]
		top := &stack[max(depth-1, 0)]
		switch {
		case c == '{' || c == '[':
			if depth == maxJSONDepth {
				return errorf(http.StatusBadRequest, "malformed JSON: nested deeper than %d levels at offset %d", maxJSONDepth, i)
			}
			stack[depth] = frame{object: c == '{', expectKey: c == '{', firstKey: len(keys)}
			depth++
			i++
		case c == '}' || c == ']':
			if depth == 0 {
				return nil
			}
			if top.object {
				if err := duplicateKey(body, scratch, keys[top.firstKey:]); err != nil {
					return err
				}
				keys = keys[:top.firstKey]
			}
			depth--
			i++
		case c == ',':
			if depth > 0 && top.object {
				top.expectKey = true
			}
			i++
		case c == '"':
			end, escaped := stringEnd(body, i)
			if end < 0 {
				return nil
			}
			if depth > 0 && top.expectKey {
				if len(keys)-top.firstKey == maxJSONObjectKeys {
					return errorf(http.StatusBadRequest, "malformed JSON: an object with more than %d keys at offset %d", maxJSONObjectKeys, i)
				}
				ref := keyRef{start: i + 1, end: end}
				if escaped {
					var k string
					if json.Unmarshal(body[i:end+1], &k) != nil {
						return nil
					}
					ref = keyRef{start: len(scratch), end: len(scratch) + len(k), unquoted: true}
					scratch = append(scratch, k...)
				}
				if k := string(ref.bytes(body, scratch)); depth == 1 && !contains(allowed, k) && !contains(echoed, k) {
					return errorf(http.StatusBadRequest, "malformed JSON: unknown field %q (known: %s)", ref.bytes(body, scratch), strings.Join(allowed, ", "))
				}
				keys = append(keys, ref)
				top.expectKey = false
			}
			i = end + 1
		default: // whitespace, ':', a number, true, false, null (or garbage)
			i++
		}
	}
	return nil
}

func (k keyRef) bytes(body, scratch []byte) []byte {
	if k.unquoted {
		return scratch[k.start:k.end]
	}
	return body[k.start:k.end]
}

// duplicateKey sorts the keys of one object and reports the first repeated.
func duplicateKey(body, scratch []byte, keys []keyRef) error {
	slices.SortFunc(keys, func(a, b keyRef) int { return bytes.Compare(a.bytes(body, scratch), b.bytes(body, scratch)) })
	for j := 1; j < len(keys); j++ {
		if k := keys[j].bytes(body, scratch); bytes.Equal(keys[j-1].bytes(body, scratch), k) {
			return errorf(http.StatusBadRequest, "malformed JSON: duplicate key %q", k)
		}
	}
	return nil
}

// stringEnd returns the index of the quote closing the JSON string that
// starts at body[start], and whether it holds an escape; -1 if unterminated.
func stringEnd(body []byte, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(body); j++ {
		switch body[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return -1, escaped
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
