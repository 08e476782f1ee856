package weaviatemem

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeWeaviate answers the calls a Store makes as Weaviate v1.39 does: the
// schema, tenants, batches, the cursor and the two GraphQL queries.
type fakeWeaviate struct {
	t  testing.TB
	mu sync.Mutex
	// class is the class definition, nil until created.
	class   map[string]any
	tenants map[string]map[string]*fakeObject // tenant → id → object
	now     int64                             // the clock of creation times (ms), advanced by each batch
	// failing answers the next calls whose path starts with failPath with failStatus.
	failing    int
	failPath   string
	failStatus int
	// ignoreAfter lists the first page whatever "after" says.
	ignoreAfter bool
	// auth is the Authorization header of the last call.
	auth  string
	calls map[string]int // by path
}

type fakeObject struct {
	ID    string
	Props map[string]any
	Time  int64
}

func newFake(t testing.TB) (*fakeWeaviate, *httptest.Server) {
	f := &fakeWeaviate{t: t, tenants: map[string]map[string]*fakeObject{}, now: 1_700_000_000_000, calls: map[string]int{}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return f, ts
}

// fail makes the next n calls under path answer status.
func (f *fakeWeaviate) fail(path string, n, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failPath, f.failing, f.failStatus = path, n, status
}

// put stores an object as another writer would, created at time t.
func (f *fakeWeaviate) put(tenant string, o object, t int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := o.batchObject("", tenant)
	f.store(tenant, b["id"].(string), b["properties"].(map[string]any), t)
}

func (f *fakeWeaviate) store(tenant, id string, props map[string]any, t int64) {
	if f.tenants[tenant] == nil {
		f.tenants[tenant] = map[string]*fakeObject{}
	}
	raw, _ := json.Marshal(props) // as JSON: lists become []any
	var p map[string]any
	json.Unmarshal(raw, &p)
	f.tenants[tenant][id] = &fakeObject{ID: id, Props: p, Time: t}
}

func (f *fakeWeaviate) count(tenant string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.tenants[tenant])
}

func (f *fakeWeaviate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = r.Header.Get("Authorization")
	f.calls[r.URL.Path]++
	if f.failing > 0 && strings.HasPrefix(r.URL.Path, f.failPath) {
		f.failing--
		w.WriteHeader(f.failStatus)
		fmt.Fprint(w, `{"error":[{"message":"failing on purpose"}]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/schema/"):
		if f.class == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(f.class)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema":
		if f.class != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"error":[{"message":"class name \"X\" already exists"}]}`)
			return
		}
		json.Unmarshal(body, &f.class)
		w.Write(body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/tenants"):
		var ts []struct{ Name string }
		json.Unmarshal(body, &ts)
		for _, t := range ts {
			if f.tenants[t.Name] == nil {
				f.tenants[t.Name] = map[string]*fakeObject{}
			}
		}
		w.Write(body)
	case r.URL.Path == "/v1/batch/objects":
		f.batch(w, r, body)
	case r.URL.Path == "/v1/objects":
		f.list(w, r)
	case r.URL.Path == "/v1/graphql":
		f.graphQL(w, body)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (f *fakeWeaviate) batch(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.URL.Query().Get("consistency_level") != "QUORUM" {
		f.t.Errorf("batch at consistency %q, want QUORUM", r.URL.Query().Get("consistency_level"))
	}
	var req struct {
		Objects []struct {
			Class, Tenant, ID string
			Properties        map[string]any
		}
	}
	json.Unmarshal(body, &req)
	f.now++
	var ans []map[string]any
	for _, o := range req.Objects {
		f.store(o.Tenant, o.ID, o.Properties, f.now)
		ans = append(ans, map[string]any{"id": o.ID, "result": map[string]any{}})
	}
	json.NewEncoder(w).Encode(ans)
}

// sorted returns the objects of tenant by id.
func (f *fakeWeaviate) sorted(tenant string) []*fakeObject {
	var out []*fakeObject
	for _, o := range f.tenants[tenant] {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (f *fakeWeaviate) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	var page []map[string]any
	for _, o := range f.sorted(q.Get("tenant")) {
		if len(page) == limit {
			break
		}
		if f.ignoreAfter || o.ID > q.Get("after") {
			page = append(page, map[string]any{"id": o.ID, "class": q.Get("class"), "properties": o.Props, "creationTimeUnix": o.Time})
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"objects": page})
}

var (
	aggregateRE = regexp.MustCompile(`Aggregate \{ (\w+)\(tenant: "([^"]*)"\)`)
	getRE       = regexp.MustCompile(`Get \{ (\w+)\(tenant: "([^"]*)", limit: (\d+).*valueText: "(\d+)"`)
)

func (f *fakeWeaviate) graphQL(w http.ResponseWriter, body []byte) {
	var req struct{ Query string }
	json.Unmarshal(body, &req)
	if m := aggregateRE.FindStringSubmatch(req.Query); m != nil {
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"Aggregate": map[string]any{
			m[1]: []any{map[string]any{"meta": map[string]any{"count": len(f.tenants[m[2]])}}}}}})
		return
	}
	m := getRE.FindStringSubmatch(req.Query)
	if m == nil {
		f.t.Errorf("unexpected GraphQL query %s", req.Query)
		json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "unexpected query"}}})
		return
	}
	limit, _ := strconv.Atoi(m[3])
	from, _ := strconv.ParseInt(m[4], 10, 64)
	objs := f.sorted(m[2])
	sort.SliceStable(objs, func(i, j int) bool { return objs[i].Time < objs[j].Time })
	rows := []any{}
	for _, o := range objs {
		if o.Time >= from && len(rows) < limit {
			row := map[string]any{"_additional": map[string]any{"id": o.ID, "creationTimeUnix": strconv.FormatInt(o.Time, 10)}}
			for k, v := range o.Props {
				row[k] = v
			}
			rows = append(rows, row)
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"Get": map[string]any{m[1]: rows}}})
}
