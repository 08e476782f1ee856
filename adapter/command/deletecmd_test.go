package command_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// TestMemoryDeleteWeaviate: "memory delete" deletes the tenants of the
// memory kept in Weaviate that hold a tenant's memory, or a collection's and
// all its tenants', and no other.
func TestMemoryDeleteWeaviate(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	for _, tenant := range []string{"Doc", "Doc--acme", "Doc--beta", "Docs", "_shared"} {
		f.Put(tenant, map[string]any{"id": "00000000-0000-0000-0000-000000000001", "properties": map[string]any{}}, f.Now)
	}
	tenants := func() string {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		var names []string
		for _, n := range []string{"Doc", "Doc--acme", "Doc--beta", "Docs", "_shared"} {
			if _, ok := f.Tenants[n]; ok {
				names = append(names, n)
			}
		}
		return strings.Join(names, " ")
	}
	code, out, stderr := runCLI(context.Background(), "memory", "delete", "--memory-weaviate", ts.URL, "--class", "doc",
		"--tenant", "acme", "--yes")
	if code != 0 || !strings.Contains(out, "tenant acme of collection Doc") {
		t.Fatalf("delete a tenant: exit %d, %q, %q", code, out, stderr)
	}
	if got := tenants(); got != "Doc Doc--beta Docs _shared" {
		t.Errorf("after deleting tenant acme: tenants %q", got)
	}
	if code, _, stderr := runCLI(context.Background(), "memory", "delete", "--memory-weaviate", ts.URL, "--class", "Doc", "--yes"); code != 0 {
		t.Fatalf("delete a collection: exit %d, %q", code, stderr)
	}
	if got := tenants(); got != "Docs _shared" {
		t.Errorf("after deleting collection Doc: tenants %q", got)
	}
	f.Fail("/v1/schema", 1, 403)
	if code, _, stderr := runCLI(context.Background(), "memory", "delete", "--memory-weaviate", ts.URL, "--class", "Docs", "--tenant", "x",
		"--yes"); code != 1 || !strings.Contains(stderr, "403") {
		t.Errorf("a refused delete: exit %d, %q", code, stderr)
	}
}

// TestMemoryDeleteNoCollection: on a Weaviate that holds no memory
// collection, which answers calls about its tenants with a 422, memory delete
// says there is nothing to delete, naming the collection, and exits 0.
func TestMemoryDeleteNoCollection(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/schema/Text2vecAmMemory/tenants":
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"error":[{"message":"could not get tenants: class not found"}]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer ts.Close()
	for _, tenant := range [][]string{nil, {"--tenant", "acme"}} {
		args := append([]string{"memory", "delete", "--memory-weaviate", ts.URL, "--class", "Nope", "--yes"}, tenant...)
		code, out, stderr := runCLI(context.Background(), args...)
		if code != 0 || !strings.Contains(out, ts.URL+" holds no text2vec-am memory collection Text2vecAmMemory") ||
			!strings.Contains(out, "nothing to delete") || strings.Contains(out+stderr, "422") {
			t.Errorf("%v: exit %d, %q, %q; want 0 saying there is no memory collection", tenant, code, out, stderr)
		}
	}
}

// TestMemoryDeleteModuleDir: "memory delete --module-memory" deletes a
// tenant's or a collection's memory in the in-process module's directory.
func TestMemoryDeleteModuleDir(t *testing.T) {
	dir := t.TempDir()
	o := memory.DefaultOptions()
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	c := memory.NewCollections(dir, o, memory.MaxCollections)
	for _, tenant := range []string{"acme", "beta"} {
		m, err := c.GetTenant("Doc", tenant)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.CountPassage([]string{"w"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	tenantDir := func(tenant string) string { return filepath.Join(dir, "collections", "Doc", "tenants", tenant) }
	if code, _, stderr := runCLI(context.Background(), "memory", "delete", "--module-memory", dir, "--class", "Doc", "--tenant", "acme",
		"--yes"); code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(tenantDir("acme")); !os.IsNotExist(err) {
		t.Errorf("tenant acme's directory after the delete: %v", err)
	}
	if _, err := os.Stat(tenantDir("beta")); err != nil {
		t.Errorf("tenant beta's directory after deleting acme: %v", err)
	}
	for _, args := range [][]string{{"--class", "Dco"}, {"--class", "Doc", "--tenant", "acme"}} {
		code, out, stderr := runCLI(context.Background(), append([]string{"memory", "delete", "--module-memory", dir, "--yes"},
			args...)...)
		if code != 0 || !strings.Contains(out, "nothing to delete") || strings.Contains(out, "deleted") {
			t.Errorf("%v, which has no memory: exit %d, %q, %q; want 0, nothing to delete", args, code, out, stderr)
		}
	}
	if code, _, stderr := runCLI(context.Background(), "memory", "delete", "--module-memory", dir, "--class", "Doc", "--yes"); code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "collections", "Doc")); !os.IsNotExist(err) {
		t.Errorf("collection Doc's directory after the delete: %v", err)
	}
}

func TestMemoryDeleteUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--class", "Doc", "--yes"}, "exactly one of --memory-weaviate"},
		{[]string{"--memory-weaviate", "http://w:8080", "--module-memory", "/tmp", "--class", "Doc", "--yes"}, "exactly one"},
		{[]string{"--memory-weaviate", "http://w:8080", "--yes"}, "--class is required"},
		{[]string{"--memory-weaviate", "http://w:8080", "--class", "Doc"}, "--yes is required"},
		{[]string{"--memory-weaviate", "http://w:8080", "--class", "9x", "--yes"}, "--class: "},
		{[]string{"--memory-weaviate", "w:8080", "--class", "Doc", "--yes"}, "--memory-weaviate: "},
		{[]string{"--memory-weaviate", "http://w:8080", "--memory-weaviate-class", "lower", "--class", "Doc", "--yes"}, "--memory-weaviate-class: "},
		{[]string{"--memory-weaviate", "http://w:8080", "--class", "Doc", "--yes", "extra"}, "unexpected arguments"},
	} {
		code, _, stderr := runCLI(context.Background(), append([]string{"memory", "delete"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 mentioning %s", c.args, code, stderr, c.want)
		}
	}
}

// TestMemoryDeleteNothingToDelete: a collection or tenant whose memory holds
// no tenant of its own (a name mistyped, or serve's one shared memory, the
// stock path) deletes nothing and says so; a memory with a shared scope
// says that scope keeps whatever the collection taught it.
func TestMemoryDeleteNothingToDelete(t *testing.T) {
	for _, c := range []struct {
		tenants []string
		args    []string
		want    string
		shared  bool
	}{
		{[]string{"Doc", "_shared"}, []string{"--class", "Dco"}, "no memory of collection Dco and its tenants of its own", true},
		{[]string{"Doc"}, []string{"--class", "Doc", "--tenant", "acme"}, "no memory of tenant acme of collection Doc", false},
		{[]string{"_shared"}, []string{"--class", "Doc"}, "no memory of collection Doc and its tenants of its own", true},
	} {
		f, ts := fakeweaviate.New(t)
		for _, tenant := range c.tenants {
			f.Put(tenant, map[string]any{"id": "00000000-0000-0000-0000-000000000001", "properties": map[string]any{}}, f.Now)
		}
		args := append([]string{"memory", "delete", "--memory-weaviate", ts.URL, "--yes"}, c.args...)
		code, out, stderr := runCLI(context.Background(), args...)
		if code != 0 || !strings.Contains(out, c.want) || !strings.Contains(out, "nothing to delete") ||
			strings.Contains(out, "deleted the memory") {
			t.Errorf("%v on tenants %v: exit %d, %q, %q; want 0 saying %q, nothing to delete", c.args, c.tenants, code, out,
				stderr, c.want)
		}
		if shared := strings.Contains(out, "is not deleted per collection"); shared != c.shared {
			t.Errorf("%v on tenants %v: %q: says the shared memory is kept %v, want %v", c.args, c.tenants, out, shared, c.shared)
		}
		for _, tenant := range c.tenants {
			if f.Count(tenant) != 1 {
				t.Errorf("%v: tenant %s lost its object", c.args, tenant)
			}
		}
	}
	f, ts := fakeweaviate.New(t)
	for _, tenant := range []string{"Doc", "Doc--acme", "_shared"} {
		f.Put(tenant, map[string]any{"id": "00000000-0000-0000-0000-000000000001", "properties": map[string]any{}}, f.Now)
	}
	code, out, _ := runCLI(context.Background(), "memory", "delete", "--memory-weaviate", ts.URL, "--class", "Doc", "--yes")
	if code != 0 || !strings.Contains(out, "deleted the memory of collection Doc and its tenants") ||
		!strings.Contains(out, "keeps whatever Doc taught it") {
		t.Errorf("delete Doc beside a shared memory: exit %d, %q; want deleted, the shared memory kept", code, out)
	}
}

// TestMemoryDeleteModuleDirInvalidTenant: a --tenant that is not a Weaviate
// tenant name is refused with an error naming it, not reported as a memory
// with nothing to delete.
func TestMemoryDeleteModuleDirInvalidTenant(t *testing.T) {
	dir := t.TempDir()
	o := memory.DefaultOptions()
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	c := memory.NewCollections(dir, o, memory.MaxCollections)
	m, err := c.GetTenant("Doc", "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CountPassage([]string{"w"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(context.Background(), "memory", "delete", "--module-memory", dir, "--class", "Doc",
		"--tenant", "bad name", "--yes")
	if code == 0 || !strings.Contains(stderr, "bad name") || strings.Contains(out, "nothing to delete") {
		t.Errorf("--tenant %q: exit %d, %q, %q; want an error naming the tenant", "bad name", code, out, stderr)
	}
}

// TestMemoryDeleteWeaviateInvalidTenant: with --memory-weaviate too, a
// --tenant that is not a Weaviate tenant name is refused, naming it.
func TestMemoryDeleteWeaviateInvalidTenant(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	f.Put("Doc", map[string]any{"id": "00000000-0000-0000-0000-000000000001", "properties": map[string]any{}}, f.Now)
	code, out, stderr := runCLI(context.Background(), "memory", "delete", "--memory-weaviate", ts.URL, "--class", "Doc",
		"--tenant", "bad name", "--yes")
	if code == 0 || !strings.Contains(stderr, "bad name") || strings.Contains(out, "nothing to delete") {
		t.Errorf("--tenant %q: exit %d, %q, %q; want an error naming the tenant", "bad name", code, out, stderr)
	}
}
