package weaviatemem

import (
	"context"
	"errors"
	"strings"
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
	waitFor(t, "the witness of the collection", func() bool {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		_, ok := f.Witnesses[witness.CollectionID(DefaultClass)]
		return ok
	})
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
