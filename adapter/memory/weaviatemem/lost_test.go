package weaviatemem

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestLostMemoryIsRefused: a scope whose memory has no object although its
// collection holds objects that taught it is refused with ErrLost, for
// passages and queries, naming the fix; it is served again once its memory
// has objects (a rebuild wrote them) or once the collection is empty (it was
// deleted). A memory with objects, or an empty one of an empty collection,
// is served; a witness that fails checks nothing. A server that served
// the memory before it was deleted finds it lost too.
func TestLostMemoryIsRefused(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	v := baseVectorizer(t)
	var imported atomic.Int64
	var failing atomic.Bool
	witness := func(o *Options) {
		o.Witness = func(_ context.Context, _ weaviateapi.Caller, scope string) (int, error) {
			if failing.Load() {
				return 0, errors.New("tenant not active")
			}
			if scope == "Coll" {
				return int(imported.Load()), nil
			}
			return 0, nil
		}
	}
	docs := testmodel.JargonPassages(4)
	run := func(s *Store, task vectorizer.Task) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, err := s.VectorizeBatch(ctx, v, "Coll", docs, task, vectorizer.DefaultOptions())
		return err
	}

	s := openStore(t, ts.URL, witness) // an empty collection: served, and taught
	if err := run(s, vectorizer.TaskPassage); err != nil {
		t.Fatalf("a new collection: %v", err)
	}
	imported.Store(int64(len(docs)))
	if err := run(openStore(t, ts.URL, witness), vectorizer.TaskQuery); err != nil {
		t.Fatalf("a memory with objects: %v", err)
	}

	f.Mu.Lock()
	delete(f.Tenants, tenantName("Coll")) // the memory is deleted; the collection keeps its objects
	f.Mu.Unlock()
	sc, _ := s.loadedScope(context.Background(), "Coll") // a server running meanwhile reads in full at once
	sc.mu.Lock()
	sc.lastFull = time.Time{}
	sc.mu.Unlock()
	waitFor(t, "a running server to find the memory lost", func() bool { return errors.Is(run(s, vectorizer.TaskQuery), ErrLost) })
	lost := openStore(t, ts.URL, witness)
	for _, task := range []vectorizer.Task{vectorizer.TaskPassage, vectorizer.TaskQuery} {
		err := run(lost, task)
		if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "memory rebuild") || !strings.Contains(err.Error(), "4 objects") {
			t.Fatalf("task %v on a lost memory: %v; want ErrLost naming the objects and the rebuild", task, err)
		}
	}
	if n := f.Count(tenantName("Coll")); n != 0 {
		t.Fatalf("a lost memory was taught: %d objects", n)
	}

	failing.Store(true)
	if err := run(openStore(t, ts.URL, witness), vectorizer.TaskQuery); err != nil {
		t.Fatalf("a witness that fails: %v", err)
	}
	failing.Store(false)

	put := func() { // as a rebuild writes it
		o := contextObject(memory.Observation{Word: "zorblat", Context: "the zorblat daemon"})
		f.Put(tenantName("Coll"), o.batchObject("", tenantName("Coll")), f.Now)
	}
	put()
	waitFor(t, "the rebuilt memory to be served", func() bool { return run(lost, vectorizer.TaskQuery) == nil })

	f.Mu.Lock()
	delete(f.Tenants, tenantName("Coll"))
	f.Mu.Unlock()
	again := openStore(t, ts.URL, witness)
	if err := run(again, vectorizer.TaskQuery); !errors.Is(err, ErrLost) {
		t.Fatalf("lost again: %v", err)
	}
	imported.Store(0) // the collection is deleted too
	waitFor(t, "a memory of an emptied collection to be served", func() bool { return run(again, vectorizer.TaskQuery) == nil })
}
