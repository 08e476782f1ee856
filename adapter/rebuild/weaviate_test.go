package rebuild_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/rebuild"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// memoryOptions are the options of the memory kept in the fake Weaviate at url.
func memoryOptions(url string) weaviatemem.Options {
	return weaviatemem.Options{URL: url, Refresh: 20 * time.Millisecond, Timeout: 5 * time.Second, Logger: quiet()}
}

// objects counts the objects of every tenant of f.
func objects(f *fakeweaviate.Fake) int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	n := 0
	for _, objs := range f.Tenants {
		n += len(objs)
	}
	return n
}

// weaviateCopy is the memory kept in the fake at url as a new store reads
// it: the copy of each scope named and the query vector of probe over it.
func weaviateCopy(t *testing.T, o rebuild.Options, url, probe string, scopes ...string) (map[string]memstore.ScopeStats, [][]float32) {
	t.Helper()
	wo := memoryOptions(url)
	wo.Memory = o.Memory
	s, err := weaviatemem.Open(wo, scopes...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for deadline := time.Now().Add(20 * time.Second); s.Ready() != nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the copies were not read: %v", s.Ready())
		}
	}
	base, err := vectorizer.New(o.Model, nil, o.Vectorizer)
	if err != nil {
		t.Fatal(err)
	}
	var vecs [][]float32
	for _, name := range scopes {
		v, err := s.Reader(base, name)
		if err != nil {
			t.Fatal(err)
		}
		vec, err := v.Vectorize(probe, vectorizer.TaskQuery, o.Vectorizer)
		if err != nil {
			t.Fatal(err)
		}
		vecs = append(vecs, vec)
	}
	return s.Stats().Remote.Scopes, vecs
}

// importWeaviate teaches texts to scope of a new memory kept in a fake
// Weaviate through its store, as serve (scope "") or the module (shared
// counts) does on import, and returns the fake's URL.
func importWeaviate(t *testing.T, o rebuild.Options, scope string, texts []string, opts vectorizer.Options) string {
	t.Helper()
	_, ts := fakeweaviate.New(t)
	wo := memoryOptions(ts.URL)
	wo.Memory, wo.SharedCounts = o.Memory, o.ModuleScopes
	s, err := weaviatemem.Open(wo, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := vectorizer.New(o.Model, nil, o.Vectorizer)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, errs, err := s.VectorizeBatch(ctx, v, scope, texts, vectorizer.TaskPassage, opts)
	if err != nil || errors.Join(errs...) != nil {
		t.Fatal(err, errors.Join(errs...))
	}
	return ts.URL
}

// sameMemory fails unless the memories kept at got and want hold the same
// passages and contexts in the scopes named and give the same query
// vectors, bit for bit (their objects differ where the texts were taught
// in other groupings).
func sameMemory(t *testing.T, o rebuild.Options, got, want string, scopes ...string) {
	t.Helper()
	const probe = "f1 zorblax jargon3 unseen4 r5"
	gotSt, gotVecs := weaviateCopy(t, o, got, probe, scopes...)
	wantSt, wantVecs := weaviateCopy(t, o, want, probe, scopes...)
	for i, name := range scopes {
		g, w := gotSt[name], wantSt[name]
		if g.Passages == 0 || g.Passages != w.Passages || g.Contexts != w.Contexts {
			t.Errorf("scope %q: rebuilt %d passages and %d contexts, imported %d and %d", name, g.Passages, g.Contexts,
				w.Passages, w.Contexts)
		}
		for j := range wantVecs[i] {
			if math.Float32bits(gotVecs[i][j]) != math.Float32bits(wantVecs[i][j]) {
				t.Fatalf("scope %q: query vectors differ at %d: %v vs %v", name, j, gotVecs[i][j], wantVecs[i][j])
			}
		}
	}
}

// TestRebuildWeaviateServeScope: the rebuilt memory kept in Weaviate is the
// one importing the same texts through serve's store leaves, and a second
// rebuild writes nothing.
func TestRebuildWeaviateServeScope(t *testing.T) {
	ts, _ := weaviate(t, stockSchema, true)
	mem, memURL := fakeweaviate.New(t)
	o := options(t, ts.URL)
	wo := memoryOptions(memURL.URL)
	o.Weaviate, o.Flush = &wo, 16
	res, err := rebuild.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	n := len(texts()) + 1
	written := objects(mem)
	if res.Taught != n || res.Written == 0 || res.Written != int64(written) || res.Scopes[""].Objects != int64(written) {
		t.Fatalf("result %+v: want %d texts taught and the %d objects in the fake written", res, n, written)
	}
	imported := []string{"Doc"}
	for _, text := range texts() {
		imported = append(imported, "Doc "+text) // text2vec-transformers vectorizes the class name
	}
	sameMemory(t, o, memURL.URL, importWeaviate(t, o, "", imported, o.Vectorizer), "")

	again, err := rebuild.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Written != 0 || objects(mem) != written || again.Taught != n {
		t.Errorf("a second rebuild wrote %d objects (%d in the fake, %d before), taught %d", again.Written, objects(mem),
			written, again.Taught)
	}
}

// TestRebuildWeaviateModuleScopes: with the module's scopes each tenant is
// rebuilt into the scope the module names "Class/tenant", its passages
// counted in the shared scope too, as the module's imports leave them.
func TestRebuildWeaviateModuleScopes(t *testing.T) {
	ts, f := weaviate(t, strings.Replace(moduleSchema, `{"class":"Doc",`, `{"class":"Doc","multiTenancyConfig":{"enabled":true},`, 1), false)
	tenantB := "f1 zorblax f2 r3 f4"
	f.byTenant = map[string]map[string]map[string]any{"tenantA": f.objs, "tenantB": {"b1": {"body": tenantB}}}
	o, mem, memURL := moduleRebuild(t, ts.URL)
	res, err := rebuild.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "Doc/tenantA", "Doc/tenantB"} {
		if res.Scopes[name].Objects == 0 {
			t.Fatalf("scope %q not taught: %+v", name, res.Scopes)
		}
	}
	if res.Scopes["Doc/tenantA"].Tenant != "Doc--tenantA" {
		t.Errorf("tenant A kept in Weaviate tenant %q", res.Scopes["Doc/tenantA"].Tenant)
	}
	opts := o.Vectorizer // max_contexts is no setting of the vectorizer's
	// Tenant B alone, into a memory of its own.
	onlyB := o
	onlyB.Source.Tenant = "tenantB"
	woB := memoryOptions(fakeURL(t))
	onlyB.Weaviate = &woB
	if _, err := rebuild.Run(context.Background(), onlyB); err != nil {
		t.Fatal(err)
	}
	sameMemory(t, o, woB.URL, importWeaviate(t, o, "Doc/tenantB", []string{tenantB}, opts), "", "Doc/tenantB")
	sameMemory(t, o, memURL.URL, importWeaviate(t, o, "Doc/tenantA", append([]string{"Doc"}, texts()...), opts), "Doc/tenantA")

	written := objects(mem)
	again, err := rebuild.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Written != 0 || objects(mem) != written {
		t.Errorf("a second rebuild wrote %d objects (%d in the fake, %d before)", again.Written, objects(mem), written)
	}
}

// moduleRebuild returns the options of a rebuild of the collection at url
// into the module's scopes of a memory kept in a new fake Weaviate.
func moduleRebuild(t *testing.T, url string) (rebuild.Options, *fakeweaviate.Fake, *httptest.Server) {
	mem, memURL := fakeweaviate.New(t)
	o := options(t, url)
	wo := memoryOptions(memURL.URL)
	o.Weaviate, o.ModuleScopes = &wo, true
	return o, mem, memURL
}

func fakeURL(t *testing.T) string {
	_, ts := fakeweaviate.New(t)
	return ts.URL
}

func TestRebuildWeaviateErrors(t *testing.T) {
	ts, _ := weaviate(t, stockSchema, false)
	o := options(t, ts.URL)
	o.ModuleScopes = true
	if _, err := rebuild.Run(context.Background(), o); !errors.Is(err, rebuild.ErrTarget) {
		t.Errorf("module scopes without the memory in Weaviate: %v", err)
	}
	wo := memoryOptions("http://127.0.0.1:1")
	wo.Timeout = 100 * time.Millisecond
	o.Weaviate, o.ModuleScopes = &wo, false
	_, err := rebuild.Run(context.Background(), o)
	if !errors.Is(err, memstore.ErrUnavailable) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("Weaviate unreachable: %v", err)
	}
	o.MemoryDir = t.TempDir()
	if _, err := rebuild.Run(context.Background(), o); !errors.Is(err, rebuild.ErrTarget) {
		t.Errorf("two memories: %v", err)
	}
}

// TestRebuildWeaviateTextWithoutWords: an object whose text has no word
// that yields a vector is taught what it teaches (nothing) and the rebuild
// goes on.
func TestRebuildWeaviateTextWithoutWords(t *testing.T) {
	ts, f := weaviate(t, moduleSchema, false)
	f.objs["00000000-0000-0000-0000-888888888888"] = map[string]any{"body": "?! --"}
	o, _, _ := moduleRebuild(t, ts.URL)
	res, err := rebuild.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(texts()) + 2; res.Taught != n || res.Scopes["Doc"].Objects == 0 {
		t.Errorf("result %+v: want all %d texts taught", res, n)
	}
}

// TestRebuildWeaviatePermanentErrorsFailAtOnce: a memory's class unlike a
// memory (made by Weaviate's auto-schema) and Weaviate's 403 stop the
// rebuild at once with the mending, not after the patience.
func TestRebuildWeaviatePermanentErrorsFailAtOnce(t *testing.T) {
	ts, _ := weaviate(t, stockSchema, false)
	for _, c := range []struct {
		name  string
		setup func(f *fakeweaviate.Fake)
		want  string
	}{
		{"auto-created class", func(f *fakeweaviate.Fake) {
			f.Class = map[string]any{"class": weaviatemem.DefaultClass, "multiTenancyConfig": map[string]any{"enabled": false},
				"description": "This property was generated by Weaviate's auto-schema feature"}
		}, "curl -X DELETE"},
		{"forbidden", func(f *fakeweaviate.Fake) {
			f.Mu.Unlock()
			defer f.Mu.Lock()
			f.Fail("/v1/schema", 1000, http.StatusForbidden)
		}, "403"},
	} {
		f, mts := fakeweaviate.New(t)
		f.Mu.Lock()
		c.setup(f)
		f.Mu.Unlock()
		o := options(t, ts.URL)
		wo := memoryOptions(mts.URL)
		wo.Timeout = 10 * time.Second // patience 30 s
		o.Weaviate = &wo
		begin := time.Now()
		_, err := rebuild.Run(context.Background(), o)
		if !errors.Is(err, memstore.ErrRefused) || !strings.Contains(err.Error(), c.want) || time.Since(begin) > 5*time.Second {
			t.Errorf("%s: %v after %v; want %q at once", c.name, err, time.Since(begin), c.want)
		}
	}
}
