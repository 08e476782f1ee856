package rebuild_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/rebuild"
	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// fakeWeaviate answers the calls a rebuild makes: the class definition and
// the cursor listing of objects (ids ascending), for one class.
type fakeWeaviate struct {
	mu     sync.Mutex
	schema string
	objs   map[string]map[string]any // id → properties
	tenant string                    // the tenant a listing must name ("" none)
	// byTenant, when set, holds the objects of each tenant instead.
	byTenant map[string]map[string]map[string]any
	key      string // the API key asked for ("" none)
	vector   bool   // a listing asked for vectors
}

func (f *fakeWeaviate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	switch r.URL.Path {
	case "/v1/schema/Doc":
		io.WriteString(w, f.schema)
	case "/v1/schema/Doc/tenants":
		var list []map[string]string
		for name := range f.byTenant {
			list = append(list, map[string]string{"name": name, "activityStatus": "HOT"})
		}
		json.NewEncoder(w).Encode(list)
	case "/v1/objects":
		q := r.URL.Query()
		objs, ok := f.byTenant[q.Get("tenant")]
		if f.byTenant == nil {
			objs, ok = f.objs, q.Get("tenant") == f.tenant
		}
		if q.Get("class") != "Doc" || !ok {
			http.Error(w, `{"error":"class or tenant"}`, http.StatusUnprocessableEntity)
			return
		}
		f.vector = f.vector || q.Has("include")
		var limit int
		fmt.Sscan(q.Get("limit"), &limit)
		ids := slices.Sorted(func(yield func(string) bool) {
			for id := range objs {
				if id > q.Get("after") && !yield(id) {
					return
				}
			}
		})
		page := []map[string]any{}
		for _, id := range ids[:min(limit, len(ids))] {
			page = append(page, map[string]any{"id": id, "class": "Doc", "properties": objs[id]})
		}
		json.NewEncoder(w).Encode(map[string]any{"objects": page})
	default:
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	}
}

const (
	stockSchema  = `{"class":"Doc","vectorizer":"text2vec-transformers","properties":[{"name":"body","dataType":["text"]}]}`
	moduleSchema = `{"class":"Doc","vectorizer":"text2vec-am","moduleConfig":{"text2vec-am":{"max_contexts":32}},` +
		`"properties":[{"name":"body","dataType":["text"]}]}`
)

// texts are passages with rare and unseen words among frequent ones, and a
// text imported twice (one passage).
func texts() []string {
	var out []string
	for i := range 60 {
		out = append(out, fmt.Sprintf("%s %s jargon%d %s. %s unseen%d %s", testmodel.FrequentWord(i), testmodel.RareWord(i%40),
			i%7, testmodel.FrequentWord(i+1), testmodel.FrequentWord(i+2), i%11, testmodel.FrequentWord(i+3)))
	}
	return append(out, out[3])
}

// weaviate serves texts as objects of Doc whose ids follow the order of
// texts, or its reverse.
func weaviate(t *testing.T, schema string, reverse bool) (*httptest.Server, *fakeWeaviate) {
	f := &fakeWeaviate{schema: schema, objs: map[string]map[string]any{}}
	tx := texts()
	for i, text := range tx {
		j := i
		if reverse {
			j = len(tx) - 1 - i
		}
		f.objs[fmt.Sprintf("00000000-0000-0000-0000-%012d", j)] = map[string]any{"body": text}
	}
	// An object without text properties: Weaviate vectorizes its class name.
	f.objs["00000000-0000-0000-0000-999999999999"] = map[string]any{}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return ts, f
}

var testModel = sync.OnceValues(func() (*model.Model, error) { return testmodel.New(testmodel.DefaultSpec()) })

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func options(t *testing.T, url string) rebuild.Options {
	t.Helper()
	m, err := testModel()
	if err != nil {
		t.Fatal(err)
	}
	mo := memory.DefaultOptions()
	mo.Logger = quiet()
	return rebuild.Options{Source: refresh.Options{Weaviate: url, Class: "Doc", Batch: 7}, Model: m,
		Vectorizer: vectorizer.DefaultOptions(), Memory: mo}
}

// export returns the memory in dir as memory export prints it, with its Stats.
func export(t *testing.T, dir string) (string, memory.Stats) {
	t.Helper()
	mo := memory.DefaultOptions()
	mo.Logger, mo.ReadOnly = quiet(), true
	mem, err := memory.Open(dir, mo)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	var b bytes.Buffer
	if err := mem.Export(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), mem.Stats()
}

// passages is the number of distinct texts Weaviate vectorizes: those of
// texts and the class name.
func passages() int64 { return int64(len(slices.Compact(slices.Sorted(slices.Values(texts()))))) + 1 }

func TestRebuildMemoryDirIsOrderIndependentAndIdempotent(t *testing.T) {
	ctx := context.Background()
	fwd, f := weaviate(t, stockSchema, false)
	rev, _ := weaviate(t, stockSchema, true)
	dirA, dirB := t.TempDir(), t.TempDir()
	o := options(t, fwd.URL)
	o.MemoryDir = dirA
	res, err := rebuild.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	n := len(texts()) + 1
	if res.Read != n || res.Empty != 0 || res.Taught != n || res.NewPassages != passages() {
		t.Fatalf("result %+v: want %d read and taught, %d new passages", res, n, passages())
	}
	if len(res.Memories) != 1 || res.Memories[0].Words == 0 || res.Memories[0].Contexts == 0 {
		t.Fatalf("no contexts remembered: %+v", res.Memories)
	}
	if f.vector {
		t.Error("the listing asked for vectors, which a rebuild does not read")
	}
	o.Source.Weaviate, o.MemoryDir = rev.URL, dirB
	if _, err := rebuild.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	expA, stA := export(t, dirA)
	expB, stB := export(t, dirB)
	if expA != expB || stA.Words != stB.Words || stA.Contexts != stB.Contexts || stA.Passages != stB.Passages ||
		stA.DocFreqWords != stB.DocFreqWords {
		t.Fatalf("two orders gave two memories: %+v vs %+v", stA, stB)
	}
	// Again into the first: nothing changes.
	o.MemoryDir = dirA
	res, err = rebuild.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.NewPassages != 0 {
		t.Errorf("a second rebuild counted %d passages again", res.NewPassages)
	}
	if again, st := export(t, dirA); again != expA || st.Passages != stA.Passages || st.Words != stA.Words {
		t.Errorf("a second rebuild changed the memory: %+v vs %+v", st, stA)
	}
}

// TestRebuildMatchesImport: the rebuilt memory is the one the same texts
// imported through the vectorizer (teaching on) leave.
func TestRebuildMatchesImport(t *testing.T) {
	ts, _ := weaviate(t, stockSchema, true)
	o := options(t, ts.URL)
	o.MemoryDir = t.TempDir()
	if _, err := rebuild.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mem, err := memory.Open(dir, o.Memory)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(o.Model, mem, o.Vectorizer)
	if err != nil {
		t.Fatal(err)
	}
	imported := []string{"Doc"}
	for _, text := range texts() {
		imported = append(imported, "Doc "+text) // text2vec-transformers vectorizes the class name
	}
	if _, errs := v.VectorizeBatch(imported, vectorizer.TaskPassage, o.Vectorizer); errors.Join(errs...) != nil {
		t.Fatal(errors.Join(errs...))
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := export(t, dir)
	if got, _ := export(t, o.MemoryDir); got != want {
		t.Fatalf("the rebuilt memory differs from the imported one:\n%.500s\nvs\n%.500s", got, want)
	}
}

func TestRebuildModuleMemory(t *testing.T) {
	for _, tenant := range []string{"", "tenantA"} {
		t.Run("tenant="+tenant, func(t *testing.T) {
			ts, f := weaviate(t, moduleSchema, false)
			f.tenant = tenant
			o := options(t, ts.URL)
			o.ModuleDir, o.Source.Tenant = t.TempDir(), tenant
			var progress strings.Builder
			o.Progress, o.ProgressEvery = &progress, 1
			res, err := rebuild.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if want := "rebuild Doc" + strings.Repeat(" tenant "+tenant, min(1, len(tenant))) + ": "; !strings.Contains(progress.String(), want) {
				t.Errorf("progress lacks %q:\n%.300s", want, progress.String())
			}
			scope := filepath.Join(o.ModuleDir, "collections", "Doc")
			if tenant != "" {
				scope = filepath.Join(scope, "tenants", tenant)
			}
			if len(res.Memories) != 1 || res.Memories[0].Dir != scope {
				t.Fatalf("taught %+v, want the memory in %s", res.Memories, scope)
			}
			_, coll := export(t, scope)
			_, shared := export(t, o.ModuleDir)
			want := passages()
			if coll.Passages != want || shared.Passages != want || coll.Words == 0 || shared.Words != 0 {
				t.Fatalf("collection %+v, shared %+v: want %d passages in both, contexts in the collection's only", coll, shared, want)
			}
		})
	}
}

// TestRebuildModuleMemoryEveryTenant: a multi-tenant collection read with
// no tenant named is rebuilt tenant by tenant, each into its own memory,
// which is the one rebuilding that tenant alone gives.
func TestRebuildModuleMemoryEveryTenant(t *testing.T) {
	ts, f := weaviate(t, strings.Replace(moduleSchema, `{"class":"Doc",`, `{"class":"Doc","multiTenancyConfig":{"enabled":true},`, 1), false)
	f.byTenant = map[string]map[string]map[string]any{"tenantA": f.objs, "tenantB": {"b1": {"body": "f1 zorblax f2 r3 f4"}}}
	o := options(t, ts.URL)
	o.ModuleDir = t.TempDir()
	res, err := rebuild.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Tenants, []string{"tenantA", "tenantB"}) || len(res.Memories) != 2 || res.NewPassages != passages()+1 {
		t.Fatalf("result %+v: want both tenants, %d new passages", res, passages()+1)
	}
	tenants := filepath.Join(o.ModuleDir, "collections", "Doc", "tenants")
	expB, stB := export(t, filepath.Join(tenants, "tenantB"))
	if stB.Passages != 1 || strings.Contains(expB, "jargon") {
		t.Fatalf("tenant B holds %+v, with tenant A's contexts: %v", stB, strings.Contains(expB, "jargon"))
	}
	alone := options(t, ts.URL)
	alone.ModuleDir, alone.Source.Tenant = t.TempDir(), "tenantB"
	if _, err := rebuild.Run(context.Background(), alone); err != nil {
		t.Fatal(err)
	}
	if got, _ := export(t, filepath.Join(alone.ModuleDir, "collections", "Doc", "tenants", "tenantB")); got != expB {
		t.Fatalf("tenant B rebuilt alone differs:\n%s\nvs\n%s", got, expB)
	}
}

func TestRebuildErrors(t *testing.T) {
	ctx := context.Background()
	ts, f := weaviate(t, stockSchema, false)
	o := options(t, ts.URL)
	if _, err := rebuild.Run(ctx, o); !errors.Is(err, rebuild.ErrTarget) {
		t.Errorf("no memory: %v", err)
	}
	o.MemoryDir, o.ModuleDir = t.TempDir(), t.TempDir()
	if _, err := rebuild.Run(ctx, o); !errors.Is(err, rebuild.ErrTarget) {
		t.Errorf("two memories: %v", err)
	}
	o.ModuleDir = ""

	unknown := o
	unknown.Source.Class = "Nothing"
	if _, err := rebuild.Run(ctx, unknown); err == nil || !strings.Contains(err.Error(), "class Nothing") {
		t.Errorf("unknown class: %v", err)
	}

	held, err := memory.Open(o.MemoryDir, o.Memory)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rebuild.Run(ctx, o)
	held.Close()
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("held lock: %v", err)
	}

	module := o
	module.MemoryDir, module.ModuleDir = "", t.TempDir()
	if _, err := rebuild.Run(ctx, module); !errors.Is(err, refresh.ErrSchema) || !strings.Contains(err.Error(), "--memory-dir") {
		t.Errorf("module memory of a stock collection: %v", err)
	}
	if ents, _ := os.ReadDir(module.ModuleDir); len(ents) != 0 {
		t.Errorf("a refused rebuild wrote %d files", len(ents))
	}

	f.key = "secret"
	if _, err := rebuild.Run(ctx, o); !errors.As(err, new(*refresh.AuthError)) {
		t.Errorf("no API key: %v", err)
	}
	o.Source.APIKey = "secret"
	if _, err := rebuild.Run(ctx, o); err != nil {
		t.Errorf("with the API key: %v", err)
	}
}
