//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/text2vec-am/text2vec-am/module"
)

// customEnv is the environment of the custom server: the in-process module,
// the test's model when one is given.
func customEnv(r *reference) []string {
	env := []string{"ENABLE_MODULES=" + module.Name}
	if r.modelPath != "" {
		env = append(env, module.EnvModel+"="+r.modelPath)
	}
	return env
}

// amCollection is a collection whose named vector "am" is made by
// text2vec-am with the given settings.
func amCollection(class string, settings map[string]any) map[string]any {
	return map[string]any{
		"class": class,
		"vectorConfig": map[string]any{
			"am": map[string]any{
				"vectorizer":      map[string]any{module.Name: settings},
				"vectorIndexType": exactIndex,
			},
		},
		"properties": docProperties(map[string]any{module.Name: map[string]any{"skip": true}}),
	}
}

// moduleMemory reads the context memory's summary from /v1/meta.
func moduleMemory(t *testing.T, w *weaviateServer) map[string]any {
	t.Helper()
	var meta struct {
		Modules map[string]json.RawMessage `json:"modules"`
	}
	status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/meta"), nil, &meta)
	if err != nil || status != http.StatusOK {
		t.Fatalf("meta: status %d, %v: %.300s", status, err, raw)
	}
	var info struct {
		Memory map[string]any `json:"memory"`
	}
	if err := json.Unmarshal(meta.Modules[module.Name], &info); err != nil || info.Memory == nil {
		t.Fatalf("meta of %s has no memory summary (%v): %.500s", module.Name, err, raw)
	}
	delete(info.Memory, "records") // counts records appended since start
	return info.Memory
}

// TestInProcessModule is path (B): the custom weaviate-server with the
// in-process text2vec-am module.
func TestInProcessModule(t *testing.T) {
	e := requireE2E(t)
	r := loadReference(t, e)
	tmp := t.TempDir()
	w := startWeaviate(t, customServer(t, e.repo), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), customEnv(r))
	c := newClient(t, w)
	docs := collection{w: w, c: c, class: "DocsB", target: "am"}

	t.Run("BadSettingsRefused", func(t *testing.T) {
		refuseCollection(t, w, amCollection("BadWeighting", map[string]any{"weighting": "tfidf"}), "weighting")
		refuseCollection(t, w, amCollection("BadSifA", map[string]any{"sifA": -1}), "sifA")
		refuseCollection(t, w, amCollection("BadTeach", map[string]any{"teach": "sometimes"}), "teach")
		refuseCollection(t, w, amCollection("BadKey", map[string]any{"rareMn": 3}), "rareMn")
		refuseCollection(t, w, amCollection("BadThresholds", map[string]any{"rareMin": 50, "frequentMin": 10}), "rareMin")
	})

	createCollection(t, w, amCollection(docs.class, map[string]any{"vectorizeClassName": false, "teach": false}))
	importAll(t, docs, r)
	if t.Failed() {
		t.FailNow()
	}
	t.Run("StoredVectorsEqualVectorizer", func(t *testing.T) { checkStoredVectors(t, docs, r) })
	t.Run("NearTextMRR", func(t *testing.T) { checkNearText(t, docs, r) })
	t.Run("Hybrid", func(t *testing.T) { checkHybrid(t, docs, r) })

	var probesBefore map[int][]float32
	var memBefore map[string]any
	taught := "TaughtB"
	t.Run("Teaching", func(t *testing.T) {
		createCollection(t, w, amCollection(taught, map[string]any{"teach": true}))
		res, err := importDocs(context.Background(), c, taught, teachDocs(r), nil, batchSize, nil)
		if err != nil || len(res.Failures) > 0 {
			t.Fatalf("teaching import: %v %v", err, res.Failures)
		}
		memBefore = collectionMemory(t, w, taught)
		if n, _ := memBefore["words"].(float64); n == 0 {
			t.Fatalf("teaching import of %d documents left %s's context memory empty: %v", len(teachDocs(r)), taught, memBefore)
		}
		checkPassagesCounted(t, memBefore, teachDocs(r))
		// Probe as queries on the collection: they read its memory and teach nothing.
		probesBefore = moduleProbes(t, w, taught, r)
		checkTaught(t, probesBefore, r)
		if mem := collectionMemory(t, w, taught); !equalJSON(memBefore, mem) {
			t.Errorf("probing changed %s's memory: %v → %v", taught, memBefore, mem)
		}
	})

	t.Run("RestartKeepsEverything", func(t *testing.T) {
		if probesBefore == nil {
			t.Skip("teaching failed")
		}
		w.restart(t)
		c := newClient(t, w)
		if n := objectCount(t, w, docs.class); n != len(r.docs) {
			t.Errorf("%d objects in %s after the restart, want %d", n, docs.class, len(r.docs))
		}
		checkStoredVectors(t, collection{w: w, c: c, class: docs.class, target: "am"}, r)
		checkSameProbes(t, probesBefore, moduleProbes(t, w, taught, r))
		if memAfter := collectionMemory(t, w, taught); !equalJSON(memBefore, memAfter) {
			t.Errorf("%s's context memory after the restart %v, before %v", taught, memAfter, memBefore)
		}
	})
}

// collectionMemory reads the summary of class's context memory from
// /v1/meta (the memory must be in use since the server started).
func collectionMemory(t *testing.T, w *weaviateServer, class string) map[string]any {
	t.Helper()
	mem := moduleMemory(t, w)
	scopes, _ := mem["collections"].(map[string]any)
	own, _ := scopes[class].(map[string]any)
	if own == nil {
		t.Fatalf("meta of %s has no memory of collection %s: %v", module.Name, class, mem)
	}
	delete(own, "records") // counts records appended since start
	return own
}

// moduleVectors vectorizes texts as queries on class through the module's
// /vectors/batch endpoint with the collection's settings: they read class's
// memory and teach nothing.
func moduleVectors(t *testing.T, w *weaviateServer, class string, settings map[string]any, texts []string) [][]float32 {
	t.Helper()
	var out [][]float32
	for lo := 0; lo < len(texts); lo += 500 {
		part := texts[lo:min(lo+500, len(texts))]
		var ans struct {
			Vectors [][]float32 `json:"vectors"`
		}
		body := map[string]any{"texts": part, "settings": settings, "collection": class}
		status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/modules/text2vec-am/vectors/batch"), body, &ans)
		if err != nil || status != http.StatusOK || len(ans.Vectors) != len(part) {
			t.Fatalf("module /vectors/batch on %s: status %d, %v: %.300s", class, status, err, raw)
		}
		out = append(out, ans.Vectors...)
	}
	return out
}

// moduleProbes returns the probe documents' vectors on class by index.
func moduleProbes(t *testing.T, w *weaviateServer, class string, r *reference) map[int][]float32 {
	t.Helper()
	var texts []string
	for _, d := range probeDocs(r) {
		texts = append(texts, d.Text)
	}
	vecs := moduleVectors(t, w, class, map[string]any{"teach": true}, texts)
	out := make(map[int][]float32, len(vecs))
	for i, v := range vecs {
		out[i] = v
	}
	return out
}

// equalJSON compares two decoded JSON values.
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
