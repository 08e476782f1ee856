package deploy

import (
	"strconv"
	"testing"

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
// expected voters), and the module accepts it.
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
