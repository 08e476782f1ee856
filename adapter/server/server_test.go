package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// newServer builds a server over the synthetic model; memDir "" keeps the memory in RAM.
func newServer(t testing.TB, lim server.Limits, memDir string) (*server.Server, *memory.Memory) {
	t.Helper()
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	return testhttp.NewServer(t, m, lim, memDir, false)
}

func startServer(t testing.TB, lim server.Limits) (*server.Server, *memory.Memory, string) {
	t.Helper()
	s, mem := newServer(t, lim, "")
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, mem, ts.URL
}

type errBody struct {
	Error string `json:"error"`
}

// TestErrors covers every 4xx path: the status, and a JSON {"error"} naming the problem.
func TestErrors(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 4096
	lim.MaxTextBytes = 1000
	lim.MaxWords = 100
	lim.MaxBatch = 3
	_, _, url := startServer(t, lim)
	for _, c := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"body size", "/vectors", `{"text":"` + strings.Repeat("a", 5000) + `"}`, 413, "--max-body-bytes"},
		{"text length", "/vectors", `{"text":"` + strings.Repeat("a ", 600) + `"}`, 413, "--max-text-bytes"},
		{"words per text", "/vectors", `{"text":"` + strings.Repeat("f1 ", 150) + `"}`, 413, "150 words"},
		{"invalid UTF-8", "/vectors", "{\"text\":\"a\xffb\"}", 400, "UTF-8"},
		{"malformed JSON", "/vectors", `{"text":`, 400, "malformed JSON"},
		{"not an object", "/vectors", `["f1"]`, 400, "malformed JSON"},
		{"empty body", "/vectors", ``, 400, "empty body"},
		{"trailing data", "/vectors", `{"text":"f1"} {}`, 400, "data after the JSON value, which ends at offset 13"},
		{"trailing garbage", "/vectors", `{"text":"f1"}garbage`, 400, "data after the JSON value, which ends at offset 13"},
		{"unknown field", "/vectors", `{"text":"f1","txt":"x"}`, 400, `"txt"`},
		{"wrong type", "/vectors", `{"text":5}`, 400, `"text"`},
		{"missing text", "/vectors", `{"config":{}}`, 400, `"text" is required`},
		{"unknown config key", "/vectors", `{"text":"f1","config":{"temperature":1}}`, 400, `"temperature"`},
		{"bad config value", "/vectors", `{"text":"f1","config":{"weighting":"max"}}`, 400, `"weighting"`},
		{"bad task", "/vectors", `{"text":"f1","config":{"task_type":"doc"}}`, 400, "task_type"},
		{"bad dimensions", "/vectors", `{"text":"f1","config":{"dimensions":16}}`, 400, "dimensions"},
		{"no words", "/vectors", `{"text":"..."}`, 422, "no word"},
		{"batch size", "/vectors/batch", `{"texts":["a","b","c","d"]}`, 413, "--max-batch"},
		{"batch text length", "/vectors/batch", `{"texts":["f1","` + strings.Repeat("a ", 600) + `"]}`, 413, "texts[1]"},
		{"batch missing texts", "/vectors/batch", `{}`, 400, `"texts" is required`},
		{"explain passage", "/explain", `{"text":"f1","config":{"task_type":"passage"}}`, 400, "only takes"},
		{"explain no words", "/explain", `{"text":""}`, 422, "no word"},
		{"unknown path", "/vectorz", `{}`, 404, "no endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := testhttp.Post(t, url, c.path, c.body)
			var e errBody
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("body %q is not JSON: %v", body, err)
			}
			if status != c.status || !strings.Contains(e.Error, c.want) {
				t.Fatalf("status %d error %q; want %d mentioning %s", status, e.Error, c.status, c.want)
			}
		})
	}
	// Wrong method.
	resp, err := http.Get(url + "/vectors")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /vectors: %d", resp.StatusCode)
	}
}

func TestBatchAndExplain(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	status, _, body := testhttp.Post(t, url, "/vectors/batch", `{"texts":["f1 f2","","jargon1 f3"],"config":{"task_type":"query","weighting":"mean"}}`)
	if status != 200 {
		t.Fatalf("batch: %d %s", status, body)
	}
	var br struct {
		Dims    int         `json:"dims"`
		Vectors [][]float32 `json:"vectors"`
		Errors  []*string   `json:"errors"`
	}
	if err := json.Unmarshal([]byte(body), &br); err != nil {
		t.Fatal(err)
	}
	if br.Dims != 32 || len(br.Vectors) != 3 || br.Vectors[1] != nil || br.Errors[1] == nil || br.Errors[0] != nil {
		t.Fatalf("batch response %s", body)
	}
	_, _, single := testhttp.Post(t, url, "/vectors", `{"text":"jargon1 f3","config":{"weighting":"mean"}}`)
	var sr struct {
		Vector []float32 `json:"vector"`
	}
	json.Unmarshal([]byte(single), &sr)
	for i := range sr.Vector {
		if sr.Vector[i] != br.Vectors[2][i] {
			t.Fatalf("batch vector differs from single at %d", i)
		}
	}
	status, _, body = testhttp.Post(t, url, "/explain", `{"text":"The jargon1 of f3. Jargon1 again f4"}`)
	if status != 200 {
		t.Fatalf("explain: %d %s", status, body)
	}
	var ex vectorizer.Explanation
	if err := json.Unmarshal([]byte(body), &ex); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range ex.Words {
		if w.Word == "jargon1" {
			found = true
			if w.Source != vectorizer.SourceAM || len(w.Contexts) != 2 || w.Occurrences != 2 {
				t.Errorf("jargon1 explained as %+v", w)
			}
		}
	}
	if !found || len(ex.Vector) != 32 {
		t.Errorf("explanation %s", body)
	}
}

// slowBody holds a request in the handler: the body arrives only when released.
type slowBody struct {
	pr *io.PipeReader
	pw *io.PipeWriter
}

func newSlowBody() *slowBody {
	pr, pw := io.Pipe()
	return &slowBody{pr, pw}
}

func (b *slowBody) release(body string) {
	b.pw.Write([]byte(body))
	b.pw.Close()
}

func TestConcurrencyLimit(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxConcurrent = 1
	lim.QueueWait = 20 * time.Millisecond
	_, _, url := startServer(t, lim)
	// Bodies are read before a slot is taken, so a slow body holds none: the
	// slot is held by requests that work long (thousands of unseen words).
	heavy, _ := json.Marshal(map[string]string{"text": heavyText(15000)})
	stop := make(chan struct{})
	var workers sync.WaitGroup
	for range 2 {
		workers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Post(url+"/vectors", "application/json", bytes.NewReader(heavy))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, hdr, body := testhttp.Post(t, url, "/vectors", `{"text":"f1"}`)
		if status == http.StatusServiceUnavailable {
			if hdr.Get("Retry-After") != "1" || !strings.Contains(body, "--max-concurrent") {
				t.Fatalf("503 without Retry-After or message: %v %s", hdr, body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never saturated")
		}
		time.Sleep(2 * time.Millisecond)
	}
	// Health and metrics are not limited.
	resp, err := http.Get(url + "/.well-known/live")
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("live while saturated: %v %v", resp, err)
	}
	resp.Body.Close()
	close(stop)
	workers.Wait()
	if status, _, _ := testhttp.Post(t, url, "/vectors", `{"text":"f1"}`); status != 200 {
		t.Errorf("after release: %d", status)
	}
	status, _, metrics := testhttp.Get(t, url+"/metrics")
	if status != 200 || !strings.Contains(metrics, "t2vam_http_rejected_busy_total ") ||
		!strings.Contains(metrics, `t2vam_http_requests_total{code="503",path="/vectors"}`) ||
		!strings.Contains(metrics, `t2vam_words_total{source="base"}`) {
		t.Errorf("metrics:\n%s", metrics)
	}
}

// TestGracefulShutdown: cancelling Serve drains the request in flight, then
// flushes the memory, which a reopen finds complete.
func TestGracefulShutdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	s, _ := newServer(t, server.DefaultLimits(), dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error)
	go func() { served <- s.Serve(ctx, ln, 10*time.Second) }()
	for i := range 20 {
		body := fmt.Sprintf(`{"text":"Zqword%d f1 f2.","config":{"task_type":"passage"}}`, i)
		if status, _, b := testhttp.Post(t, url, "/vectors", body); status != 200 {
			t.Fatalf("passage %d: %d %s", i, status, b)
		}
	}
	slow := newSlowBody()
	done := make(chan int)
	go func() {
		resp, err := http.Post(url+"/vectors", "application/json", slow.pr)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	time.Sleep(50 * time.Millisecond) // the slow request is in the handler
	cancel()
	time.Sleep(50 * time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("Serve returned with a request in flight: %v", err)
	default:
	}
	slow.release(`{"text":"Zqlast f3.","config":{"task_type":"passage"}}`)
	if code := <-done; code != 200 {
		t.Fatalf("request in flight at shutdown: %d", code)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	mo := memory.DefaultOptions()
	mo.Logger = testhttp.Quiet()
	mem, err := memory.Open(dir, mo)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if st := mem.Stats(); st.Words != 21 || st.SnapshotBytes == 0 {
		t.Errorf("after shutdown: %+v; want 21 words and a snapshot", st)
	}
	if c, _ := mem.Contexts(nil, "zqlast"); len(c) != 1 {
		t.Error("the drained request's context is missing")
	}
}

// heavyText returns n distinct unseen words between frequent ones, in one sentence.
func heavyText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "f%d zq%dxq ", i%50, i)
	}
	return b.String()
}
