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

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
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

	// Each (C) anchor has the shape of the path it anchors: the class vector
	// on the stock server (as A), the named vector "am" on the custom one (as B).
	byovStock := func(class string) map[string]any {
		return map[string]any{"class": class, "vectorizer": "none", "vectorIndexConfig": hnswConfig, "properties": docProperties(nil)}
	}
	byovCustom := func(class string) map[string]any {
		return map[string]any{"class": class, "properties": docProperties(nil), "vectorConfig": map[string]any{
			"am": map[string]any{"vectorizer": map[string]any{"none": map[string]any{}}, "vectorIndexType": "hnsw", "vectorIndexConfig": hnswConfig},
		}}
	}
	type run struct {
		name, what string
		w          *weaviateServer
		c          *weaviate.Client
		schema     func(class string) map[string]any
		cv         *clientVectors
	}
	runs := []run{
		{"C-stock", "client-supplied vectors, stock server", stock, sc, byovStock, &clientVectors{vecs: r.docVecs}},
		{"A", "stock server + text2vec-transformers → adapter (teach off)", stock, sc, func(class string) map[string]any {
			return withHNSW(transformersCollection(class, map[string]any{"vectorizeClassName": false}))
		}, nil},
		{"C-custom", "client-supplied vectors (named), custom server", custom, cc, byovCustom, &clientVectors{target: "am", vecs: r.docVecs}},
		{"B", "custom server, in-process text2vec-am (teach off)", custom, cc, func(class string) map[string]any {
			return withHNSW(amCollection(class, map[string]any{"vectorizeClassName": false, "teach": false}))
		}, nil},
		{"B-teach", "custom server, in-process text2vec-am (teach on)", custom, cc, func(class string) map[string]any {
			return withHNSW(amCollection(class, map[string]any{"vectorizeClassName": false, "teach": true}))
		}, nil},
	}
	// Two rounds, interleaved, so that a load change on the machine hits
	// every path; each path's best round is reported.
	rate := map[string]float64{}
	for round := 1; round <= 2; round++ {
		for _, rn := range runs {
			class := fmt.Sprintf("Bench%s%d", strings.ReplaceAll(rn.name, "-", ""), round)
			createCollection(t, rn.w, rn.schema(class))
			res, err := importDocs(context.Background(), rn.c, class, r.docs, nil, batchSize, rn.cv)
			if err != nil || len(res.Failures) > 0 {
				t.Fatalf("%s: import: %v (%d failures)", rn.name, err, len(res.Failures))
			}
			ops := float64(res.Objects) / res.Elapsed.Seconds()
			rate[rn.name] = max(rate[rn.name], ops)
			t.Logf("round %d %-8s %-58s %6d objects in %6.1f s: %5.0f objects/s", round, rn.name, rn.what, res.Objects, res.Elapsed.Seconds(), ops)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "| path | objects/s (best of 2) | ratio |\n|---|---:|---:|\n")
	fmt.Fprintf(&sb, "| (C) client-supplied vectors, stock server | %.0f | 1 |\n", rate["C-stock"])
	fmt.Fprintf(&sb, "| (A) stock + text2vec-transformers → adapter | %.0f | %.2f× (C stock) |\n", rate["A"], rate["A"]/rate["C-stock"])
	fmt.Fprintf(&sb, "| (C) client-supplied vectors (named vector), custom server | %.0f | 1 |\n", rate["C-custom"])
	fmt.Fprintf(&sb, "| (B) in-process text2vec-am, teach off | %.0f | %.2f× (C custom) |\n", rate["B"], rate["B"]/rate["C-custom"])
	fmt.Fprintf(&sb, "| (B) in-process text2vec-am, teach on | %.0f | %.2f× (C custom) |\n", rate["B-teach"], rate["B-teach"]/rate["C-custom"])
	t.Logf("import of %d documents, batch %d, GOMAXPROCS %d, dim %d:\n%s", len(r.docs), batchSize, runtime.GOMAXPROCS(0), r.vec.Dim(), sb.String())
}
