package refresh

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// maxAnswerBytes bounds every HTTP answer refresh reads (a page of 1,000
// objects with 1,536-d vectors is about 30 MB).
const maxAnswerBytes = 512 << 20

// HTTPError is a non-2xx answer.
type HTTPError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s %s: status %d: %.500s", e.Method, e.URL, e.Status, e.Body)
}

// doJSON sends body (JSON-encoded unless nil), with apiKey as a bearer
// token unless it is empty, and decodes a 2xx answer into out. 503 and 429 answers are retried (up to 6 times, honouring
// Retry-After up to maxRetryAfter, and logging each wait), as the
// text2vec-am server asks when it is busy.
func doJSON(ctx context.Context, hc *http.Client, method, url, apiKey string, body, out any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode %s %s: %w", method, url, err)
		}
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, url, err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if apiKey != "" {
			req.Header.Set("Authorization", "Bearer "+apiKey)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, url, err)
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s %s: read answer: %w", method, url, err)
		}
		if len(raw) > maxAnswerBytes {
			return fmt.Errorf("%s %s: answer larger than %d bytes", method, url, maxAnswerBytes)
		}
		if (resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests) && attempt < 6 {
			wait := retryWait(attempt, resp.Header.Get("Retry-After"))
			slog.Info("refresh: the server is busy; waiting before retrying", "url", url, "status", resp.StatusCode, "wait", wait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			continue
		}
		if resp.StatusCode/100 != 2 {
			return &HTTPError{Method: method, URL: url, Status: resp.StatusCode, Body: string(raw)}
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w (%.300s)", method, url, err, raw)
		}
		return nil
	}
}

// maxRetryAfter caps the wait a Retry-After asks for.
const maxRetryAfter = 60 * time.Second

// retryWait is the wait before retry attempt+1: the Retry-After seconds
// (at most maxRetryAfter), else a backoff from 100 ms doubling.
func retryWait(attempt int, retryAfter string) time.Duration {
	if s, err := strconv.Atoi(retryAfter); err == nil && s > 0 {
		return min(time.Duration(min(s, 1<<20))*time.Second, maxRetryAfter)
	}
	return time.Duration(1<<attempt) * 100 * time.Millisecond
}

// object is an object as Weaviate's REST API lists it.
type object struct {
	ID         string                     `json:"id"`
	Class      string                     `json:"class"`
	Tenant     string                     `json:"tenant,omitempty"`
	Properties map[string]any             `json:"properties"`
	Vector     []float32                  `json:"vector,omitempty"`
	Vectors    map[string]json.RawMessage `json:"vectors,omitempty"`
}

// vectorOf returns the stored vector of target ("" for the class vector);
// nil when there is none or it is a multi-vector.
func (o *object) vectorOf(target string) []float32 {
	if target == "" {
		return o.Vector
	}
	var v []float32
	if json.Unmarshal(o.Vectors[target], &v) != nil {
		return nil
	}
	return v
}

// batchAnswer is one object's outcome in POST /v1/batch/objects.
type batchAnswer struct {
	ID     string `json:"id"`
	Result struct {
		Errors *struct {
			Error []struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"errors"`
	} `json:"result"`
}

// batchVectors is the answer of a text2vec-am server's /vectors/batch.
type batchVectors struct {
	Dims    int         `json:"dims"`
	Vectors [][]float32 `json:"vectors"`
	Errors  []*string   `json:"errors"`
}
