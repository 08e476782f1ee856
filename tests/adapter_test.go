//go:build unix

package e2e

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
)

// adapterArgs are the serve flags of the adapter under test: its memory in
// memDir (none without one), teaching or not. serve --memory off needs
// memDir to exist.
func adapterArgs(r *reference, memDir string, teach bool) []string {
	mode := "off"
	if teach {
		mode = "on"
	}
	args := []string{"--memory", mode}
	if memDir != "" {
		args = append(args, "--memory-dir", memDir)
	}
	if r.modelPath != "" {
		args = append(args, "--model", r.modelPath)
	}
	return args
}

// transformersCollection is a collection vectorized by Weaviate's stock
// text2vec-transformers module (which calls the adapter).
func transformersCollection(class string, settings map[string]any) map[string]any {
	return stockCollection(class, "text2vec-transformers", settings)
}

// stockCollection is a collection vectorized by the stock Weaviate module
// named, with its settings; the document id is not vectorized.
func stockCollection(class, module string, settings map[string]any) map[string]any {
	return map[string]any{
		"class":           class,
		"vectorizer":      module,
		"moduleConfig":    map[string]any{module: settings},
		"vectorIndexType": exactIndex,
		"properties":      docProperties(map[string]any{module: map[string]any{"skip": true}}),
	}
}

// stockModulesEnv enables the stock Weaviate modules that call serve:
// text2vec-transformers (TRANSFORMERS_INFERENCE_API names serve),
// text2vec-openai and text2vec-cohere (each collection's baseURL names it;
// serve takes any key).
func stockModulesEnv(t *testing.T) []string {
	return []string{"ENABLE_MODULES=text2vec-transformers,text2vec-openai,text2vec-cohere", "OPENAI_APIKEY=unused",
		"COHERE_APIKEY=unused", tiktokenCacheEnv(t)}
}

// tiktokenCacheEnv returns TIKTOKEN_CACHE_DIR naming a directory that holds
// the cl100k_base encoding Weaviate's text2vec-openai counts tokens with:
// the test's own TIKTOKEN_CACHE_DIR when set (the real encoding, as
// Weaviate caches it), else a byte-level encoding (every byte a token).
// Weaviate downloads the real one on first use, and without it (a machine
// without internet) its batcher panics. The counts only pace and size its
// batches; the vectors do not depend on them.
func tiktokenCacheEnv(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("TIKTOKEN_CACHE_DIR"); dir != "" {
		return "TIKTOKEN_CACHE_DIR=" + dir
	}
	dir := t.TempDir()
	const url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
	var b strings.Builder
	for i := range 256 {
		fmt.Fprintf(&b, "%s %d\n", base64.StdEncoding.EncodeToString([]byte{byte(i)}), i)
	}
	name := filepath.Join(dir, fmt.Sprintf("%x", sha1.Sum([]byte(url))))
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return "TIKTOKEN_CACHE_DIR=" + dir
}

// openAICollection is a collection vectorized by Weaviate's stock
// text2vec-openai module with its base URL set to serve (OpenAI's
// embeddings API, batched).
func openAICollection(class, baseURL string) map[string]any {
	settings := map[string]any{"baseURL": baseURL, "model": "text2vec-am", "vectorizeClassName": false}
	return stockCollection(class, "text2vec-openai", settings)
}

// cohereCollection is a collection vectorized by Weaviate's stock
// text2vec-cohere module with its base URL set to serve (Cohere's embed
// API, batched; objects sent as search_document, queries as search_query).
func cohereCollection(class, baseURL string) map[string]any {
	settings := map[string]any{"baseURL": baseURL, "model": "text2vec-am", "vectorizeClassName": false}
	return stockCollection(class, "text2vec-cohere", settings)
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
	memDir := filepath.Join(tmp, "memory") // empty until Teaching fills it
	if err := os.MkdirAll(memDir, 0o700); err != nil {
		t.Fatal(err)
	}
	adapterPort := freePorts(t, 1)[0]
	a := startAdapter(t, text2vecAM(t, e.repo), filepath.Join(tmp, "adapter.log"), adapterPort, adapterArgs(r, memDir, false))
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t),
		append([]string{"TRANSFORMERS_INFERENCE_API=" + a.url("")}, stockModulesEnv(t)...))
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
	// Weaviate's text2vec-openai and text2vec-cohere with their base URL set
	// to serve: batched requests to /v1/embeddings and /v2/embed, the same
	// vectors and search; a text without a vector stores no object.
	for _, m := range []struct {
		name, class   string
		schema        func(class, baseURL string) map[string]any
		withoutVector func(*testing.T, collection)
	}{
		{"OpenAIEmbeddingsAPI", "OpenAIA", openAICollection, checkOpenAITextWithoutVector},
		{"CohereEmbedAPI", "CohereA", cohereCollection, checkCohereTextWithoutVector},
	} {
		t.Run(m.name, func(t *testing.T) {
			col := collection{w: w, c: c, class: m.class}
			createCollection(t, w, m.schema(col.class, a.url("")))
			importAll(t, col, r)
			checkStoredVectors(t, col, r)
			checkNearText(t, col, r)
			m.withoutVector(t, col)
		})
	}

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

	t.Run("OpenAIEmbeddingsTeach", func(t *testing.T) {
		if memBefore == nil {
			t.Skip("teaching failed")
		}
		checkOpenAITeaching(t, w, a, r, filepath.Join(tmp, "memory-openai"), memBefore)
	})
	t.Run("CohereEmbedTeach", func(t *testing.T) {
		if memBefore == nil {
			t.Skip("teaching failed")
		}
		checkCohereTeaching(t, w, a, r, filepath.Join(tmp, "memory-cohere"), memBefore)
	})
}

// checkOpenAITeaching imports teachDocs through text2vec-openai with a
// client that sets X-OpenAI-BaseURL to serve's /passage and serve's token
// as its OpenAI API key (teaching on, an empty memory in memDir): every
// document is stored with a vector and the
// memory holds what text2vec-transformers taught (want: the memory is a
// function of the passages, whatever their order and grouping); a nearText
// through a client without the header, whose texts are queries, leaves the
// memory as it is.
func checkOpenAITeaching(t *testing.T, w *weaviateServer, a *adapterServer, r *reference, memDir string, want map[string]any) {
	t.Helper()
	a.proc.stop(t)
	args := a.args
	tokenFile, token := writeToken(t)
	a.args = append(adapterArgs(r, memDir, true), "--auth-token-file", tokenFile)
	a.start(t)
	defer func() { a.proc.stop(t); a.args = args; a.start(t) }()
	col := collection{w: w, c: newClient(t, w), class: "OpenAITaught"}
	createCollection(t, w, openAICollection(col.class, a.url("")))
	importer := newClientWithHeaders(t, w, passageHeaders(a.url(""), token))
	checkTaughtAsTransformers(t, w, a, r, col, importer, want)
}

// checkCohereTeaching imports teachDocs through text2vec-cohere, which sends
// the objects it imports as search_document (teaching on, an empty memory
// in memDir, no token and no header): as checkOpenAITeaching.
func checkCohereTeaching(t *testing.T, w *weaviateServer, a *adapterServer, r *reference, memDir string,
	want map[string]any) {
	t.Helper()
	a.proc.stop(t)
	args := a.args
	a.args = adapterArgs(r, memDir, true)
	a.start(t)
	defer func() { a.proc.stop(t); a.args = args; a.start(t) }()
	col := collection{w: w, c: newClient(t, w), class: "CohereTaught"}
	createCollection(t, w, cohereCollection(col.class, a.url("")))
	checkTaughtAsTransformers(t, w, a, r, col, col.c, want)
}

// checkTaughtAsTransformers imports teachDocs into col through importer:
// every document is stored with a vector and the memory holds what
// text2vec-transformers taught (want); a nearText through col's client,
// whose texts are queries, leaves the memory as it is.
func checkTaughtAsTransformers(t *testing.T, w *weaviateServer, a *adapterServer, r *reference, col collection,
	importer *weaviate.Client, want map[string]any) {
	t.Helper()
	docs := teachDocs(r)
	res, err := importDocs(context.Background(), importer, col.class, docs, nil, batchSize, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("teaching import into %s: %v %v", col.class, err, res.Failures)
	}
	if stored := listVectors(t, w, col.class, ""); len(stored) != len(docs) {
		t.Errorf("%d objects stored with a vector, want %d", len(stored), len(docs))
	}
	taught := adapterMemory(t, a)
	if !equalJSON(taught, want) {
		t.Errorf("memory taught into %s %v, through text2vec-transformers %v: want the same", col.class, taught, want)
	}
	queries := r.queries[:min(20, len(r.queries))]
	nearTextTop(t, w, clusterCol{class: col.class}, queries)
	if after := adapterMemory(t, a); !equalJSON(after, taught) {
		t.Errorf("memory after %d nearText queries %v, before %v: queries must not teach", len(queries), after, taught)
	}
}

// passageHeaders are the headers of a Weaviate client whose text2vec-openai
// calls teach serve (at serveURL) its objects: /passage, and serve's token
// as the OpenAI API key.
func passageHeaders(serveURL, token string) map[string]string {
	return map[string]string{"X-OpenAI-BaseURL": serveURL + "/passage", "X-OpenAI-Api-Key": token}
}

// writeToken writes a bearer token for serve --auth-token-file and returns
// the file and the token.
func writeToken(t *testing.T) (string, string) {
	t.Helper()
	const token = "e2e-importer-token"
	name := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(name, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return name, token
}

// checkOpenAITextWithoutVector: through text2vec-openai, an object whose text
// yields no vector is refused, alone (one object) and in a batch, where the
// others are stored.
func checkOpenAITextWithoutVector(t *testing.T, col collection) {
	t.Helper()
	ctx := context.Background()
	obj := func(id, text string) map[string]any {
		return map[string]any{"class": col.class, "id": id, "properties": map[string]any{"docId": id, "docIndex": -1, "text": text}}
	}
	const none, bad, good = "00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2",
		"00000000-0000-4000-8000-0000000000a3"
	status, raw, err := doJSON(ctx, http.MethodPost, col.w.url("/v1/objects"), obj(none, "..."), nil)
	if err != nil || status == http.StatusOK {
		t.Errorf("one object without a vector: status %d, %v: %.300s; want it refused", status, err, raw)
	}
	var res []struct {
		ID     string `json:"id"`
		Result struct {
			Errors *struct {
				Error []struct{ Message string } `json:"error"`
			} `json:"errors"`
		} `json:"result"`
	}
	body := map[string]any{"objects": []any{obj(bad, "..."), obj(good, "nftables replaces iptables")}}
	status, raw, err = doJSON(ctx, http.MethodPost, col.w.url("/v1/batch/objects"), body, &res)
	if err != nil || status != http.StatusOK || len(res) != 2 {
		t.Fatalf("batch: status %d, %v: %.300s", status, err, raw)
	}
	for _, o := range res {
		failed := o.Result.Errors != nil && len(o.Result.Errors.Error) > 0
		if failed != (o.ID == bad) {
			t.Errorf("batch object %s: errors %+v; want an error only for the text without a vector", o.ID, o.Result.Errors)
		}
	}
	for id, want := range map[string]bool{none: false, bad: false, good: true} {
		var got struct{ Vector []float32 }
		status, _, _ := doJSON(ctx, http.MethodGet, col.w.url("/v1/objects/"+col.class+"/"+id+"?include=vector"), nil, &got)
		if stored := status == http.StatusOK; stored != want || (stored && len(got.Vector) == 0) {
			t.Errorf("object %s: status %d, vector of %d; want stored %v with a vector", id, status, len(got.Vector), want)
		}
	}
}

// checkCohereTextWithoutVector: through text2vec-cohere, whose API has no
// per-text error, an object whose text yields no vector is refused, alone
// and with the objects of its request; none is stored without a vector.
func checkCohereTextWithoutVector(t *testing.T, col collection) {
	t.Helper()
	ctx := context.Background()
	obj := func(id, text string) map[string]any {
		props := map[string]any{"docId": id, "docIndex": -1, "text": text}
		return map[string]any{"class": col.class, "id": id, "properties": props}
	}
	const none, bad, other = "00000000-0000-4000-8000-0000000000b1", "00000000-0000-4000-8000-0000000000b2",
		"00000000-0000-4000-8000-0000000000b3"
	status, raw, err := doJSON(ctx, http.MethodPost, col.w.url("/v1/objects"), obj(none, "..."), nil)
	if err != nil || status == http.StatusOK || !strings.Contains(string(raw), "texts[0]") {
		t.Errorf("one object without a vector: status %d, %v: %.300s; want it refused naming texts[0]", status, err, raw)
	}
	body := map[string]any{"objects": []any{obj(bad, "..."), obj(other, "nftables replaces iptables")}}
	status, raw, err = doJSON(ctx, http.MethodPost, col.w.url("/v1/batch/objects"), body, nil)
	if err != nil || status != http.StatusOK {
		t.Fatalf("batch: status %d, %v: %.300s", status, err, raw)
	}
	for _, id := range []string{none, bad, other} {
		var got struct{ Vector []float32 }
		status, _, _ := doJSON(ctx, http.MethodGet, col.w.url("/v1/objects/"+col.class+"/"+id+"?include=vector"), nil, &got)
		if status == http.StatusOK && len(got.Vector) == 0 {
			t.Errorf("object %s stored without a vector", id)
		}
		if id != other && status == http.StatusOK {
			t.Errorf("object %s, whose text yields no vector, is stored", id)
		}
	}
}
