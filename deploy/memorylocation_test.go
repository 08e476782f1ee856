package deploy

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/text2vec-am/text2vec-am/module"
)

// memoryWeaviateURL is the Weaviate Service that the stateless replicas of
// text2vec-am-serve.yaml keep their memory in (their --memory-weaviate;
// TestStatelessServeManifest checks it is weaviate-helm's Service).
func memoryWeaviateURL(t *testing.T) string {
	t.Helper()
	d := only[*appsv1.Deployment](t, serveObjects(t))
	u := flagValue(t, d.Spec.Template.Spec.Containers[0].Args, "--memory-weaviate")
	if u == "" {
		t.Fatal("text2vec-am-serve.yaml has no --memory-weaviate")
	}
	return u
}

// checkMemoryInWeaviate checks the env of nodes in-process Weaviate nodes,
// as the container sees it: the module keeps its memory in the Weaviate
// Service that text2vec-am-serve.yaml's replicas keep theirs in, replicated
// on every node (the replication factor is the node count and Raft's
// expected voters), with no holder URL or token, and the module accepts it.
//
// Its copies' bound, which must be set (its default follows the module, not
// the node's memory limit), must leave Weaviate room under GOMEMLIMIT:
//
//	2 × TEXT2VEC_AM_MEMORY_WEAVIATE_MAX_BYTES + model ≤ GOMEMLIMIT / 2
//
// Weaviate's own heap (vector index, caches) dominates a node, so the
// module's part may take at most half of the soft limit: its model (measured
// here) and its copies, which may reach twice the bound while a copy is read
// again in full beside the one it replaces.
func checkMemoryInWeaviate(t *testing.T, env map[string]string, nodes int) {
	t.Helper()
	if u, want := env[module.EnvMemoryWeaviate], memoryWeaviateURL(t); u != want {
		t.Errorf("%s=%q, want the Weaviate Service %s (text2vec-am-serve.yaml's --memory-weaviate)",
			module.EnvMemoryWeaviate, u, want)
	}
	if r := env[module.EnvMemoryWeaviateReplicas]; r != strconv.Itoa(nodes) || r != env["RAFT_BOOTSTRAP_EXPECT"] {
		t.Errorf("%s=%q, %d nodes, RAFT_BOOTSTRAP_EXPECT=%q: want the memory replicated on every node",
			module.EnvMemoryWeaviateReplicas, r, nodes, env["RAFT_BOOTSTRAP_EXPECT"])
	}
	for _, k := range []string{module.EnvMemoryURL, module.EnvMemoryToken} {
		if _, ok := env[k]; ok {
			t.Errorf("%s is set: the nodes keep their memory in Weaviate, with no holder", k)
		}
	}
	cfg, err := module.LoadEnvConfig(func(k string) string { return env[k] })
	if err != nil || cfg.Weaviate == nil {
		t.Fatalf("the module does not keep its memory in Weaviate with this env (%v)", err)
	}
	if _, ok := env[module.EnvMemoryWeaviateMaxBytes]; !ok {
		t.Errorf("%s is not set: size the copies for the node's GOMEMLIMIT", module.EnvMemoryWeaviateMaxBytes)
	}
	gml, err := parseGoMemLimit(env["GOMEMLIMIT"])
	if err != nil {
		t.Fatal(err)
	}
	model := modelBytes(t)
	need := 2*cfg.Weaviate.MaxBytes + model
	t.Logf("copies 2 × %d MiB, model %d MiB: %d MiB; GOMEMLIMIT %d MiB", cfg.Weaviate.MaxBytes>>20, model>>20,
		need>>20, gml>>20)
	if need > gml/2 {
		t.Errorf("the module may hold %d MiB (2 × %s + model %d MiB), above half of GOMEMLIMIT (%d MiB): "+
			"lower the bound or raise GOMEMLIMIT and the memory limit", need>>20, module.EnvMemoryWeaviateMaxBytes,
			model>>20, gml>>20)
	}
}

// holderUse returns the YAML block that text2vec-am-memory.yaml's header
// gives the in-process values to use the holder (from its line "env:"),
// and the header.
func holderUse(t *testing.T) (use map[string]any, header string) {
	t.Helper()
	path := filepath.Join(manifestsDir, "text2vec-am-memory.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var block, comment strings.Builder
	in := false
	for line := range strings.Lines(string(data)) {
		body, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		comment.WriteString(body)
		in = in || strings.TrimSpace(body) == "env:"
		if y, ok := strings.CutPrefix(body, "   "); in && ok {
			block.WriteString(y)
		} else if in {
			in = false
		}
	}
	if err := yaml.Unmarshal([]byte(block.String()), &use); err != nil || use["env"] == nil {
		t.Fatalf("%s: no YAML block from \"env:\" in the header (%v)", path, err)
	}
	return use, comment.String()
}

// TestHelmRenderInProcessWithHolder renders the in-process values changed
// as text2vec-am-memory.yaml's header says for the holder (no variable of
// the memory kept in Weaviate; its block of env and envSecrets): the module
// then reads the holder's Service URL and its token from the Secret the
// holder reads it from, and keeps no memory in Weaviate.
func TestHelmRenderInProcessWithHolder(t *testing.T) {
	use, header := holderUse(t)
	if !strings.Contains(header, module.EnvMemoryWeaviate) {
		t.Errorf("the holder's header does not say to remove %s from the in-process values", module.EnvMemoryWeaviate)
	}
	values := readDocs(t, inProcessValues)[0]
	env := get(t, values, "env").(map[string]any)
	maps.DeleteFunc(env, func(k string, _ any) bool { return strings.HasPrefix(k, module.EnvMemoryWeaviate) })
	maps.Copy(env, get(t, use, "env").(map[string]any))
	values["envSecrets"] = use["envSecrets"]
	data, err := yaml.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "weaviate-values-holder.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, c := weaviateContainer(t, renderChart(t, path))
	for _, p := range envProblems(c.Env, map[string]string{module.EnvMemoryURL: holderURL(t)}) {
		t.Error(p)
	}
	secret, key := holderTokenSecret(t)
	if ref := secretRef(c.Env, module.EnvMemoryToken); ref == nil || ref.Name != secret || ref.Key != key {
		t.Errorf("%s is not set from the holder's Secret %s (key %s)", module.EnvMemoryToken, secret, key)
	}
	m := envMap(c.Env)
	cfg, err := module.LoadEnvConfig(func(k string) string { return m[k] })
	if err != nil || cfg.MemoryURL != holderURL(t) || cfg.Weaviate != nil {
		t.Errorf("the module reads memory URL %q, memory in Weaviate %v (%v): want the holder alone",
			cfg.MemoryURL, cfg.Weaviate != nil, err)
	}
}

// holderTokenSecret returns the Secret and key the holder reads its token from.
func holderTokenSecret(t *testing.T) (name, key string) {
	t.Helper()
	sts := only[*appsv1.StatefulSet](t, holderObjects(t))
	for _, v := range sts.Spec.Template.Spec.Volumes {
		if s := v.Secret; s != nil && len(s.Items) == 1 {
			return s.SecretName, s.Items[0].Key
		}
	}
	t.Fatal("the holder mounts no Secret of one key")
	return "", ""
}
