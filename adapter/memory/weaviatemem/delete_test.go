package weaviatemem

import (
	"context"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestScopesSharedCountsAndDelete: each scope is a tenant of its own; with
// SharedCounts the shared memory counts the passages of every scope; Delete
// of a collection deletes its tenants and the tenants of its tenants, and
// no other.
func TestScopesSharedCountsAndDelete(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, func(o *Options) { o.SharedCounts = true })
	v := baseVectorizer(t)
	docs := testmodel.JargonPassages(30)
	for i, scope := range []string{"Books/t1", "Books/t2", "Films"} {
		vecs, _, err := s.VectorizeBatch(context.Background(), v, scope, docs[10*i:10*i+10], vectorizer.TaskPassage, vectorizer.DefaultOptions())
		if err != nil || len(vecs) != 10 {
			t.Fatalf("%s: %v", scope, err)
		}
	}
	st := s.Stats().Remote.Scopes
	if st[""].Objects != 30 || st["Films"].Tenant != "Films" || st["Books/t1"].Tenant != "Books--t1" || f.Count("Books--t2") == 0 {
		t.Fatalf("scopes %+v", st)
	}
	if err := s.Delete(context.Background(), "Books", ""); err != nil {
		t.Fatal(err)
	}
	f.Mu.Lock()
	_, t1 := f.Tenants["Books--t1"]
	_, t2 := f.Tenants["Books--t2"]
	_, films := f.Tenants["Films"]
	f.Mu.Unlock()
	if t1 || t2 || !films {
		t.Errorf("after deleting Books: Books--t1 %v, Books--t2 %v, Films %v", t1, t2, films)
	}
	if st := s.Stats().Remote.Scopes; len(st) != 2 || st[""].Objects != 30 {
		t.Errorf("copies after the delete: %+v", st)
	}
}
