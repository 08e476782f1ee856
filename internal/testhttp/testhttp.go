// Package testhttp is test support shared by the tests of the HTTP server
// and of the packages and commands that talk to it: a server of a model over
// a memory, requests returning their whole answer, the metrics page and a
// quiet logger.
package testhttp

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/model"
)

// Quiet returns a logger that writes nothing.
func Quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// NewServer returns a server of m with the vectorizer's defaults over a
// memory opened in memDir ("" keeps it in RAM), read-only when readOnly, and
// the memory; the server closes the memory when Serve ends.
func NewServer(t testing.TB, m *model.Model, lim server.Limits, memDir string, readOnly bool) (*server.Server, *memory.Memory) {
	t.Helper()
	mo := memory.DefaultOptions()
	mo.Logger, mo.ReadOnly = Quiet(), readOnly
	mem, err := memory.Open(memDir, mo)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(m, mem, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.NewServer(v, memstore.NewLocal(mem), "test-model", lim, Quiet())
	if err != nil {
		t.Fatal(err)
	}
	return s, mem
}

// Post sends body as JSON to url+path and returns the status, the header and
// the body of the answer.
func Post(t testing.TB, url, path, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// Get returns the status, the header and the body of GET url.
func Get(t testing.TB, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// Metrics returns the server's /metrics page.
func Metrics(t testing.TB, url string) string {
	t.Helper()
	_, _, m := Get(t, url+"/metrics")
	return m
}

// GrepLines returns the lines of s that contain sub.
func GrepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
