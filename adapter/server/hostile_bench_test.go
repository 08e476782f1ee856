package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// unseenSentence returns "the qx000001vz the qx000002vz …" with n unseen words
// in one sentence: the case that would be quadratic.
func unseenSentence(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "the qx%06dvz", i+1)
	}
	return b.String()
}

// BenchmarkUnseenWords measures the CPU time of one /vectors request whose
// single sentence holds 1,000, 4,000 or 16,000 distinct unseen words (each
// inferred by AM from the ±25-token window around it). Every iteration sends
// one request of each size, so the ratio 16k/1k is measured in the same run:
// linear work gives 16, quadratic 256.
func BenchmarkUnseenWords(b *testing.B) {
	m, desc, err := testmodel.BenchModel()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("model: %s", desc)
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
	srv, err := server.NewServer(v, memstore.NewLocal(mem), desc, lim, testhttp.Quiet())
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	sizes := []int{1000, 4000, 16000}
	bodies := make([]string, len(sizes))
	for i, n := range sizes {
		bodies[i] = `{"text":"` + unseenSentence(n) + `"}`
	}
	cpu := make([]int64, len(sizes))
	wall := make([]time.Duration, len(sizes))
	b.ResetTimer()
	for range b.N {
		for i, body := range bodies {
			c0, ok := testmodel.ProcessCPUTime()
			if !ok {
				b.Skip("no process CPU clock")
			}
			t0 := time.Now()
			resp, err := http.Post(ts.URL+"/vectors", "application/json", strings.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("%d words: status %d", sizes[i], resp.StatusCode)
			}
			wall[i] += time.Since(t0)
			c1, _ := testmodel.ProcessCPUTime()
			cpu[i] += c1 - c0
		}
	}
	b.StopTimer()
	for i, n := range sizes {
		b.ReportMetric(float64(cpu[i])/float64(b.N)/1e6, fmt.Sprintf("cpu-ms/%dk", n/1000))
		b.ReportMetric(float64(wall[i].Milliseconds())/float64(b.N), fmt.Sprintf("wall-ms/%dk", n/1000))
	}
	b.ReportMetric(float64(cpu[2])/float64(cpu[0]), "ratio-16k/1k")
}
