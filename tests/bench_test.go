//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// TestImportThroughput measures the import throughput of all debian-dev
// documents (batch 100) into Weaviate: (B) the custom server with the
// in-process module, (A) stock Weaviate through the adapter, and (C) the
// same vectors supplied by the client, on each server, and the vectors the
// module stored while teaching, on the custom server; with the CPU time
// per object of the server and of the adapter (on Linux). Two rounds, the
// second in the reverse order, each run into a new collection that is
// deleted after it, so that every run starts on a server holding no
// collection. It runs only with T2V_BENCH=1: it is a measurement, not a check.
//
//	T2V_BENCH=1 go test ./tests -run 'TestImportThroughput$' -v -timeout 80m
func TestImportThroughput(t *testing.T) {
	skipUnlessBench(t)
	e := requireE2E(t)
	r := loadReference(t, e)
	tmp := t.TempDir()

	a := startAdapter(t, text2vecAM(t, e.repo), filepath.Join(tmp, "adapter.log"), freePorts(t, 1)[0], adapterArgs(r, "", false)) // an empty memory
	stock := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data-stock"), filepath.Join(tmp, "weaviate-stock.log"), newWeaviatePorts(t),
		append([]string{"TRANSFORMERS_INFERENCE_API=" + a.url("")}, stockModulesEnv(t)...))
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
		keep       *clientVectors // when set, filled with the vectors this run stored, once
	}
	taught := &clientVectors{target: "am"} // filled by B-teach's first round
	runs := []run{
		{"C-stock", "client-supplied vectors, stock server", stock, sc, byovStock, &clientVectors{vecs: r.docVecs}, nil},
		{"A", "stock server + text2vec-transformers → adapter (teach off)", stock, sc, func(class string) map[string]any {
			return withHNSW(transformersCollection(class, map[string]any{"vectorizeClassName": false}))
		}, nil, nil},
		{"A-openai", "stock server + text2vec-openai → adapter /v1/embeddings", stock, sc, func(class string) map[string]any {
			return withHNSW(openAICollection(class, a.url("")))
		}, nil, nil},
		{"A-cohere", "stock server + text2vec-cohere → adapter /v2/embed", stock, sc, func(class string) map[string]any {
			return withHNSW(cohereCollection(class, a.url("")))
		}, nil, nil},
		{"C-custom", "client-supplied vectors (named), custom server", custom, cc, byovCustom,
			&clientVectors{target: "am", vecs: r.docVecs}, nil},
		{"B", "custom server, in-process text2vec-am (teach off)", custom, cc, func(class string) map[string]any {
			return withHNSW(amCollection(class, map[string]any{"vectorizeClassName": false, "teach": false}))
		}, nil, nil},
		{"B-teach", "custom server, in-process text2vec-am (teach on)", custom, cc, func(class string) map[string]any {
			return withHNSW(amCollection(class, map[string]any{"vectorizeClassName": false, "teach": true}))
		}, nil, taught},
		// Teaching changes the vectors of rare words, and the index's work
		// may depend on the vectors: this anchor supplies the vectors B-teach
		// stored in its first round, so that B-teach against it is the
		// module's own cost (vectorizing and teaching), without the effect
		// of other vectors on the index.
		{"C-taught", "client-supplied vectors that B-teach stored, custom server", custom, cc, byovCustom, taught, nil},
	}
	// Two rounds, interleaved, so that a load change on the machine hits
	// every path; each path's best round is reported, with the CPU time per
	// object of the Weaviate server and of the adapter in that round.
	rate := map[string]float64{}
	cpu := map[string][2]float64{} // ms per object: Weaviate, adapter
	for round := 1; round <= 2; round++ {
		for i := range runs {
			rn := runs[i]
			if round == 2 { // in the other order, so that no path always runs after the same ones
				rn = runs[len(runs)-1-i]
			}
			class := fmt.Sprintf("Bench%s%d", strings.ReplaceAll(rn.name, "-", ""), round)
			if rn.cv != nil && rn.cv.vecs == nil {
				t.Fatalf("%s: no vectors to supply: it must run after the run that stores them", rn.name)
			}
			createCollection(t, rn.w, rn.schema(class))
			w0, a0 := cpuSeconds(rn.w.proc), cpuSeconds(a.proc)
			res, err := importDocs(context.Background(), rn.c, class, r.docs, nil, batchSize, rn.cv)
			if err != nil || len(res.Failures) > 0 {
				t.Fatalf("%s: import: %v (%d failures)", rn.name, err, len(res.Failures))
			}
			per := 1e3 / float64(res.Objects)
			ms := [2]float64{(cpuSeconds(rn.w.proc) - w0) * per, (cpuSeconds(a.proc) - a0) * per}
			ops := float64(res.Objects) / res.Elapsed.Seconds()
			if ops > rate[rn.name] {
				rate[rn.name], cpu[rn.name] = ops, ms
			}
			t.Logf("round %d %-8s %-58s %6d objects in %6.1f s: %5.0f objects/s; CPU ms/object: Weaviate %.2f, adapter %.2f",
				round, rn.name, rn.what, res.Objects, res.Elapsed.Seconds(), ops, ms[0], ms[1])
			if rn.keep != nil && rn.keep.vecs == nil {
				rn.keep.vecs = storedVectors(t, rn.w, class, rn.keep.target, r.vec.Dim(), len(r.docs))
			}
			deleteCollection(t, rn.w, class) // each run starts on a server that holds no collection
		}
	}
	var sb strings.Builder
	row := func(what, path, anchor string) {
		ratio := "1"
		if path != anchor {
			ratio = fmt.Sprintf("%.2f× (%s)", rate[path]/rate[anchor], anchor)
		}
		fmt.Fprintf(&sb, "| %s | %.0f | %s | %.2f | %.2f |\n", what, rate[path], ratio, cpu[path][0], cpu[path][1])
	}
	fmt.Fprintf(&sb, "| path | objects/s (best of 2) | ratio | Weaviate CPU ms/object | adapter CPU ms/object |\n")
	fmt.Fprintf(&sb, "|---|---:|---:|---:|---:|\n")
	row("(C) client-supplied vectors, stock server", "C-stock", "C-stock")
	row("(A) stock + text2vec-transformers → adapter", "A", "C-stock")
	row("(A) stock + text2vec-openai → adapter /v1/embeddings", "A-openai", "C-stock")
	row("(A) stock + text2vec-cohere → adapter /v2/embed", "A-cohere", "C-stock")
	row("(C) client-supplied vectors (named vector), custom server", "C-custom", "C-custom")
	row("(B) in-process text2vec-am, teach off", "B", "C-custom")
	row("(B) in-process text2vec-am, teach on", "B-teach", "C-custom")
	row("(C) client-supplied vectors that B-teach stored, custom server", "C-taught", "C-custom")
	row("(B) in-process text2vec-am, teach on, against the same vectors supplied", "B-teach", "C-taught")
	t.Logf("import of %d documents, batch %d, GOMAXPROCS %d, dim %d:\n%s", len(r.docs), batchSize, runtime.GOMAXPROCS(0), r.vec.Dim(), sb.String())
}

// storedVectors returns the vectors (named target) of the n objects of class,
// by docIndex, and fails the test if any is missing or not of dimension dim.
func storedVectors(t *testing.T, w *weaviateServer, class, target string, dim, n int) [][]float32 {
	t.Helper()
	got := listVectors(t, w, class, target)
	vecs := make([][]float32, n)
	for i := range vecs {
		if vecs[i] = got[i]; len(vecs[i]) != dim {
			t.Fatalf("%s: the vector of document %d has dimension %d, want %d (%d of %d objects listed)",
				class, i, len(vecs[i]), dim, len(got), n)
		}
	}
	return vecs
}

// cpuSeconds returns the CPU time p has used (0 where the system does not say).
func cpuSeconds(p *process) float64 {
	s, _ := procCPU(p.cmd.Process.Pid)
	return s
}

// skipUnlessBench skips an import benchmark unless T2V_BENCH=1: it is a
// measurement, not a check.
func skipUnlessBench(t *testing.T) {
	t.Helper()
	if os.Getenv("T2V_BENCH") != "1" {
		t.Skip("import throughput benchmark: set T2V_BENCH=1 to run it")
	}
}

// benchDocs is how many debian-dev documents an import benchmark of the
// memory imports (T2V_BENCH_DOCS, default 2000).
func benchDocs(t *testing.T) int {
	t.Helper()
	s := os.Getenv("T2V_BENCH_DOCS")
	if s == "" {
		return 2000
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		t.Fatalf("T2V_BENCH_DOCS=%q: want a count ≥ 1", s)
	}
	return v
}

// deleteCollection deletes class and its objects from w.
func deleteCollection(t *testing.T, w *weaviateServer, class string) {
	t.Helper()
	if status, raw, err := doJSON(context.Background(), http.MethodDelete, w.url("/v1/schema/"+class), nil, nil); err != nil ||
		status != http.StatusOK {
		t.Fatalf("delete collection %s: status %d, %v: %.300s", class, status, err, raw)
	}
}

// importBest imports docs into class through c, fails the test on any
// failure, logs the run and keeps in best[name] the best objects/s of name.
func importBest(t *testing.T, c *weaviate.Client, class string, docs []dataset.Document, round int, name, what string,
	best map[string]float64) {
	t.Helper()
	res, err := importDocs(context.Background(), c, class, docs, nil, batchSize, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("%s: import: %v (%d failures)", name, err, len(res.Failures))
	}
	ops := float64(res.Objects) / res.Elapsed.Seconds()
	best[name] = max(best[name], ops)
	t.Logf("round %d %-17s %-52s %5d objects in %6.1f s: %5.0f objects/s", round, name, what, res.Objects,
		res.Elapsed.Seconds(), ops)
}

// memoryTable is the markdown table of the memories' best objects/s, each
// row names[i] described as whats[i], with its ratio to anchor's.
func memoryTable(names, whats []string, best map[string]float64, anchor string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "| memory | objects/s (best of 2) | ratio |\n|---|---:|---:|\n")
	for i, name := range names {
		fmt.Fprintf(&sb, "| %s | %.0f | %.2f× |\n", whats[i], best[name], best[name]/best[anchor])
	}
	return sb.String()
}
