// Package fakeweaviate is test support: an HTTP server that answers the
// calls the Weaviate-kept context memory makes (package weaviatemem) as
// Weaviate v1.39 does: the schema (a class, its properties), tenants,
// batches (a batch to a class that is not there creates it through
// auto-schema, as Weaviate does by default), the object cursor, an
// Aggregate count and a Get by creation time, the nodes (/v1/nodes), and
// the witnesses' collection (package witness). Failures can be
// injected.
package fakeweaviate

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/witness"
)

// Fake is the fake Weaviate. Its fields are guarded by Mu.
type Fake struct {
	t  testing.TB
	Mu sync.Mutex
	// Class is the class definition, nil until created.
	Class   map[string]any
	Tenants map[string]map[string]*Object // tenant → id → object
	// Witnesses are the objects of the witnesses' collection by id (nil: no collection).
	Witnesses map[string]map[string]any
	// WitnessWriteFailures answers the next writes of a witness with 500.
	WitnessWriteFailures int
	Now                  int64 // the clock of creation times (ms), advanced by each batch
	// failing answers the next calls whose path starts with failPath with failStatus.
	failing    int
	failPath   string
	failStatus int
	// IgnoreAfter lists the first page whatever "after" says.
	IgnoreAfter bool
	// BadTimes answers GraphQL Get with creation times that are not numbers.
	BadTimes bool
	// Nodes is the number of nodes /v1/nodes lists (0: one).
	Nodes int
	// AutoCreated counts the classes a batch created through auto-schema.
	AutoCreated int
	// Auth is the Authorization header of the last call.
	Auth  string
	Calls map[string]int // by path
}

// Object is a stored object.
type Object struct {
	ID    string
	Props map[string]any
	Time  int64
}

// New starts a fake Weaviate, closed when the test ends.
func New(t testing.TB) (*Fake, *httptest.Server) {
	f := &Fake{t: t, Tenants: map[string]map[string]*Object{}, Now: 1_700_000_000_000, Calls: map[string]int{}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return f, ts
}

// Fail makes the next n calls under path answer status.
func (f *Fake) Fail(path string, n, status int) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.failPath, f.failing, f.failStatus = path, n, status
}

// Put stores an object (as POST /v1/batch/objects takes it) as another
// writer would, created at time t.
func (f *Fake) Put(tenant string, o map[string]any, t int64) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.store(tenant, o["id"].(string), o["properties"].(map[string]any), t)
}

func (f *Fake) store(tenant, id string, props map[string]any, t int64) {
	if f.Tenants[tenant] == nil {
		f.Tenants[tenant] = map[string]*Object{}
	}
	raw, _ := json.Marshal(props) // as JSON: lists become []any
	var p map[string]any
	json.Unmarshal(raw, &p)
	f.Tenants[tenant][id] = &Object{ID: id, Props: p, Time: t}
}

// Count returns the number of objects of tenant.
func (f *Fake) Count(tenant string) int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return len(f.Tenants[tenant])
}

// WaitFactor waits up to 10 s until the memory's class has the replication
// factor want, and fails t otherwise.
func (f *Fake) WaitFactor(t testing.TB, want int) {
	t.Helper()
	got := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		f.Mu.Lock()
		got = fmt.Sprint(f.Class["replicationConfig"])
		f.Mu.Unlock()
		if got == fmt.Sprintf("map[factor:%d]", want) {
			return
		}
	}
	t.Fatalf("memory class's replicationConfig %s, want factor %d", got, want)
}

func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if f.witness(w, r, body) { // neither counted nor failed: the memory's own calls are
		return
	}
	f.Auth = r.Header.Get("Authorization")
	f.Calls[r.URL.Path]++
	if f.failing > 0 && strings.HasPrefix(r.URL.Path, f.failPath) {
		f.failing--
		w.WriteHeader(f.failStatus)
		fmt.Fprint(w, `{"error":[{"message":"failing on purpose"}]}`)
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/tenants/"):
		f.tenant(w, r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/schema/") && !strings.HasSuffix(r.URL.Path, "/tenants"):
		if f.Class == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(f.Class)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema":
		if f.Class != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"error":[{"message":"class name \"X\" already exists"}]}`)
			return
		}
		json.Unmarshal(body, &f.Class)
		w.Write(body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/properties"):
		f.addProperty(w, body)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tenants"):
		var names []map[string]string
		for name := range f.Tenants {
			names = append(names, map[string]string{"name": name})
		}
		json.NewEncoder(w).Encode(names)
	case r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/tenants"):
		var names []string
		json.Unmarshal(body, &names)
		for _, n := range names {
			delete(f.Tenants, n)
		}
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/tenants"):
		var ts []struct{ Name string }
		json.Unmarshal(body, &ts)
		for _, t := range ts {
			if f.Tenants[t.Name] == nil {
				f.Tenants[t.Name] = map[string]*Object{}
			}
		}
		w.Write(body)
	case r.URL.Path == "/v1/batch/objects":
		f.batch(w, r, body)
	case r.URL.Path == "/v1/objects":
		f.list(w, r)
	case r.URL.Path == "/v1/graphql":
		f.graphQL(w, body)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/nodes":
		nodes := []any{}
		for i := range max(f.Nodes, 1) {
			nodes = append(nodes, map[string]any{"name": fmt.Sprintf("node%d", i+1), "status": "HEALTHY"})
		}
		json.NewEncoder(w).Encode(map[string]any{"nodes": nodes})
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// witness answers the calls about the witnesses' collection; false for others.
func (f *Fake) witness(w http.ResponseWriter, r *http.Request, body []byte) bool {
	objects := "/v1/objects/" + witness.Class + "/"
	var req struct {
		Class   string
		Objects []struct {
			Class, ID  string
			Properties map[string]any
		}
	}
	json.Unmarshal(body, &req)
	switch {
	case r.URL.Path == "/v1/schema/"+witness.Class:
		if f.Witnesses == nil {
			w.WriteHeader(http.StatusNotFound)
			return true
		}
		fmt.Fprintf(w, `{"class":%q}`, witness.Class)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema" && req.Class == witness.Class:
		if f.Witnesses == nil {
			f.Witnesses = map[string]map[string]any{}
		}
		w.Write(body)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, objects):
		o, ok := f.Witnesses[strings.TrimPrefix(r.URL.Path, objects)]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return true
		}
		json.NewEncoder(w).Encode(map[string]any{"properties": o})
	case r.URL.Path == "/v1/batch/objects" && len(req.Objects) == 1 && req.Objects[0].Class == witness.Class:
		if f.WitnessWriteFailures > 0 {
			f.WitnessWriteFailures--
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":[{"message":"failing on purpose"}]}`)
			return true
		}
		if f.Witnesses == nil {
			f.Witnesses = map[string]map[string]any{} // auto-schema
		}
		f.Witnesses[req.Objects[0].ID] = req.Objects[0].Properties
		json.NewEncoder(w).Encode([]map[string]any{{"id": req.Objects[0].ID, "result": map[string]any{}}})
	default:
		return false
	}
	return true
}

// tenant answers GET /v1/schema/{class}/tenants/{name} as Weaviate does:
// the tenant, 404 when the class has no such tenant, 422 without the class.
func (f *Fake) tenant(w http.ResponseWriter, name string) {
	switch {
	case f.Class == nil:
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"error":[{"message":"class not found"}]}`)
	case f.Tenants[name] == nil:
		w.WriteHeader(http.StatusNotFound)
	default:
		json.NewEncoder(w).Encode(map[string]any{"name": name, "activityStatus": "ACTIVE"})
	}
}

// DropClass deletes the memory's class and its tenants, as DELETE
// /v1/schema/{class} does.
func (f *Fake) DropClass() {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Class = nil
	clear(f.Tenants)
}

// addProperty adds a property to the class, as POST
// /v1/schema/{class}/properties does.
func (f *Fake) addProperty(w http.ResponseWriter, body []byte) {
	var p map[string]any
	json.Unmarshal(body, &p)
	props, _ := f.Class["properties"].([]any)
	for _, q := range props {
		if q.(map[string]any)["name"] == p["name"] {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, `{"error":[{"message":"class already has property %q"}]}`, p["name"])
			return
		}
	}
	if f.Class == nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	f.Class["properties"] = append(props, p)
	w.Write(body)
}

func (f *Fake) batch(w http.ResponseWriter, r *http.Request, body []byte) {
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
	f.Now++
	var ans []map[string]any
	for _, o := range req.Objects {
		if f.Class == nil {
			f.autoSchema(o.Class, o.Properties)
		}
		if mt, _ := f.Class["multiTenancyConfig"].(map[string]any); o.Tenant != "" && mt["enabled"] != true {
			ans = append(ans, map[string]any{"id": o.ID, "result": map[string]any{"errors": map[string]any{"error": []any{
				map[string]any{"message": fmt.Sprintf("class %s has multi-tenancy disabled, but request was with tenant",
					o.Class)}}}}})
			continue
		}
		f.store(o.Tenant, o.ID, o.Properties, f.Now)
		ans = append(ans, map[string]any{"id": o.ID, "result": map[string]any{}})
	}
	json.NewEncoder(w).Encode(ans)
}

// autoSchema creates the class of a batch's object that is not there, as
// Weaviate's auto-schema does (AUTOSCHEMA_ENABLED, on by default): not
// multi-tenant, its properties typed from their values, and the default
// vectorizer (none here).
func (f *Fake) autoSchema(class string, props map[string]any) {
	var defs []any
	for name, v := range props {
		dataType := "text"
		if _, ok := v.([]any); ok {
			dataType = "text[]"
		}
		defs = append(defs, map[string]any{"name": name, "dataType": []any{dataType}})
	}
	f.AutoCreated++
	f.Class = map[string]any{"class": class, "properties": defs,
		"description":        "This property was generated by Weaviate's auto-schema feature on Mon Jan  1 00:00:00 2024",
		"multiTenancyConfig": map[string]any{"enabled": false}, "replicationConfig": map[string]any{"factor": 1}}
}

// sorted returns the objects of tenant by id.
func (f *Fake) sorted(tenant string) []*Object {
	var out []*Object
	for _, o := range f.Tenants[tenant] {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (f *Fake) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	var page []map[string]any
	for _, o := range f.sorted(q.Get("tenant")) {
		if len(page) == limit {
			break
		}
		if f.IgnoreAfter || o.ID > q.Get("after") {
			page = append(page, map[string]any{"id": o.ID, "class": q.Get("class"), "properties": o.Props, "creationTimeUnix": o.Time})
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"objects": page})
}

var (
	aggregateRE = regexp.MustCompile(`Aggregate \{ (\w+)\(tenant: "([^"]*)"\)`)
	getRE       = regexp.MustCompile(`Get \{ (\w+)\(tenant: "([^"]*)", limit: (\d+).*valueText: "(\d+)"`)
	// afterRE: the objects created later than the first time, or at the
	// second and of an id greater than the third.
	afterRE = regexp.MustCompile(`\{operator: Or, operands: \[\{path: \["_creationTimeUnix"\], operator: GreaterThan, ` +
		`valueText: "(\d+)"\}, \{operator: And, operands: \[\{path: \["_creationTimeUnix"\], operator: Equal, ` +
		`valueText: "(\d+)"\}, \{path: \["_id"\], operator: GreaterThan, valueText: "([^"]*)"\}\]\}\]\}`)
)

func (f *Fake) graphQL(w http.ResponseWriter, body []byte) {
	var req struct{ Query string }
	json.Unmarshal(body, &req)
	if m := aggregateRE.FindStringSubmatch(req.Query); m != nil && f.Tenants[m[2]] == nil {
		json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "tenant not found: " + m[2]}}})
		return
	}
	if m := aggregateRE.FindStringSubmatch(req.Query); m != nil {
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"Aggregate": map[string]any{
			m[1]: []any{map[string]any{"meta": map[string]any{"count": len(f.Tenants[m[2]])}}}}}})
		return
	}
	if strings.Contains(req.Query, "consistencyLevel") { // as Weaviate v1.39 answers it
		json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{
			"message": `Unknown argument "consistencyLevel" on field "Get"`}}})
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
	if !strings.Contains(req.Query, `{path: ["_id"], order: asc}`) {
		slices.Reverse(objs) // the order of one millisecond's objects is Weaviate's, unless sorted by id
	}
	sort.SliceStable(objs, func(i, j int) bool { return objs[i].Time < objs[j].Time })
	keep := func(o *Object) bool { return o.Time >= from }
	if a := afterRE.FindStringSubmatch(req.Query); a != nil {
		later, _ := strconv.ParseInt(a[1], 10, 64)
		at, _ := strconv.ParseInt(a[2], 10, 64)
		keep = func(o *Object) bool { return o.Time > later || o.Time == at && o.ID > a[3] }
	}
	rows := []any{}
	for _, o := range objs {
		if keep(o) && len(rows) < limit {
			ts := strconv.FormatInt(o.Time, 10)
			if f.BadTimes {
				ts = "yesterday"
			}
			row := map[string]any{"_additional": map[string]any{"id": o.ID, "creationTimeUnix": ts}}
			for k, v := range o.Props {
				row[k] = v
			}
			rows = append(rows, row)
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"Get": map[string]any{m[1]: rows}}})
}
