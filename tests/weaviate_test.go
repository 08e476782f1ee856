//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	wvgrpc "github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/retrieval"
)

// httpClient is used for the REST and GraphQL calls of the tests.
var httpClient = &http.Client{Timeout: 2 * time.Minute}

// doJSON sends body (JSON-encoded unless nil) to url and decodes a JSON
// answer into out (unless nil). It returns the status and the raw answer.
func doJSON(ctx context.Context, method, u string, body, out any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("encode %s %s: %w", method, u, err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("%s %s: read answer: %w", method, u, err)
	}
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, raw, fmt.Errorf("%s %s: decode answer: %w (%.300s)", method, u, err, raw)
		}
	}
	return resp.StatusCode, raw, nil
}

// createCollection creates a collection and fails the test if Weaviate refuses it.
func createCollection(t testing.TB, w *weaviateServer, class map[string]any) {
	t.Helper()
	status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/schema"), class, nil)
	if err != nil || status != http.StatusOK {
		t.Fatalf("create collection %v: status %d, %v: %s", class["class"], status, err, raw)
	}
}

// refuseCollection checks that Weaviate refuses class with a message
// containing every one of want.
func refuseCollection(t testing.TB, w *weaviateServer, class map[string]any, want ...string) {
	t.Helper()
	status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/schema"), class, nil)
	if err != nil {
		t.Fatalf("create collection: %v", err)
	}
	if status/100 == 2 {
		t.Errorf("collection with bad settings %v was accepted (status %d)", class["moduleConfig"], status)
		return
	}
	t.Logf("refused (status %d): %s", status, bytes.TrimSpace(raw))
	for _, s := range want {
		if !strings.Contains(string(raw), s) {
			t.Errorf("collection with bad settings %v refused (status %d) but the message does not name %q: %s", class["moduleConfig"], status, s, raw)
		}
	}
}

// newClient connects the Go client over REST and gRPC.
func newClient(t testing.TB, w *weaviateServer) *weaviate.Client {
	t.Helper()
	return newClientWithHeaders(t, w, nil)
}

// newClientWithHeaders is newClient sending headers with every request
// (Weaviate hands them to its modules: X-OpenAI-BaseURL, API keys).
func newClientWithHeaders(t testing.TB, w *weaviateServer, headers map[string]string) *weaviate.Client {
	t.Helper()
	c, err := weaviate.NewClient(weaviate.Config{
		Host:           "127.0.0.1:" + strconv.Itoa(w.ports.HTTP),
		Scheme:         "http",
		Headers:        headers,
		GrpcConfig:     &wvgrpc.Config{Host: "127.0.0.1:" + strconv.Itoa(w.ports.GRPC)},
		StartupTimeout: time.Minute,
		Timeout:        5 * time.Minute,
	})
	if err != nil {
		t.Fatalf("weaviate client: %v", err)
	}
	return c
}

// docUUID is the object id of the document at index i of docs.jsonl: a
// name-based UUID of the index (docs.jsonl repeats a few ids).
func docUUID(i int) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("text2vec-am-e2e:"+strconv.Itoa(i))).String()
}

// clientVectors are vectors the client supplies (bring your own vectors):
// vecs[i] for document i, as the named vector target ("" for the class vector).
type clientVectors struct {
	target string
	vecs   [][]float32
}

// docObject is the Weaviate object of doc, at index i, in class, with its
// vector when cv (which may be nil) supplies it.
func docObject(class string, i int, doc dataset.Document, cv *clientVectors) *models.Object {
	o := &models.Object{
		Class:      class,
		ID:         strfmt.UUID(docUUID(i)),
		Properties: map[string]any{"docId": doc.ID, "docIndex": i, "text": doc.Text},
	}
	switch {
	case cv == nil:
	case cv.target == "":
		o.Vector = cv.vecs[i]
	default:
		o.Vectors = models.Vectors{cv.target: cv.vecs[i]}
	}
	return o
}

// importResult counts an import's outcome.
type importResult struct {
	Objects  int
	Elapsed  time.Duration
	Failures map[int]string // document index → first error message
}

// importDocs imports docs[i] for every i in idx (all documents when idx is
// nil) in batches of batchSize over gRPC. cv, when non-nil, supplies the
// vectors.
func importDocs(ctx context.Context, c *weaviate.Client, class string, docs []dataset.Document, idx []int, batchSize int, cv *clientVectors) (importResult, error) {
	if idx == nil {
		idx = indexRange(0, len(docs))
	}
	res := importResult{Failures: map[int]string{}}
	start := time.Now()
	for lo := 0; lo < len(idx); lo += batchSize {
		batch := idx[lo:min(lo+batchSize, len(idx))]
		b := c.Batch().ObjectsBatcher()
		for _, i := range batch {
			b = b.WithObjects(docObject(class, i, docs[i], cv))
		}
		resp, err := b.Do(ctx)
		if err != nil {
			return res, fmt.Errorf("batch of documents %d… into %s: %w", batch[0], class, err)
		}
		if len(resp) != len(batch) {
			return res, fmt.Errorf("batch of documents %d… into %s: %d answers for %d objects", batch[0], class, len(resp), len(batch))
		}
		for j, r := range resp {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				res.Failures[batch[j]] = r.Result.Errors.Error[0].Message
			} else {
				res.Objects++
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// indexRange returns lo, lo+1, …, hi-1.
func indexRange(lo, hi int) []int {
	idx := make([]int, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		idx = append(idx, i)
	}
	return idx
}

// storedObject is an object as the REST listing returns it.
type storedObject struct {
	ID         string                     `json:"id"`
	Properties map[string]any             `json:"properties"`
	Vector     []float32                  `json:"vector"`
	Vectors    map[string]json.RawMessage `json:"vectors"`
}

// vector returns the object's vector: the named one when target is set.
func (o storedObject) vector(target string) ([]float32, error) {
	if target == "" {
		return o.Vector, nil
	}
	raw, ok := o.Vectors[target]
	if !ok {
		return nil, nil
	}
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("object %s: named vector %q: %w", o.ID, target, err)
	}
	return v, nil
}

// listVectors returns every object of class by docIndex with its vector
// (named target, or the class vector when target is ""), through the REST
// cursor API.
func listVectors(t testing.TB, w *weaviateServer, class, target string) map[int][]float32 {
	t.Helper()
	out := map[int][]float32{}
	after := ""
	for {
		q := url.Values{"class": {class}, "include": {"vector"}, "limit": {"1000"}}
		if after != "" {
			q.Set("after", after)
		}
		var page struct {
			Objects []storedObject `json:"objects"`
		}
		status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/objects?"+q.Encode()), nil, &page)
		if err != nil || status != http.StatusOK {
			t.Fatalf("list %s: status %d, %v: %.500s", class, status, err, raw)
		}
		if len(page.Objects) == 0 {
			return out
		}
		for _, o := range page.Objects {
			idx, ok := o.Properties["docIndex"].(float64)
			if !ok {
				t.Fatalf("object %s of %s has no docIndex: %v", o.ID, class, o.Properties)
			}
			v, err := o.vector(target)
			if err != nil {
				t.Fatal(err)
			}
			out[int(idx)] = v
			after = o.ID
		}
	}
}

// cosine is model.Cosine (0 if either is zero or lengths differ).
func cosine(a, b []float32) float64 { return model.Cosine(a, b) }

// checkVectors compares the stored vectors with want (by document) and
// fails on any missing object or cosine ≤ 0.9999.
func checkVectors(t testing.TB, got map[int][]float32, docs []dataset.Document, want [][]float32) {
	t.Helper()
	bad := 0
	for i, d := range docs {
		g, ok := got[i]
		if !ok {
			bad++
			if bad <= 5 {
				t.Errorf("document %s is not stored", d.ID)
			}
			continue
		}
		if c := cosine(g, want[i]); c <= 0.9999 {
			bad++
			if bad <= 5 {
				t.Errorf("document %s: stored vector (dim %d) has cosine %.6f with the vectorizer's own (dim %d)", d.ID, len(g), c, len(want[i]))
			}
		}
	}
	if len(got) != len(docs) {
		t.Errorf("%d objects stored, want %d", len(got), len(docs))
	}
	if bad > 0 {
		t.Errorf("%d of %d documents without the vectorizer's vector", bad, len(docs))
	} else {
		t.Logf("all %d stored vectors equal the vectorizer's (cosine > 0.9999)", len(docs))
	}
}

// graphQL runs query and decodes data.Get.<class> into out.
func graphQL(ctx context.Context, w *weaviateServer, query, class string, out any) error {
	var resp struct {
		Data   map[string]map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	status, raw, err := doJSON(ctx, http.MethodPost, w.url("/v1/graphql"), map[string]any{"query": query}, &resp)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("graphql: status %d: %.300s", status, raw)
	}
	if len(resp.Errors) > 0 {
		return fmt.Errorf("graphql: %s", resp.Errors[0].Message)
	}
	return json.Unmarshal(resp.Data["Get"][class], out)
}

// searchTop10 runs one search (arg is the GraphQL search argument, e.g. a
// nearText clause) and returns the docIds of the top 10.
func searchTop10(ctx context.Context, w *weaviateServer, class, arg string) ([]string, error) {
	q := fmt.Sprintf("{ Get { %s(%s, limit: 10) { docId } } }", class, arg)
	var hits []struct {
		DocID string `json:"docId"`
	}
	if err := graphQL(ctx, w, q, class, &hits); err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.DocID
	}
	return ids, nil
}

// gqlString is s as a GraphQL string literal.
func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// targetClause is the targetVectors argument for a named vector ("" for none).
func targetClause(target string) string {
	if target == "" {
		return ""
	}
	return fmt.Sprintf(", targetVectors: [%s]", gqlString(target))
}

// searchAll runs one search per query with a few workers and returns the
// docIds of each query's top 10; a query whose search fails retrieves nothing
// (as in retrieval.DenseRun, where a query without a vector retrieves nothing)
// and is counted in failed.
func searchAll(t testing.TB, w *weaviateServer, class string, queries []dataset.RetrievalQuery, arg func(q dataset.RetrievalQuery) string) (top [][]string, failed int) {
	t.Helper()
	top = make([][]string, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				top[i], errs[i] = searchTop10(context.Background(), w, class, arg(queries[i]))
			}
		}()
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			failed++
			if failed <= 3 {
				t.Logf("query %s: %v", queries[i].ID, err)
			}
		}
	}
	return top, failed
}

// metricsOf scores rankings of docIds with eval's own accumulator, the way
// retrieval.DenseRun does: documents sharing an id count as one item (the first),
// repeats left out.
func metricsOf(t testing.TB, docs []dataset.Document, queries []dataset.RetrievalQuery, top [][]string) retrieval.Metrics {
	t.Helper()
	index := make(map[string]int, len(docs))
	for i, d := range docs {
		if _, ok := index[d.ID]; !ok {
			index[d.ID] = i
		}
	}
	var acc retrieval.MetricsAccumulator
	for qi, q := range queries {
		hits := make([]retrieval.Hit, 0, len(top[qi]))
		seen := map[int]bool{}
		for _, id := range top[qi] {
			i, ok := index[id]
			if !ok {
				t.Fatalf("query %s: search returned unknown docId %q", q.ID, id)
			}
			if !seen[i] {
				seen[i] = true
				hits = append(hits, retrieval.Hit{Doc: i})
			}
		}
		rel := make([]int, 0, len(q.Relevant))
		for _, id := range q.Relevant {
			i, ok := index[id]
			if !ok {
				t.Fatalf("query %s: relevant document %q not in docs.jsonl", q.ID, id)
			}
			rel = append(rel, i)
		}
		acc.Add(hits, rel)
	}
	return acc.Metrics()
}

// objectCount returns the number of objects in class (GraphQL Aggregate).
func objectCount(t testing.TB, w *weaviateServer, class string) int {
	t.Helper()
	var resp struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct {
					Count int `json:"count"`
				} `json:"meta"`
			} `json:"Aggregate"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	q := fmt.Sprintf("{ Aggregate { %s { meta { count } } } }", class)
	status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/graphql"), map[string]any{"query": q}, &resp)
	if err != nil || status != http.StatusOK || len(resp.Errors) > 0 {
		t.Fatalf("count %s: status %d, %v: %.300s", class, status, err, raw)
	}
	agg := resp.Data.Aggregate[class]
	if len(agg) != 1 {
		t.Fatalf("count %s: unexpected answer %.300s", class, raw)
	}
	return agg[0].Meta.Count
}
