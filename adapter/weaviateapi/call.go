// Package weaviateapi calls Weaviate's REST and GraphQL API as text2vec-am
// uses it: JSON calls retried while the server is busy, answers bounded in
// size, pages of the object cursor, batches and counts. It imports no
// Weaviate code.
package weaviateapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// MaxAnswerBytes bounds every HTTP answer Call reads (a page of 1,000
// objects with 1,536-d vectors is about 30 MB).
const MaxAnswerBytes = 512 << 20

// HTTPError is a non-2xx answer.
type HTTPError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s %s: status %d: %.500s", e.Method, e.URL, e.Status, strings.TrimSpace(e.Body))
}

// Redact returns rawURL with the password of its user information replaced
// by "xxxxx", and otherwise as written, so that a URL that does not parse, or
// lacks its scheme, is named in an error without its password. The password
// runs from the first ":" to the last "@" before the path; when no "@" comes
// before the first "/", "?" or "#" and what follows the ":" is no port, it is
// a password holding one of those as is ("user:pa/ss@host/"), and runs to the
// last "@" before the first "/" after an "@".
func Redact(rawURL string) string {
	prefix, rest := "", rawURL
	if i := strings.Index(rawURL, "://"); i >= 0 {
		prefix, rest = rawURL[:i+3], rawURL[i+3:]
	}
	colon, at := passwordSpan(rest)
	if colon < 0 {
		return rawURL
	}
	return prefix + rest[:colon] + ":xxxxx" + rest[at:]
}

// passwordSpan returns the offsets in rest, a URL after its scheme, of the
// ":" before the password Redact masks and of the "@" after it, or -1, -1.
func passwordSpan(rest string) (colon, at int) {
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at = strings.LastIndex(rest[:end], "@"); at >= 0 {
		if colon = strings.Index(rest[:at], ":"); colon < 0 {
			return -1, -1
		}
		return colon, at
	}
	colon = strings.Index(rest[:end], ":")
	first := strings.Index(rest[end:], "@")
	if colon < 0 || first < 0 || strings.HasPrefix(rest, "[") || isPort(rest[colon+1:end]) {
		return -1, -1
	}
	first += end
	host := len(rest) // where the host after the "@" ends
	if i := strings.Index(rest[first:], "/"); i >= 0 {
		host = first + i
	}
	return colon, strings.LastIndex(rest[:host], "@")
}

// isPort reports whether s is a URL's port: digits, or nothing.
func isPort(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// RequestError is err, an error of building or sending a request (with
// http.NewRequest, an http.Client) to rawURL, as "METHOD URL: reason" with
// the URL's password redacted: a *url.Error, which quotes the URL as given
// (url.Parse's whole, an http.Client's with its password as "***"), is
// replaced by the error it holds, and a quoted part of its message that is
// part of the password (url.Parse's `invalid URL escape "%zz"`, `invalid
// port ":pa" after host`) is shown as "xxxxx".
func RequestError(method, rawURL string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	rest := rawURL
	if i := strings.Index(rawURL, "://"); i >= 0 {
		rest = rawURL[i+3:]
	}
	reason := err.Error()
	if colon, at := passwordSpan(rest); colon >= 0 {
		reason = maskQuoted(reason, rest[colon+1:at])
	}
	return &requestError{what: method + " " + Redact(rawURL) + ": " + reason, err: err}
}

// requestError is an error of RequestError: its message, and the error it wraps.
type requestError struct {
	what string
	err  error
}

func (e *requestError) Error() string { return e.what }
func (e *requestError) Unwrap() error { return e.err }

// maskQuoted returns msg with each Go-quoted string in it that is part of
// password (a leading ":" aside) replaced by "xxxxx".
func maskQuoted(msg, password string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			break
		}
		q, err := strconv.QuotedPrefix(msg[i:])
		if err != nil {
			b.WriteString(msg[:i+1])
			msg = msg[i+1:]
			continue
		}
		b.WriteString(msg[:i])
		msg = msg[i+len(q):]
		if u, err := strconv.Unquote(q); err == nil && strings.TrimPrefix(u, ":") != "" &&
			strings.Contains(password, strings.TrimPrefix(u, ":")) {
			q = `"xxxxx"`
		}
		b.WriteString(q)
	}
	b.WriteString(msg)
	return b.String()
}

// busyRetries is how often Call retries an answer 503 or 429.
const busyRetries = 6

// Call sends body (JSON-encoded unless nil) to url, with apiKey as a bearer
// token unless it is empty, and decodes a 2xx answer into out (unless nil).
// 503 and 429 answers are retried (up to 6 times, honouring Retry-After up
// to MaxRetryAfter, and logging each wait), as a busy Weaviate or text2vec-am
// server asks; other non-2xx answers are an *HTTPError. A password in
// rawURL (basic authentication) is shown as xxxxx in errors and logs.
func Call(ctx context.Context, hc *http.Client, method, rawURL, apiKey string, body, out any) error {
	shown := Redact(rawURL)
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode %s %s: %w", method, shown, err)
		}
	}
	for attempt := 0; ; attempt++ {
		status, header, raw, err := send(ctx, hc, method, rawURL, apiKey, data, body != nil)
		if err != nil {
			return err
		}
		if (status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests) && attempt < busyRetries {
			wait := RetryWait(attempt, header.Get("Retry-After"))
			slog.Info("the server is busy; waiting before retrying", "url", shown, "status", status, "wait", wait)
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s %s: status %d, retrying after %v: %w", method, shown, status, wait, ctx.Err())
			case <-time.After(wait):
			}
			continue
		}
		if status/100 != 2 {
			return &HTTPError{Method: method, URL: shown, Status: status, Body: string(raw)}
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w (%.300s)", method, shown, err, raw)
		}
		return nil
	}
}

// send makes one request and reads its answer, at most MaxAnswerBytes.
func send(ctx context.Context, hc *http.Client, method, rawURL, apiKey string, data []byte, isJSON bool) (int, http.Header, []byte, error) {
	shown := Redact(rawURL) // as errors name it
	req, err := http.NewRequestWithContext(ctx, method, rawURL, bytes.NewReader(data))
	if err != nil {
		return 0, nil, nil, RequestError(method, rawURL, err)
	}
	if isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, nil, RequestError(method, rawURL, err)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	resp.Body.Close()
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: read answer: %w", method, shown, err)
	}
	if len(raw) > MaxAnswerBytes {
		return 0, nil, nil, fmt.Errorf("%s %s: answer larger than %d bytes", method, shown, MaxAnswerBytes)
	}
	return resp.StatusCode, resp.Header, raw, nil
}

// MaxRetryAfter caps the wait a Retry-After asks for.
const MaxRetryAfter = 60 * time.Second

// RetryWait is the wait before retry attempt+1: the Retry-After seconds
// (at most MaxRetryAfter), else a backoff from 100 ms doubling.
func RetryWait(attempt int, retryAfter string) time.Duration {
	if s, err := strconv.Atoi(retryAfter); err == nil && s > 0 {
		return min(time.Duration(min(s, 1<<20))*time.Second, MaxRetryAfter)
	}
	return time.Duration(1<<min(attempt, 20)) * 100 * time.Millisecond
}

// CheckAPIKey refuses a key that cannot travel in an Authorization header:
// one holding white space or a control character.
func CheckAPIKey(key string) error {
	for _, r := range key {
		if r <= ' ' || unicode.IsControl(r) {
			return fmt.Errorf("the API key holds white space or a control character (%q)", r)
		}
	}
	return nil
}
