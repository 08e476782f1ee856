package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/internal/jsonmsg"
)

// httpError is an error with the HTTP status it is answered with.
type httpError struct {
	status int
	msg    string
	// retryAfter, if set, is sent as the Retry-After header (seconds).
	retryAfter int
	// err, if set, is the error answered (errors.Is sees it).
	err error
}

func (e *httpError) Error() string { return e.msg }

func (e *httpError) Unwrap() error { return e.err }

// internalError answers an error that is not the request's fault without
// its details (they name files and directories; the log has them): 507 when
// the disk is full, else 500.
func internalError(err error) *httpError {
	if errors.Is(err, memstore.ErrRefused) {
		// Mended only by an operator: no quick retry (its errors name no file).
		return &httpError{status: http.StatusServiceUnavailable, retryAfter: 60, err: err, msg: err.Error()}
	}
	if errors.Is(err, memstore.ErrUnavailable) {
		// A memory kept elsewhere (its errors name no file and no credential).
		return &httpError{status: http.StatusServiceUnavailable, retryAfter: 1, err: err, msg: err.Error() + "; retry later"}
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &httpError{status: http.StatusInsufficientStorage, retryAfter: 10, err: err,
			msg: "the context memory cannot store passages: no space left on its disk; retry once space is freed"}
	}
	return &httpError{status: http.StatusInternalServerError, err: err, msg: "internal error (the server log has the details)"}
}

// decodeStrict is decodeJSON that also refuses top-level keys other than
// fields (exact spelling) and duplicate keys at any depth.
func decodeStrict(body []byte, dst any, fields ...string) error {
	return decodeEchoing(body, dst, fields, nil)
}

// decodeEchoing is decodeStrict for a body that may also hold the fields
// echoed, which a client sends back from the answer's shape (Weaviate's
// transformers client sends /vectors' dims, vector and error, empty): they
// are let through, and left out of the fields an unknown key's message lists.
func decodeEchoing(body []byte, dst any, fields, echoed []string) error {
	if err := checkKeys(body, fields, echoed...); err != nil {
		return err
	}
	err := decodeJSON(body, dst, fields)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if field, _, _ := strings.Cut(typ.Field, "."); slices.Contains(echoed, field) {
			return answerFieldError(field, fields) // not empty, whatever its type
		}
	}
	return err
}

// answerFieldError refuses a request that fills field, a field of the
// answer echoed: fields are those a request holds.
func answerFieldError(field string, fields []string) error {
	return errorf(http.StatusBadRequest, "field %q is a field of the answer, sent in a request only empty "+
		"(a request holds %s)", field, strings.Join(fields, " and "))
}

func errorf(status int, format string, args ...any) *httpError {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// readBody reads at most limit bytes of the request body and checks that it
// is valid UTF-8.
func readBody(r *http.Request, limit int64, buf *bytes.Buffer) error {
	if r.ContentLength > limit {
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes exceeds the limit of %d bytes (--max-body-bytes)", r.ContentLength, limit)
	}
	n, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf("read request body: %v", err), err: err}
	}
	if n > limit {
		return errorf(http.StatusRequestEntityTooLarge, "request body exceeds the limit of %d bytes (--max-body-bytes)", limit)
	}
	if !utf8.Valid(buf.Bytes()) {
		at := firstInvalidUTF8(buf.Bytes())
		return errorf(http.StatusBadRequest, "request body is not valid UTF-8 (first invalid byte at offset %d)", at)
	}
	return nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// decodeJSON decodes body into dst strictly: unknown top-level fields and
// trailing data are errors. Numbers in maps stay json.Number. A value of
// the wrong JSON type is named by its field and the JSON type wanted; a
// body that is not an object, by the fields it may hold.
func decodeJSON(body []byte, dst any, fields []string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var he *httpError
		if errors.As(err, &he) { // a field's own decoder answered
			return he
		}
		err = jsonmsg.Describe(err, dst, fields)
		return &httpError{status: http.StatusBadRequest, msg: err.Error(), err: err}
	}
	if err := jsonmsg.End(dec); err != nil {
		return &httpError{status: http.StatusBadRequest, msg: err.Error(), err: err}
	}
	return nil
}

// appendFloat32 appends f as encoding/json encodes a float32.
func appendFloat32(b []byte, f float32) []byte {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...) // never produced: vectors are checked finite
	}
	abs := math.Abs(x)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, 32)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendVector appends a JSON array of floats.
func appendVector(b []byte, v []float32) []byte {
	b = append(b, '[')
	for i, f := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat32(b, f)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	enc, err := json.Marshal(s)
	if err != nil { // cannot happen for a string
		return append(b, `""`...)
	}
	return append(b, enc...)
}
