package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeText is the sentence the README's quick start imports and finds again.
const readmeText = "nftables replaces iptables as the Linux packet filter"

// readmeBlock returns the first fenced block of README.md in language lang
// whose text contains marker, so that the test runs the README's own steps.
func readmeBlock(t *testing.T, repo, lang, marker string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```")
	for _, m := range re.FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], marker) {
			return m[1]
		}
	}
	t.Fatalf("README.md has no ```%s block containing %q", lang, marker)
	return ""
}

// mustReplace replaces old in s, failing when s does not contain it (the
// README changed in a way the test must follow).
func mustReplace(t *testing.T, s, old, replacement string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("README snippet no longer contains %q:\n%s", old, s)
	}
	return strings.ReplaceAll(s, old, replacement)
}

// TestReadmeQuickStart runs the README's steps for a stock Weaviate against a
// real one: text2vec-am serve with the embedded default model, Weaviate with
// text2vec-transformers pointed at it, then the README's curl block and its
// TypeScript snippet (weaviate-client from npm). Only the ports and the
// TypeScript collection's name are changed.
func TestReadmeQuickStart(t *testing.T) {
	e := requireE2E(t)
	tmp := t.TempDir()
	a := startAdapter(t, text2vecAM(t, e.repo), filepath.Join(tmp, "adapter.log"), freePorts(t, 1)[0], nil)
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"),
		newWeaviatePorts(t), []string{"ENABLE_MODULES=text2vec-transformers", "TRANSFORMERS_INFERENCE_API=" + a.url("")})
	host := "localhost:" + strconv.Itoa(w.ports.HTTP)

	t.Run("Curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skipf("no curl: %v", err)
		}
		script := mustReplace(t, readmeBlock(t, e.repo, "sh", "/v1/schema"), "localhost:8080", host)
		out, err := exec.Command("bash", "-euo", "pipefail", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("the README's curl steps: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), `"text":"`+readmeText+`"`) || strings.Contains(string(out), `"error"`) {
			t.Fatalf("the README's nearText query did not find the imported text:\n%s", out)
		}
		checkVectorized(t, w, "Doc")
	})

	t.Run("TypeScript", func(t *testing.T) {
		dir := npmInstall(t, "weaviate-client@3")
		snippet := readmeBlock(t, e.repo, "ts", "weaviate-client")
		snippet = mustReplace(t, snippet, "weaviate.connectToLocal()",
			"weaviate.connectToLocal({ port: "+strconv.Itoa(w.ports.HTTP)+", grpcPort: "+strconv.Itoa(w.ports.GRPC)+" })")
		snippet = mustReplace(t, snippet, "name: 'Doc'", "name: 'DocTs'")
		file := filepath.Join(dir, "readme.mjs")
		if err := os.WriteFile(file, []byte(snippet), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", file)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node %s: %v\n%s\nthe snippet:\n%s", file, err, out, snippet)
		}
		if strings.TrimSpace(string(out)) != readmeText {
			t.Fatalf("the README's TypeScript snippet printed %q, want %q", out, readmeText)
		}
		checkVectorized(t, w, "DocTs")
	})
}

// npmInstall installs pkg into a fresh directory with npm and returns it,
// skipping the test where node or npm is missing or the install fails.
func npmInstall(t *testing.T, pkg string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the TypeScript client needs %s: %v", tool, err)
		}
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install %s failed (no registry?): %v\n%s", pkg, err, tailString(string(out), 2000))
	}
	return dir
}

// checkVectorized checks that the one object of class got a vector (the
// collection's own or its one named vector) of the default model's dimension.
func checkVectorized(t *testing.T, w *weaviateServer, class string) {
	t.Helper()
	var resp struct {
		Objects []struct {
			Vector  []float32            `json:"vector"`
			Vectors map[string][]float32 `json:"vectors"` // named vectors (the clients' default)
		} `json:"objects"`
	}
	status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/objects?include=vector&class="+class), nil, &resp)
	if err != nil || status != http.StatusOK {
		t.Fatalf("list %s: %d %v %s", class, status, err, raw)
	}
	if len(resp.Objects) == 1 && len(resp.Objects[0].Vector) == 0 && len(resp.Objects[0].Vectors) == 1 {
		for _, v := range resp.Objects[0].Vectors {
			resp.Objects[0].Vector = v
		}
	}
	if len(resp.Objects) != 1 || len(resp.Objects[0].Vector) != 200 {
		t.Fatalf("%s: want one object with a 200-dimensional vector, got %s", class, tailString(string(raw), 500))
	}
}
