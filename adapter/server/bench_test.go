package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// BenchmarkHTTP is the loopback load generator: b.N requests from c
// concurrent clients (keep-alive connections) against an in-process server;
// it reports req/s, the p50/p99 latency (wall clock) and the CPU time per
// request of the process (server and load generator together). /vectors sends one 50-word
// passage of frequent words; /vectors/batch sends 32 of them per request.
func BenchmarkHTTP(b *testing.B) {
	m, desc, err := testmodel.BenchModel()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("model: %s", desc)
	passages := testmodel.Passages(testmodel.FrequentWords(m, 32, 20_000), 1024, 50, 2)
	mo := memory.DefaultOptions()
	mo.Logger = testhttp.Quiet()
	mem, err := memory.Open("", mo)
	if err != nil {
		b.Fatal(err)
	}
	v, err := vectorizer.New(m, mem, vectorizer.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	lim := server.DefaultLimits()
	lim.MaxConcurrent = 256 // measure the server, not the 503 path
	lim.QueueWait = time.Minute
	srv, err := server.NewServer(v, memstore.NewLocal(mem), desc, lim, testhttp.Quiet())
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	body := func(i int) string {
		t, _ := json.Marshal(passages[i%len(passages)])
		return `{"text":` + string(t) + `,"config":{"task_type":"passage","pooling_strategy":"masked_mean"}}`
	}
	const batchSize = 32
	batchBody := func(i int) string {
		start := (i * batchSize) % len(passages)
		t, _ := json.Marshal(passages[start : start+batchSize])
		return `{"texts":` + string(t) + `,"config":{"task_type":"passage"}}`
	}
	for _, ep := range []struct {
		path string
		body func(int) string
		per  int
	}{{"/vectors", body, 1}, {"/vectors/batch", batchBody, batchSize}} {
		for _, c := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", strings.TrimPrefix(ep.path, "/"), c), func(b *testing.B) {
				tr := &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				bodies := make([]string, 256)
				for i := range bodies {
					bodies[i] = ep.body(i)
				}
				lat := make([]time.Duration, b.N)
				var next atomic.Int64
				var failed atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				c0, cpuOK := testmodel.ProcessCPUTime()
				for range c {
					wg.Go(func() {
						for {
							i := int(next.Add(1) - 1)
							if i >= b.N {
								return
							}
							start := time.Now()
							resp, err := client.Post(ts.URL+ep.path, "application/json", strings.NewReader(bodies[i%len(bodies)]))
							if err != nil {
								failed.Add(1)
								continue
							}
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if resp.StatusCode != 200 {
								failed.Add(1)
							}
							lat[i] = time.Since(start)
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				c1, _ := testmodel.ProcessCPUTime()
				if n := failed.Load(); n > 0 {
					b.Fatalf("%d requests failed", n)
				}
				slices.Sort(lat)
				rps := float64(b.N) / b.Elapsed().Seconds()
				b.ReportMetric(rps, "req/s")
				if ep.per > 1 {
					b.ReportMetric(rps*float64(ep.per), "texts/s")
				}
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
				if cpuOK {
					// Server and load generator together: one process.
					b.ReportMetric(float64(c1-c0)/float64(b.N)/1e3, "cpu-µs/req")
				}
			})
		}
	}
}
