package memoryapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

func mustClient(tb testing.TB, ts *httptest.Server) *memoryapi.Client {
	c, err := memoryapi.NewClient(ts.URL, memoryapi.ClientOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func cos(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// node is one vectorizer with no memory of its own, using the holder's.
func node(t *testing.T, m *model.Model, url string) (*vectorizer.Vectorizer, *memoryapi.Client) {
	t.Helper()
	v, err := vectorizer.New(m, nil, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c, err := memoryapi.NewClient(url, memoryapi.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

// TestOneMemoryOneVector: two nodes that each teach half of the passages to
// the shared memory give every query the vector a single vectorizer with a
// local memory taught the same passages in the same order gives; two nodes
// with memories of their own do not.
func TestOneMemoryOneVector(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := testhttp.Holder(t, m, false)
	ctx := context.Background()
	opts := vectorizer.DefaultOptions()
	nodes := make([]*vectorizer.Vectorizer, 2)
	clients := make([]*memoryapi.Client, 2)
	for i := range nodes {
		nodes[i], clients[i] = node(t, m, ts.URL)
	}
	local, err := vectorizer.New(m, mustMemory(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	separate := []*vectorizer.Vectorizer{mustVectorizer(t, m), mustVectorizer(t, m)}
	passages := testmodel.JargonPassages(40)
	for k := 0; k < len(passages); k += 5 {
		batch := passages[k : k+5]
		i := (k / 5) % 2
		if _, errs, err := clients[i].VectorizeBatch(ctx, nodes[i], "", batch, vectorizer.TaskPassage, opts); err != nil || errors.Join(errs...) != nil {
			t.Fatalf("teach through node %d: %v %v", i, err, errs)
		}
		if _, errs := local.VectorizeBatch(batch, vectorizer.TaskPassage, opts); errors.Join(errs...) != nil {
			t.Fatal(errs)
		}
		if _, errs := separate[i].VectorizeBatch(batch, vectorizer.TaskPassage, opts); errors.Join(errs...) != nil {
			t.Fatal(errs)
		}
	}
	qs := testmodel.JargonQueries()
	want, _ := local.VectorizeBatch(qs, vectorizer.TaskQuery, opts)
	for round := range 2 { // the second round reads the contexts from the client's cache
		for i := range nodes {
			got, errs, err := clients[i].VectorizeBatch(ctx, nodes[i], "", qs, vectorizer.TaskQuery, opts)
			if err != nil || errors.Join(errs...) != nil {
				t.Fatalf("node %d: %v %v", i, err, errs)
			}
			for q := range qs {
				if c := cos(got[q], want[q]); c < 0.99999 {
					t.Errorf("round %d, node %d, query %q: cosine %.6f with the single memory's vector", round, i, qs[q], c)
				}
			}
		}
	}
	a, _ := separate[0].VectorizeBatch(qs, vectorizer.TaskQuery, opts)
	b, _ := separate[1].VectorizeBatch(qs, vectorizer.TaskQuery, opts)
	differ := 0
	for q := range qs {
		if cos(a[q], b[q]) < 0.9999 {
			differ++
		}
	}
	if differ == 0 {
		t.Error("two nodes with memories of their own agree on every query: the test cannot see the divergence")
	}
}

func mustMemory(t *testing.T) *memory.Memory {
	mo := memory.DefaultOptions()
	mo.Logger = testhttp.Quiet()
	mem, err := memory.Open("", mo)
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func mustVectorizer(t *testing.T, m *model.Model) *vectorizer.Vectorizer {
	v, err := vectorizer.New(m, mustMemory(t), vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHolderDownFailsLoudly: with the holder unreachable nothing is
// vectorized and the error names the cause and the URL.
func TestHolderDownFailsLoudly(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := testhttp.Holder(t, m, false)
	v, c := node(t, m, ts.URL)
	ts.Close()
	for _, task := range []vectorizer.Task{vectorizer.TaskPassage, vectorizer.TaskQuery} {
		vecs, errs, err := c.VectorizeBatch(context.Background(), v, "", testmodel.JargonPassages(3), task, vectorizer.DefaultOptions())
		if !errors.Is(err, memoryapi.ErrUnavailable) || !strings.Contains(err.Error(), ts.URL) {
			t.Errorf("task %v with the holder down: error %v, want ErrUnavailable naming %s", task, err, ts.URL)
		}
		if vecs != nil || errs != nil {
			t.Errorf("task %v with the holder down returned vectors %d / errors %d", task, len(vecs), len(errs))
		}
	}
}

// TestReadOnlyHolderRefusesTeaching: serve --memory off answers learn with
// an error naming the flag, and the import fails with it.
func TestReadOnlyHolderRefusesTeaching(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := testhttp.Holder(t, m, true)
	v, c := node(t, m, ts.URL)
	_, _, err = c.VectorizeBatch(context.Background(), v, "", testmodel.JargonPassages(3), vectorizer.TaskPassage, vectorizer.DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "--memory off") {
		t.Errorf("teaching a read-only holder: error %v, want one naming --memory off", err)
	}
}

func post(t *testing.T, url string, body any, out any) int {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v: %s", url, err, raw)
		}
	}
	return resp.StatusCode
}

// TestCountsPerCollection: passages taught for a collection count in its
// own counts and in the shared ones; a bad collection name is refused.
func TestCountsPerCollection(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, mem := testhttp.Holder(t, m, false)
	learn := func(coll string, passages ...[]string) {
		var resp memoryapi.LearnResponse
		if st := post(t, ts.URL+memoryapi.PathLearn, memoryapi.LearnRequest{Collection: coll, Passages: passages}, &resp); st != http.StatusOK {
			t.Fatalf("learn %q: status %d", coll, st)
		}
	}
	learn("Books", []string{"a", "b"}, []string{"a"})
	learn("Songs", []string{"b"})
	learn("", []string{"c"})
	for _, c := range []struct {
		coll         string
		passages     int64
		dfA, dfB, dc int64
	}{{"Books", 2, 2, 1, 0}, {"Songs", 1, 0, 1, 0}, {"", 4, 2, 2, 1}, {"Empty", 0, 0, 0, 0}} {
		var resp memoryapi.LookupResponse
		if st := post(t, ts.URL+memoryapi.PathLookup, memoryapi.LookupRequest{Collection: c.coll, Words: []string{"a", "b", "c"}}, &resp); st != http.StatusOK {
			t.Fatalf("lookup %q: status %d", c.coll, st)
		}
		if resp.Passages != c.passages || len(resp.DF) != 3 || resp.DF[0] != c.dfA || resp.DF[1] != c.dfB || resp.DF[2] != c.dc {
			t.Errorf("collection %q: %d passages, df %v; want %d, [%d %d %d]", c.coll, resp.Passages, resp.DF, c.passages, c.dfA, c.dfB, c.dc)
		}
	}
	if p := mem.Stats().Passages; p != 4 {
		t.Errorf("the shared memory counted %d passages, want 4", p)
	}
	if st := post(t, ts.URL+memoryapi.PathLookup, memoryapi.LookupRequest{Collection: "../etc", Words: []string{"a"}}, nil); st != http.StatusBadRequest {
		t.Errorf("collection ../etc: status %d, want 400", st)
	}
}

// TestMaxCollections: the memory API keeps the counts of at most
// --max-collections collections; a learn naming one more is refused with 507
// and counts nothing, while the kept ones go on counting.
func TestMaxCollections(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	mo := memory.DefaultOptions()
	mo.Logger = testhttp.Quiet()
	mem, err := memory.Open("", mo)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(m, mem, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	lim := server.DefaultLimits()
	lim.MaxCollections = 2
	srv, err := server.NewServer(v, memstore.NewLocal(mem), "test", lim, testhttp.Quiet())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	n := 0
	learn := func(coll string) int { // a distinct passage each time
		n++
		return post(t, ts.URL+memoryapi.PathLearn, memoryapi.LearnRequest{Collection: coll, Passages: [][]string{{"a", fmt.Sprint(n)}}}, nil)
	}
	for _, c := range []struct {
		coll string
		want int
	}{{"A", 200}, {"B", 200}, {"C", http.StatusInsufficientStorage}, {"A", 200}} {
		if st := learn(c.coll); st != c.want {
			t.Errorf("learn %q: status %d, want %d", c.coll, st, c.want)
		}
	}
	if p := mem.Stats().Passages; p != 3 {
		t.Errorf("the shared memory counted %d passages, want 3 (the refused one counts nothing)", p)
	}
	lim.MaxCollections = 0
	if _, err := server.NewServer(v, memstore.NewLocal(mem), "test", lim, testhttp.Quiet()); err == nil || !strings.Contains(err.Error(), "--max-collections") {
		t.Errorf("--max-collections 0: %v, want an error naming the flag", err)
	}
}
