// Package deploy holds the deployment files (deploy/kubernetes) and the tests
// that check them against the binary and the Kubernetes API: the stateless
// replicas' arguments start a real `text2vec-am serve` and its probes
// answer; every manifest decodes strictly into the API types; its memory
// limit holds what its settings let it keep; and the Weaviate values,
// rendered with weaviate-helm's templates, have settings the module accepts:
// the in-process nodes keep their memory in Weaviate.
package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/text2vec-am/text2vec-am/adapter/command"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/module"
)

// readDocs parses every YAML document of path.
func readDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, len(docs)+1, err)
		}
		docs = append(docs, d)
	}
}

// get walks keys (string map keys, int list indexes) into v.
func get(t *testing.T, v any, keys ...any) any {
	t.Helper()
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("no key %q in %v (path %v)", k, v, keys)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("no item %d in %v (path %v)", k, v, keys)
			}
			v = l[k]
		}
	}
	return v
}

func kind(t *testing.T, docs []map[string]any, k string) map[string]any {
	t.Helper()
	for _, d := range docs {
		if d["kind"] == k {
			return d
		}
	}
	t.Fatalf("no %s in the manifest", k)
	return nil
}

// flagValue returns the value after flag in args ("" if absent).
func flagValue(t *testing.T, args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// testToken is the token runServe gives a manifest's --auth-token-file.
const testToken = "deploy-test-token"

// runServe runs `text2vec-am serve` with args (address and memory directory
// moved to loopback and a temporary directory; --memory-weaviate to the URL
// weaviate) and checks that every probe path answers and that /meta says the
// memory is kept in Weaviate and read.
func runServe(t *testing.T, args, probes []string, weaviate string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args = append([]string(nil), args...)
	for i := range args {
		switch {
		case i > 0 && args[i-1] == "--addr":
			args[i] = addr
		case i > 0 && args[i-1] == "--memory-dir":
			args[i] = filepath.Join(t.TempDir(), "memory")
		case i > 0 && args[i-1] == "--memory-weaviate":
			args[i] = weaviate
		case i > 0 && args[i-1] == "--auth-token-file":
			args[i] = filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(args[i], []byte(testToken+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	var serve func(context.Context, cli.Env) error
	for _, c := range command.Commands() {
		if c.Name == "serve" {
			serve = c.Run
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() { done <- serve(ctx, cli.Env{Args: args, Stdout: io.Discard, Stderr: &stderr}) }()
	exited := false
	defer func() {
		cancel()
		if exited {
			return
		}
		if err := <-done; err != nil {
			t.Errorf("serve %v: %v\n%s", args, err, stderr.String())
		}
	}()
	base := "http://" + addr
	deadline := time.Now().Add(time.Minute)
	for _, p := range probes {
		for {
			resp, err := http.Get(base + p)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					break
				}
			}
			select {
			case err := <-done:
				exited = true
				t.Fatalf("serve %v exited: %v\n%s", args, err, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("probe %s does not answer 2xx: %v", p, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	checkWeaviateMeta(t, base)
}

// checkWeaviateMeta checks that the server at base keeps its memory in
// Weaviate and has read it.
func checkWeaviateMeta(t *testing.T, base string) {
	t.Helper()
	var meta struct {
		Memory struct {
			Backend  string `json:"backend"`
			Weaviate struct {
				State    string `json:"state"`
				Replicas int    `json:"replicas"`
			} `json:"weaviate"`
		} `json:"memory"`
	}
	resp, err := http.Get(base + "/meta")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta.Memory.Backend != "weaviate" || meta.Memory.Weaviate.State != "ready" {
		t.Errorf("/meta memory %+v (%v): want backend weaviate, ready", meta.Memory, err)
	}
}

// serveURL is the URL the Weaviate nodes reach the stateless replicas at.
func serveURL(t *testing.T) string {
	docs := readDocs(t, filepath.Join("kubernetes", "text2vec-am-serve.yaml"))
	svc := kind(t, docs, "Service")
	return fmt.Sprintf("http://%v:%v", get(t, svc, "metadata", "name"), get(t, svc, "spec", "ports", 0, "port"))
}

// TestWeaviateValues checks both sets of Helm values: three nodes, Raft
// expecting all three, and the memory kept in Weaviate (in-process, as
// checkMemoryInWeaviate wants) or the URL of the stateless replicas (stock).
func TestWeaviateValues(t *testing.T) {
	for _, f := range []string{"weaviate-values-inprocess.yaml", "weaviate-values-stock.yaml"} {
		t.Run(f, func(t *testing.T) {
			v := readDocs(t, filepath.Join("kubernetes", f))[0]
			replicas := get(t, v, "replicas")
			if replicas != 3 || get(t, v, "env", "RAFT_BOOTSTRAP_EXPECT") != replicas {
				t.Errorf("replicas %v, RAFT_BOOTSTRAP_EXPECT %v: want 3 and 3", replicas, get(t, v, "env", "RAFT_BOOTSTRAP_EXPECT"))
			}
			if tag := fmt.Sprint(get(t, v, "image", "tag")); tag != "1.39.0" {
				t.Errorf("image tag %q: text2vec-am targets Weaviate 1.39.0", tag)
			}
			env := map[string]string{}
			for k, val := range get(t, v, "env").(map[string]any) {
				env[k] = fmt.Sprint(val)
			}
			if f == "weaviate-values-stock.yaml" {
				if u := get(t, v, "modules", "text2vec-transformers", "inferenceUrl"); u != serveURL(t) {
					t.Errorf("text2vec-transformers inferenceUrl %v, want the stateless replicas %s", u, serveURL(t))
				}
				if env["TRANSFORMERS_WAIT_FOR_STARTUP"] != "false" {
					t.Error("the stock nodes wait for the vectorizer at their start, which waits for them: want TRANSFORMERS_WAIT_FOR_STARTUP false")
				}
				return
			}
			if env["ENABLE_MODULES"] != module.Name {
				t.Errorf("ENABLE_MODULES %q, want %s", env["ENABLE_MODULES"], module.Name)
			}
			// weaviate-helm writes DEFAULT_VECTORIZER_MODULE from its own key, after env.
			if d, ok := env["DEFAULT_VECTORIZER_MODULE"]; ok {
				t.Errorf("env sets DEFAULT_VECTORIZER_MODULE=%s: the chart sets it again from modules.default_vectorizer_module", d)
			}
			if d := get(t, v, "modules", "default_vectorizer_module"); d != module.Name {
				t.Errorf("modules.default_vectorizer_module %v, want %s", d, module.Name)
			}
			if n, ok := replicas.(int); ok {
				checkMemoryInWeaviate(t, env, n)
			}
		})
	}
}
