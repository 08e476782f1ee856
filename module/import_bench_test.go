package module

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// BenchmarkImportBatch hands the module the debian-dev documents (from
// ../shared) as Weaviate's batch import does: VectorizeBatch of 100 objects
// of one collection at a time, on a module initialized as in a Weaviate
// server (the embedded default model, the memory in a directory of the data
// path). Batch by batch in turn it runs the anchor (the module's vectorizer
// on the same texts as queries: no properties, no collection memory, no
// teaching), the module with teach off and the module with teach on, and
// reports the process CPU time per object of each and their ratios to the
// anchor (what the module adds to the vectorizing itself), and the elapsed
// time per object of each (what a batch waits for its vectors: Weaviate
// vectorizes a batch before it stores it). Each runs under
// the profiler label path=anchor, teach-off or teach-on.
//
//	go test -run '^$' -bench ImportBatch -benchtime 1x ./module/
func BenchmarkImportBatch(b *testing.B) {
	docs := debianDocs(b)
	const batch = 100
	cfgOff := fakeClassConfig{settings: map[string]any{"teach": false}}
	cfgOn := fakeClassConfig{settings: map[string]any{"teach": true}}
	var cpu, wall [3]int64 // anchor, teach off, teach on
	for b.Loop() {
		b.StopTimer()
		m := initModule(b)
		runtime.GC()
		b.StartTimer()
		for from := 0; from < len(docs); from += batch {
			objs := docObjects(docs[from:min(from+batch, len(docs))], from)
			texts := make([]string, len(objs))
			for i, o := range objs {
				texts[i] = o.Properties.(map[string]any)["text"].(string)
			}
			runs := []func(){
				func() { m.vec.VectorizeBatch(texts, vectorizer.TaskQuery, m.env.Defaults) },
				func() { checkBatch(b, m, objs, cfgOff) },
				func() { checkBatch(b, m, objs, cfgOn) },
			}
			for k, run := range runs {
				c0, _ := testmodel.ProcessCPUTime()
				t0 := time.Now()
				pprof.Do(context.Background(), pprof.Labels("path", []string{"anchor", "teach-off", "teach-on"}[k]),
					func(context.Context) { run() })
				c1, _ := testmodel.ProcessCPUTime()
				cpu[k] += c1 - c0
				wall[k] += int64(time.Since(t0))
			}
		}
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
	n := float64(b.N * len(docs))
	b.ReportMetric(float64(cpu[0])/n, "anchor-cpu-ns/object")
	b.ReportMetric(float64(cpu[1])/n, "teach-off-cpu-ns/object")
	b.ReportMetric(float64(cpu[2])/n, "teach-on-cpu-ns/object")
	b.ReportMetric(float64(wall[0])/n, "anchor-wall-ns/object")
	b.ReportMetric(float64(wall[1])/n, "teach-off-wall-ns/object")
	b.ReportMetric(float64(wall[2])/n, "teach-on-wall-ns/object")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "teach-off/anchor")
	b.ReportMetric(float64(cpu[2])/float64(cpu[0]), "teach-on/anchor")
}

// initModule initializes a module as Init does from an empty environment,
// with Weaviate's data path in a temporary directory.
func initModule(b *testing.B) *Module {
	b.Helper()
	env, err := LoadEnvConfig(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	m := New()
	if err := m.initWith(env, dir); err != nil {
		b.Fatal(err)
	}
	if err := m.InitExtension(nil); err != nil {
		b.Fatal(err)
	}
	return m
}

// checkBatch runs VectorizeBatch on objs and fails on any error.
func checkBatch(b *testing.B, m *Module, objs []*models.Object, cfg fakeClassConfig) {
	_, _, errs := m.VectorizeBatch(context.Background(), objs, make([]bool, len(objs)), cfg)
	for _, err := range errs {
		b.Fatal(err)
	}
}

// debianDocs reads the texts of the debian-dev retrieval documents.
func debianDocs(b *testing.B) []string {
	path := filepath.Join(shareddata.Dir(b), "data", "retrieval", "debian-dev", "docs.jsonl")
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("the debian-dev documents: %v", err)
	}
	defer f.Close()
	var docs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d.Text)
	}
	if err := sc.Err(); err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	return docs
}

// docObjects returns texts as objects of collection "Doc" with one text
// property, numbered from first.
func docObjects(texts []string, first int) []*models.Object {
	objs := make([]*models.Object, len(texts))
	for i, t := range texts {
		objs[i] = object(first+i, map[string]any{"text": t})
	}
	return objs
}
