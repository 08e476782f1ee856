package module

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/text2vec-am/text2vec-am/adapter/command"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// weaviateModule is a module node whose memory is kept in the Weaviate at url.
func weaviateModule(t *testing.T, url string) *Module {
	t.Helper()
	return weaviateModuleEnv(t, map[string]string{EnvMemoryWeaviate: url})
}

// weaviateModuleEnv is a module node of the environment vars, whose memory
// is kept in Weaviate.
func weaviateModuleEnv(t *testing.T, vars map[string]string) *Module {
	t.Helper()
	m := newTestModule(t, false)
	env, err := LoadEnvConfig(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	env.Weaviate.Refresh = 20 * time.Millisecond
	if err := m.openWeaviate(*env.Weaviate); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWeaviateMemoryAcrossNodes: what one node's import of a tenant teaches
// the memory kept in Weaviate, another node's nearText on that tenant uses,
// with the same vector; each tenant is a scope of its own, the shared scope
// counts every passage; DeleteMemory deletes a tenant's scope.
func TestWeaviateMemoryAcrossNodes(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	a, b := weaviateModule(t, ts.URL), weaviateModule(t, ts.URL)
	cfg := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	var objs []*models.Object
	for i := range 6 {
		o := object(i, map[string]any{"text": fmt.Sprintf("w1 w2 zorblax w3 w4. w5 quuxify w6 w7 w8 n%d.", i)})
		o.Tenant = "tenantA"
		objs = append(objs, o)
	}
	if _, _, errs := a.VectorizeBatch(context.Background(), objs, make([]bool, len(objs)), cfg); errs[0] != nil {
		t.Fatal(errs[0])
	}
	scopes := a.remote.Stats().Remote.Scopes
	if f.Count("Doc--tenantA") != 1 || f.Count("_shared") != 1 || scopes[""].Passages != int64(len(objs)) ||
		scopes["Doc/tenantA"].Passages != int64(len(objs)) || scopes["Doc/tenantA"].Contexts == 0 {
		t.Fatalf("objects: tenant %d, shared %d; scopes %+v: want one lesson each, of contexts and passages, "+
			"and %d passages in each", f.Count("Doc--tenantA"), f.Count("_shared"), scopes, len(objs))
	}
	search := withTenant(context.WithValue(context.Background(), classKey{}, "Doc"), "tenantA")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		qa, err := a.Texts(search, []string{"zorblax w9"}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		qb, err := b.Texts(search, []string{"zorblax w9"}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(qa) == fmt.Sprint(qb) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nodes a and b give the query different vectors")
		}
	}
	info, _ := a.MetaInfo()
	if meta, _ := json.Marshal(info["memory"]); !strings.Contains(string(meta), `"tenant":"Doc--tenantA"`) {
		t.Errorf("meta %s does not name the tenant's scope", meta)
	}
	if err := a.DeleteMemory("Doc", "tenantA"); err != nil {
		t.Fatal(err)
	}
	f.Mu.Lock()
	_, kept := f.Tenants["Doc--tenantA"]
	f.Mu.Unlock()
	if kept {
		t.Error("DeleteMemory kept the tenant's memory in Weaviate")
	}
}

// TestWeaviateTenantIsolation: with the memory kept in Weaviate, tenant B's
// vectors, query vectors and explanations are bit-identical whether or not
// tenant A imported first, and never show A's sentences.
func TestWeaviateTenantIsolation(t *testing.T) {
	f1, ts1 := fakeweaviate.New(t)
	f2, ts2 := fakeweaviate.New(t)
	m1, m2 := weaviateModule(t, ts1.URL), weaviateModule(t, ts2.URL)
	v1, q1, e1 := tenantView(t, m1, false)
	v2, q2, e2 := tenantView(t, m2, true)
	sameTenantView(t, v1, v2, q1, q2, e1, e2)
	if a1, a2 := f1.Count("Doc--tenantA"), f2.Count("Doc--tenantA"); a2 <= a1 || f2.Count("Doc--tenantB") != f1.Count("Doc--tenantB") {
		t.Errorf("objects of tenant A: %d without its import, %d with it; of tenant B: %d and %d",
			a1, a2, f1.Count("Doc--tenantB"), f2.Count("Doc--tenantB"))
	}
}

// TestWeaviateEnvMatchesServe: a setting of the memory kept in Weaviate that
// serve and the module both take has one name: the module's variable is the
// one serve's flag reads. EnvMemoryWeaviateMaxScopes is the module's only:
// serve has no such flag.
func TestWeaviateEnvMatchesServe(t *testing.T) {
	var help bytes.Buffer
	cli.Main(context.Background(), "text2vec-am", command.Commands(), []string{"serve", "-h"}, &help, &help)
	for env, flag := range map[string]string{EnvMemoryWeaviate: "memory-weaviate", EnvMemoryWeaviateClass: "memory-weaviate-class",
		EnvMemoryWeaviateReplicas: "memory-weaviate-replicas", EnvMemoryWeaviateMaxBytes: "memory-weaviate-max-bytes",
		EnvMemoryWeaviateTimeout: "memory-weaviate-timeout"} {
		if !strings.Contains(help.String(), "  -"+flag+" ") {
			t.Errorf("serve has no flag --%s", flag)
		}
		if got := cli.EnvName(command.EnvPrefix, flag); got != env {
			t.Errorf("serve's --%s reads %s, the module %s", flag, got, env)
		}
	}
	if strings.Contains(help.String(), "  -memory-weaviate-max-scopes ") {
		t.Errorf("serve has a flag --memory-weaviate-max-scopes: add %s to the settings both take", EnvMemoryWeaviateMaxScopes)
	}
}

func TestWeaviateMemoryEnv(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryDir: "/data"}, EnvMemoryDir},
		{map[string]string{EnvMemoryWeaviate: "w:8080"}, EnvMemoryWeaviate},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateReplicas: "-1"}, EnvMemoryWeaviateReplicas + `="-1"`},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateReplicas: "65"}, EnvMemoryWeaviateReplicas + ": "},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateClass: "lower"}, EnvMemoryWeaviateClass + ": "},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateAPIKey: "a key"}, EnvMemoryWeaviateAPIKey + ": "},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateMaxBytes: "1GiB"}, EnvMemoryWeaviateMaxBytes + `="1GiB"`},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateMaxBytes: "1000"}, EnvMemoryWeaviateMaxBytes + ": "},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateMaxScopes: "0"}, EnvMemoryWeaviateMaxScopes + `="0"`},
		{map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateMaxScopes: "2000"}, EnvMemoryWeaviateMaxScopes + ": "},
	} {
		if _, err := LoadEnvConfig(func(k string) string { return c.env[k] }); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("environment %v: error %v, want one naming %s", c.env, err, c.want)
		}
	}
	cfg, err := LoadEnvConfig(func(k string) string {
		return map[string]string{EnvMemoryWeaviate: "http://w:8080", EnvMemoryWeaviateReplicas: "3", EnvMemoryWeaviateTimeout: "5s",
			EnvMemoryWeaviateMaxBytes: "268435456", EnvMemoryWeaviateMaxScopes: "16"}[k]
	})
	if err != nil || cfg.Weaviate == nil || cfg.Weaviate.Replicas != 3 || cfg.Weaviate.Timeout != 5*time.Second || !cfg.Weaviate.SharedCounts ||
		cfg.Weaviate.MaxBytes != 256<<20 || cfg.Weaviate.MaxScopes != 16 {
		t.Errorf("good environment: %+v, %v", cfg.Weaviate, err)
	}
}

// TestWeaviateMemoryEnvHidesPassword: a URL in EnvMemoryWeaviate that does
// not parse, or lacks its scheme, is refused naming the variable and the URL
// without its password.
func TestWeaviateMemoryEnvHidesPassword(t *testing.T) {
	for _, u := range []string{"http://user:secret@host:bad", "user:secret@host", "http://user:secret@exa mple.com"} {
		_, err := LoadEnvConfig(func(k string) string { return map[string]string{EnvMemoryWeaviate: u}[k] })
		if err == nil || !strings.Contains(err.Error(), EnvMemoryWeaviate) || strings.Contains(err.Error(), "secret") ||
			!strings.Contains(err.Error(), "user:xxxxx@") {
			t.Errorf("%s=%q: %v, want an error naming the variable and the URL without its password", EnvMemoryWeaviate, u, err)
		}
	}
}

// TestWeaviateMemoryDown: while the memory kept in Weaviate takes no write,
// every object of a teaching batch fails with no vector and an error naming
// the memory's variable, and nearText goes on over the node's copy; once
// Weaviate takes writes again the same objects are vectorized.
func TestWeaviateMemoryDown(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	m := weaviateModule(t, ts.URL)
	cfg := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	batch := func(first int) ([][]float32, map[int]error) {
		var objs []*models.Object
		for i := range 3 {
			objs = append(objs, object(first+i, map[string]any{"text": fmt.Sprintf("w1 zorblax w2 w3. n%d", first+i)}))
		}
		vecs, _, errs := m.VectorizeBatch(context.Background(), objs, make([]bool, len(objs)), cfg)
		return vecs, errs
	}
	if _, errs := batch(0); errs[0] != nil {
		t.Fatal(errs[0])
	}
	f.Fail("/v1/batch", 1000, 503)
	vecs, errs := batch(10)
	for i := range vecs {
		if err := errs[i]; err == nil || !strings.Contains(err.Error(), EnvMemoryWeaviate) || vecs[i] != nil {
			t.Errorf("object %d with Weaviate refusing writes: vector %v, error %v; want none and an error naming %s",
				i, vecs[i] != nil, err, EnvMemoryWeaviate)
		}
	}
	search := context.WithValue(context.Background(), classKey{}, "Doc")
	if q, err := m.Texts(search, []string{"zorblax w9"}, cfg); err != nil || len(q) == 0 {
		t.Errorf("nearText with Weaviate refusing writes: %v, %v; want a vector from the node's copy", q, err)
	}
	f.Fail("/v1/batch", 0, 0)
	if _, errs := batch(10); errs[0] != nil {
		t.Errorf("once Weaviate takes writes again: %v", errs[0])
	}
}

// TestOwnCollectionsAreNeverVectorized: objects of the memory's collection
// or the witnesses' (made by Weaviate's auto-schema with text2vec-am as the
// default vectorizer) are refused at once, and teach nothing.
func TestOwnCollectionsAreNeverVectorized(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	m := weaviateModule(t, ts.URL)
	local := newTestModule(t, true)
	cfg := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	for _, class := range []string{"Text2vecAmMemory", "Text2vecAmWitness"} {
		for name, node := range map[string]*Module{"memory kept in Weaviate": m, "memory of its own": local} {
			o := object(0, map[string]any{"text": "w1 w2 zorblax w3 w4."})
			o.Class, o.Tenant = class, "Doc"
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _, errs := node.VectorizeBatch(ctx, []*models.Object{o}, []bool{false}, cfg)
			_, _, err := node.VectorizeObject(ctx, o, cfg)
			cancel()
			for _, err := range []error{errs[0], err} {
				if !errors.Is(err, errOwnCollection) || !strings.Contains(err.Error(), "curl -X DELETE") {
					t.Errorf("%s, class %s: %v; want the refusal", name, class, err)
				}
			}
			// Asked for by the module's endpoints: a 400, not a 503 that a client retries.
			node.env.VectorsEndpoint = true
			for path, body := range map[string]string{"/vectors/batch": `{"texts":["w1 w2"],"collection":"` + class + `"}`,
				"/vectors": `{"text":"w1 w2","collection":"` + class + `"}`} {
				rec := httptest.NewRecorder()
				node.RootHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
				if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "never vectorized") {
					t.Errorf("%s, %s of class %s: %d %.200s; want 400 with the refusal", name, path, class, rec.Code,
						rec.Body.String())
				}
			}
		}
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	for tenant, objs := range f.Tenants {
		if len(objs) > 0 {
			t.Errorf("tenant %s of the memory holds %d objects: an own collection taught it", tenant, len(objs))
		}
	}
}

// TestEndpointsWhileTheMemoryIsUnavailable: while the memory kept in
// Weaviate cannot be read, the module's endpoints answer 503 (retry
// later), not 422 (the text's fault); a text without words is 422.
func TestEndpointsWhileTheMemoryIsUnavailable(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	f.Fail("/v1/", 1_000_000, http.StatusInternalServerError)
	m := weaviateModule(t, ts.URL)
	m.env.VectorsEndpoint = true
	post := func(path, body string) *httptest.ResponseRecorder {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		m.RootHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)).WithContext(ctx))
		return rec
	}
	for path, body := range map[string]string{"/vectors": `{"text":"w1 w2"}`, "/vectors/batch": `{"texts":["w1 w2"]}`} {
		if rec := post(path, body); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s while the memory cannot be read: %d %.200s, want 503", path, rec.Code, rec.Body.String())
		}
	}
	f.Fail("/v1/", 0, 0)
	local := newTestModule(t, true)
	local.env.VectorsEndpoint = true
	rec := httptest.NewRecorder()
	local.RootHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(`{"text":"..."}`)))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("/vectors of a text without words: %d %.200s, want 422", rec.Code, rec.Body.String())
	}
}

// TestWeaviateMemoryReplicas: without EnvMemoryWeaviateReplicas a node
// creates the memory's collection with one replica on each of the nodes
// Weaviate lists; a collection that exists keeps its factor, with no
// warning; a factor set is the one a collection is created with.
func TestWeaviateMemoryReplicas(t *testing.T) {
	for _, c := range []struct {
		nodes           int
		existing, asked string
		want, wantAsked int
	}{{1, "", "", 1, 0}, {3, "", "", 3, 0}, {3, "", "0", 3, 0}, {3, "2", "", 2, 0}, {3, "", "2", 2, 2}} {
		f, ts := fakeweaviate.New(t)
		f.Nodes = c.nodes
		if c.existing != "" {
			weaviateModuleEnv(t, map[string]string{EnvMemoryWeaviate: ts.URL, EnvMemoryWeaviateReplicas: c.existing})
			f.WaitFactor(t, c.want)
		}
		m := weaviateModuleEnv(t, map[string]string{EnvMemoryWeaviate: ts.URL, EnvMemoryWeaviateReplicas: c.asked})
		f.WaitFactor(t, c.want)
		r := m.remote.Stats().Remote
		for deadline := time.Now().Add(10 * time.Second); r.Replicas != c.want && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			r = m.remote.Stats().Remote
		}
		if r.Replicas != c.want || r.ReplicasAsked != c.wantAsked || r.ReplicasWarning != "" {
			t.Errorf("%d nodes, collection of factor %q, %q asked: replicas %d, asked %d, warning %q; want %d, %d, none",
				c.nodes, c.existing, c.asked, r.Replicas, r.ReplicasAsked, r.ReplicasWarning, c.want, c.wantAsked)
		}
	}
}

// TestWeaviateQueryCreatesNoTenant: the module's /vectors for collections
// never imported into (one that does not exist too) answers the vector of
// an empty memory and creates no tenant of the memory kept in Weaviate; an
// import into a collection creates its tenant alone, and its queries then
// read what the import taught.
func TestWeaviateQueryCreatesNoTenant(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	m := weaviateModule(t, ts.URL)
	m.env.VectorsEndpoint = true
	for deadline := time.Now().Add(20 * time.Second); m.remote.Ready() != nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the memory kept in Weaviate is not ready: %v", m.remote.Ready())
		}
	}
	query := func(collection string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		body := `{"text":"zorblax w9 quuxify","collection":"` + collection + `"}`
		m.RootHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(body)))
		if rec.Code != http.StatusOK {
			t.Fatalf("/vectors of %s: %d %.200s", collection, rec.Code, rec.Body.String())
		}
		return rec.Body.String()
	}
	tenantNames := func() string {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		return fmt.Sprint(slices.Sorted(maps.Keys(f.Tenants)))
	}
	before := query("Doc")
	for i := range 5 {
		if got := query(fmt.Sprintf("Nope%d", i)); got != before {
			t.Fatalf("/vectors of Nope%d: %s, want the empty memory's %s", i, got, before)
		}
	}
	if got := tenantNames(); got != "[_shared]" {
		t.Fatalf("tenants %s after the queries, want [_shared]: a query created tenants", got)
	}
	cfg := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	var objs []*models.Object
	for i := range 6 {
		objs = append(objs, object(i, map[string]any{"text": fmt.Sprintf("w1 w2 zorblax w3 w4. w5 quuxify w6 n%d.", i)}))
	}
	if _, _, errs := m.VectorizeBatch(context.Background(), objs, make([]bool, len(objs)), cfg); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if got := tenantNames(); got != "[Doc _shared]" {
		t.Fatalf("tenants %s after an import into Doc, want [Doc _shared]", got)
	}
	if query("Doc") == before {
		t.Error("/vectors of Doc after its import: the vector of an empty memory")
	}
}
