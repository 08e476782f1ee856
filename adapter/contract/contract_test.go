package contract_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/usecases/modulecomponents/clients/transformers"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

func newServer(t testing.TB) (*server.Server, *memory.Memory) {
	t.Helper()
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	return testhttp.NewServer(t, m, server.DefaultLimits(), "", false)
}

func unitNorm(t testing.TB, v []float32) {
	t.Helper()
	var s float64
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			t.Fatalf("vector holds %v", f)
		}
		s += float64(f) * float64(f)
	}
	if math.Abs(s-1) > 1e-4 {
		t.Fatalf("|v|² = %v", s)
	}
}

// recorder keeps the raw bodies Weaviate's client sends.
type recorder struct {
	h      http.Handler
	mu     sync.Mutex
	bodies []string
	paths  []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.bodies = append(r.bodies, string(b))
	r.paths = append(r.paths, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(b))
	r.h.ServeHTTP(w, req)
}

// TestWeaviateClientContract drives the server with Weaviate v1.39.0's own
// transformers client (which text2vec-transformers and text2vec-model2vec use).
func TestWeaviateClientContract(t *testing.T) {
	s, mem := newServer(t)
	rec := &recorder{h: s.Handler()}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	log := logrus.New()
	log.SetOutput(io.Discard)
	c := transformers.New(transformers.NewURLBuilder(ts.URL, ts.URL), 5*time.Second, log)
	ctx := context.Background()

	if err := c.CheckReady(ctx, ts.URL+"/.well-known/ready"); err != nil {
		t.Fatalf("ready: %v", err)
	}
	text := "Zqfoo is f1 f2 f3. The zqfoo of f4!"
	res, err := c.VectorizeObject(ctx, text, transformers.VectorizationConfig{PoolingStrategy: "masked_mean"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dimensions != 32 || len(res.Vector) != 32 || res.Text != text {
		t.Fatalf("result %+v", res)
	}
	unitNorm(t, res.Vector)
	if got := rec.bodies[1]; !strings.Contains(got, `"task_type":"passage"`) || !strings.Contains(got, `"pooling_strategy":"masked_mean"`) || rec.paths[1] != "POST /vectors" {
		t.Fatalf("unexpected request %s %s", rec.paths[1], got)
	}
	if ctxs, _ := mem.Contexts(nil, "zqfoo"); len(ctxs) != 2 {
		t.Fatalf("passage taught %q", ctxs)
	}
	before := mem.Stats()
	dims := int64(32)
	q, err := c.VectorizeQuery(ctx, "zqbar f1", transformers.VectorizationConfig{Dimensions: &dims})
	if err != nil {
		t.Fatal(err)
	}
	unitNorm(t, q.Vector)
	if after := mem.Stats(); after.Words != before.Words {
		t.Error("a query wrote the memory")
	}
	// Errors reach Weaviate with our message.
	_, err = c.VectorizeObject(ctx, "!!!", transformers.VectorizationConfig{})
	if err == nil || !strings.Contains(err.Error(), "422") || !strings.Contains(err.Error(), "no word that yields a vector") {
		t.Errorf("empty text: %v", err)
	}
	bad := int64(8)
	_, err = c.VectorizeQuery(ctx, "f1", transformers.VectorizationConfig{Dimensions: &bad})
	if err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("dimensions 8: %v", err)
	}
	meta, err := c.MetaInfo(ts.URL + "/meta")
	if err != nil {
		t.Fatal(err)
	}
	mm, _ := meta["model"].(map[string]any)
	if mm["name"] != "test-model" || mm["dimensions"] != 32.0 {
		t.Errorf("meta %v", meta)
	}
	if mw, _ := meta["memory"].(map[string]any); mw["words"].(float64) < 1 {
		t.Errorf("meta memory %v", meta["memory"])
	}
}
