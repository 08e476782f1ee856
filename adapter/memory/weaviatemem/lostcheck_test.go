package weaviatemem

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// TestBriefSchema404DoesNotRefuseAWrite: a class that is there but that
// Weaviate answers 404 for three times in a row (a node catching up on the
// schema) must not turn a write into a refusal nor make the store not ready.
func TestBriefSchema404DoesNotRefuseAWrite(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := taughtStore(t, f, ts.URL)
	f.Fail("/v1/schema/"+DefaultClass, 3, 404)
	v := baseVectorizer(t)
	_, _, err := s.VectorizeBatch(context.Background(), v, "", []string{"g1 g2 g3."}, vectorizer.TaskPassage,
		vectorizer.DefaultOptions())
	if errors.Is(err, memstore.ErrRefused) {
		t.Errorf("a write while Weaviate briefly answered 404 for an existing class: refused: %v", err)
	}
	if err := s.Ready(); err != nil {
		t.Errorf("ready after a brief 404: %v", err)
	}
}

// taughtStore opens a store that refreshes seldom, teaches it and waits
// for the witness of its class.
func taughtStore(t *testing.T, f *fakeweaviate.Fake, url string) *Store {
	t.Helper()
	s := openStore(t, url, func(o *Options) { o.Refresh = time.Hour })
	v := baseVectorizer(t)
	if _, _, err := s.VectorizeBatch(context.Background(), v, "", []string{"f1 f2 f3."}, vectorizer.TaskPassage,
		vectorizer.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	waitForWitness(t, f)
	return s
}

// TestSchemaReadsPerWrite counts the schema reads that writes cost.
func TestSchemaReadsPerWrite(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := taughtStore(t, f, ts.URL)
	f.Mu.Lock()
	g0, b0 := f.Calls["/v1/schema/"+DefaultClass], f.Calls["/v1/batch/objects"]
	f.Mu.Unlock()
	v := baseVectorizer(t)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := strings.Repeat("w"+string(rune('a'+i%26))+string(rune('a'+i/26))+" ", 3) + "zz."
			if _, _, err := s.VectorizeBatch(context.Background(), v, "", []string{text}, vectorizer.TaskPassage,
				vectorizer.DefaultOptions()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f.Mu.Lock()
	g1, b1 := f.Calls["/v1/schema/"+DefaultClass], f.Calls["/v1/batch/objects"]
	f.Mu.Unlock()
	t.Logf("40 requests: %d batches, %d schema reads", b1-b0, g1-g0)
	if g1-g0 > b1-b0 {
		t.Errorf("%d schema reads for %d batches", g1-g0, b1-b0)
	}
}

// TestClassErrorMendedWithoutRestart: a class unlike a memory, deleted and
// rebuilt, gives a ready store that writes again, without a restart.
func TestClassErrorMendedWithoutRestart(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s, teach := deleteWhileRunning(t, f, ts.URL)
	f.Mu.Lock()
	f.Class = map[string]any{"class": DefaultClass, "description": "auto-schema",
		"multiTenancyConfig": map[string]any{"enabled": false}}
	f.Mu.Unlock()
	if _, err := teach(); !errors.Is(err, memstore.ErrRefused) {
		t.Fatalf("want refusal, got %v", err)
	}
	f.DropClass()
	openStore(t, ts.URL, func(o *Options) { o.AcceptDropped = true })
	waitFor(t, "ready again", func() bool { return s.Ready() == nil })
	if _, err := teach(); err != nil {
		t.Errorf("write once mended: %v", err)
	}
}

// flapping answers the schema read of the memory's class with 404 and
// counts with 500 while on, else passes calls to the fake.
type flapping struct {
	f  *fakeweaviate.Fake
	mu sync.Mutex
	on bool
}

func (h *flapping) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	on := h.on
	h.mu.Unlock()
	if on && r.Method == http.MethodGet && r.URL.Path == "/v1/schema/"+DefaultClass {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if on && r.URL.Path == "/v1/graphql" {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	h.f.ServeHTTP(w, r)
}

func (h *flapping) set(on bool) {
	h.mu.Lock()
	h.on = on
	h.mu.Unlock()
}

// TestBrief404DuringRefreshRefusesNothing: Weaviate answers 404 for the
// memory's class and 500 for counts for 300 ms (a node catching up); no
// request may be refused (503 with Retry-After 60) for it.
func TestBrief404DuringRefreshRefusesNothing(t *testing.T) {
	f, _ := fakeweaviate.New(t)
	h := &flapping{f: f}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	var logs bytes.Buffer
	var lmu sync.Mutex
	s := openStore(t, ts.URL, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &lmu}, nil))
	})
	waitForWitness(t, f)
	v := baseVectorizer(t)
	h.set(true)
	begin := time.Now()
	refused := 0
	for time.Since(begin) < 300*time.Millisecond {
		_, _, err := s.VectorizeBatch(context.Background(), v, "", []string{"q1 q2."}, vectorizer.TaskQuery,
			vectorizer.DefaultOptions())
		if errors.Is(err, memstore.ErrRefused) {
			refused++
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.set(false)
	end := time.Now()
	waitFor(t, "ready again", func() bool { return s.Ready() == nil })
	lmu.Lock()
	errorsLogged := strings.Count(logs.String(), "level=ERROR")
	lmu.Unlock()
	t.Logf("refused %d queries; ready %v after the blip; %d ERROR lines", refused, time.Since(end), errorsLogged)
	if refused > 0 || errorsLogged > 0 {
		t.Errorf("a 300 ms blip refused %d queries and logged %d ERROR lines", refused, errorsLogged)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestDeletionFoundByRefreshIsRefused: a collection deleted while the store
// runs and found by a refresh (no write) gives the witness's refusal, as at
// start: Ready names it and queries fail at once.
func TestDeletionFoundByRefreshIsRefused(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	waitForWitness(t, f)
	f.DropClass()
	var de *DroppedError
	deadline := time.Now().Add(3 * time.Second)
	for !errors.As(s.Ready(), &de) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !errors.As(s.Ready(), &de) {
		t.Errorf("ready 3 s after the collection was deleted: %v; want the witness's refusal", s.Ready())
	}
	v := baseVectorizer(t)
	_, _, err := s.VectorizeBatch(context.Background(), v, "", []string{"q1 q2."}, vectorizer.TaskQuery,
		vectorizer.DefaultOptions())
	if !errors.Is(err, memstore.ErrRefused) {
		t.Errorf("a query once the collection is deleted: %v; want the refusal", err)
	}
}
