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

// TestMemoryRebuildWeaviateReplicas: without --memory-weaviate-replicas a
// rebuild creates the memory's collection with one replica on each of
// Weaviate's nodes, and says so; a collection that exists
// keeps its factor.
func TestMemoryRebuildWeaviateReplicas(t *testing.T) {
	url := oneObjectWeaviate(t)
	mf := modelFile(t)
	for _, c := range []struct {
		nodes, existing, want int
	}{{1, 0, 1}, {2, 0, 2}, {3, 0, 3}, {5, 0, 5}, {3, 2, 2}} {
		mem, ts := fakeweaviate.New(t)
		mem.Nodes = c.nodes
		if c.existing > 0 {
			code, _, stderr := runCLI(context.Background(), "memory", "rebuild", "--model", mf, "--weaviate", url,
				"--class", "Doc", "--memory-weaviate", ts.URL, "--memory-weaviate-replicas", fmt.Sprint(c.existing))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		code, _, stderr := runCLI(context.Background(), "memory", "rebuild", "--model", mf, "--weaviate", url,
			"--class", "Doc", "--memory-weaviate", ts.URL)
		if code != 0 {
			t.Fatalf("%d nodes: exit %d: %s", c.nodes, code, stderr)
		}
		mem.Mu.Lock()
		factor := fmt.Sprint(mem.Class["replicationConfig"])
		mem.Mu.Unlock()
		if factor != fmt.Sprintf("map[factor:%d]", c.want) {
			t.Errorf("%d nodes, collection of factor %d: replicationConfig %s, want factor %d", c.nodes, c.existing, factor, c.want)
		}
		said := fmt.Sprintf("nodes=%d replicas=%d", c.nodes, c.want)
		if created := c.existing == 0; created != strings.Contains(stderr, said) ||
			strings.Contains(stderr, "keeps its replication factor") {
			t.Errorf("%d nodes, collection of factor %d: want %q in the log only when created, no warning:\n%s",
				c.nodes, c.existing, said, stderr)
		}
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
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--memory-weaviate-replicas", "-1"}, 2,
			"--memory-weaviate-replicas -1: want 0 (one replica on each"},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--memory-weaviate-api-key-file", "/nonexistent/key"}, 1,
			"--memory-weaviate-api-key-file"},
		{[]string{"--class", "Doc", "--memory-weaviate", "http://w:8080", "--module-scopes", "--weaviate", url}, 1,
			"serve's memory (--memory-dir, --memory-weaviate) holds the stock modules'"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "--module-memory", dir}, 2, "2 given"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "--batch", "0"}, 2, "--batch"},
		{[]string{"--class", "Doc", "--memory-dir", dir, "extra"}, 2, "unexpected arguments"},
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

// TestMemoryRebuildRefreshMixed: for a collection with a text2vec-am vector
// and a stock module's, the refresh command a rebuild prints names with
// --vector the vectors of the memory rebuilt (only those), and reads the
// collection as the rebuild did: --lowercase, --weaviate with its password
// redacted, and a note for an API key given on the command line, never the
// key itself.
func TestMemoryRebuildRefreshMixed(t *testing.T) {
	url := oneObjectWeaviateClass(t, `"vectorConfig":{`+
		`"am":{"vectorizer":{"text2vec-am":{}},"vectorIndexType":"hnsw"},`+
		`"tr":{"vectorizer":{"text2vec-transformers":{}},"vectorIndexType":"hnsw"}}`)
	mf := modelFile(t)
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--module-memory", t.TempDir()}, []string{"`text2vec-am refresh --class Doc --weaviate " + url + " --vector am`"},
			[]string{"--vector tr", "--vectorizer"}},
		{[]string{"--memory-dir", t.TempDir()},
			[]string{"`text2vec-am refresh --class Doc --weaviate " + url + " --vector tr --vectorizer URL`"},
			[]string{"--vector am", "API key"}},
		{[]string{"--memory-dir", t.TempDir(), "--vector", "tr", "--lowercase", "--api-key", "s3cret-key"},
			[]string{"--vector tr --lowercase --vectorizer URL`", "refresh needs Weaviate's API key too: set WEAVIATE_API_KEY"},
			[]string{"s3cret-key", "--vector am"}},
	} {
		args := append([]string{"memory", "rebuild", "--model", mf, "--weaviate", url, "--class", "Doc"}, c.args...)
		code, stdout, stderr := runCLI(context.Background(), args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", c.args, code, stderr)
			continue
		}
		checkText(t, fmt.Sprintf("%q: output", c.args), stdout, c.want, c.not)
	}
	// Only the class's text2vec-am vector, named: --vector names it.
	code, stdout, stderr := runCLI(context.Background(), "memory", "rebuild", "--model", mf, "--weaviate", url,
		"--class", "Doc", "--module-memory", t.TempDir(), "--vector", "am")
	if want := "--weaviate " + url + " --vector am`"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("--vector am: exit %d, %s%s; want %s", code, stdout, stderr, want)
	}
	// Credentials in --weaviate: the printed command redacts the password
	// and says so, whatever else its note says.
	withUser := strings.Replace(url, "http://", "http://ann:pa55word@", 1)
	redacted := strings.Replace(url, "http://", "http://ann:xxxxx@", 1)
	for _, mem := range [][]string{{"--module-memory", t.TempDir(), "--vector am`"}, {"--memory-dir", t.TempDir(), "--vectorizer URL`"}} {
		code, stdout, stderr = runCLI(context.Background(), "memory", "rebuild", "--model", mf, "--weaviate", withUser,
			"--class", "Doc", mem[0], mem[1])
		if code != 0 || strings.Contains(stdout, "pa55word") || !strings.Contains(stdout, "--weaviate "+redacted+" ") ||
			!strings.Contains(stdout, mem[2]) || !strings.Contains(stdout, "xxxxx: the password in --weaviate") {
			t.Errorf("%s, --weaviate with a password: exit %d, %s%s; want it redacted and said so", mem[0], code, stdout, stderr)
		}
	}
}
