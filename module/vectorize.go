package module

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/jsonmsg"
)

// loadRequests reads the bound of a request to the memory kept in Weaviate
// and the switch of the diagnostic endpoint.
func (cfg *EnvConfig) loadRequests(getenv func(string) string) error {
	cfg.MemoryTimeout = 30 * time.Second
	name, s := EnvMemoryWeaviateTimeout, strings.TrimSpace(getenv(EnvMemoryWeaviateTimeout))
	if old := strings.TrimSpace(getenv(EnvMemoryTimeoutDeprecated)); old != "" {
		if s == "" {
			name, s = EnvMemoryTimeoutDeprecated, old
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("environment variable %s is deprecated: set %s instead",
				EnvMemoryTimeoutDeprecated, EnvMemoryWeaviateTimeout))
		} else {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("environment variable %s is deprecated and ignored: %s is set",
				EnvMemoryTimeoutDeprecated, EnvMemoryWeaviateTimeout))
		}
	}
	if s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("environment variable %s=%q: want a positive duration such as 30s", name, s)
		}
		cfg.MemoryTimeout = d
	}
	if s := strings.TrimSpace(getenv(EnvVectorsEndpoint)); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("environment variable %s=%q: want true or false", EnvVectorsEndpoint, s)
		}
		cfg.VectorsEndpoint = b
	}
	return nil
}

// classKey carries the collection a nearText search runs on to Texts.
type classKey struct{}

// withClass wraps the searches so that Texts knows the collection searched
// (Weaviate passes the class name to searches but not to Texts).
func withClass(searches map[string]modulecapabilities.VectorForParams[[]float32]) map[string]modulecapabilities.VectorForParams[[]float32] {
	out := make(map[string]modulecapabilities.VectorForParams[[]float32], len(searches))
	for name, fn := range searches {
		out[name] = func(ctx context.Context, params any, className string, find modulecapabilities.FindVectorFn[[]float32], cfg moduletools.ClassConfig) ([]float32, error) {
			return fn(context.WithValue(ctx, classKey{}, className), params, className, find, cfg)
		}
	}
	return out
}

// classOf returns the collection a search runs on ("" when unknown: hybrid
// search does not say).
func classOf(ctx context.Context) string {
	s, _ := ctx.Value(classKey{}).(string)
	return s
}

// vectorizeTexts vectorizes texts as task for collection: against the
// cluster's memory kept in Weaviate when one is configured, else locally.
// err is the error of the whole call (the memory kept in Weaviate
// unreachable).
func (m *Module) vectorizeTexts(ctx context.Context, collection string, texts []string, task vectorizer.Task, opts vectorizer.Options) ([][]float32, []error, error) {
	if err := m.checkNotOwn(collection); err != nil {
		return nil, nil, err
	}
	if m.remote != nil {
		return m.vectorizeRemote(ctx, collection, texts, task, opts)
	}
	v, err := m.collectionVectorizer(collection, tenantOf(ctx), task == vectorizer.TaskPassage)
	if err != nil {
		return nil, nil, err
	}
	vecs, errs := v.VectorizeBatchContext(ctx, texts, task, opts)
	return vecs, errs, nil
}

// errOwnCollection is the error of a collection that holds text2vec-am's
// own data (the context memory kept in Weaviate, the witnesses).
var errOwnCollection = errors.New("holds text2vec-am's own data and is never vectorized")

// checkNotOwn refuses to vectorize for a collection that holds the memory
// kept in Weaviate or the witnesses: such a collection with text2vec-am as
// its vectorizer was made by Weaviate's auto-schema (with
// DEFAULT_VECTORIZER_MODULE=text2vec-am), and vectorizing the memory's own
// objects would teach the memory as it is written.
func (m *Module) checkNotOwn(collection string) error {
	class := ""
	if m.env.Weaviate != nil {
		class = m.env.Weaviate.Class
	}
	if !weaviatemem.OwnCollection(collection, class) {
		return nil
	}
	return fmt.Errorf("%s: collection %s %w: Weaviate's auto-schema created it with the default vectorizer, "+
		"from a write that reached Weaviate after the collection was deleted; delete it "+
		"(curl -X DELETE http://WEAVIATE:8080/v1/schema/%s) and rebuild the memory "+
		"(docs/operations.md, \"A lost memory is refused\")", Name, collection, errOwnCollection, collection)
}

// tenantKey carries the tenant of the objects or the search to vectorizeTexts.
type tenantKey struct{}

// withTenant returns ctx carrying tenant ("" for none).
func withTenant(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// tenantOf returns the tenant ctx carries ("" for none).
func tenantOf(ctx context.Context) string {
	s, _ := ctx.Value(tenantKey{}).(string)
	return s
}

// collectionVectorizer returns the vectorizer of tenant of collection on a
// node with a memory of its own: it reads and teaches the contexts and
// passage counts of that collection and tenant only (memory.Collections),
// and counts passages in the node's shared counts too. teach opens the
// collection's memory on first use; a query never creates it (and reads an
// empty memory until one exists). With no collection named, or no memory, m.vec.
func (m *Module) collectionVectorizer(collection, tenant string, teach bool) (*vectorizer.Vectorizer, error) {
	if collection == "" || m.mem == nil || m.colls == nil {
		return m.vec, nil
	}
	find := m.colls.FindTenant
	if teach {
		find = m.colls.GetTenant
	}
	coll, err := find(collection, tenant)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	var store vectorizer.ContextStore = m.empty
	if coll != nil {
		store = coll
	}
	v, err := m.vec.WithStores(store, memory.CollectionCounts{Collection: coll, Shared: m.mem}, m.scopeCache(collection, tenant))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return v, nil
}

// scopeCache returns the cache of AM vectors of tenant of collection: each
// memory numbers its versions from zero, so a cache is never shared.
func (m *Module) scopeCache(collection, tenant string) *vectorizer.Cache {
	key := collection + "/" + tenant
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	c := m.caches[key]
	if c == nil {
		if len(m.caches) >= memory.MaxCollections {
			clear(m.caches) // more scopes than memories kept open: start over
		}
		c = vectorizer.NewCache()
		m.caches[key] = c
	}
	return c
}

// DeleteMemory deletes the contexts and passage counts kept for tenant of
// collection, or for tenant "" of the collection and all its tenants.
// Weaviate v1.39.0 does not tell a module when it deletes a collection or a
// tenant, so nothing in it calls this: an embedding program may, and
// operators run text2vec-am memory delete.
func (m *Module) DeleteMemory(collection, tenant string) error {
	if m.colls == nil && m.remote == nil {
		return nil
	}
	collection, err := memory.CollectionName(collection)
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	if m.remote != nil {
		return m.deleteRemote(collection, tenant)
	}
	m.cacheMu.Lock()
	for key := range m.caches {
		if key == collection+"/"+tenant || (tenant == "" && strings.HasPrefix(key, collection+"/")) {
			delete(m.caches, key)
		}
	}
	m.cacheMu.Unlock()
	if err := m.colls.Delete(collection, tenant); err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	return nil
}

// maxVectorBytes bounds the body of the module's POST /vectors.
const maxVectorBytes = 1 << 20

// serveVector answers POST /v1/modules/text2vec-am/vectors when
// TEXT2VEC_AM_VECTORS_ENDPOINT is on: {"text","collection"} → {"vector"},
// the vector nearText on collection would search with on this node.
func (m *Module) serveVector(w http.ResponseWriter, r *http.Request, held *hold) {
	if !m.env.VectorsEndpoint {
		held.release()
		http.Error(w, `{"error":"the vectors endpoint is off (`+EnvVectorsEndpoint+`)"}`, http.StatusNotFound)
		return
	}
	var req struct {
		Text       string `json:"text"`
		Collection string `json:"collection"`
	}
	if status, err := decodeBody(r, &req, []string{"text", "collection"}); err != nil {
		held.fail(w, status, err)
		return
	}
	collection, err := checkCollection(req.Collection)
	if err != nil {
		held.fail(w, http.StatusBadRequest, err)
		return
	}
	vecs, errs, err := m.vectorizeHeld(r.Context(), held, collection, []string{req.Text}, m.env.Defaults)
	switch {
	case errors.Is(err, errOwnCollection):
		held.fail(w, http.StatusBadRequest, fmt.Errorf("field \"collection\": %w", err))
		return
	case err != nil: // busy, the memory cannot be read now, or the work was stopped
		held.fail(w, http.StatusServiceUnavailable, err)
		return
	case errs[0] != nil: // the text's own error
		held.fail(w, http.StatusUnprocessableEntity, errs[0])
		return
	}
	held.answer(w, map[string]any{"vector": vecs[0]})
}

// decodeBody decodes the body of r (admitted: read and bounded) into dst (a
// pointer to the request's struct, whose JSON fields are fields) strictly:
// unknown fields and data after the JSON value are errors. It returns the
// HTTP status to answer an error with: 413 for a batch of too many texts,
// else 400.
func decodeBody(r *http.Request, dst any, fields []string) (int, error) {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err != nil {
		err = jsonmsg.Describe(err, dst, fields)
	} else {
		err = jsonmsg.End(dec)
	}
	switch {
	case err == nil:
		return 0, nil
	case errors.Is(err, errTooManyTexts):
		return http.StatusRequestEntityTooLarge, errTooManyTexts
	}
	return http.StatusBadRequest, err
}

// checkCollection returns the collection a "collection" field names, as
// Weaviate names it (memory.CollectionName: "books" is "Books", the name
// Weaviate sends for the class), "" for none; it refuses, before any work, a
// name that is no Weaviate class name: the endpoints answer it with 400.
func checkCollection(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	name, err := memory.CollectionName(name)
	if err != nil {
		return "", fmt.Errorf("field \"collection\": %w", err)
	}
	return name, nil
}

func writeModuleError(w http.ResponseWriter, status int, err error) {
	if errors.Is(err, errBusy) {
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}
