//go:build unix

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/module"
)

// TestImportThroughputModuleMemory measures the teaching import of the first
// debian-dev documents (T2V_BENCH_DOCS, default 2000; batch 100) into a
// Weaviate with the in-process module, for each place the module can keep
// its memory: a directory in Weaviate's data path (the anchor) and Weaviate
// itself (TEXT2VEC_AM_MEMORY_WEAVIATE, the node's own address). Each server
// runs for the whole test; every run imports into a new collection, whose
// memory starts empty. Two rounds, interleaved, the best of each reported.
// It runs only with T2V_BENCH=1: it is a measurement, not a check.
//
//	T2V_BENCH=1 go test ./tests -run TestImportThroughputModuleMemory -v -timeout 60m
func TestImportThroughputModuleMemory(t *testing.T) {
	skipUnlessBench(t)
	e := requireE2E(t)
	r := loadReference(t, e)
	docs := r.docs[:min(benchDocs(t), len(r.docs))]
	tmp, bin := t.TempDir(), customServer(t, e.repo)
	ports := newWeaviatePorts(t)
	self := "http://127.0.0.1:" + fmt.Sprint(ports.HTTP)
	runs := []struct {
		name, what string
		w          *weaviateServer
	}{
		{"dir", "a directory in the data path (anchor)", startWeaviate(t, bin, filepath.Join(tmp, "dir"),
			filepath.Join(tmp, "dir.log"), newWeaviatePorts(t), customEnv(r))},
		{"weaviate", "kept in Weaviate (TEXT2VEC_AM_MEMORY_WEAVIATE)", startWeaviate(t, bin, filepath.Join(tmp, "wmem"),
			filepath.Join(tmp, "wmem.log"), ports, append(customEnv(r), module.EnvMemoryWeaviate+"="+self))},
	}
	rate := map[string]float64{}
	for round := 1; round <= 2; round++ {
		for _, rn := range runs {
			class := fmt.Sprintf("Bench%s%d", strings.ToUpper(rn.name[:1])+rn.name[1:], round)
			createCollection(t, rn.w, amCollection(class, map[string]any{"vectorizeClassName": false, "teach": true}))
			c := newClient(t, rn.w)
			res, err := importDocs(context.Background(), c, class, docs, nil, batchSize, nil)
			if err != nil || len(res.Failures) > 0 {
				t.Fatalf("%s: import: %v (%d failures)", rn.name, err, len(res.Failures))
			}
			ops := float64(res.Objects) / res.Elapsed.Seconds()
			rate[rn.name] = max(rate[rn.name], ops)
			t.Logf("round %d %-8s %-48s %5d objects in %6.1f s: %5.0f objects/s", round, rn.name, rn.what,
				res.Objects, res.Elapsed.Seconds(), ops)
		}
	}
	t.Logf("the memory kept in Weaviate after the runs: %v", moduleMemory(t, runs[1].w)["weaviate"])
	var sb strings.Builder
	fmt.Fprintf(&sb, "| memory | objects/s (best of 2) | ratio |\n|---|---:|---:|\n")
	for _, rn := range runs {
		fmt.Fprintf(&sb, "| %s | %.0f | %.2f× |\n", rn.what, rate[rn.name], rate[rn.name]/rate["dir"])
	}
	t.Logf("teaching import of %d debian-dev documents through the in-process module, batch %d, GOMAXPROCS %d:\n%s",
		len(docs), batchSize, runtime.GOMAXPROCS(0), sb.String())
}
