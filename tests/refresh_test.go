//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/retrieval"
)

// TestRefreshStock is the learning loop on path (A): debian-dev imported
// through a stock Weaviate while the memory fills (the early objects get
// vectors from a nearly empty memory), then "text2vec-am refresh": every
// stored vector becomes the vectorizer's current one, and nearText ranks as
// an import with the full memory does.
func TestRefreshStock(t *testing.T) {
	s := startStock(t, "DocsRefresh")
	r, tmp, memDir, bin, a, w, docs, c := s.r, s.tmp, s.memDir, s.bin, s.a, s.w, s.docs, s.docs.c
	importAll(t, docs, r) // teaching on: the memory fills as the import proceeds
	before := nearTextMRR(t, docs, r)
	t.Logf("import with an empty memory that fills as it goes: nearText MRR@10 %.4f", before.MRR10)
	stale := staleCount(t, a, docs, r)
	if stale == 0 {
		t.Fatalf("after a teaching import no stored vector differs from the vectorizer's current one: nothing to refresh")
	}
	t.Logf("%d of %d stored vectors differ from the vectorizer's current ones (cosine ≤ 0.9999)", stale, len(r.docs))

	mem := adapterMemory(t, a)
	start := time.Now()
	out := runRefresh(t, bin, "--weaviate", w.url(""), "--vectorizer", a.url(""), "--class", docs.class)
	elapsed := time.Since(start)
	t.Logf("refresh (default: changed vectors only) in %v, %.0f objects/s read: %s", elapsed.Round(time.Millisecond),
		float64(len(r.docs))/elapsed.Seconds(), lastLine(out))
	if after := adapterMemory(t, a); !equalJSON(mem, after) {
		t.Errorf("refresh changed the context memory: %v before, %v after", mem, after)
	}
	current := currentVectors(t, a, r.docs)
	checkVectors(t, listVectors(t, w, docs.class, ""), r.docs, current)
	refreshed := nearTextMRR(t, docs, r)

	// The warmed-memory import: the same documents imported into a new
	// collection with the full memory, not teaching.
	a.proc.stop(t)
	a.args = adapterArgs(r, memDir, false)
	a.start(t)
	warm := collection{w: w, c: c, class: "DocsWarm"}
	createCollection(t, w, transformersCollection(warm.class, map[string]any{"vectorizeClassName": false}))
	importAll(t, warm, r)
	warmed := nearTextMRR(t, warm, r)
	checkVectors(t, listVectors(t, w, warm.class, ""), r.docs, current)
	t.Logf("nearText MRR@10: import while the memory fills %.4f → after refresh %.4f; import with the full memory %.4f", before.MRR10, refreshed.MRR10, warmed.MRR10)
	if d := refreshed.MRR10 - warmed.MRR10; d > 0.005 || d < -0.005 {
		t.Errorf("after refresh nearText MRR@10 is %.4f, the warmed-memory import %.4f: differ by %.4f (> 0.005)", refreshed.MRR10, warmed.MRR10, d)
	}

	t.Run("NothingLeftToRefresh", func(t *testing.T) {
		stored := listVectors(t, w, docs.class, "")
		now := currentVectors(t, a, r.docs)
		var differ []int
		for i := range r.docs {
			if cosine(stored[i], now[i]) < 1-1e-6 {
				differ = append(differ, i)
			}
		}
		st := refreshRun(t, w, a, docs.class, false, "", nil)
		if st.Updated != 0 || st.Unchanged != len(r.docs) {
			t.Errorf("a second refresh with the same memory: %+v, want 0 updated and %d unchanged", st, len(r.docs))
			for k, i := range differ[:min(len(differ), 10)] {
				t.Logf("differ %d: document %d (%s): stored·now %.9f, stored·before-restart %.9f, now·before-restart %.9f",
					k, i, docUUID(i), cosine(stored[i], now[i]), cosine(stored[i], current[i]), cosine(now[i], current[i]))
			}
			t.Logf("%d stored vectors differ from the current ones (cosine < 1 − 1e-6)", len(differ))
		}
	})
	t.Run("ResumesFromState", func(t *testing.T) { checkResume(t, w, a, docs.class, len(r.docs), tmp) })
	t.Run("TextAsWeaviateAssemblesIt", func(t *testing.T) { checkAssembly(t, w, a) })
}

// nearTextMRR runs every query through nearText and returns the metrics.
func nearTextMRR(t *testing.T, col collection, r *reference) retrieval.Metrics {
	t.Helper()
	top, failed := searchAll(t, col.w, col.class, r.queries, func(q dataset.RetrievalQuery) string {
		return fmt.Sprintf("nearText: {concepts: [%s]%s}", gqlString(q.Text), targetClause(col.target))
	})
	if failed > len(r.queries)/100 {
		t.Errorf("%d of %d nearText queries failed", failed, len(r.queries))
	}
	return metricsOf(t, r.docs, r.queries, top)
}

// currentVectors asks the adapter (as a query: it never teaches) for the
// vector of every document.
func currentVectors(t testing.TB, a *adapterServer, docs []dataset.Document) [][]float32 {
	t.Helper()
	out := make([][]float32, 0, len(docs))
	for lo := 0; lo < len(docs); lo += 500 {
		texts := make([]string, 0, 500)
		for _, d := range docs[lo:min(lo+500, len(docs))] {
			texts = append(texts, d.Text)
		}
		var ans struct {
			Vectors [][]float32 `json:"vectors"`
		}
		body := map[string]any{"texts": texts, "config": map[string]any{"task_type": "query"}}
		status, raw, err := doJSON(context.Background(), http.MethodPost, a.url("/vectors/batch"), body, &ans)
		if err != nil || status != http.StatusOK || len(ans.Vectors) != len(texts) {
			t.Fatalf("adapter /vectors/batch: status %d, %v: %.300s", status, err, raw)
		}
		out = append(out, ans.Vectors...)
	}
	return out
}

// staleCount counts the stored vectors that differ from the adapter's current ones.
func staleCount(t testing.TB, a *adapterServer, col collection, r *reference) int {
	t.Helper()
	got := listVectors(t, col.w, col.class, col.target)
	cur := currentVectors(t, a, r.docs)
	n := 0
	for i := range r.docs {
		if cosine(got[i], cur[i]) <= 0.9999 {
			n++
		}
	}
	return n
}

// runRefresh runs the refresh command of the text2vec-am binary and returns
// its output.
func runRefresh(t testing.TB, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"refresh"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("text2vec-am refresh %s: %v\n%s", strings.Join(args, " "), err, tailString(out.String(), 3000))
	}
	return out.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// refreshRun refreshes class in-process (the package the command runs).
func refreshRun(t testing.TB, w *weaviateServer, a *adapterServer, class string, all bool, state string, ctx context.Context) refresh.Stats {
	t.Helper()
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := refresh.Run(ctx, refresh.Options{Weaviate: w.url(""), Vectorizer: a.url(""), Class: class, All: all, State: state, Batch: 100})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("refresh %s: %v", class, err)
	}
	return st
}

// checkResume stops a refresh --all after a few pages and runs it again with
// the same state file: together they read and write every object once.
func checkResume(t *testing.T, w *weaviateServer, a *adapterServer, class string, n int, tmp string) {
	state := filepath.Join(tmp, "refresh.state")
	ctx, cancel := context.WithCancel(context.Background())
	pages := 0
	st, err := refresh.Run(ctx, refresh.Options{Weaviate: w.url(""), Vectorizer: a.url(""), Class: class, All: true, State: state, Batch: 100,
		Progress: writerFunc(func(p []byte) {
			pages++
			if pages == 3 {
				cancel()
			}
		}), ProgressEvery: time.Nanosecond})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted refresh: %v (%+v), want context.Canceled", err, st)
	}
	if st.Read == 0 || st.Read >= n {
		t.Fatalf("interrupted refresh read %d of %d objects", st.Read, n)
	}
	first := st.Updated
	st = refreshRun(t, w, a, class, true, state, nil)
	t.Logf("refresh --all interrupted after %d objects, resumed: %+v", first, st)
	if st.Read != n || st.Updated != n {
		t.Errorf("interrupted + resumed refresh --all: %+v, want %d read and %d updated in all", st, n, n)
	}
}

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// checkAssembly imports objects with every kind of property into a
// collection with two named vectors whose text settings differ (class name,
// skip, vectorizePropertyName, a "properties" list that takes non-text
// values), with the memory read-only: if refresh assembled any object's text
// otherwise than Weaviate did, its vector would differ and be rewritten.
func checkAssembly(t *testing.T, w *weaviateServer, a *adapterServer) {
	const class = "MixedThings"
	mod := "text2vec-transformers"
	vec := func(settings map[string]any) map[string]any {
		return map[string]any{"vectorizer": map[string]any{mod: settings}, "vectorIndexType": exactIndex}
	}
	prop := func(name, dt string, cfg map[string]any) map[string]any {
		p := map[string]any{"name": name, "dataType": []string{dt}}
		if cfg != nil {
			p["moduleConfig"] = map[string]any{mod: cfg}
		}
		return p
	}
	createCollection(t, w, map[string]any{
		"class": class,
		"vectorConfig": map[string]any{
			"plain": vec(map[string]any{"vectorizeClassName": true}),
			"picked": vec(map[string]any{"vectorizeClassName": false,
				"properties": []string{"body", "itemCount", "price", "flag", "when", "tags", "ref", "days"}}),
		},
		"properties": []map[string]any{
			prop("titleText", "text", map[string]any{"vectorizePropertyName": true}),
			prop("body", "text", nil),
			prop("secretNote", "text", map[string]any{"skip": true}),
			prop("tags", "text[]", nil),
			prop("itemCount", "int", nil),
			prop("price", "number", nil),
			prop("flag", "boolean", nil),
			prop("when", "date", nil),
			prop("days", "date[]", nil),
			prop("ref", "uuid", nil),
		},
	})
	words := []string{"nftables", "kernel", "zstd compression", "Firmware", "systemd unit", "libqcoro6qml0", "package manager"}
	var objs []map[string]any
	for i := range 40 {
		props := map[string]any{
			"titleText":  words[i%len(words)] + " notes",
			"body":       fmt.Sprintf("The %s daemon restarts %d times", words[(i+3)%len(words)], i),
			"secretNote": "classified " + words[(i+1)%len(words)],
			"itemCount":  i * 7,
			"price":      float64(i) / 8,
			"flag":       i%2 == 0,
			"when":       fmt.Sprintf("2024-05-%02dT10:20:30.5+02:00", i%28+1),
			"days":       []string{"2024-01-01T00:00:00Z"},
			"ref":        docUUID(i),
		}
		if i%3 != 0 {
			props["tags"] = []string{"Tag" + words[i%len(words)], "second tag"}
		}
		if i%5 == 4 {
			delete(props, "body")
		}
		objs = append(objs, map[string]any{"class": class, "id": docUUID(100000 + i), "properties": props})
	}
	var answers []map[string]any
	status, raw, err := doJSON(context.Background(), http.MethodPost, w.url("/v1/batch/objects"), map[string]any{"objects": objs}, &answers)
	if err != nil || status != http.StatusOK || strings.Contains(string(raw), `"errors":{`) {
		t.Fatalf("import %s: status %d, %v: %.500s", class, status, err, raw)
	}
	st := refreshRun(t, w, a, class, false, "", nil)
	t.Logf("refresh of %s (named vectors plain and picked): %+v", class, st)
	if st.Read != len(objs) || st.Updated != 0 || st.Unchanged != len(objs) {
		t.Errorf("refresh of %s with an unchanged memory: %+v, want %d read, all unchanged: the text it assembles differs from Weaviate's", class, st, len(objs))
	}
}

// TestRefreshInProcess is the learning loop on path (B): the custom
// weaviate-server with the in-process module teaching while a part of
// debian-dev is imported, then refresh through the module's own endpoint
// (no --vectorizer): every stored vector becomes the module's current one
// and a second refresh finds nothing to write.
func TestRefreshInProcess(t *testing.T) {
	e := requireE2E(t)
	r := loadReference(t, e)
	tmp := t.TempDir()
	w := startWeaviate(t, customServer(t, e.repo), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), customEnv(r))
	c := newClient(t, w)
	docs := collection{w: w, c: c, class: "DocsRefreshB", target: "am"}
	createCollection(t, w, amCollection(docs.class, map[string]any{"vectorizeClassName": false, "teach": true}))
	part := r.docs[:min(4000, len(r.docs))]
	if res, err := importDocs(context.Background(), c, docs.class, part, nil, batchSize, nil); err != nil || len(res.Failures) > 0 {
		t.Fatalf("teaching import: %v %v", err, res.Failures)
	}
	current := func() [][]float32 {
		texts := make([]string, len(part))
		for i, d := range part {
			texts[i] = d.Text
		}
		return moduleVectors(t, w, docs.class, map[string]any{"vectorizeClassName": false, "teach": true}, texts)
	}
	mem := moduleMemory(t, w)
	st, err := refresh.Run(context.Background(), refresh.Options{Weaviate: w.url(""), Class: docs.class})
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	t.Logf("refresh through the module's endpoint: %+v", st)
	if st.Updated == 0 || st.Read != len(part) {
		t.Errorf("refresh after a teaching import: %+v, want some of %d objects updated", st, len(part))
	}
	if after := moduleMemory(t, w); !equalJSON(mem, after) {
		t.Errorf("refresh changed the module's memory: %v → %v", mem, after)
	}
	checkVectors(t, listVectors(t, w, docs.class, docs.target), part, current())
	st, err = refresh.Run(context.Background(), refresh.Options{Weaviate: w.url(""), Class: docs.class})
	if err != nil || st.Updated != 0 || st.Unchanged != len(part) {
		t.Errorf("a second refresh: %+v, %v; want nothing to write", st, err)
	}
}
