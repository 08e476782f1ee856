package weaviatemem

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

func TestTenantName(t *testing.T) {
	long := strings.Repeat("C", 40)
	for scope, want := range map[string]string{
		"": "_shared", "Books": "Books", "Books/tenantA": "Books--tenantA", "Books/a.b": "Books--a_b-",
		"Books/" + strings.Repeat("t", 80):   "Books--" + strings.Repeat("t", 44) + "-",
		long:                                 strings.Repeat("C", 17) + "-",
		long + "/" + strings.Repeat("t", 80): strings.Repeat("C", 17) + "-" + nameHash(long) + "--" + strings.Repeat("t", 19) + "-",
	} {
		got := tenantName(scope)
		if !tenantRE.MatchString(got) || !strings.HasPrefix(got, want) || (got == want) != !strings.HasSuffix(want, "-") {
			t.Errorf("tenantName(%q) = %q, want %q (then a hash when cut)", scope, got, want)
		}
	}
	if tenantName("Books/a.b") == tenantName("Books/a,b") {
		t.Error("two scopes share a tenant")
	}
	// Two long collection names that differ only beyond the cut: their tenants do not share a prefix.
	a, b := tenantName(long+"A/t"), tenantName(long+"B/t")
	if strings.HasPrefix(b, collectionPart(long+"A")+"--") || strings.HasPrefix(a, collectionPart(long+"B")+"--") {
		t.Errorf("tenants %q and %q: one collection's prefix selects the other's", a, b)
	}
}

// TestClassNotAMemory: an existing class of the same name that cannot hold
// the memory keeps the store loading, with an error naming the class.
func TestClassNotAMemory(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	f.Class = map[string]any{"class": DefaultClass, "multiTenancyConfig": map[string]any{"enabled": false}}
	s, err := Open(Options{URL: ts.URL, Memory: memory.DefaultOptions(), Logger: quiet()}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitFor(t, "the error", func() bool { return strings.Contains(s.Stats().Remote.Error, "is not a text2vec-am memory") })
	if !strings.Contains(s.Stats().Remote.Error, "not multi-tenant") || s.Ready() == nil {
		t.Errorf("state %+v", s.Stats().Remote)
	}
	f.Mu.Lock()
	f.Class = nil
	f.Mu.Unlock()
	waitFor(t, "the class to be created", func() bool { return s.Ready() == nil })
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if vi, _ := f.Class["vectorIndexConfig"].(map[string]any); vi["skip"] != true || f.Class["vectorizer"] != "none" {
		t.Errorf("class created: %v", f.Class)
	}
}

// TestClassOfOtherDataTypes: a class whose properties have the memory's
// names but another dataType keeps the store loading, with an error naming
// the class, the property, the type found and the type wanted.
func TestClassOfOtherDataTypes(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	def := classDefinition(DefaultClass, 1)
	for _, p := range def["properties"].([]any) {
		if p := p.(map[string]any); p["name"] == propContexts {
			p["dataType"] = []string{"text"}
		}
	}
	raw, _ := json.Marshal(def)
	json.Unmarshal(raw, &f.Class)
	s, err := Open(Options{URL: ts.URL, Memory: memory.DefaultOptions(), Logger: quiet()}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitFor(t, "the error", func() bool { return s.Stats().Remote.Error != "" })
	want := `class ` + DefaultClass + ` at ` + ts.URL + ` is not a text2vec-am memory: property contexts is of dataType "text", want "text[]"`
	if e := s.Stats().Remote.Error; !strings.Contains(e, want) || s.Ready() == nil {
		t.Errorf("error %q, want %q", e, want)
	}
}

// TestCallsAreBounded: a Weaviate that never answers fails a write within
// Options.Timeout (per attempt), not at the request's deadline.
func TestCallsAreBounded(t *testing.T) {
	f, _ := fakeweaviate.New(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/batch/objects" {
			io.Copy(io.Discard, r.Body) // then the server sees the client leave
			<-r.Context().Done()        // until the client gives up
			return
		}
		f.ServeHTTP(w, r)
	}))
	defer slow.Close()
	s := openStore(t, slow.URL, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, err := s.VectorizeBatch(ctx, baseVectorizer(t), "", testmodel.JargonPassages(5), vectorizer.TaskPassage, vectorizer.DefaultOptions())
	if !errors.Is(err, memstore.ErrUnavailable) || time.Since(start) > 10*time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
}

// TestStatsReportTheCollectionsFactor reports the replication factor of the
// collection as Weaviate's schema gives it, and says when it is not the one
// asked; a collection the store creates has the factor asked.
func TestStatsReportTheCollectionsFactor(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	def := classDefinition(DefaultClass, 1)
	raw, _ := json.Marshal(def)
	json.Unmarshal(raw, &f.Class)
	s := openStore(t, ts.URL, func(o *Options) { o.Replicas = 3 })
	r := s.Stats().Remote
	if r.Replicas != 1 || r.ReplicasAsked != 3 || !strings.Contains(r.ReplicasWarning, "replication factor 1, not the 3 asked") {
		t.Errorf("existing collection of factor 1, 3 asked: replicas %d, asked %d, warning %q",
			r.Replicas, r.ReplicasAsked, r.ReplicasWarning)
	}
	f2, ts2 := fakeweaviate.New(t)
	s2 := openStore(t, ts2.URL, func(o *Options) { o.Replicas = 2 })
	r = s2.Stats().Remote
	if r.Replicas != 2 || r.ReplicasAsked != 2 || r.ReplicasWarning != "" {
		t.Errorf("collection created with factor 2: replicas %d, asked %d, warning %q", r.Replicas, r.ReplicasAsked, r.ReplicasWarning)
	}
	if got := f2.Class["replicationConfig"].(map[string]any)["factor"]; got != 2.0 {
		t.Errorf("collection created with factor %v, want 2", got)
	}
}
