package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// guardedPaths are the endpoints that return remembered sentences outside
// Weaviate's /vectors contract, each with a body it accepts.
var guardedPaths = map[string]string{
	"/explain": `{"text":"f1 Zqword"}`,
}

// TestHostileExplainClosed: on a server reachable beyond loopback without
// a token, /explain answers 403 while /vectors answers; with a token it
// needs it (401 without, 200 with); on loopback without a token it answers.
func TestHostileExplainClosed(t *testing.T) {
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

// TestHostileExplainRebound: on loopback without a token, /explain answers
// requests addressed to a loopback host only: a web page whose name was
// made to resolve to 127.0.0.1 (DNS rebinding) sends its own name as Host,
// and gets 403; /vectors answers it as before.
func TestHostileExplainRebound(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	port := url[strings.LastIndex(url, ":"):]
	for host, want := range map[string]int{
		"rebound.example" + port: http.StatusForbidden, "rebound.example": http.StatusForbidden,
		"10.1.2.3" + port: http.StatusForbidden, "localhost" + port: 200, "LOCALHOST.": 200,
		"127.0.0.1" + port: 200, "127.8.9.1": 200, "[::1]" + port: 200,
	} {
		for path, body := range map[string]string{"/explain": guardedPaths["/explain"],
			"/vectors": `{"text":"f1 Zqword"}`} {
			req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantHere := want
			if path == "/vectors" {
				wantHere = 200
			}
			refused := wantHere == http.StatusForbidden
			if resp.StatusCode != wantHere || refused && !strings.Contains(string(msg), "loopback host") {
				t.Errorf("Host %s, %s: %d %.200s, want %d", host, path, resp.StatusCode, msg, wantHere)
			}
		}
	}
}
