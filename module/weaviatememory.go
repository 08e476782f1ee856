package module

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// Environment variables of the context memory kept in Weaviate.
const (
	// EnvMemoryWeaviate is the URL of a Weaviate that keeps the context
	// memory of the whole cluster (package weaviatemem; usually this
	// cluster, e.g. http://weaviate:8080): every node reads and teaches it
	// and keeps none of its own. Exclusive with EnvMemoryDir.
	EnvMemoryWeaviate = "TEXT2VEC_AM_MEMORY_WEAVIATE"
	// EnvMemoryWeaviateClass is the collection holding it (default Text2vecAmMemory).
	EnvMemoryWeaviateClass = "TEXT2VEC_AM_MEMORY_WEAVIATE_CLASS"
	// EnvMemoryWeaviateReplicas is the replication factor the collection is
	// created with (1 … 64); unset or 0: one replica on each of the nodes
	// Weaviate lists. An existing collection keeps its own.
	EnvMemoryWeaviateReplicas = "TEXT2VEC_AM_MEMORY_WEAVIATE_REPLICAS"
	// EnvMemoryWeaviateAPIKey is the API key sent to it ("" for none).
	EnvMemoryWeaviateAPIKey = "TEXT2VEC_AM_MEMORY_WEAVIATE_API_KEY"
	// EnvMemoryWeaviateMaxBytes bounds the RAM of a node's copies of its
	// scopes together, in bytes (default weaviatemem.DefaultMaxBytes, 1 GiB;
	// at least 1 MiB): past it the least recently used are dropped.
	EnvMemoryWeaviateMaxBytes = "TEXT2VEC_AM_MEMORY_WEAVIATE_MAX_BYTES"
	// EnvMemoryWeaviateMaxScopes bounds the copies a node keeps (default
	// and most memory.MaxCollections, 1,024). The module only: serve keeps
	// the copies of the scopes it is asked for, at most 1,024, and has no
	// flag of this name.
	EnvMemoryWeaviateMaxScopes = "TEXT2VEC_AM_MEMORY_WEAVIATE_MAX_SCOPES"
)

// loadWeaviate reads the settings of the memory kept in Weaviate into
// cfg.Weaviate (nil without EnvMemoryWeaviate).
func (cfg *EnvConfig) loadWeaviate(getenv func(string) string) error {
	url := strings.TrimSpace(getenv(EnvMemoryWeaviate))
	if url == "" {
		return nil
	}
	if strings.TrimSpace(getenv(EnvMemoryDir)) != "" {
		return fmt.Errorf("environment variables %s and %s are both set: a node keeps its memory in Weaviate or elsewhere",
			EnvMemoryWeaviate, EnvMemoryDir)
	}
	o := &weaviatemem.Options{URL: url, Class: strings.TrimSpace(getenv(EnvMemoryWeaviateClass)),
		APIKey: strings.TrimSpace(getenv(EnvMemoryWeaviateAPIKey)), Timeout: cfg.MemoryTimeout,
		Memory: memory.DefaultOptions(), SharedCounts: true}
	var replicas, maxScopes int64
	for _, n := range []struct {
		env   string
		into  *int64
		least int64
		what  string
	}{
		{EnvMemoryWeaviateReplicas, &replicas, 0, "a replication factor ≥ 1, or 0 for one replica on each of Weaviate's nodes"},
		{EnvMemoryWeaviateMaxBytes, &o.MaxBytes, 1, fmt.Sprintf("a number of bytes ≥ %d (1 MiB)", weaviatemem.MinMaxBytes)},
		{EnvMemoryWeaviateMaxScopes, &maxScopes, 1, "a number of copies ≥ 1"},
	} {
		if s := strings.TrimSpace(getenv(n.env)); s != "" {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < n.least {
				return fmt.Errorf("environment variable %s=%q: want %s", n.env, s, n.what)
			}
			*n.into = v
		}
	}
	o.Replicas, o.MaxScopes = int(min(replicas, math.MaxInt32)), int(min(maxScopes, math.MaxInt32))
	if err := o.Check(); err != nil {
		return fmt.Errorf("environment variable %s: %w", weaviateEnv(err), err)
	}
	cfg.Weaviate = o
	return nil
}

// weaviateEnv names the environment variable of the option a
// weaviatemem.OptionError is about.
func weaviateEnv(err error) string {
	var oe *weaviatemem.OptionError
	if errors.As(err, &oe) {
		switch oe.Option {
		case "Class":
			return EnvMemoryWeaviateClass
		case "Replicas":
			return EnvMemoryWeaviateReplicas
		case "APIKey":
			return EnvMemoryWeaviateAPIKey
		case "MaxBytes":
			return EnvMemoryWeaviateMaxBytes
		case "MaxScopes":
			return EnvMemoryWeaviateMaxScopes
		case "Timeout":
			return EnvMemoryWeaviateTimeout
		}
	}
	return EnvMemoryWeaviate
}

// openWeaviate opens the memory kept in Weaviate: the shared scope (what
// hybrid search reads) at once, the collections' and tenants' scopes as
// they are used.
func (m *Module) openWeaviate(o weaviatemem.Options) error {
	o.Logger = slog.Default().With("module", Name)
	store, err := weaviatemem.Open(o, "")
	if err != nil {
		return fmt.Errorf("init %s: %s: %w", Name, EnvMemoryWeaviate, err)
	}
	m.remote = store
	return nil
}

// scopeOf names the memory of tenant of collection in the memory kept in
// Weaviate: "" (hybrid search, whose collection is not known), "Class" or
// "Class/tenant".
func scopeOf(collection, tenant string) string {
	if collection == "" || tenant == "" {
		return collection
	}
	return collection + "/" + tenant
}

// vectorizeRemote vectorizes texts as task over the memory kept in
// Weaviate of the collection and ctx's tenant.
func (m *Module) vectorizeRemote(ctx context.Context, collection string, texts []string, task vectorizer.Task,
	opts vectorizer.Options) ([][]float32, []error, error) {
	vecs, errs, err := m.remote.VectorizeBatch(ctx, m.vec, scopeOf(collection, tenantOf(ctx)), texts, task, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (%s)", Name, err, EnvMemoryWeaviate)
	}
	return vecs, errs, nil
}

// deleteRemote deletes the memory of tenant of collection (tenant "": of the
// collection and all its tenants) from Weaviate.
func (m *Module) deleteRemote(collection, tenant string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.remote.Delete(ctx, collection, tenant); err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	return nil
}

// remoteInfo is what MetaInfo says of the memory kept in Weaviate.
func (m *Module) remoteInfo() map[string]any {
	st := m.remote.Stats()
	return map[string]any{"backend": st.Backend, "weaviate": st.Remote, "words": st.Memory.Words,
		"contexts": st.Memory.Contexts, "passages": st.Memory.Passages}
}
