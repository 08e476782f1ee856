package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/internal/version"
)

// TestMetaVersionAndLimits checks that /meta reports the version and its
// limits as JSON numbers and booleans, equal to the server's limits.
func TestMetaVersionAndLimits(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch, lim.MaxConcurrent, lim.NoExplain = 7, 3, true
	_, _, url := startServer(t, lim)
	code, _, body := testhttp.Get(t, url+"/meta")
	if code != 200 {
		t.Fatalf("meta: %d %s", code, body)
	}
	var meta map[string]any
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&meta); err != nil {
		t.Fatalf("meta: %v: %s", err, body)
	}
	if v, ok := meta["version"].(string); !ok || v != version.String() || v == "" {
		t.Errorf("meta version %v, want %q", meta["version"], version.String())
	}
	limits, ok := meta["limits"].(map[string]any)
	if !ok {
		t.Fatalf("meta limits %T: %s", meta["limits"], body)
	}
	want := map[string]int64{"max_body_bytes": lim.MaxBodyBytes, "max_text_bytes": int64(lim.MaxTextBytes),
		"max_words": int64(lim.MaxWords), "max_batch": 7, "max_concurrent": 3,
		"max_am_words": vectorizer.DefaultMaxAMWords}
	for k, w := range want {
		n, ok := limits[k].(json.Number)
		if !ok {
			t.Errorf("limits.%s = %#v, want the number %d", k, limits[k], w)
			continue
		}
		if got, err := n.Int64(); err != nil || got != w {
			t.Errorf("limits.%s = %s, want %d", k, n, w)
		}
	}
	if e, ok := limits["explain"].(bool); !ok || e {
		t.Errorf("limits.explain = %#v, want false", limits["explain"])
	}
	if len(limits) != len(want)+1 {
		t.Errorf("limits has %d keys, want %d: %v", len(limits), len(want)+1, limits)
	}
}

// TestMetaListsEverySetting: /meta's vectorizer object holds every setting
// of the vectorizer's table under its request key (a setting without one,
// max-am-words, as max_am_words) with the value the server runs with, so
// that replicas can be compared; a setting added to the table appears
// without another change.
func TestMetaListsEverySetting(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open("", memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	o, err := vectorizer.DefaultOptions().WithValues(vectorizer.SurfaceFlag, map[string]any{
		"common-components": "0", "collection-b": "0.5", "mix-text-contexts": "true", "max-am-words": "10",
		"weighting": "sif", "sif-a": "0.25", "text-context-discount": "1", "query-memory-only": "true",
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(m, mem, o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.NewServer(v, memstore.NewLocal(mem), "test-model", server.DefaultLimits(), testhttp.Quiet())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	code, _, body := testhttp.Get(t, ts.URL+"/meta")
	if code != 200 {
		t.Fatalf("meta: %d %s", code, body)
	}
	var meta struct {
		Vectorizer map[string]any `json:"vectorizer"`
		Limits     map[string]any `json:"limits"`
	}
	if err := json.Unmarshal([]byte(body), &meta); err != nil {
		t.Fatalf("meta: %v: %s", err, body)
	}
	want := map[string]any{}
	if err := json.Unmarshal(mustJSON(t, o.Values(vectorizer.SurfaceRequest)), &want); err != nil {
		t.Fatal(err)
	}
	for _, st := range vectorizer.Settings() {
		key := st.Name(vectorizer.SurfaceRequest)
		if key == "" { // server-wide: under limits
			continue
		}
		got, ok := meta.Vectorizer[key]
		if !ok {
			t.Errorf("/meta's vectorizer lacks %q: %s", key, body)
		} else if got != want[key] {
			t.Errorf("/meta vectorizer.%s = %v, want %v", key, got, want[key])
		}
	}
	checks := map[string]any{"weighting": "sif", "sif_a": 0.25, "collection_b": 0.5, "common_components": 0.0,
		"mix_text_contexts": true}
	for k, w := range checks {
		if meta.Vectorizer[k] != w {
			t.Errorf("/meta vectorizer.%s = %#v, want %#v", k, meta.Vectorizer[k], w)
		}
	}
	if meta.Limits["max_am_words"] != 10.0 {
		t.Errorf("/meta limits.max_am_words = %#v, want 10", meta.Limits["max_am_words"])
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMetaMemoryModel: /meta names the model the memory's directory
// records and warns when the server's model is another.
func TestMetaMemoryModel(t *testing.T) {
	dir := t.TempDir()
	a := memory.ModelID{Name: "mine", Fingerprint: "00000000000000aa"}
	b := memory.ModelID{Name: "test-model", Fingerprint: "00000000000000bb"}
	mo := memory.DefaultOptions()
	mo.Logger = testhttp.Quiet()
	mem, err := memory.Open(dir, mo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.ClaimModel(a); err != nil {
		t.Fatal(err)
	}
	mem.Close()
	s, mem := newServer(t, server.DefaultLimits(), dir)
	defer mem.Close()
	if _, err := mem.ClaimModel(b); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	code, _, body := testhttp.Get(t, ts.URL+"/meta")
	var meta struct {
		Memory struct {
			Model        string `json:"model"`
			ModelWarning string `json:"model_warning"`
		} `json:"memory"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &meta) != nil {
		t.Fatalf("meta: %d %s", code, body)
	}
	if meta.Memory.Model != a.String() || !strings.Contains(meta.Memory.ModelWarning, a.String()) ||
		!strings.Contains(meta.Memory.ModelWarning, b.String()) {
		t.Errorf("meta memory model %q, warning %q; want %q and a warning naming both", meta.Memory.Model,
			meta.Memory.ModelWarning, a)
	}
}
