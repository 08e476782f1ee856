package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/server"
)

// loadCase is one kind of request of the load test with the status it must get.
type loadCase struct {
	path   string
	body   func(i int) string
	status int
}

func loadCases() []loadCase {
	return []loadCase{
		{"/vectors", func(i int) string {
			return fmt.Sprintf(`{"text":"The zqjar%d is f%d f%d. It helps f7 f8.","config":{"task_type":"passage","pooling_strategy":"masked_mean"}}`, i%50, i%2000, (i*7)%2000)
		}, 200},
		{"/vectors", func(i int) string {
			return fmt.Sprintf(`{"text":"zqjar%d f%d","config":{"task_type":"query"}}`, i%50, i%2000)
		}, 200},
		{"/vectors/batch", func(i int) string {
			return fmt.Sprintf(`{"texts":["f%d f2","r%d jargon%d","."],"config":{"task_type":"query"}}`, i%2000, i%100, i%50)
		}, 200},
		{"/vectors", func(i int) string { return `{"text":"f1","config":{"nope":1}}` }, 400},
		{"/vectors", func(i int) string { return `{"text":` + strconv.Itoa(i) }, 400},
		{"/vectors", func(i int) string { return "{\"text\":\"\xc3\x28\"}" }, 400},
		{"/vectors", func(i int) string { return `{"text":"` + strings.Repeat("x", 3000) + `"}` }, 413},
		{"/vectors", func(i int) string { return `{"text":"?!"}` }, 422},
		{"/explain", func(i int) string { return fmt.Sprintf(`{"text":"zqjar%d f1"}`, i%50) }, 200},
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestLoad sends at least 100,000 mixed valid and invalid requests over
// loopback and checks every status, then that goroutines and heap return to
// their level before the load. T2VAM_LOAD_REQUESTS changes the count.
func TestLoad(t *testing.T) {
	total := 100_000
	if testing.Short() {
		total = 5_000
	}
	if s := os.Getenv("T2VAM_LOAD_REQUESTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("T2VAM_LOAD_REQUESTS=%q: want a positive integer", s)
		}
		total = n
	}
	lim := server.DefaultLimits()
	lim.MaxTextBytes = 2048
	srv, mem := newServer(t, lim, "")
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	cases := loadCases()
	const clients = 16
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	run := func(n int) (fails int64, firstErr string) {
		var next atomic.Int64
		var failed atomic.Int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= n {
						return
					}
					c := cases[i%len(cases)]
					resp, err := client.Post(ts.URL+c.path, "application/json", strings.NewReader(c.body(i)))
					var msg string
					if err != nil {
						msg = err.Error()
					} else {
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						switch {
						case resp.StatusCode != c.status:
							msg = fmt.Sprintf("%s case %d: status %d, want %d: %s", c.path, i%len(cases), resp.StatusCode, c.status, b)
						case c.status == 200 && c.path == "/vectors":
							var r struct {
								Vector []float32 `json:"vector"`
							}
							if json.Unmarshal(b, &r) != nil || len(r.Vector) != 32 || math.IsNaN(float64(r.Vector[0])) {
								msg = "bad vector response: " + string(b)
							}
						}
					}
					if msg != "" {
						failed.Add(1)
						mu.Lock()
						if firstErr == "" {
							firstErr = msg
						}
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		return failed.Load(), firstErr
	}

	// Warm up: connections, pools, the memory's reservoirs and the cache.
	if fails, msg := run(5000); fails > 0 {
		t.Fatalf("warm-up: %d failures, first: %s", fails, msg)
	}
	tr.CloseIdleConnections()
	time.Sleep(50 * time.Millisecond)
	goroutines := runtime.NumGoroutine()
	heap := heapInUse()
	words := mem.Stats().Words

	start := time.Now()
	fails, msg := run(total)
	elapsed := time.Since(start)
	if fails > 0 {
		t.Fatalf("%d of %d requests failed, first: %s", fails, total, msg)
	}
	tr.CloseIdleConnections()
	var g int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if g = runtime.NumGoroutine(); g <= goroutines {
			break
		}
	}
	if g > goroutines {
		t.Errorf("goroutines grew from %d to %d", goroutines, g)
	}
	h := heapInUse()
	if h > heap+16<<20 {
		t.Errorf("heap in use grew from %d to %d bytes", heap, h)
	}
	if w := mem.Stats().Words; w != words {
		t.Errorf("memory words changed %d → %d although the passages repeat", words, w)
	}
	t.Logf("%d requests in %v (%.0f req/s); goroutines %d → %d, heap %.1f → %.1f MiB",
		total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), goroutines, g, float64(heap)/(1<<20), float64(h)/(1<<20))
}

// FuzzHandlers: no request body makes a handler answer 5xx or non-JSON.
func FuzzHandlers(f *testing.F) {
	for _, c := range loadCases() {
		f.Add(uint8(0), c.body(3))
	}
	f.Add(uint8(1), `{"texts":["a","b"],"config":{"weighting":"mean","max_contexts":2}}`)
	f.Add(uint8(2), `{"text":"zqfoo f1","config":{"frequent_min":1e300}}`)
	f.Add(uint8(0), `{"text":"f1","config":{"dimensions":32,"sif_a":0.5,"rare_min":null}}`)
	f.Add(uint8(3), `{"input":["f1 r1","..."],"dimensions":32,"encoding_format":"base64"}`)
	f.Add(uint8(4), `{"texts":["f1 r1 f2","r2"],"input_type":"search_document","output_dimension":32}`)
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 1 << 16
	srv, _ := newServer(f, lim, "")
	h := srv.Handler()
	paths := []string{"/vectors", "/vectors/batch", "/explain", "/v1/embeddings", "/v2/embed"}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		path := paths[int(which)%len(paths)]
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d: %s", path, body, rec.Code, rec.Body.String())
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %q: response is not a JSON object: %q", path, body, rec.Body.String())
		}
		if rec.Code != 200 {
			msg, _ := out["error"].(string)
			switch path {
			case "/v1/embeddings": // OpenAI's shape
				e, _ := out["error"].(map[string]any)
				msg, _ = e["message"].(string)
			case "/v2/embed": // Cohere's
				msg, _ = out["message"].(string)
			}
			if msg == "" {
				t.Fatalf("%s: status %d without an error message: %s", path, rec.Code, rec.Body.String())
			}
			return
		}
		if path == "/vectors" {
			v, _ := out["vector"].([]any)
			if len(v) != 32 {
				t.Fatalf("%q: vector of %d values", body, len(v))
			}
		}
	})
}
