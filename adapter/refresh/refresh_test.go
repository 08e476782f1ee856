package refresh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/model"
)

// fakeWeaviate serves the REST calls refresh makes over objects held in
// memory: schema, cursor listing, batch writes and the Aggregate count.
type fakeWeaviate struct {
	mu      sync.Mutex
	schema  string
	objs    map[string]*weaviateapi.Object
	writes  int
	repeat  bool // list the first page again once, as a moving cursor may
	stuck   bool // ignore "after": list the first page again and again
	busy    int  // answer 503 to this many vectorizer calls first
	vecURL  string
	batches int
	// reshape, if set, replaces the vector of text i of a vectorizer call.
	reshape func(i int, v []float32) []float32
}

func (f *fakeWeaviate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.URL.Path == "/v1/schema/Doc":
		io.WriteString(w, f.schema)
	case r.URL.Path == "/v1/objects":
		f.list(w, r)
	case r.URL.Path == "/v1/batch/objects":
		var body struct {
			Objects []weaviateapi.Object `json:"objects"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		var ans []map[string]any
		for _, o := range body.Objects {
			old := f.objs[o.ID]
			if !equalProps(old.Properties, o.Properties) {
				http.Error(w, "properties changed", http.StatusBadRequest)
				return
			}
			cp := o
			f.objs[o.ID] = &cp
			f.writes++
			ans = append(ans, map[string]any{"id": o.ID, "result": map[string]any{}})
		}
		json.NewEncoder(w).Encode(ans)
	case r.URL.Path == "/v1/graphql":
		fmt.Fprintf(w, `{"data":{"Aggregate":{"Doc":[{"meta":{"count":%d}}]}}}`, len(f.objs))
	case r.URL.Path == "/vec/vectors/batch":
		f.vectorize(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeWeaviate) list(w http.ResponseWriter, r *http.Request) {
	ids := make([]string, 0, len(f.objs))
	for id := range f.objs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	after := r.URL.Query().Get("after")
	var limit int
	fmt.Sscan(r.URL.Query().Get("limit"), &limit)
	if f.stuck {
		after = ""
	}
	if f.repeat && after != "" {
		f.repeat = false
		after = "" // the cursor jumps back to the start
	}
	var page []*weaviateapi.Object
	for _, id := range ids {
		if id > after && len(page) < limit {
			page = append(page, f.objs[id])
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"objects": page})
}

// vectorize gives "text" the vector (len(text), number of 'x' + version): a
// text containing "fail" gets no vector.
func (f *fakeWeaviate) vectorize(w http.ResponseWriter, r *http.Request) {
	if f.busy > 0 {
		f.busy--
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":"busy"}`, http.StatusServiceUnavailable)
		return
	}
	f.batches++
	var req struct {
		Texts  []string       `json:"texts"`
		Config map[string]any `json:"config"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	if req.Config["task_type"] != "query" {
		http.Error(w, "refresh must vectorize as a query", http.StatusBadRequest)
		return
	}
	vecs := make([][]float32, len(req.Texts))
	errs := make([]*string, len(req.Texts))
	for i, t := range req.Texts {
		if strings.Contains(t, "fail") {
			msg := "no word yields a vector"
			errs[i] = &msg
			continue
		}
		vecs[i] = []float32{float32(len(t)), float32(strings.Count(t, "x")) + 1}
		if f.reshape != nil {
			vecs[i] = f.reshape(i, vecs[i])
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"dims": 2, "vectors": vecs, "errors": errs})
}

func equalProps(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

const namedSchema = `{"class":"Doc","vectorConfig":{
 "am":{"vectorizer":{"text2vec-transformers":{"vectorizeClassName":false}}},
 "other":{"vectorizer":{"none":{}}}},
 "properties":[{"name":"text","dataType":["text"]},{"name":"note","dataType":["text"],"moduleConfig":{"text2vec-transformers":{"skip":true}}}]}`

// newFake holds n objects; the stored "am" vector is current for the even
// ones and stale for the odd ones; "other" is a vector refresh must keep.
func newFake(t *testing.T, n int) (*fakeWeaviate, *httptest.Server) {
	f := &fakeWeaviate{schema: namedSchema, objs: map[string]*weaviateapi.Object{}}
	for i := range n {
		id := fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
		text := fmt.Sprintf("doc %d %s", i, strings.Repeat("x", i%5))
		if i == 7 {
			text = "fail here"
		}
		am := []float32{float32(len(text)), float32(i%5) + 1}
		if i%2 == 1 {
			am = []float32{1, 0}
		} else if i%4 == 2 {
			am[0] += 1e-5 // float noise, as two requests may give: still current
		}
		amRaw, _ := json.Marshal(am)
		f.objs[id] = &weaviateapi.Object{ID: id, Class: "Doc", Properties: map[string]any{"text": text, "note": "skipped"},
			Vectors: map[string]json.RawMessage{"am": amRaw, "other": json.RawMessage(`[9,9,9]`)}}
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.vecURL = srv.URL + "/vec"
	return f, srv
}

func TestRunWritesOnlyChangedVectorsAndKeepsOthers(t *testing.T) {
	f, srv := newFake(t, 25)
	f.busy = 2
	var progress strings.Builder
	st, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10, Progress: &progress})
	if err != nil {
		t.Fatalf("refresh: %v\n%s", err, progress.String())
	}
	// 12 odd ids are stale, one of them (7) gets no vector.
	if st.Read != 25 || st.Updated != 11 || st.Unchanged != 13 || st.Failed != 1 || st.Passes != 1 {
		t.Errorf("stats %+v, want 25 read, 11 updated, 13 unchanged, 1 failed, 1 pass", st)
	}
	if f.writes != 11 {
		t.Errorf("%d objects written, want 11", f.writes)
	}
	for id, o := range f.objs {
		if string(o.Vectors["other"]) != "[9,9,9]" {
			t.Errorf("object %s: the other named vector became %s", id, o.Vectors["other"])
		}
		text := o.Properties["text"].(string)
		want := []float32{float32(len(text)), float32(strings.Count(text, "x")) + 1}
		if got := o.VectorOf("am"); text != "fail here" && model.Cosine(got, want) < 1-1e-9 {
			t.Errorf("object %s: am vector %v, want %v", id, got, want)
		}
	}
	if !strings.Contains(progress.String(), "refresh done Doc: 25 objects read, 11 updated") {
		t.Errorf("progress output lacks the summary:\n%s", progress.String())
	}
	// --all writes every object that gets a vector.
	f.writes = 0
	st, err = Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10, All: true})
	if err != nil || st.Updated != 24 || f.writes != 24 {
		t.Errorf("--all: %+v, %v, %d writes; want 24 updated", st, err, f.writes)
	}
}

// TestRunRefusesVectorsOfAnotherLength: a vectorizer answer holding an
// empty vector, or one of another length than its "dims" or the others', is
// refused naming the object, and no object of its batch is written: an
// empty vector would have taken the object's vector away.
func TestRunRefusesVectorsOfAnotherLength(t *testing.T) {
	for name, reshape := range map[string]func(int, []float32) []float32{
		"empty":     func(i int, v []float32) []float32 { return v[:min(i, len(v))] },
		"too long":  func(i int, v []float32) []float32 { return append(v, 1) },
		"one short": func(i int, v []float32) []float32 { return v[:len(v)-i%2] },
	} {
		f, srv := newFake(t, 6)
		f.reshape = reshape
		before := map[string]string{}
		for id, o := range f.objs {
			before[id] = string(o.Vectors["am"])
		}
		_, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10, All: true})
		if err == nil || !strings.Contains(err.Error(), "vector for object 00000000-0000-0000-0000-000000000000") &&
			!strings.Contains(err.Error(), "dimensions for object 00000000-0000-0000-0000-00000000000") {
			t.Errorf("%s: error %v, want one naming the dimensions and the object", name, err)
		}
		if f.writes != 0 {
			t.Errorf("%s: %d objects written, want none", name, f.writes)
		}
		for id, o := range f.objs {
			if got, _ := json.Marshal(o.VectorOf("am")); string(got) != before[id] {
				t.Errorf("%s: object %s: vector %s, was %s", name, id, got, before[id])
			}
		}
	}
}

func TestRunRepeatedPageMakesACheckPass(t *testing.T) {
	f, srv := newFake(t, 30)
	f.repeat = true
	st, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.Repeated != 10 || st.Passes != 2 || st.Updated != 14 {
		t.Errorf("stats %+v, want 10 repeated, 2 passes, 14 updated (each stale object once)", st)
	}
}

func TestRunResumesFromState(t *testing.T) {
	f, srv := newFake(t, 40)
	state := filepath.Join(t.TempDir(), "state.json")
	ctx, cancel := context.WithCancel(context.Background())
	lines := 0
	progress := writerFunc(func() {
		if lines++; lines == 2 {
			cancel()
		}
	})
	st, err := Run(ctx, Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10, All: true, State: state, Progress: progress, ProgressEvery: 1})
	if err == nil || st.Read == 0 || st.Read >= 40 {
		t.Fatalf("interrupted run: %+v, %v", st, err)
	}
	first := f.writes
	st, err = Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10, All: true, State: state})
	if err != nil || st.Read != 40 || f.writes != 39 {
		t.Errorf("resumed run: %+v, %v; %d writes (%d before the stop), want 40 read, 39 written in all", st, err, f.writes, first)
	}
	// A finished state starts over; a state of another class is refused.
	if _, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", State: state}); err != nil {
		t.Errorf("run after a finished state: %v", err)
	}
	os.WriteFile(state, []byte(`{"class":"Other","targets":["am"],"after":"x"}`), 0o644)
	if _, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", State: state}); err == nil || !strings.Contains(err.Error(), "Other") {
		t.Errorf("state of another class: %v, want an error naming it", err)
	}
}

type writerFunc func()

func (f writerFunc) Write(p []byte) (int, error) { f(); return len(p), nil }

func TestRunRefusesWhatItCannotDo(t *testing.T) {
	f, srv := newFake(t, 3)
	for _, c := range []struct {
		schema, vectorizer string
		targets            []string
		want               string
	}{
		{namedSchema, "", nil, "--vectorizer"},
		{namedSchema, f.vecURL, []string{"nope"}, `no named vector "nope"`},
		{namedSchema, f.vecURL, []string{"other"}, `made by "none"`},
		{`{"class":"Doc","vectorizer":"text2vec-ollama"}`, f.vecURL, nil, "text2vec-ollama"},
		{`{"class":"Doc","vectorizer":"text2vec-openai"}`, f.vecURL, nil, "with a baseURL"},
		{`{"class":"Doc","vectorizer":"none","vectorConfig":{"x":{"vectorizer":{"none":{}}}}}`, f.vecURL, nil, "no named vector"},
		{`not json`, f.vecURL, nil, "decode answer"},
	} {
		f.schema = c.schema
		_, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: c.vectorizer, Class: "Doc", Targets: c.targets})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("schema %.40s, vectorizer %q, targets %v: error %v, want one naming %q", c.schema, c.vectorizer, c.targets, err, c.want)
		}
	}
	if _, err := Run(context.Background(), Options{Weaviate: srv.URL, Class: "Missing", Vectorizer: f.vecURL}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing class: %v", err)
	}
	for _, o := range []Options{{Class: "Doc"}, {Weaviate: srv.URL, Class: "Doc", Batch: 5000}, {Weaviate: srv.URL, Class: "Doc", Tolerance: 2}} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func TestTextSettings(t *testing.T) {
	s := TextSettings{VectorizeClassName: true, Skip: map[string]bool{"secret": true}, PropertyName: map[string]bool{"titleText": true},
		DataTypes: map[string]string{"titleText": "text", "body": "text", "secret": "text", "n": "int", "tags": "text[]"}}
	got, empty := s.Text("MyDocs", map[string]any{"body": "Body", "titleText": "Hello", "secret": "x", "n": 3.0, "tags": []any{"a", "b"}})
	// Class name, then the properties by name (secret skipped, the int left out
	// without a properties list), the property name split as Weaviate does.
	if want := "My Docs Body a b title Text Hello"; empty || got != want {
		t.Errorf("text %q (empty %v), want %q", got, empty, want)
	}
	s = TextSettings{Properties: []string{"n"}, DataTypes: s.DataTypes}
	if got, _ := s.Text("MyDocs", map[string]any{"n": 3.0, "body": "b"}); got != "3" {
		t.Errorf("with properties [n]: %q, want \"3\"", got)
	}
	s = TextSettings{DataTypes: s.DataTypes}
	if got, empty := s.Text("MyDocs", map[string]any{"n": 3.0}); got != "My Docs" || empty {
		t.Errorf("no text property: %q (empty %v), want the class name", got, empty)
	}
}

// TestMissingClass: a class the Weaviate does not have (a 404 with an empty
// body, as Weaviate answers it) is named, with the Weaviate's URL, by Run and
// ReadCollection, as a *ClassNotFoundError.
func TestMissingClass(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, " \n")
	}))
	t.Cleanup(srv.Close)
	o := Options{Weaviate: srv.URL, Class: "Dox", Vectorizer: srv.URL + "/vec"}
	_, runErr := Run(context.Background(), o)
	_, readErr := ReadCollection(context.Background(), o)
	for _, err := range []error{runErr, readErr} {
		want := "class Dox does not exist in the Weaviate at " + srv.URL
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
		var nf *ClassNotFoundError
		var he *weaviateapi.HTTPError
		if !errors.As(err, &nf) || nf.Class != "Dox" || !errors.As(err, &he) || he.Status != http.StatusNotFound {
			t.Errorf("error %v: not a *ClassNotFoundError wrapping the 404", err)
		}
	}
}

// TestNotFoundWithBodyIsNotMissingClass: a 404 with a body (a wrong base
// path, a proxy, the text2vec-am server given as the Weaviate) is not
// reported as a missing class: the error keeps the answer's body and says
// the URL may not be Weaviate's REST API.
func TestNotFoundWithBodyIsNotMissingClass(t *testing.T) {
	const body = `{"error":{"message":"no endpoint GET /v1/schema/Docs"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, body, http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	// A password in the Weaviate URL is never shown, and the body's final
	// newline does not end the message.
	withUser := strings.Replace(srv.URL, "http://", "http://ann:pa55word@", 1)
	o := Options{Weaviate: withUser, Class: "Docs", Vectorizer: srv.URL + "/vec"}
	_, runErr := Run(context.Background(), o)
	_, readErr := ReadCollection(context.Background(), o)
	shown := strings.Replace(srv.URL, "http://", "http://ann:xxxxx@", 1)
	for _, err := range []error{runErr, readErr} {
		if err == nil || strings.Contains(err.Error(), "pa55word") || strings.HasSuffix(err.Error(), "\n") {
			t.Errorf("error %q: want the password redacted and no final newline", err)
		}
		var nf *ClassNotFoundError
		if errors.As(err, &nf) {
			t.Errorf("error %v: a *ClassNotFoundError for a 404 with a body", err)
		}
		var he *weaviateapi.HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusNotFound {
			t.Errorf("error %v: does not wrap the 404", err)
		}
		for _, want := range []string{"no endpoint GET /v1/schema/Docs", shown + " may not be Weaviate's REST API"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want one saying %q", err, want)
			}
		}
	}
}

// TestBaseURLsChecked: a Weaviate or vectorizer URL that is not http:// or
// https:// with a host is refused at once, named without its password.
func TestBaseURLsChecked(t *testing.T) {
	for _, o := range []Options{
		{Weaviate: "ann:pa55word@127.0.0.1:1", Class: "Doc"},
		{Weaviate: "http://ann:pa55word@exa mple.com", Class: "Doc"},
		{Weaviate: "http://127.0.0.1:1", Class: "Doc", Vectorizer: "127.0.0.1:8880"},
	} {
		_, err := Run(context.Background(), o)
		if err == nil || strings.Contains(err.Error(), "pa55word") || !strings.Contains(err.Error(), "want http://host:port") {
			t.Errorf("%q, %q: %v, want the URL refused without its password", o.Weaviate, o.Vectorizer, err)
		}
	}
	_, err := Run(context.Background(), Options{Weaviate: "http://127.0.0.1:1", Class: "Doc", APIKey: "a b"})
	if err == nil || strings.Count(err.Error(), "API key") != 1 {
		t.Errorf("an API key with a space: %v, want it named once", err)
	}
}
