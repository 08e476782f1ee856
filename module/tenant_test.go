package module

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// localModule is a module with a memory of its own in a new directory.
func localModule(t *testing.T) (*Module, string) {
	t.Helper()
	dir := t.TempDir()
	env, err := LoadEnvConfig(func(k string) string { return map[string]string{EnvMemoryDir: dir}[k] })
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	if err := m.initWith(env, ""); err != nil {
		t.Fatal(err)
	}
	if m.vec, err = vectorizer.New(testModel(t), m.mem, env.Defaults); err != nil { // the small test model
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, dir
}

// tenantConfig is a class config of a multi-tenant collection's tenant.
type tenantConfig struct {
	fakeClassConfig
	tenant string
}

func (c tenantConfig) Tenant() string { return c.tenant }

func tenantObjects(tenant string, texts ...string) []*models.Object {
	var objs []*models.Object
	for i, text := range texts {
		o := object(i, map[string]any{"text": text})
		o.Tenant = tenant
		objs = append(objs, o)
	}
	return objs
}

// tenantView is what tenant B sees: its objects' vectors, a query's vector
// and the explanation of the query over B's memory.
func tenantView(t *testing.T, m *Module, aFirst bool) (vecs [][]float32, query []float32, explain string) {
	t.Helper()
	ctx := context.Background()
	teach := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	importTenant := func(objs []*models.Object) [][]float32 {
		v, _, errs := m.VectorizeBatch(ctx, objs, make([]bool, len(objs)), teach)
		for i, err := range errs {
			t.Fatalf("object %d: %v", i, err)
		}
		return v
	}
	secretA := tenantObjects("tenantA", "w1 zorblax w2 secret alpha sentence.", "w3 quuxify w4 secret beta text.")
	mixed := append(tenantObjects("tenantB", "w5 zorblax w6 public gamma.", "w7 quuxify w8 public delta."),
		tenantObjects("tenantA", "w9 zorblax secret epsilon w1.")...)
	if aFirst {
		importTenant(secretA)
	}
	vecs = importTenant(mixed)[:2] // one batch of both tenants: B's objects against B's memory only
	qctx := context.WithValue(ctx, classKey{}, "Doc")
	query, err := m.Texts(qctx, []string{"zorblax quuxify"}, tenantConfig{fakeClassConfig{}, "tenantB"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.collectionVectorizer("Doc", "tenantB", false)
	if m.remote != nil { // the copy of tenant B's scope of the memory kept in Weaviate
		v, err = m.remote.Reader(m.vec, scopeOf("Doc", "tenantB"))
	}
	if err != nil {
		t.Fatal(err)
	}
	ex, err := v.ExplainContext(ctx, "zorblax quuxify", v.Options(), vectorizer.DefaultExplainLimits())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ex)
	return vecs, query, string(b)
}

// sameTenantView fails t unless tenant B's views without (v1, q1, e1) and
// after (v2, q2, e2) tenant A's import are bit-identical and show none of
// A's sentences.
func sameTenantView(t *testing.T, v1, v2 [][]float32, q1, q2 []float32, e1, e2 string) {
	t.Helper()
	if len(v1) != len(v2) || len(v1) == 0 {
		t.Fatalf("tenant B's vectors: %d and %d", len(v1), len(v2))
	}
	for i := range v1 {
		if !slices.Equal(v1[i], v2[i]) {
			t.Errorf("tenant B's object %d: a different vector after tenant A's import", i)
		}
	}
	if !slices.Equal(q1, q2) || e1 != e2 {
		t.Errorf("tenant B's query differs after tenant A's import:\n%s\n%s", e1, e2)
	}
	if strings.Contains(e2, "secret") || !strings.Contains(e2, "public") {
		t.Errorf("tenant B's explanation: %s", e2)
	}
}

// TestTenantIsolation: tenant B's vectors, query vectors and explanations
// are bit-identical whether or not tenant A imported first, and never show
// A's sentences; deleting A's memory deletes its contexts and counts.
func TestTenantIsolation(t *testing.T) {
	m1, _ := localModule(t)
	v1, q1, e1 := tenantView(t, m1, false)
	m2, dir := localModule(t)
	v2, q2, e2 := tenantView(t, m2, true)
	sameTenantView(t, v1, v2, q1, q2, e1, e2)
	a, err := m2.colls.FindTenant("Doc", "tenantA")
	if err != nil || a == nil || a.Stats().Contexts == 0 || a.Stats().Passages != 3 {
		t.Fatalf("tenant A's memory: %v %v", a, err)
	}
	if err := m2.DeleteMemory("doc", "tenantA"); err != nil {
		t.Fatal(err)
	}
	if a, err := m2.colls.FindTenant("Doc", "tenantA"); a != nil || err != nil {
		t.Errorf("tenant A's memory after the delete: %v %v", a, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "collections", "Doc", "tenants", "tenantA")); !os.IsNotExist(err) {
		t.Errorf("tenant A's directory after the delete: %v", err)
	}
	if b, _ := m2.colls.FindTenant("Doc", "tenantB"); b == nil || b.Stats().Passages != 2 {
		t.Error("deleting tenant A touched tenant B")
	}
	if err := m2.DeleteMemory("Doc", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "collections", "Doc")); !os.IsNotExist(err) {
		t.Errorf("the collection's directory after the delete: %v", err)
	}
	if err := m2.DeleteMemory("Doc", "../x"); err == nil {
		t.Error("a tenant name that is not Weaviate's was accepted")
	}
}

// TestMetaInfoScopes: /v1/meta summarizes the memory of each collection and
// tenant in use, beside the node's passage counts.
func TestMetaInfoScopes(t *testing.T) {
	m, _ := localModule(t)
	ctx := context.Background()
	teach := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	objs := append(tenantObjects("tenantB", "w5 zorblax w6 public gamma."), tenantObjects("", "w1 quuxify w2.", "w3 w4.")...)
	for _, o := range objs {
		if _, _, err := m.VectorizeObject(ctx, o, teach); err != nil {
			t.Fatal(err)
		}
	}
	info, err := m.MetaInfo()
	if err != nil {
		t.Fatal(err)
	}
	mem := info["memory"].(map[string]any)
	if mem["passages"] != int64(3) {
		t.Errorf("node's passages %v, want 3", mem["passages"])
	}
	scopes, _ := mem["collections"].(map[string]any)
	// The test model knows w1 … w9: quuxify is Doc's one rare word;
	// zorblax, public and gamma are tenant B's.
	want := map[string][2]int64{"Doc": {2, 1}, "Doc/tenantB": {1, 3}}
	if len(scopes) != len(want) {
		t.Fatalf("memory scopes %v, want %v", scopes, want)
	}
	for scope, n := range want {
		s, _ := scopes[scope].(map[string]any)
		if s == nil || s["passages"] != n[0] || s["words"] != int(n[1]) {
			t.Errorf("memory of %s: %v, want %d passages and the contexts of %d rare words", scope, s, n[0], n[1])
		}
	}
}
