//go:build unix

package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestWeaviateMemoryStoreCalls runs the memory kept in Weaviate against a
// real stock Weaviate, with every call its package tests make to a fake:
// the collection created and checked by a second store, batches written at
// QUORUM to several tenants, a full read through the cursor, an
// incremental read by creation time that accounts for Weaviate's count,
// a resend that writes nothing, scopes that do not see each other, and a
// tenant's memory deleted. The collection is made first as it was for
// context and passage objects: the store adds the properties of lessons.
func TestWeaviateMemoryStoreCalls(t *testing.T) {
	requireE2E(t)
	tmp := t.TempDir()
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), nil)
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(m, nil, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	open := func(replicas int) *weaviatemem.Store {
		o := weaviatemem.Options{URL: w.url(""), Replicas: replicas, Refresh: 50 * time.Millisecond, Lookback: time.Millisecond,
			Memory: memory.DefaultOptions(), SharedCounts: true, Logger: slog.Default()}
		s, err := weaviatemem.Open(o, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		waitUntil(t, "the store to read the memory", func() bool { return s.Ready() == nil }, func() string { return fmt.Sprint(s.Ready()) })
		return s
	}
	createOldClass(t, w)
	docs := testmodel.JargonPassages(110)
	a := open(1)
	var class struct{ Properties []struct{ Name string } }
	if status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/schema/"+weaviatemem.DefaultClass),
		nil, &class); err != nil || status != 200 || len(class.Properties) != 8 {
		t.Fatalf("class: status %d, %v, %d properties, want the 8 of lessons added to the 5 of context and passage objects: %.300s",
			status, err, len(class.Properties), raw)
	}
	for i := 0; i < 100; i += 10 {
		storeVectors(t, a, v, "", docs[i:i+10], vectorizer.TaskPassage)
	}
	burst(t, w, 100)
	// b reads what a wrote in full; its replication factor (the class keeps a's) has its reads
	// by creation time ask for consistency QUORUM. A burst of more than a page of objects of
	// one creation time is read by creation time and id, not in full.
	b := open(3)
	burst(t, w, 40)
	for i := 100; i < 110; i += 5 {
		storeVectors(t, a, v, "", docs[i:i+5], vectorizer.TaskPassage)
	}
	version := func(s *weaviatemem.Store, scope string) string { return s.Stats().Remote.Scopes[scope].Version }
	waitUntil(t, "b to read a's last writes", func() bool { return version(b, "") == version(a, "") },
		func() string { return fmt.Sprintf("a %+v\nb %+v", a.Stats().Remote, b.Stats().Remote) })
	r := b.Stats().Remote.Refreshes
	if r["full"] != 1 || r["afresh"] != 0 || r["incremental"] == 0 || r["incomplete"] != 0 {
		t.Errorf("b's reads %v: want one full read, then incremental reads that account for Weaviate's count", r)
	}
	if p := b.Stats().Memory.Passages; p != int64(len(docs)) {
		t.Errorf("b counts %d passages, want %d", p, len(docs))
	}
	written := b.Stats().Remote.Written
	storeVectors(t, b, v, "", docs[:10], vectorizer.TaskPassage) // a resend
	if st := b.Stats(); st.Remote.Written != written || st.Memory.Passages != int64(len(docs)) {
		t.Errorf("a resend wrote %d objects and counts %d passages; want none and %d",
			st.Remote.Written-written, st.Memory.Passages, len(docs))
	}
	qa := storeVectors(t, a, v, "", testmodel.JargonQueries(), vectorizer.TaskQuery)
	qb := storeVectors(t, b, v, "", testmodel.JargonQueries(), vectorizer.TaskQuery)
	for i := range qa {
		if !slices.Equal(qa[i], qb[i]) {
			t.Fatalf("query %d: the two stores' vectors differ", i)
		}
	}

	// A tenant's scope: its own tenant of the memory, its passages also counted in the shared one.
	storeVectors(t, a, v, "Docs/tenantA", docs[:20], vectorizer.TaskPassage)
	storeVectors(t, b, v, "Docs/tenantB", testmodel.JargonQueries(), vectorizer.TaskQuery)
	sa, sb := a.Stats().Remote.Scopes["Docs/tenantA"], b.Stats().Remote.Scopes["Docs/tenantB"]
	if sa.Tenant != "Docs--tenantA" || sa.Objects == 0 || sb.Objects != 0 {
		t.Errorf("scopes: tenant A %+v, tenant B %+v; want A's objects in its tenant and none in B's", sa, sb)
	}
	if err := a.Delete(context.Background(), "Docs", "tenantA"); err != nil {
		t.Fatal(err)
	}
	var tenants []struct{ Name string }
	if status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/schema/"+weaviatemem.DefaultClass+"/tenants"),
		nil, &tenants); err != nil || status != 200 {
		t.Fatalf("tenants: status %d, %v: %.300s", status, err, raw)
	}
	for _, tn := range tenants {
		if tn.Name == "Docs--tenantA" {
			t.Errorf("tenant A's memory is still in Weaviate after Delete: tenants %v", tenants)
		}
	}
}

// burst writes n objects of another program (ids without a memory's
// content) to the shared memory's tenant in one batch: one creation time.
func burst(t *testing.T, w *weaviateServer, n int) {
	t.Helper()
	objs := make([]any, n)
	for i := range objs {
		objs[i] = map[string]any{"class": weaviatemem.DefaultClass, "tenant": "_shared", "id": uuid.NewString(),
			"properties": map[string]any{"kind": "other"}}
	}
	status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/batch/objects"), map[string]any{"objects": objs}, nil)
	if err != nil || status != 200 || strings.Contains(string(raw), `"errors"`) {
		t.Fatalf("batch of %d objects: status %d, %v: %.300s", n, status, err, raw)
	}
}

// createOldClass creates the memory's collection in w with the properties
// of context and passage objects only.
func createOldClass(t *testing.T, w *weaviateServer) {
	t.Helper()
	prop := func(name, dataType string) map[string]any {
		return map[string]any{"name": name, "dataType": []string{dataType}, "tokenization": "field",
			"indexFilterable": false, "indexSearchable": false, "indexRangeFilters": false}
	}
	class := map[string]any{"class": weaviatemem.DefaultClass, "vectorizer": "none",
		"vectorIndexConfig":   map[string]any{"skip": true},
		"invertedIndexConfig": map[string]any{"indexTimestamps": true},
		"multiTenancyConfig":  map[string]any{"enabled": true, "autoTenantCreation": true, "autoTenantActivation": true},
		"replicationConfig":   map[string]any{"factor": 1},
		"properties": []any{prop("kind", "text"), prop("word", "text"), prop("context", "text"), prop("hash", "text"),
			prop("words", "text[]")}}
	if status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/schema"), class, nil); err != nil || status != 200 {
		t.Fatalf("create the class: status %d, %v: %.300s", status, err, raw)
	}
}

// storeVectors vectorizes texts as task over scope of s and fails the test
// on any error.
func storeVectors(t *testing.T, s memstore.Store, v *vectorizer.Vectorizer, scope string, texts []string,
	task vectorizer.Task) [][]float32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vecs, errs, err := s.VectorizeBatch(ctx, v, scope, texts, task, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if e != nil {
			t.Fatalf("text %d: %v", i, e)
		}
	}
	return vecs
}

// waitUntil polls cond for up to two minutes; the failure says what state
// describes.
func waitUntil(t *testing.T, what string, cond func() bool, state func() string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %s", what, state())
		}
	}
}
