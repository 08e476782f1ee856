//go:build unix

package e2e

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestImportThroughputWeaviateMemory measures the import of the first
// debian-dev documents (T2V_BENCH_DOCS, default 2000; batch 100) into a
// stock Weaviate whose text2vec-transformers calls text2vec-am serve, teaching
// the memory: one serve with its memory in a directory (--memory-dir, the
// anchor), one with its memory kept in that Weaviate (--memory-weaviate), and
// three of those behind one address; then the same three through
// text2vec-openai, a batch per request, the importing client naming serve's
// /passage (X-OpenAI-BaseURL), and through text2vec-cohere, a batch per
// request sent as search_document. Each run starts from an empty memory
// and a new collection; two rounds, interleaved, the best of each reported.
// It runs only with T2V_BENCH=1: it is a measurement, not a check.
//
//	T2V_BENCH=1 go test ./tests -run TestImportThroughputWeaviateMemory -v -timeout 60m
func TestImportThroughputWeaviateMemory(t *testing.T) {
	skipUnlessBench(t)
	e := requireE2E(t)
	r := loadReference(t, e)
	docs := r.docs[:min(benchDocs(t), len(r.docs))]
	tmp, bin := t.TempDir(), text2vecAM(t, e.repo)
	rr := newRoundRobin(t)
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t),
		append(stockModulesEnv(t), "TRANSFORMERS_INFERENCE_API="+rr.url(), "TRANSFORMERS_WAIT_FOR_STARTUP=false"))
	c := newClient(t, w)
	tokenFile, token := writeToken(t)
	importer := newClientWithHeaders(t, w, passageHeaders(rr.url(), token))
	common := []string{"--auth-token-file", tokenFile} // every serve run
	if r.modelPath != "" {
		common = append(common, "--model", r.modelPath)
	}
	runs := []struct {
		name, what string
		args       func(run string) []string
		replicas   int
		module     string // "transformers"; "openai", the client naming serve's /passage; "cohere"
	}{
		{"dir", "serve --memory-dir (anchor)", func(run string) []string {
			return append([]string{"--memory-dir", filepath.Join(tmp, run)}, common...)
		}, 1, "transformers"},
		{"weaviate", "serve --memory-weaviate", func(run string) []string {
			return append([]string{"--memory-weaviate", w.url(""), "--memory-weaviate-class", "Mem" + run}, common...)
		}, 1, "transformers"},
		{"weaviate-3", "3 × serve --memory-weaviate behind one address", func(run string) []string {
			return append([]string{"--memory-weaviate", w.url(""), "--memory-weaviate-class", "Mem" + run}, common...)
		}, 3, "transformers"},
		{"dir-openai", "serve --memory-dir, through text2vec-openai", func(run string) []string {
			return append([]string{"--memory-dir", filepath.Join(tmp, run)}, common...)
		}, 1, "openai"},
		{"weaviate-openai", "serve --memory-weaviate, through text2vec-openai", func(run string) []string {
			return append([]string{"--memory-weaviate", w.url(""), "--memory-weaviate-class", "Mem" + run}, common...)
		}, 1, "openai"},
		{"weaviate-3-openai", "3 × serve --memory-weaviate, through text2vec-openai", func(run string) []string {
			return append([]string{"--memory-weaviate", w.url(""), "--memory-weaviate-class", "Mem" + run}, common...)
		}, 3, "openai"},
		{"dir-cohere", "serve --memory-dir, through text2vec-cohere", func(run string) []string {
			return append([]string{"--memory-dir", filepath.Join(tmp, run)}, common...)
		}, 1, "cohere"},
		{"weaviate-cohere", "serve --memory-weaviate, through text2vec-cohere", func(run string) []string {
			return append([]string{"--memory-weaviate", w.url(""), "--memory-weaviate-class", "Mem" + run}, common...)
		}, 1, "cohere"},
		{"weaviate-3-cohere", "3 × serve --memory-weaviate, through text2vec-cohere", func(run string) []string {
			return append([]string{"--memory-weaviate", w.url(""), "--memory-weaviate-class", "Mem" + run}, common...)
		}, 3, "cohere"},
	}
	rate := map[string]float64{}
	for round := 1; round <= 2; round++ {
		for _, rn := range runs {
			run := fmt.Sprintf("%s%d", strings.ReplaceAll(rn.name, "-", ""), round)
			var urls []string
			var servers []*adapterServer
			for i, port := range freePorts(t, rn.replicas) {
				a := startAdapter(t, bin, filepath.Join(tmp, fmt.Sprintf("serve-%s-%d.log", run, i)), port, rn.args(run))
				servers, urls = append(servers, a), append(urls, a.url(""))
			}
			rr.set(urls)
			class := "Bench" + run
			switch rn.module {
			case "openai":
				createCollection(t, w, openAICollection(class, rr.url()))
				importBest(t, importer, class, docs, round, rn.name, rn.what, rate)
				checkTaughtSome(t, rn.name, servers)
			case "cohere":
				createCollection(t, w, cohereCollection(class, rr.url()))
				importBest(t, c, class, docs, round, rn.name, rn.what, rate)
				checkTaughtSome(t, rn.name, servers)
			default:
				createCollection(t, w, transformersCollection(class, map[string]any{"vectorizeClassName": false}))
				importBest(t, c, class, docs, round, rn.name, rn.what, rate)
			}
			for _, a := range servers {
				a.proc.stop(t)
			}
		}
	}
	var names, whats []string
	for _, rn := range runs {
		names, whats = append(names, rn.name), append(whats, rn.what)
	}
	t.Logf("teaching import of %d debian-dev documents through a stock Weaviate, batch %d, GOMAXPROCS %d:\n%s",
		len(docs), batchSize, runtime.GOMAXPROCS(0), memoryTable(names, whats, rate, "dir"))
}

// checkTaughtSome fails the test when no server's memory counts a passage:
// an import that did not teach measures something else.
func checkTaughtSome(t *testing.T, run string, servers []*adapterServer) {
	t.Helper()
	for _, a := range servers {
		if n, _ := adapterMemory(t, a)["passages"].(float64); n > 0 {
			return
		}
	}
	t.Fatalf("%s: the import taught no server's memory", run)
}
