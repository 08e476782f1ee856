package weaviatemem

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// tenants returns the names of the tenants of the fake's memory.
func tenants(f *fakeweaviate.Fake) []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return slices.Sorted(maps.Keys(f.Tenants))
}

// vectorizeScope runs VectorizeBatch on scope and fails the test on any error.
func vectorizeScope(t *testing.T, s *Store, v *vectorizer.Vectorizer, scope string, texts []string,
	task vectorizer.Task) [][]float32 {
	t.Helper()
	vecs, errs, err := s.VectorizeBatch(context.Background(), v, scope, texts, task, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatalf("scope %q: %v", scope, err)
	}
	for i, e := range errs {
		if e != nil {
			t.Fatalf("scope %q, text %d: %v", scope, i, e)
		}
	}
	return vecs
}

// TestQueryCreatesNoTenant: queries for scopes that have no tenant in
// Weaviate (collections never imported into, or that do not exist) read an
// empty memory and create no tenant and no copy, however many names; an
// import creates exactly its scope's tenant, and queries then read what it
// taught, on the server that imported and on another that had queried the
// scope before.
func TestQueryCreatesNoTenant(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	v := baseVectorizer(t)
	module := func(o *Options) { o.SharedCounts = true }
	a, b := openStore(t, ts.URL, module), openStore(t, ts.URL, module)
	before := tenants(f)
	queries := testmodel.JargonQueries()
	_, empty := localMemory(t, v, a.o.Memory)
	want, _ := empty.VectorizeBatch(queries, vectorizer.TaskQuery, vectorizer.DefaultOptions())
	for i := range 5 {
		for _, s := range []*Store{a, b} {
			got := vectorizeScope(t, s, v, fmt.Sprintf("Nope%d", i), queries, vectorizer.TaskQuery)
			for j := range got {
				if !slices.Equal(got[j], want[j]) {
					t.Fatalf("query %d of scope Nope%d: not the vector of an empty memory", j, i)
				}
			}
		}
	}
	if after := tenants(f); !slices.Equal(after, before) {
		t.Fatalf("tenants %v after the queries, want %v: a query created %d", after, before, len(after)-len(before))
	}
	for _, s := range []*Store{a, b} {
		if scopes := s.Stats().Remote.Scopes; len(scopes) != 1 {
			t.Errorf("copies of scopes %v: the queries kept copies", slices.Sorted(maps.Keys(scopes)))
		}
	}

	docs := testmodel.JargonPassages(40)
	local, lv := localMemory(t, v, a.o.Memory)
	lv.VectorizeBatch(docs, vectorizer.TaskPassage, vectorizer.DefaultOptions())
	taught, _ := lv.VectorizeBatch(queries, vectorizer.TaskQuery, vectorizer.DefaultOptions())
	if local.Stats().Contexts == 0 || slices.Equal(taught[0], want[0]) {
		t.Fatal("the passages teach the local memory nothing")
	}
	vectorizeScope(t, a, v, "Nope2", docs, vectorizer.TaskPassage)
	created := slices.Sorted(slices.Values(append(slices.Clone(before), "Nope2")))
	if after := tenants(f); !slices.Equal(after, created) {
		t.Fatalf("tenants %v after the import into Nope2, want %v", after, created)
	}
	same := func(s *Store) bool {
		got := vectorizeScope(t, s, v, "Nope2", queries, vectorizer.TaskQuery)
		for j := range got {
			if !slices.Equal(got[j], taught[j]) {
				return false
			}
		}
		return true
	}
	if !same(a) {
		t.Fatal("the importing server's queries do not read what the import taught")
	}
	waitFor(t, "the other server's queries to read what the import taught", func() bool { return same(b) })
	if after := tenants(f); len(after) != len(before)+1 {
		t.Errorf("tenants %v after the queries of the scope imported into", after)
	}
}

// TestQueriesAskOncePerRefresh: the queries of a scope without a tenant ask
// Weaviate about it once per Options.Refresh, and the store remembers at
// most maxAbsent such scopes.
func TestQueriesAskOncePerRefresh(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, func(o *Options) { o.Refresh = time.Hour })
	v := baseVectorizer(t)
	for range 10 {
		vectorizeScope(t, s, v, "Nope", []string{"w1 w2."}, vectorizer.TaskQuery)
	}
	f.Mu.Lock()
	asked := f.Calls["/v1/schema/"+DefaultClass+"/tenants/Nope"]
	f.Mu.Unlock()
	if asked != 1 {
		t.Errorf("10 queries asked Weaviate %d times about the scope's tenant, want 1", asked)
	}
	for i := range maxAbsent + 10 {
		vectorizeScope(t, s, v, fmt.Sprintf("N%d", i), []string{"w1 w2."}, vectorizer.TaskQuery)
	}
	s.mu.Lock()
	n := len(s.absent)
	s.mu.Unlock()
	if n > maxAbsent || len(tenants(f)) != 1 {
		t.Errorf("%d scopes remembered without a tenant (at most %d), tenants %d", n, maxAbsent, len(tenants(f)))
	}
}

// TestDeletedTenantStaysDeleted: once a scope's tenant is deleted, the
// copies of it (of the server that taught it, and of one that queried it)
// are dropped at their next refresh and its queries read an empty memory;
// no refresh creates the tenant again, the next import does.
func TestDeletedTenantStaysDeleted(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	a, b := openStore(t, ts.URL, nil), openStore(t, ts.URL, nil)
	v := baseVectorizer(t)
	queries := testmodel.JargonQueries()
	_, empty := localMemory(t, v, a.o.Memory)
	want, _ := empty.VectorizeBatch(queries, vectorizer.TaskQuery, vectorizer.DefaultOptions())
	isEmpty := func(s *Store) bool {
		got := vectorizeScope(t, s, v, "Doc", queries, vectorizer.TaskQuery)
		for j := range got {
			if !slices.Equal(got[j], want[j]) {
				return false
			}
		}
		return true
	}
	docs := testmodel.JargonPassages(20)
	vectorizeScope(t, a, v, "Doc", docs, vectorizer.TaskPassage)
	if isEmpty(a) {
		t.Fatal("the import taught nothing")
	}
	waitFor(t, "the other server to read the import", func() bool { return !isEmpty(b) })
	if _, err := DeleteMemory(context.Background(), Options{URL: ts.URL}, "Doc", ""); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		waitFor(t, "the copies to be dropped", func() bool { _, ok := s.Stats().Remote.Scopes["Doc"]; return !ok })
		if !isEmpty(s) {
			t.Error("a query of the deleted scope reads more than an empty memory")
		}
	}
	time.Sleep(10 * a.o.Refresh)
	if got := tenants(f); !slices.Equal(got, []string{sharedTenant}) {
		t.Fatalf("tenants %v after the delete, want [%s]", got, sharedTenant)
	}
	vectorizeScope(t, b, v, "Doc", docs[:5], vectorizer.TaskPassage)
	if got := tenants(f); !slices.Equal(got, []string{"Doc", sharedTenant}) {
		t.Fatalf("tenants %v after an import, want [Doc %s]", got, sharedTenant)
	}
	waitFor(t, "the first server to read the new import", func() bool { return !isEmpty(a) })
}

// TestReadOnlyStoreCreatesNoTenant: a read-only store creates not even the
// tenant of the scope named at Open; its queries and passages, vectorized
// as queries, read an empty memory until another server teaches the scope.
func TestReadOnlyStoreCreatesNoTenant(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	ro := openStore(t, ts.URL, func(o *Options) { o.ReadOnly = true })
	v := baseVectorizer(t)
	docs := testmodel.JargonPassages(20)
	_, empty := localMemory(t, v, ro.o.Memory)
	want, _ := empty.VectorizeBatch(docs[:3], vectorizer.TaskQuery, vectorizer.DefaultOptions())
	for _, task := range []vectorizer.Task{vectorizer.TaskQuery, vectorizer.TaskPassage} {
		got := vectorizeScope(t, ro, v, "", docs[:3], task)
		for j := range got {
			if !slices.Equal(got[j], want[j]) {
				t.Fatalf("%v %d: not the vector of an empty memory", task, j)
			}
		}
	}
	if got := tenants(f); len(got) != 0 {
		t.Fatalf("tenants %v of a read-only store, want none", got)
	}
	vectorizeScope(t, openStore(t, ts.URL, nil), v, "", docs, vectorizer.TaskPassage)
	waitFor(t, "the read-only store to read what another taught", func() bool {
		got := vectorizeScope(t, ro, v, "", docs[:3], vectorizer.TaskQuery)
		return !slices.Equal(got[0], want[0])
	})
}
