package command_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// oneObjectWeaviate answers a rebuild's calls for class Doc, vectorized by
// text2vec-transformers, with one object.
func oneObjectWeaviate(t *testing.T) string {
	return oneObjectWeaviateClass(t, `"vectorizer":"text2vec-transformers"`)
}

// oneObjectWeaviateClass is oneObjectWeaviate with vectorizer, the class's
// vectorizer and its module settings (JSON members).
func oneObjectWeaviateClass(t *testing.T, vectorizer string) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/schema/Doc":
			io.WriteString(w, `{"class":"Doc",`+vectorizer+`,"properties":[{"name":"body","dataType":["text"]}]}`)
		case r.URL.Path == "/v1/objects" && r.URL.Query().Get("after") == "":
			io.WriteString(w, `{"objects":[{"id":"00000000-0000-0000-0000-000000000001","class":"Doc",`+
				`"properties":{"body":"f1 r2 zorblax f3. f4 zorblax f5"}}]}`)
		case r.URL.Path == "/v1/objects":
			io.WriteString(w, `{"objects":[]}`)
		default:
			http.Error(w, `{"error":"no such class"}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestMemoryRebuildCommand(t *testing.T) {
	url := oneObjectWeaviate(t)
	mf := modelFile(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(context.Background(), "memory", "rebuild", "--model", mf, "--weaviate", url, "--class", "Doc", "--memory-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"read 1 objects of Doc", "taught 1 texts", "1 passages newly counted",
		"`text2vec-am refresh --class Doc --weaviate " + url + " --vectorizer URL`",
		"(URL: the text2vec-am server that text2vec-transformers calls for class Doc"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	if code != 0 || !strings.Contains(stdout, `"passages": 1`) {
		t.Errorf("memory stats after a rebuild (exit %d):\n%s", code, stdout)
	}
}

func TestMemoryRebuildWeaviateCommand(t *testing.T) {
	url := oneObjectWeaviate(t)
	mf := modelFile(t)
	mem, ts := fakeweaviate.New(t)
	args := []string{"memory", "rebuild", "--model", mf, "--weaviate", url, "--class", "Doc", "--memory-weaviate", ts.URL,
		"--memory-weaviate-timeout", "5s", "--memory-weaviate-replicas", "3"}
	code, stdout, stderr := runCLI(context.Background(), args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mem.Mu.Lock()
	factor := fmt.Sprint(mem.Class["replicationConfig"])
	mem.Mu.Unlock()
	if factor != "map[factor:3]" {
		t.Errorf("the memory's collection was created with replicationConfig %s, want factor 3", factor)
	}
	n := mem.Count("_shared")
	for _, want := range []string{"taught 1 texts", fmt.Sprintf("%d objects written", n), `scope "" (tenant _shared`} {
		if n == 0 || !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q (%d objects in the fake):\n%s", want, n, stdout)
		}
	}
	code, stdout, stderr = runCLI(context.Background(), args...)
	if code != 0 || !strings.Contains(stdout, " 0 objects written") || mem.Count("_shared") != n {
		t.Errorf("a second rebuild (exit %d) wrote objects: %d, was %d:\n%s%s", code, mem.Count("_shared"), n, stdout, stderr)
	}
}

func TestMemoryRebuildErrors(t *testing.T) {
	url := oneObjectWeaviate(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--memory-dir", dir}, 2, "--class is required"},
		{[]string{"--class", "Doc"}, 2, "exactly one of --memory-dir"},
		{[]string{"--class", "Doc"}, 2, "or --memory-weaviate (the memory kept in Weaviate); 0 given"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "--memory-weaviate", "http://w:8080"}, 2, "2 given"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "--module-scopes"}, 2, "--module-scopes names scopes"},
		{[]string{"--class", "Doc", "--memory-weaviate", "w:8080"}, 2, "--memory-weaviate: "},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--memory-weaviate-class", "lower"}, 2,
			"--memory-weaviate-class: "},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--memory-weaviate-timeout", "0s"}, 2,
			"--memory-weaviate-timeout 0s"},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--memory-weaviate-replicas", "0"}, 2,
			"--memory-weaviate-replicas 0: want ≥ 1"},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--memory-weaviate-api-key-file", "/nonexistent/key"}, 1,
			"--memory-weaviate-api-key-file"},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--module-scopes", "--weaviate", url}, 1,
			"serve's memory (--memory-dir, --memory-weaviate) holds the stock modules'"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "--module-memory", dir}, 2, "2 given"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "--batch", "0"}, 2, "--batch"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "extra"}, 2, "no arguments"},
		{[]string{"--class", "Nope", "--memory-dir", dir, "--weaviate", url}, 1, "class Nope"},
		{[]string{"--class", "Doc", "--module-memory", dir, "--weaviate", url}, 1, "--memory-dir"},
	} {
		code, _, stderr := runCLI(context.Background(), append([]string{"memory", "rebuild"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, stderr)
		}
	}
}

// TestMemoryRebuildRefreshVectorizer: the refresh command a rebuild prints
// names the text2vec-am server that the collection's settings give its
// stock module.
func TestMemoryRebuildRefreshVectorizer(t *testing.T) {
	url := oneObjectWeaviateClass(t, `"vectorizer":"text2vec-openai","moduleConfig":{"text2vec-openai":{"baseURL":"http://t2v-am:8880"}}`)
	code, stdout, stderr := runCLI(context.Background(), "memory", "rebuild", "--model", modelFile(t), "--weaviate", url,
		"--class", "Doc", "--memory-dir", t.TempDir())
	want := "`text2vec-am refresh --class Doc --weaviate " + url + " --vectorizer http://t2v-am:8880`"
	if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "as Weaviate reaches it") {
		t.Errorf("exit %d, %s%s; want %s", code, stdout, stderr, want)
	}
	// The in-process module's vectors: refresh calls Weaviate's endpoint of the module.
	url = oneObjectWeaviateClass(t, `"vectorizer":"text2vec-am"`)
	code, stdout, stderr = runCLI(context.Background(), "memory", "rebuild", "--model", modelFile(t), "--weaviate", url,
		"--class", "Doc", "--module-memory", t.TempDir())
	want = "`text2vec-am refresh --class Doc --weaviate " + url + "`"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("the in-process module: exit %d, %s%s; want %s", code, stdout, stderr, want)
	}
}
