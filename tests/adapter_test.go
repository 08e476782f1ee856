//go:build unix

package e2e

import (
	"context"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// adapterArgs are the serve flags of the adapter under test.
func adapterArgs(r *reference, memDir string, teach bool) []string {
	mode := "off"
	if teach {
		mode = "on"
	}
	args := []string{"--memory-dir", memDir, "--memory", mode}
	if r.modelPath != "" {
		args = append(args, "--model", r.modelPath)
	}
	return args
}

// transformersCollection is a collection vectorized by Weaviate's stock
// text2vec-transformers module (which calls the adapter).
func transformersCollection(class string, settings map[string]any) map[string]any {
	return map[string]any{
		"class":           class,
		"vectorizer":      "text2vec-transformers",
		"moduleConfig":    map[string]any{"text2vec-transformers": settings},
		"vectorIndexType": exactIndex,
		"properties":      docProperties(map[string]any{"text2vec-transformers": map[string]any{"skip": true}}),
	}
}

// adapterMemory reads the context memory's summary from the adapter's /meta.
func adapterMemory(t *testing.T, a *adapterServer) map[string]any {
	t.Helper()
	var meta struct {
		Memory map[string]any `json:"memory"`
	}
	status, raw, err := doJSON(context.Background(), http.MethodGet, a.url("/meta"), nil, &meta)
	if err != nil || status != http.StatusOK || meta.Memory == nil {
		t.Fatalf("adapter /meta: status %d, %v, no memory summary: %.500s", status, err, raw)
	}
	summary := map[string]any{}
	for _, k := range []string{"words", "contexts", "passages"} {
		summary[k] = meta.Memory[k]
	}
	return summary
}

// TestTransformersAdapter is path (A): stock weaviate-server with
// text2vec-transformers calling the text2vec-am adapter (serve).
func TestTransformersAdapter(t *testing.T) {
	e := requireE2E(t)
	r := loadReference(t, e)
	tmp := t.TempDir()
	memDir := filepath.Join(tmp, "memory")
	adapterPort := freePorts(t, 1)[0]
	a := startAdapter(t, text2vecAM(t, e.repo), filepath.Join(tmp, "adapter.log"), adapterPort, adapterArgs(r, memDir, false))
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), []string{
		"ENABLE_MODULES=text2vec-transformers",
		"TRANSFORMERS_INFERENCE_API=" + a.url(""),
	})
	c := newClient(t, w)
	docs := collection{w: w, c: c, class: "DocsA"}

	t.Run("BadSettingsRefused", func(t *testing.T) {
		// The collection settings of path A are text2vec-transformers' own,
		// validated by Weaviate.
		refuseCollection(t, w, transformersCollection("BadProps", map[string]any{"properties": []string{}}), "properties")
	})

	createCollection(t, w, transformersCollection(docs.class, map[string]any{"vectorizeClassName": false}))
	importAll(t, docs, r)
	if t.Failed() {
		t.FailNow()
	}
	t.Run("StoredVectorsEqualVectorizer", func(t *testing.T) { checkStoredVectors(t, docs, r) })
	t.Run("NearTextMRR", func(t *testing.T) { checkNearText(t, docs, r) })
	t.Run("Hybrid", func(t *testing.T) { checkHybrid(t, docs, r) })

	var probesBefore map[int][]float32
	var memBefore map[string]any
	t.Run("Teaching", func(t *testing.T) {
		// Teach: the adapter with teaching on learns from every imported passage.
		a.proc.stop(t)
		a.args = adapterArgs(r, memDir, true)
		a.start(t)
		taught := collection{w: w, c: c, class: "TaughtA"}
		createCollection(t, w, transformersCollection(taught.class, map[string]any{"vectorizeClassName": false}))
		res, err := importDocs(context.Background(), c, taught.class, teachDocs(r), nil, batchSize, nil)
		if err != nil || len(res.Failures) > 0 {
			t.Fatalf("teaching import: %v %v", err, res.Failures)
		}
		// Probe with teaching off, so that probing does not change the memory.
		a.proc.stop(t)
		a.args = adapterArgs(r, memDir, false)
		a.start(t)
		memBefore = adapterMemory(t, a)
		if n, _ := memBefore["words"].(float64); n == 0 {
			t.Fatalf("teaching import of %d documents left the context memory empty: %v", len(teachDocs(r)), memBefore)
		}
		checkPassagesCounted(t, memBefore, teachDocs(r))
		probe := collection{w: w, c: c, class: "ProbeA"}
		createCollection(t, w, transformersCollection(probe.class, map[string]any{"vectorizeClassName": false}))
		probesBefore = insertProbes(t, probe, r)
		checkTaught(t, probesBefore, r)
	})

	t.Run("RestartKeepsEverything", func(t *testing.T) {
		if probesBefore == nil {
			t.Skip("teaching failed")
		}
		w.proc.stop(t)
		a.proc.stop(t)
		a.start(t)
		w.start(t)
		c := newClient(t, w)
		if n := objectCount(t, w, docs.class); n != len(r.docs) {
			t.Errorf("%d objects in %s after the restart, want %d", n, docs.class, len(r.docs))
		}
		checkStoredVectors(t, collection{w: w, c: c, class: docs.class}, r)
		if memAfter := adapterMemory(t, a); !equalJSON(memBefore, memAfter) {
			t.Errorf("context memory after the restart %v, before %v", memAfter, memBefore)
		}
		probe := collection{w: w, c: c, class: "ProbeA2"}
		createCollection(t, w, transformersCollection(probe.class, map[string]any{"vectorizeClassName": false}))
		checkSameProbes(t, probesBefore, insertProbes(t, probe, r))
	})

	t.Run("AdapterOutageMidImport", func(t *testing.T) {
		c := newClient(t, w)
		col := collection{w: w, c: c, class: "OutageA"}
		createCollection(t, w, transformersCollection(col.class, map[string]any{"vectorizeClassName": false}))
		part := r.docs[:min(3000, len(r.docs))]
		ctx := context.Background()
		const up1, down = 500, 1000 // documents imported before, and while the adapter is killed
		res, err := importDocs(ctx, c, col.class, part, indexRange(0, up1), batchSize, nil)
		if err != nil || len(res.Failures) > 0 {
			t.Fatalf("import before the outage: %v %v", err, res.Failures)
		}
		// Kill the adapter (SIGKILL, as a crash) while this import runs,
		// once a few of its batches are in.
		type outcome struct {
			res importResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := importDocs(ctx, c, col.class, part, indexRange(up1, up1+down), batchSize, nil)
			done <- outcome{res, err}
		}()
		for objectCount(t, w, col.class) < up1+150 {
			select {
			case out := <-done:
				t.Fatalf("the import ended before the adapter was killed: %v, %d failures", out.err, len(out.res.Failures))
			case <-time.After(20 * time.Millisecond):
			}
		}
		a.proc.kill()
		out := <-done
		if out.err != nil {
			t.Fatalf("import during the outage: the batch request itself failed (want per-object errors): %v", out.err)
		}
		failed := out.res.Failures
		if len(failed) == 0 || len(failed) == down {
			t.Errorf("adapter killed in mid-import: %d of %d objects refused, want some but not all", len(failed), down)
		}
		for i, msg := range failed {
			t.Logf("%d per-object errors after the adapter was killed, e.g. document %s: %s", len(failed), part[i].ID, msg)
			break
		}
		stored := listVectors(t, w, col.class, "")
		for id, v := range stored {
			if len(v) != r.vec.Dim() {
				t.Errorf("object %d stored without its vector (dim %d) during the adapter outage", id, len(v))
			}
		}
		for i := range failed {
			if _, ok := stored[i]; ok {
				t.Errorf("document %d was refused but is stored", i)
			}
		}
		if len(stored) != up1+down-len(failed) {
			t.Errorf("%d objects stored after the outage, want %d (%d refused)", len(stored), up1+down-len(failed), len(failed))
		}
		a.start(t)
		res, err = importDocs(ctx, c, col.class, part, indexRange(up1+down, len(part)), batchSize, nil)
		if err != nil || len(res.Failures) > 0 {
			t.Fatalf("import after the adapter came back: %v %v", err, res.Failures)
		}
		retry := slices.Sorted(maps.Keys(failed)) // resume: send the refused documents again
		res, err = importDocs(ctx, c, col.class, part, retry, batchSize, nil)
		if err != nil || len(res.Failures) > 0 {
			t.Fatalf("re-import of the %d documents refused during the outage: %v %v", len(retry), err, res.Failures)
		}
		stored = listVectors(t, w, col.class, "")
		if len(stored) != len(part) {
			t.Errorf("%d objects stored after resuming, want %d", len(stored), len(part))
		}
		// Teaching is off, and the memory holds what TaughtA taught: compare
		// with the probes' state only for the probe documents, and require a
		// vector of the right dimension for all.
		for i, d := range part {
			v := stored[i]
			if len(v) != r.vec.Dim() {
				t.Errorf("document %s stored without its vector after resuming", d.ID)
				continue
			}
			if p, ok := probesBefore[i]; ok && cosine(v, p) <= 0.9999 {
				t.Errorf("document %d (%s): vector after resuming differs from the same text's before (cosine %.6f)", i, d.ID, cosine(v, p))
			}
		}
	})
}
