package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// guardedPaths are the endpoints that return or write remembered sentences
// outside Weaviate's /vectors contract, each with a body it accepts.
var guardedPaths = map[string]string{
	"/explain":           `{"text":"f1 Zqword"}`,
	memoryapi.PathLearn:  `{"observations":[{"word":"zqword","context":"a Zqword here"}],"passages":[["a","zqword"]]}`,
	memoryapi.PathLookup: `{"words":["a"],"contexts":[{"word":"zqword"}]}`,
}

// TestHostileMemoryAPIClosed: on a server reachable beyond loopback without
// a token, /explain and the memory API answer 403 while /vectors answers;
// with a token they need it (401 without, 200 with); on loopback without a
// token they answer.
func TestHostileMemoryAPIClosed(t *testing.T) {
	for _, c := range []struct {
		what           string
		exposed        bool
		token, sent    string
		status, vector int
	}{
		{"exposed, no token", true, "", "", http.StatusForbidden, 200},
		{"exposed, token missing", true, "s3cret", "", http.StatusUnauthorized, 200},
		{"exposed, wrong token", true, "s3cret", "s3cre", http.StatusUnauthorized, 200},
		{"exposed, token", true, "s3cret", "s3cret", 200, 200},
		{"loopback, no token", false, "", "", 200, 200},
		{"loopback, token missing", false, "s3cret", "", http.StatusUnauthorized, 200},
	} {
		lim := server.DefaultLimits()
		lim.Exposed, lim.AuthToken = c.exposed, c.token
		_, _, url := startServer(t, lim)
		hdr := map[string]string{}
		if c.sent != "" {
			hdr["Authorization"] = "Bearer " + c.sent
		}
		for path, body := range guardedPaths {
			status, h, resp := rawStatus(t, "POST", url+path, "application/json", hdr, body)
			if status != c.status {
				t.Errorf("%s: %s: %d %.200s, want %d", c.what, path, status, resp, c.status)
			}
			if status == http.StatusUnauthorized && h.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("%s: %s: 401 without WWW-Authenticate", c.what, path)
			}
		}
		if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1 Zqword"}`); status != c.vector {
			t.Errorf("%s: /vectors: %d %.200s", c.what, status, resp)
		}
	}
}

// TestHostileLookupExplainOff: --explain off also keeps lookup from
// returning remembered sentences; its counts still answer.
func TestHostileLookupExplainOff(t *testing.T) {
	lim := server.DefaultLimits()
	lim.NoExplain = true
	_, _, url := startServer(t, lim)
	if status, _, resp := testhttp.Post(t, url, memoryapi.PathLookup, `{"contexts":[{"word":"Zqword"}]}`); status != http.StatusForbidden ||
		!strings.Contains(resp, "--explain off") {
		t.Errorf("contexts with --explain off: %d %s", status, resp)
	}
	if status, _, resp := testhttp.Post(t, url, memoryapi.PathLookup, `{"words":["a"]}`); status != 200 {
		t.Errorf("counts with --explain off: %d %s", status, resp)
	}
}

// TestHostileLearnValidates: learn refuses a context without its word and
// an empty word, counts no passage without words, and a collection named
// by a learn that counts nothing takes no slot of --max-collections.
func TestHostileLearnValidates(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxCollections = 1
	_, mem, url := startServer(t, lim)
	for body, want := range map[string]string{
		`{"observations":[{"word":"Zqword","context":"nothing of it"}]}`: "does not contain the word",
		`{"observations":[{"word":"","context":"x"}]}`:                   "does not contain the word",
		`{"passages":[["a",""]]}`:                                        "an empty word",
	} {
		if status, _, resp := testhttp.Post(t, url, memoryapi.PathLearn, body); status != 400 || !strings.Contains(resp, want) {
			t.Errorf("%s: %d %s, want 400 %q", body, status, resp, want)
		}
	}
	if got := mem.Stats().Passages; got != 0 {
		t.Errorf("refused learns counted %d passages", got)
	}
	empty := `{"collection":"Junk","passages":[` + strings.Repeat(`[],`, 1000) + `[]]}`
	if status, _, resp := testhttp.Post(t, url, memoryapi.PathLearn, empty); status != 200 {
		t.Fatalf("empty passages: %d %s", status, resp)
	}
	if got := mem.Stats().Passages; got != 0 {
		t.Errorf("1001 empty passages counted as %d", got)
	}
	// A client sends a context as written and its word as the tokenizer
	// made it: "FFI" holds "ffi", "baffle" does not.
	if status, _, resp := testhttp.Post(t, url, memoryapi.PathLearn,
		`{"observations":[{"word":"ffi","context":"The FFI, in C."}]}`); status != 200 {
		t.Errorf("a context holding its word in capitals: %d %s, want 200", status, resp)
	}
	if status, _, resp := testhttp.Post(t, url, memoryapi.PathLearn,
		`{"observations":[{"word":"ffi","context":"a baffle"}]}`); status != 400 {
		t.Errorf("a context holding the word only inside another: %d %s, want 400", status, resp)
	}
	status, _, resp := testhttp.Post(t, url, memoryapi.PathLearn, `{"collection":"Books","passages":[[],["a","b"]]}`)
	var lr memoryapi.LearnResponse
	if status != 200 || json.Unmarshal([]byte(resp), &lr) != nil || lr.Passages != 1 {
		t.Errorf("a real collection after a junk one: %d %s, want 200 with 1 passage", status, resp)
	}
}
