package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

// TestErrorsNameTheCommandOnce runs every command, the subcommands of every
// group included, with inputs that fail early (an unknown flag, no
// arguments, an unexpected argument, a missing file, a required flag left
// out, a Weaviate that does not answer) and checks that the error, after the
// "text2vec-am memory stats: " cli.Main prints, does not name the command
// again ("memory stats: memory stats: …", "rebuild: rebuild: …").
func TestErrorsNameTheCommandOnce(t *testing.T) {
	in := failingInputs(t)
	seen := map[string]bool{}
	var walk func(path []string, prefix string, cmds []cli.Command)
	walk = func(path []string, prefix string, cmds []cli.Command) {
		for _, c := range cmds {
			p, name := append(slices.Clone(path), c.Name), prefix+c.Name // name: "memory stats"
			if len(c.Subcommands) > 0 {
				walk(p, name+" ", c.Subcommands)
				continue
			}
			seen[name] = true
			runs := [][]string{{"--no-such-flag"}}
			if own, ok := in[name]; ok {
				runs = append(runs, own...)
			} else {
				runs = append(runs, nil, []string{"unexpected-arg"})
			}
			for _, args := range runs {
				var out, errb bytes.Buffer
				argv := append(slices.Clone(p), args...)
				code := cli.Main(context.Background(), "text2vec-am", commands(), argv, &out, &errb)
				if code == 0 {
					t.Errorf("text2vec-am %s %q: exit 0; want a failure", name, args)
				}
				if bad := repeatedName(p, errb.String()); bad != "" {
					t.Errorf("text2vec-am %s %q names the command twice (%q):\n%s", name, args, bad, errb.String())
				}
			}
		}
	}
	walk(nil, "", commands())
	for name := range in {
		if !seen[name] {
			t.Errorf("failing inputs for %q, which is no command", name)
		}
	}
}

// failingInputs returns, by command path, the argument lists that make the
// command fail early, for the commands that no arguments or an unexpected
// one would not make fail, or would make fail before reading anything.
func failingInputs(t *testing.T) map[string][][]string {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	weaviate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/ready" {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(weaviate.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	onePair := filepath.Join(dir, "one-pair.txt")
	truncated := filepath.Join(dir, "truncated.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("one passage\nand another\n"))
	zw.Close()
	for name, data := range map[string][]byte{onePair: []byte("word\tother\t5\n"), truncated: gz.Bytes()[:gz.Len()/2]} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	memoryRead := [][]string{nil, {"unexpected-arg"}, {"--memory-dir", missing}, {"--memory-dir", dir, "unexpected-arg"}}
	return map[string][][]string{
		"serve":       {{"unexpected-arg"}},
		"demo":        {{"unexpected-arg"}, {"--model", missing}},
		"nn":          {{"--model", missing, "word"}},
		"version":     {{"unexpected-arg"}},
		"infer":       {{"unexpected-arg"}, {"--input", missing}},
		"export":      {nil, {"unexpected-arg"}, {"--model", missing, "--out", filepath.Join(dir, "out.txt")}},
		"healthcheck": {{"unexpected-arg"}, {"--url", weaviate.URL + "/.well-known/ready"}, {"--url", closed.URL}},
		"refresh":     {nil, {"unexpected-arg"}, {"--class", "Doc", "--weaviate", weaviate.URL}},
		"memory warm": {nil, {"--memory-dir", dir}, {"--memory-dir", dir, missing},
			{"--memory-dir", filepath.Join(dir, "warm"), truncated}},
		"memory rebuild": {nil, {"unexpected-arg"},
			{"--class", "Doc", "--weaviate", weaviate.URL, "--memory-dir", filepath.Join(dir, "rebuild")}},
		"memory stats":  memoryRead,
		"memory check":  memoryRead,
		"memory export": memoryRead,
		"memory clear":  {nil, {"--memory-dir", dir}, {"--memory-dir", dir, "unexpected-arg"}},
		"memory delete": {nil, {"unexpected-arg"}, {"--module-memory", dir, "--class", "Doc"},
			{"--module-memory", missing, "--class", "Doc", "--yes"}},
		"eval rare-pairs": {nil, {onePair, missing}, {onePair, dir}},
		"eval rare-dev":   {nil, {missing, "--corpus", missing, "--out", filepath.Join(dir, "dev")}},
		"eval vecmap":     {nil, {"--corpus", missing, "--work-dir", filepath.Join(dir, "vecmap")}},
		"eval sentiment":  {nil, {"unexpected-arg"}, {"--semeval", missing, "--embeddings", missing}},
	}
}
