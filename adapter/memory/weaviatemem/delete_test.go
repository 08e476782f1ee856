package weaviatemem

import (
	"context"
	"strings"
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
	docs := testmodel.JargonPassages(50)
	long := strings.Repeat("L", 40) // two collections whose names differ beyond 40 bytes
	for i, scope := range []string{"Books/t1", "Books/t2", "Films", long + "A/t", long + "B/t"} {
		vecs, _, err := s.VectorizeBatch(context.Background(), v, scope, docs[10*i:10*i+10], vectorizer.TaskPassage, vectorizer.DefaultOptions())
		if err != nil || len(vecs) != 10 {
			t.Fatalf("%s: %v", scope, err)
		}
	}
	st := s.Stats().Remote.Scopes
	if st[""].Passages != 50 || st["Films"].Tenant != "Films" || st["Books/t1"].Tenant != "Books--t1" || f.Count("Books--t2") == 0 {
		t.Fatalf("scopes %+v", st)
	}
	for _, coll := range []string{"Books", long + "A"} {
		if err := s.Delete(context.Background(), coll, ""); err != nil {
			t.Fatal(err)
		}
	}
	f.Mu.Lock()
	_, t1 := f.Tenants["Books--t1"]
	_, t2 := f.Tenants["Books--t2"]
	_, films := f.Tenants["Films"]
	_, longA := f.Tenants[tenantName(long+"A/t")]
	_, longB := f.Tenants[tenantName(long+"B/t")]
	f.Mu.Unlock()
	if t1 || t2 || !films || longA || !longB {
		t.Errorf("after deleting Books and %sA: Books--t1 %v, Books--t2 %v, Films %v, %sA/t %v, %sB/t %v",
			long, t1, t2, films, long, longA, long, longB)
	}
	if st := s.Stats().Remote.Scopes; len(st) != 3 || st[""].Passages != 50 {
		t.Errorf("copies after the delete: %+v", st)
	}
}

// TestDeleteMemoryNeedsNoCopyOptions: DeleteMemory deletes a tenant's
// memory with a URL only; the options of copies, which it reads none of,
// may be left zero.
func TestDeleteMemoryNeedsNoCopyOptions(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	vectorize(t, s, baseVectorizer(t), testmodel.JargonPassages(2), vectorizer.TaskPassage)
	if f.Count(sharedTenant) == 0 {
		t.Fatal("nothing written to the shared tenant")
	}
	if d, err := DeleteMemory(context.Background(), Options{URL: ts.URL}, "", ""); err != nil || len(d.Tenants) != 1 {
		t.Fatalf("deleted %v, %v; want the shared tenant", d, err)
	}
	f.Mu.Lock()
	_, kept := f.Tenants[sharedTenant]
	f.Mu.Unlock()
	if kept {
		t.Error("the shared tenant is kept")
	}
}
