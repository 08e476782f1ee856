//go:build unix

package e2e

import (
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
// itself (TEXT2VEC_AM_MEMORY_WEAVIATE, the node's own address), and a
// three-node cluster keeping it in itself, the memory and the collection
// replicated on every node (replication factor 3), imported through node 0.
// Each server runs for the whole test; every run imports into a new
// collection, whose memory starts empty. Two rounds, interleaved, the best of each reported.
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
	cluster := startCluster(t, bin, filepath.Join(tmp, "cluster"), clusterSize, func(_ int, p weaviatePorts) []string {
		return append(customEnv(r), module.EnvMemoryWeaviate+"=http://127.0.0.1:"+fmt.Sprint(p.HTTP),
			module.EnvMemoryWeaviateReplicas+"="+fmt.Sprint(clusterSize))
	})
	runs := []struct {
		name, what string
		w          *weaviateServer
		factor     int // the collection's replication factor (0: Weaviate's default)
	}{
		{"dir", "a directory in the data path (anchor)", startWeaviate(t, bin, filepath.Join(tmp, "dir"),
			filepath.Join(tmp, "dir.log"), newWeaviatePorts(t), customEnv(r)), 0},
		{"weaviate", "kept in Weaviate (TEXT2VEC_AM_MEMORY_WEAVIATE)", startWeaviate(t, bin, filepath.Join(tmp, "wmem"),
			filepath.Join(tmp, "wmem.log"), ports, append(customEnv(r), module.EnvMemoryWeaviate+"="+self)), 0},
		{"cluster", fmt.Sprintf("kept in a %d-node cluster, replication factor %d", clusterSize, clusterSize), cluster[0],
			clusterSize},
	}
	rate := map[string]float64{}
	for round := 1; round <= 2; round++ {
		for _, rn := range runs {
			class := fmt.Sprintf("Bench%s%d", strings.ToUpper(rn.name[:1])+rn.name[1:], round)
			col := amCollection(class, map[string]any{"vectorizeClassName": false, "teach": true})
			if rn.factor > 0 {
				col["replicationConfig"] = map[string]any{"factor": rn.factor}
			}
			createCollection(t, rn.w, col)
			if rn.factor > 0 {
				for _, w := range cluster {
					waitCollection(t, w, class)
				}
			}
			importBest(t, newClient(t, rn.w), class, docs, round, rn.name, rn.what, rate)
		}
	}
	t.Logf("the memory kept in Weaviate after the runs: %v", moduleMemory(t, runs[1].w)["weaviate"])
	var names, whats []string
	for _, rn := range runs {
		names, whats = append(names, rn.name), append(whats, rn.what)
	}
	t.Logf("teaching import of %d debian-dev documents through the in-process module, batch %d, GOMAXPROCS %d:\n%s",
		len(docs), batchSize, runtime.GOMAXPROCS(0), memoryTable(names, whats, rate, "dir"))
}
