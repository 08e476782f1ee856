package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// routes lists every endpoint with the methods it answers (the Allow header of
// a 405); GET routes also answer HEAD.
var routes = map[string]string{
	"/.well-known/live": "GET, HEAD", "/.well-known/ready": "GET, HEAD", "/meta": "GET, HEAD", "/metrics": "GET, HEAD",
	"/vectors": "POST", "/vectors/": "POST", "/vectors/batch": "POST", "/explain": "POST",
	memoryapi.PathLearn: "POST", memoryapi.PathLookup: "POST",
}

// notFound answers every request no route matched: 405 with Allow on a known
// path, 404 otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if allow, ok := routes[r.URL.Path]; ok {
		w.Header().Set("Allow", allow)
		s.writeError(w, errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
		return
	}
	s.writeError(w, errorf(http.StatusNotFound, "no endpoint %s %s", r.Method, r.URL.Path))
}

// admit reads the body of a POST into buf before the request takes a slot:
// the Content-Type (if any) must be application/json, the body must arrive
// within BodyTimeout and fit MaxBodyBytes. A refused body is drained (within
// a bound) first, so that the client reads the status, not a reset.
//
// A request without Content-Type is accepted: Weaviate's clients send none.
// Browsers always label a cross-origin POST (Sec-Fetch-Site, Origin), and
// those are refused before admit (http.CrossOriginProtection).
func (s *Server) admit(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer) error {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.limits.BodyTimeout)) // unsupported only in tests (ResponseRecorder)
	defer rc.SetReadDeadline(time.Time{})
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
	var he *httpError
	switch {
	case err == nil:
		return nil
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

// drain reads and discards what remains of the body, at most 4 × MaxBodyBytes
// and within the body deadline, and marks the connection to be closed.
func (s *Server) drain(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	io.CopyN(io.Discard, r.Body, 4*s.limits.MaxBodyBytes)
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

// checkKeys refuses JSON whose top-level object has a key that is not one of
// allowed, spelled exactly (encoding/json would match "Text" to "text"), and
// any object, at any depth, with a duplicate key (encoding/json keeps the last).
func checkKeys(body []byte, allowed ...string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool // nil for an array
		expect bool            // the next token of this object is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // decodeJSON reports malformed JSON with its offset
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].keys != nil && stack[top].expect {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:top]
				if top > 0 && stack[top-1].keys != nil {
					stack[top-1].expect = true // the object was a value of its parent
				}
				continue
			}
			k, _ := tok.(string)
			if stack[top].keys[k] {
				return errorf(http.StatusBadRequest, "malformed JSON: duplicate key %q", k)
			}
			stack[top].keys[k] = true
			if top == 0 && !contains(allowed, k) {
				return errorf(http.StatusBadRequest, "malformed JSON: unknown field %q (known: %s)", k, strings.Join(allowed, ", "))
			}
			stack[top].expect = false
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{':
			stack = append(stack, frame{keys: map[string]bool{}, expect: true})
			continue // a nested object is a value: the parent expects a key after it
		case '[':
			stack = append(stack, frame{})
			continue
		case ']':
			stack = stack[:top]
		}
		if top := len(stack) - 1; top >= 0 && stack[top].keys != nil {
			stack[top].expect = true
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
