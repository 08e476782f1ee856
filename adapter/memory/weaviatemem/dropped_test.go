package weaviatemem

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// TestDroppedCollectionIsRefused deletes the memory's collection: a store
// opened after that refuses to re-create it empty until told to accept it
// (as memory rebuild does), and then works again.
func TestDroppedCollectionIsRefused(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	waitForWitness(t, f)
	s.Close()

	f.DropClass()
	o := Options{URL: ts.URL, Refresh: 20 * time.Millisecond, Timeout: 5 * time.Second, Memory: memory.DefaultOptions(),
		Logger: quiet()}
	refused, err := Open(o, "")
	if err != nil {
		t.Fatal(err)
	}
	defer refused.Close()
	waitFor(t, "the refusal", func() bool { return errors.Is(refused.Ready(), memstore.ErrRefused) })
	var de *DroppedError
	if err := refused.Ready(); !errors.As(err, &de) || de.Class != DefaultClass || !strings.Contains(err.Error(), "memory rebuild") {
		t.Errorf("ready: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	begin := time.Now()
	_, _, err = refused.VectorizeBatch(ctx, baseVectorizer(t), "", []string{"f1 f2."}, vectorizer.TaskPassage,
		vectorizer.DefaultOptions())
	if !errors.Is(err, memstore.ErrRefused) || time.Since(begin) > 2*time.Second {
		t.Errorf("vectorizing with a refused store: %v after %v; want the refusal at once", err, time.Since(begin))
	}
	f.Mu.Lock()
	gone := f.Class == nil
	f.Mu.Unlock()
	if !gone {
		t.Fatal("the refused store re-created the collection")
	}

	openStore(t, ts.URL, func(o *Options) { o.AcceptDropped = true })
	waitFor(t, "the refused store to find the re-created collection", func() bool { return refused.Ready() == nil })
}

// TestWitnessWithoutCollectionYet: witnesses of other memories do not stop
// a store from creating its collection.
func TestWitnessWithoutCollectionYet(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	f.Mu.Lock()
	f.Witnesses = map[string]map[string]any{} // the witnesses' collection, from a memory directory's server
	f.Mu.Unlock()
	openStore(t, ts.URL, nil) // no witness of this collection: created
}

// deleteWhileRunning opens a store that refreshes seldom (so that only a
// write can find the class gone), teaches it, waits for the witness of its
// class and deletes the class; it returns the store and a function that
// teaches it one more passage, returning the error and how long it took.
func deleteWhileRunning(t *testing.T, f *fakeweaviate.Fake, url string) (*Store, func() (time.Duration, error)) {
	t.Helper()
	s := openStore(t, url, func(o *Options) { o.Refresh = time.Hour })
	v := baseVectorizer(t)
	teach := func(text string) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		begin := time.Now()
		_, _, err := s.VectorizeBatch(ctx, v, "", []string{text}, vectorizer.TaskPassage, vectorizer.DefaultOptions())
		return time.Since(begin), err
	}
	if _, err := teach("f1 f2 f3."); err != nil {
		t.Fatal(err)
	}
	waitForWitness(t, f)
	f.DropClass()
	return s, func() (time.Duration, error) { return teach("f4 f5 f6.") }
}

// TestWriteToDeletedCollectionIsRefused deletes the memory's collection
// while a store runs: its next write reaches no batch (Weaviate's
// auto-schema would create the class unlike a memory), fails at once with
// the refusal naming the rebuild, and the store is not ready until the
// collection is rebuilt.
func TestWriteToDeletedCollectionIsRefused(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s, teach := deleteWhileRunning(t, f, ts.URL)
	took, err := teach()
	var de *DroppedError
	if !errors.As(err, &de) || !errors.Is(err, memstore.ErrRefused) || took > 5*time.Second {
		t.Errorf("write after the collection was deleted: %v after %v; want the refusal at once", err, took)
	}
	f.Mu.Lock()
	auto, gone := f.AutoCreated, f.Class == nil
	f.Mu.Unlock()
	if auto != 0 || !gone {
		t.Fatalf("the write created the class through auto-schema (%d) or re-created it (gone %v)", auto, gone)
	}
	if err := s.Ready(); !errors.As(err, &de) {
		t.Errorf("ready: %v; want the refusal", err)
	}
	if took, err := teach(); !errors.Is(err, memstore.ErrRefused) || took > 2*time.Second {
		t.Errorf("a later write: %v after %v", err, took)
	}
	openStore(t, ts.URL, func(o *Options) { o.AcceptDropped = true }) // as memory rebuild re-creates it
	waitFor(t, "the store to find the re-created collection", func() bool { return s.Ready() == nil })
	if _, err := teach(); err != nil {
		t.Errorf("a write once the collection is back: %v", err)
	}
}

// TestAutoCreatedCollectionIsRefused: a class of the memory's name that
// Weaviate's auto-schema created is found by the next write, which fails at
// once with the mending (delete it, then rebuild); the refresh finds it too.
func TestAutoCreatedCollectionIsRefused(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s, teach := deleteWhileRunning(t, f, ts.URL)
	f.Mu.Lock()
	f.Class = map[string]any{"class": DefaultClass, "description": "This property was generated by Weaviate's auto-schema feature",
		"multiTenancyConfig": map[string]any{"enabled": false}}
	f.Mu.Unlock()
	took, err := teach()
	var ce *ClassError
	if !errors.As(err, &ce) || !errors.Is(err, memstore.ErrRefused) || !ce.Auto || took > 5*time.Second {
		t.Fatalf("write to an auto-created class: %v after %v; want the refusal at once", err, took)
	}
	for _, want := range []string{"curl -X DELETE " + ts.URL + "/v1/schema/" + DefaultClass, "memory rebuild", "auto-schema"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !errors.Is(s.Ready(), memstore.ErrRefused) || f.Count("_shared") != 0 {
		t.Errorf("ready: %v; objects written %d", s.Ready(), f.Count("_shared"))
	}

	f2, ts2 := fakeweaviate.New(t)
	s2 := openStore(t, ts2.URL, func(o *Options) { o.Refresh = 10 * time.Millisecond })
	f2.DropClass()
	f2.Mu.Lock()
	f2.Class = map[string]any{"class": DefaultClass, "multiTenancyConfig": map[string]any{"enabled": false}}
	f2.Mu.Unlock()
	waitFor(t, "the refresh to find the class unlike a memory", func() bool { return errors.Is(s2.Ready(), errNotAMemory) })
}

// waitForWitness waits until f holds the witness of the memory's collection.
func waitForWitness(t *testing.T, f *fakeweaviate.Fake) {
	t.Helper()
	waitFor(t, "the witness of the collection", func() bool {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		_, ok := f.Witnesses[witness.CollectionID(DefaultClass)]
		return ok
	})
}

// TestWriteWitnessesTheCollectionItRecreates deletes the memory's
// collection and its witness while a store runs: the next write re-creates
// the collection and records its witness, so that deleting the collection
// again is found by the write after, which refuses it instead of
// re-creating it empty.
func TestWriteWitnessesTheCollectionItRecreates(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := taughtStore(t, f, ts.URL)
	v := baseVectorizer(t)
	f.DropClass()
	forgetWitness(f)
	if took, err := teachText(s, v, "h1 h2 h3."); err != nil {
		t.Fatalf("a write once the collection and its witness are deleted: %v after %v", err, took)
	}
	f.Mu.Lock()
	recreated := f.Class != nil
	f.Mu.Unlock()
	if !recreated {
		t.Fatal("the write did not re-create the collection")
	}
	waitForWitness(t, f)

	f.DropClass()
	took, err := teachText(s, v, "h4 h5 h6.")
	var de *DroppedError
	if !errors.As(err, &de) || !errors.Is(err, memstore.ErrRefused) || took > 5*time.Second {
		t.Errorf("a write once the re-created collection is deleted: %v after %v; want the refusal at once", err, took)
	}
	f.Mu.Lock()
	gone := f.Class == nil
	f.Mu.Unlock()
	if !gone {
		t.Error("the collection was re-created empty a second time")
	}
	if err := s.Ready(); !errors.As(err, &de) {
		t.Errorf("ready: %v; want the refusal", err)
	}
}

// slowWitness passes calls to the fake but, while on, holds the reads of a
// witness made once the memory's class exists (those of the witness of its
// creation, not those of the check before it) until the caller gives up.
type slowWitness struct {
	f       *fakeweaviate.Fake
	mu      sync.Mutex
	on      bool
	holding int
}

func (h *slowWitness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.f.Mu.Lock()
	exists := h.f.Class != nil
	h.f.Mu.Unlock()
	h.mu.Lock()
	hold := h.on && exists && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/objects/"+witness.Class+"/")
	if hold {
		h.holding++
	}
	h.mu.Unlock()
	if hold {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	h.f.ServeHTTP(w, r)
}

func (h *slowWitness) set(on bool) {
	h.mu.Lock()
	h.on = on
	h.mu.Unlock()
}

func (h *slowWitness) held() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.holding
}

// TestWitnessOfARecreatedCollectionDelaysNothing: the witness of a
// collection a write re-created is written beside the write, which a slow
// witness does not delay; Close ends it at once, and its failure is logged.
func TestWitnessOfARecreatedCollectionDelaysNothing(t *testing.T) {
	f, _ := fakeweaviate.New(t)
	h := &slowWitness{f: f}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	var logs bytes.Buffer
	var lmu sync.Mutex
	s := openStore(t, ts.URL, func(o *Options) {
		o.Refresh = time.Hour // only a write finds the collection gone
		o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &lmu}, nil))
	})
	v := baseVectorizer(t)
	if _, err := teachText(s, v, "f1 f2 f3."); err != nil {
		t.Fatal(err)
	}
	waitForWitness(t, f)
	f.DropClass()
	forgetWitness(f)
	h.set(true)
	if took, err := teachText(s, v, "h1 h2 h3."); err != nil || took > 3*time.Second {
		t.Errorf("a write that re-creates the collection: %v after %v; want it done at once", err, took)
	}
	waitFor(t, "the witness of the re-created collection to be read", func() bool { return h.held() > 0 })
	begin := time.Now()
	s.Close()
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("Close took %v while the witness was being read; want it at once", took)
	}
	lmu.Lock()
	logged := logs.String()
	lmu.Unlock()
	if !strings.Contains(logged, "cannot record in Weaviate that its collection exists") {
		t.Errorf("the witness that was not written is not logged:\n%s", logged)
	}
}

// forgetWitness deletes the witness of the memory's collection from f.
func forgetWitness(f *fakeweaviate.Fake) {
	f.Mu.Lock()
	delete(f.Witnesses, witness.CollectionID(DefaultClass))
	f.Mu.Unlock()
}

// teachText teaches the shared scope of s text as a passage, returning the
// error and how long it took.
func teachText(s *Store, v *vectorizer.Vectorizer, text string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	begin := time.Now()
	_, err := s.Teach(ctx, v, "", []string{text}, vectorizer.DefaultOptions())
	return time.Since(begin), err
}

// TestWitnessWriteFailureIsRetried: a witness that Weaviate failed to write
// (a 5xx) is written at the next refresh, not only at the next start.
func TestWitnessWriteFailureIsRetried(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	f.Mu.Lock()
	f.WitnessWriteFailures = 2
	f.Mu.Unlock()
	s := openStore(t, ts.URL, nil)
	waitForWitness(t, f)
	f.Mu.Lock()
	left := f.WitnessWriteFailures
	f.Mu.Unlock()
	if left != 0 {
		t.Errorf("%d failures left: the witness was written without meeting them", left)
	}
	if err := s.Ready(); err != nil {
		t.Errorf("ready: %v", err)
	}
}

// TestWitnessRetriesBackOff: a witness that Weaviate keeps failing to write
// is retried ever further apart, not at every refresh, and its failure is
// not logged at every retry.
func TestWitnessRetriesBackOff(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	const failures = 1 << 20
	f.Mu.Lock()
	f.WitnessWriteFailures = failures
	f.Mu.Unlock()
	var logs bytes.Buffer
	var lmu sync.Mutex
	openStore(t, ts.URL, func(o *Options) {
		o.Refresh = 10 * time.Millisecond
		o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &lmu}, nil))
	})
	time.Sleep(1500 * time.Millisecond)
	f.Mu.Lock()
	tries := failures - f.WitnessWriteFailures
	f.Mu.Unlock()
	lmu.Lock()
	warned := strings.Count(logs.String(), "cannot record in Weaviate that its collection exists")
	lmu.Unlock()
	// At every refresh: about 150 tries; backing off from 100 ms: about 5.
	if tries < 2 || tries > 10 {
		t.Errorf("%d writes of the witness in 1.5 s of refreshes every 10 ms: want 2 to 10", tries)
	}
	if warned < 1 || warned > 2 {
		t.Errorf("the failure logged %d times: want once, not at every retry", warned)
	}
}
