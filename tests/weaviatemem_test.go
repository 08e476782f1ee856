//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// memReplicas is the number of serve replicas sharing the memory kept in Weaviate.
const memReplicas = 3

// roundRobin is what a Kubernetes Service does for the replicas: each
// request goes to the next replica; one that refuses connections (down) is
// skipped. A replica killed while it answers fails that request (502).
type roundRobin struct {
	ln       net.Listener
	mu       sync.Mutex
	backends []string
	busy     map[string]int // requests in flight by backend
	next     atomic.Uint64
	hc       *http.Client
}

func newRoundRobin(t *testing.T) *roundRobin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rr := &roundRobin{ln: ln, hc: &http.Client{Timeout: 2 * time.Minute}, busy: map[string]int{}}
	srv := &http.Server{Handler: rr}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rr
}

func (rr *roundRobin) url() string { return "http://" + rr.ln.Addr().String() }

func (rr *roundRobin) set(backends []string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.backends = backends
}

// serving reports whether backend is answering a request now.
func (rr *roundRobin) serving(backend string) bool {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.busy[backend] > 0
}

func (rr *roundRobin) track(backend string, d int) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.busy[backend] += d
}

// relay reads a replica's whole answer and passes it on.
func (rr *roundRobin) relay(w http.ResponseWriter, resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(body)
	return nil
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rr.mu.Lock()
	backends := rr.backends
	rr.mu.Unlock()
	for range len(backends) {
		b := backends[rr.next.Add(1)%uint64(len(backends))]
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, b+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		rr.track(b, 1)
		resp, err := rr.hc.Do(req)
		if err == nil {
			err = rr.relay(w, resp)
		}
		rr.track(b, -1)
		if errors.Is(err, syscall.ECONNREFUSED) {
			continue // a replica that is down takes no request
		}
		if err != nil {
			// "error" as the transformers and OpenAI clients read it, "message" as Cohere's.
			msg, _ := json.Marshal(map[string]string{"error": "the replica failed: " + err.Error(),
				"message": "the replica failed: " + err.Error()})
			http.Error(w, string(msg), http.StatusBadGateway)
		}
		return
	}
	http.Error(w, `{"error":"no replica is up","message":"no replica is up"}`, http.StatusServiceUnavailable)
}

// weaviateMemoryDocs is how many debian-dev documents the test imports
// (T2V_WMEM_DOCS, default 1000).
func weaviateMemoryDocs(t *testing.T, r *reference) []dataset.Document {
	n := 1000
	if s := os.Getenv("T2V_WMEM_DOCS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("T2V_WMEM_DOCS=%q: want a count ≥ 1", s)
		}
		n = v
	}
	return r.docs[:min(n, len(r.docs))]
}

// TestWeaviateKeptMemory: three serve replicas behind one address keep the
// context memory in the stock Weaviate that stores the documents. One
// replica is killed (kill -9) in mid-import; the objects whose vectors it
// owed are resent until all are stored. Then every replica's copy reads the
// same objects, counts each distinct document once, gives every query the
// same vector bit for bit, and the vector a memory in RAM that learned the
// documents once gives.
func TestWeaviateKeptMemory(t *testing.T) {
	e := requireE2E(t)
	r := loadReference(t, e)
	docs := weaviateMemoryDocs(t, r)
	tmp, bin := t.TempDir(), text2vecAM(t, e.repo)
	rr := newRoundRobin(t)
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), []string{
		"ENABLE_MODULES=text2vec-transformers",
		"TRANSFORMERS_INFERENCE_API=" + rr.url(),
		"TRANSFORMERS_WAIT_FOR_STARTUP=false", // the replicas are ready once Weaviate is: neither waits for the other
	})
	args := []string{"--memory-weaviate", w.url(""), "--memory-weaviate-refresh", "200ms"}
	if r.modelPath != "" {
		args = append(args, "--model", r.modelPath)
	}
	var replicas []*adapterServer
	var urls []string
	for i, port := range freePorts(t, memReplicas) {
		a := startAdapter(t, bin, filepath.Join(tmp, fmt.Sprintf("serve-%d.log", i)), port, args)
		replicas, urls = append(replicas, a), append(urls, a.url(""))
	}
	rr.set(urls)
	col := collection{w: w, c: newClient(t, w), class: "WDocs"}
	createCollection(t, w, transformersCollection(col.class, map[string]any{"vectorizeClassName": false}))

	start := time.Now()
	failed := importKilling(t, col, docs, func() {
		for deadline := time.Now().Add(time.Minute); !rr.serving(urls[1]) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		replicas[1].proc.kill()            // while it answers
		rr.set([]string{urls[0], urls[2]}) // as a Service drops a pod that is gone
	})
	t.Logf("imported %d documents through %d replicas in %v, replica 1 killed in mid-import: %d objects failed and were resent",
		len(docs), memReplicas, time.Since(start).Round(time.Millisecond), failed)
	replicas[1].port = freePorts(t, 1)[0] // its port may be taken meanwhile
	replicas[1].start(t)                  // stateless: it reads the memory from Weaviate
	rr.set([]string{urls[0], replicas[1].url(""), urls[2]})
	if n := countClass(t, w, col.class); n != len(docs) {
		t.Fatalf("%d objects stored, want %d", n, len(docs))
	}
	checkReplicasAgree(t, replicas, docs, r)
}

// importKilling imports docs in batches, calls kill while the third batch
// is imported, and resends the documents that failed until none does; it
// returns the number of failures.
func importKilling(t *testing.T, col collection, docs []dataset.Document, kill func()) int {
	t.Helper()
	var failures int
	for lo := 0; lo < len(docs); lo += batchSize {
		idx := indexRange(lo, min(lo+batchSize, len(docs)))
		if lo == 2*batchSize {
			go kill()
		}
		for attempt := 0; len(idx) > 0; attempt++ {
			if attempt == 5 {
				t.Fatalf("documents %v still fail after %d attempts", idx[:min(len(idx), 5)], attempt)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			res, err := importDocs(ctx, col.c, col.class, docs, idx, batchSize, nil)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			idx = idx[:0]
			for i, msg := range res.Failures {
				if failures++; failures == 1 {
					t.Logf("first failure (resent): document %d: %.300s", i, msg)
				}
				idx = append(idx, i)
			}
			slices.Sort(idx)
		}
	}
	if failures == 0 {
		t.Errorf("no object failed: the replica was not killed in mid-import")
	}
	return failures
}

// countClass returns the number of objects of class.
func countClass(t *testing.T, w *weaviateServer, class string) int {
	t.Helper()
	var ans struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct{ Count int } `json:"meta"`
			} `json:"Aggregate"`
		} `json:"data"`
	}
	q := map[string]any{"query": fmt.Sprintf("{ Aggregate { %s { meta { count } } } }", class)}
	if status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/graphql"), q, &ans); err != nil || status != 200 ||
		len(ans.Data.Aggregate[class]) != 1 {
		t.Fatalf("count %s: status %d, %v: %.300s", class, status, err, raw)
	}
	return ans.Data.Aggregate[class][0].Meta.Count
}

// replicaMemory is what a replica's /meta says of its copy of the memory.
type replicaMemory struct {
	Passages float64 `json:"passages"`
	Weaviate struct {
		State  string `json:"state"`
		Scopes map[string]struct {
			Objects float64 `json:"objects"`
			Version string  `json:"version"`
		} `json:"scopes"`
		Refreshes map[string]int64 `json:"refreshes"`
	} `json:"weaviate"`
}

func readReplicaMemory(t *testing.T, a *adapterServer) replicaMemory {
	t.Helper()
	var meta struct {
		Memory replicaMemory `json:"memory"`
	}
	if status, raw, err := doJSON(context.Background(), http.MethodGet, a.url("/meta"), nil, &meta); err != nil || status != 200 {
		t.Fatalf("/meta: status %d, %v: %.300s", status, err, raw)
	}
	return meta.Memory
}

// checkReplicasAgree waits until every replica's copy has the same version,
// then checks the passages counted and the query vectors: the same on
// every replica, and those of a memory in RAM that learned every document
// once.
func checkReplicasAgree(t *testing.T, replicas []*adapterServer, docs []dataset.Document, r *reference) {
	t.Helper()
	var mems []replicaMemory
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		mems = mems[:0]
		versions := map[string]bool{}
		for _, a := range replicas {
			m := readReplicaMemory(t, a)
			mems = append(mems, m)
			versions[m.Weaviate.Scopes[""].Version] = true
		}
		if len(versions) == 1 && mems[0].Weaviate.State == "ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replicas' copies do not converge: %+v", mems)
		}
	}
	t.Logf("every replica read %v objects (version %s)", mems[0].Weaviate.Scopes[""].Objects, mems[0].Weaviate.Scopes[""].Version)
	for i, m := range mems {
		if int(m.Passages) != distinctPassages(docs) {
			t.Errorf("replica %d counts %v passages, want %d (one per distinct document)", i, m.Passages, distinctPassages(docs))
		}
	}
	want := learnedOnce(t, r, docs)
	for i, a := range replicas {
		got := currentVectors(t, a, docs)
		for j := range docs {
			if !slices.Equal(got[j], want[j]) {
				t.Fatalf("replica %d, document %d as a query: the vector differs from the one a memory that learned every document once gives", i, j)
			}
		}
	}
}

// learnedOnce returns every document's query vector over a memory in RAM
// that learned each document once, as a passage.
func learnedOnce(t *testing.T, r *reference, docs []dataset.Document) [][]float32 {
	t.Helper()
	mem, err := memory.Open("", memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(r.vec.Model(), mem, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	v.VectorizeBatch(texts, vectorizer.TaskPassage, vectorizer.DefaultOptions())
	vecs, errs := v.VectorizeBatch(texts, vectorizer.TaskQuery, vectorizer.DefaultOptions())
	for i, err := range errs {
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	return vecs
}
