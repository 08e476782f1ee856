//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestImportThroughput measures the import throughput of all debian-dev
// documents (batch 100) into Weaviate: (B) the custom server with the
// in-process module, (A) stock Weaviate through the adapter, and (C) the
// same vectors supplied by the client, on each server. It runs only with
// T2V_BENCH=1: it is a measurement, not a check.
//
//	T2V_BENCH=1 go test ./tests -run TestImportThroughput -v -timeout 60m
func TestImportThroughput(t *testing.T) {
	if os.Getenv("T2V_BENCH") != "1" {
		t.Skip("import throughput benchmark: set T2V_BENCH=1 to run it")
	}
	e := requireE2E(t)
	r := loadReference(t, e)
	tmp := t.TempDir()

	a := startAdapter(t, text2vecAM(t, e.repo), filepath.Join(tmp, "adapter.log"), freePorts(t, 1)[0], adapterArgs(r, filepath.Join(tmp, "memory-a"), false))
	stock := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data-stock"), filepath.Join(tmp, "weaviate-stock.log"), newWeaviatePorts(t), []string{
		"ENABLE_MODULES=text2vec-transformers",
		"TRANSFORMERS_INFERENCE_API=" + a.url(""),
	})
	custom := startWeaviate(t, customServer(t, e.repo), filepath.Join(tmp, "data-custom"), filepath.Join(tmp, "weaviate-custom.log"), newWeaviatePorts(t), customEnv(r))
	sc, cc := newClient(t, stock), newClient(t, custom)

	byov := func(class string) map[string]any {
		return map[string]any{"class": class, "vectorizer": "none", "vectorIndexConfig": hnswConfig, "properties": docProperties(nil)}
	}
	type run struct {
		name, what string
		w          *weaviateServer
		col        collection
		vectors    bool
	}
	runs := []run{
		{"C-stock", "client-supplied vectors, stock server", stock, collection{w: stock, c: sc, class: "ByovStock"}, true},
		{"A", "stock server + text2vec-transformers → adapter (teach off)", stock, collection{w: stock, c: sc, class: "ThroughAdapter"}, false},
		{"C-custom", "client-supplied vectors, custom server", custom, collection{w: custom, c: cc, class: "ByovCustom"}, true},
		{"B", "custom server, in-process text2vec-am (teach off)", custom, collection{w: custom, c: cc, class: "InProcess"}, false},
		{"B-teach", "custom server, in-process text2vec-am (teach on)", custom, collection{w: custom, c: cc, class: "InProcessTeach"}, false},
	}
	rate := map[string]float64{}
	for _, rn := range runs {
		switch {
		case rn.vectors:
			createCollection(t, rn.w, byov(rn.col.class))
		case rn.w == stock:
			createCollection(t, rn.w, transformersCollection(rn.col.class, map[string]any{"vectorizeClassName": false}))
		default:
			teach := rn.name == "B-teach"
			c := amCollection(rn.col.class, map[string]any{"vectorizeClassName": false, "teach": teach})
			createCollection(t, rn.w, c)
		}
		var vecs [][]float32
		if rn.vectors {
			vecs = r.docVecs
		}
		res, err := importDocs(context.Background(), rn.col.c, rn.col.class, r.docs, nil, batchSize, vecs)
		if err != nil || len(res.Failures) > 0 {
			t.Fatalf("%s: import: %v (%d failures)", rn.name, err, len(res.Failures))
		}
		rate[rn.name] = float64(res.Objects) / res.Elapsed.Seconds()
		t.Logf("%-8s %-60s %6d objects in %8.1f s: %7.0f objects/s", rn.name, rn.what, res.Objects, res.Elapsed.Seconds(), rate[rn.name])
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "| path | objects/s | ratio |\n|---|---:|---:|\n")
	fmt.Fprintf(&sb, "| (C) client-supplied vectors, stock server | %.0f | 1 |\n", rate["C-stock"])
	fmt.Fprintf(&sb, "| (A) stock + text2vec-transformers → adapter | %.0f | %.2f× (C stock) |\n", rate["A"], rate["A"]/rate["C-stock"])
	fmt.Fprintf(&sb, "| (C) client-supplied vectors, custom server | %.0f | 1 |\n", rate["C-custom"])
	fmt.Fprintf(&sb, "| (B) in-process text2vec-am, teach off | %.0f | %.2f× (C custom) |\n", rate["B"], rate["B"]/rate["C-custom"])
	fmt.Fprintf(&sb, "| (B) in-process text2vec-am, teach on | %.0f | %.2f× (C custom) |\n", rate["B-teach"], rate["B-teach"]/rate["C-custom"])
	t.Logf("import of %d documents, batch %d, GOMAXPROCS %d, dim %d:\n%s", len(r.docs), batchSize, runtime.GOMAXPROCS(0), r.vec.Dim(), sb.String())
}
