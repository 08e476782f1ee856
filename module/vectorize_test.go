package module

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

func TestRequestEnv(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvMemoryWeaviateTimeout: "soon"}, EnvMemoryWeaviateTimeout},
		{map[string]string{EnvMemoryWeaviateTimeout: "-1s"}, EnvMemoryWeaviateTimeout},
		{map[string]string{EnvVectorsEndpoint: "maybe"}, EnvVectorsEndpoint},
		{map[string]string{"TEXT2VEC_AM_MEMORY_URL": "http://memory:8880"}, EnvMemoryWeaviate},
		{map[string]string{"TEXT2VEC_AM_MEMORY_TOKEN": "secret"}, "TEXT2VEC_AM_MEMORY_TOKEN"},
	} {
		if _, err := LoadEnvConfig(func(k string) string { return c.env[k] }); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("environment %v: error %v, want one naming %s", c.env, err, c.want)
		}
	}
	cfg, err := LoadEnvConfig(func(k string) string {
		return map[string]string{EnvMemoryWeaviateTimeout: "5s", EnvVectorsEndpoint: "true"}[k]
	})
	if err != nil || cfg.MemoryTimeout.Seconds() != 5 || !cfg.VectorsEndpoint {
		t.Errorf("good environment: %+v, %v", cfg, err)
	}
}

func TestVectorsEndpoint(t *testing.T) {
	m := newTestModule(t, true)
	h := m.RootHandler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(`{"text":"w1 w2"}`)))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), EnvVectorsEndpoint) {
		t.Errorf("endpoint off: status %d %s, want 404 naming %s", rec.Code, rec.Body, EnvVectorsEndpoint)
	}
	m.env.VectorsEndpoint = true
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(`{"text":"w1 w2","collection":"Doc"}`)))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"vector":[`) {
		t.Errorf("endpoint on: status %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(`{"txt":"w1"}`)))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("unknown field: status %d, want 400", rec.Code)
	}
}

// TestCountsPerCollectionLocal: on a node with its own memory, teaching
// imports count passages for their collection (read by that collection's
// vectors) and in the node's shared counts (/v1/meta, hybrid search).
func TestCountsPerCollectionLocal(t *testing.T) {
	env, err := LoadEnvConfig(func(k string) string { return map[string]string{EnvMemoryDir: t.TempDir()}[k] })
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	if err := m.initWith(env, ""); err != nil {
		t.Fatal(err)
	}
	m.vec, err = vectorizer.New(testModel(t), m.mem, env.Defaults) // the small test model
	if err != nil {
		t.Fatal(err)
	}
	if err := m.InitExtension(nil); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cfg := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
	for class, n := range map[string]int{"Books": 3, "Songs": 1} {
		var objs []*models.Object
		for i := range n {
			// Passages of the same tokens are one passage: each class's differ.
			o := object(i, map[string]any{"text": fmt.Sprintf("w%d w2 zorblax w3 %s.", i, class)})
			o.Class = class
			objs = append(objs, o)
		}
		if _, _, errs := m.VectorizeBatch(context.Background(), objs, make([]bool, n), cfg); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	for class, n := range map[string]int64{"Books": 3, "Songs": 1} {
		c, err := m.colls.Get(class)
		if err != nil || c.Stats().Passages != n {
			t.Errorf("collection %s counted %d passages (%v), want %d", class, c.Stats().Passages, err, n)
		}
	}
	if p := m.mem.Stats().Passages; p != 4 {
		t.Errorf("the node's shared counts hold %d passages, want 4", p)
	}
	if _, _, errs := m.VectorizeBatch(context.Background(), []*models.Object{{Class: "../x", Properties: map[string]any{"text": "w1"}}}, []bool{false}, cfg); errs[0] == nil {
		t.Error("a class name that is no Weaviate class name was accepted as a directory")
	}
	// /vectors names a collection as Weaviate does: "books" is "Books" (its
	// counts, not an empty collection's).
	m.env.VectorsEndpoint = true
	vector := func(collection string) string {
		rec := httptest.NewRecorder()
		m.RootHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors",
			strings.NewReader(`{"text":"w0 w2 zorblax w3","collection":"`+collection+`"}`)))
		if rec.Code != http.StatusOK {
			t.Fatalf("/vectors for %q: status %d %s", collection, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	if books, lower, none := vector("Books"), vector("books"), vector("Nothing"); lower != books || books == none {
		t.Errorf("/vectors: collection books gives %.60s…, Books %.60s…, an empty collection %.60s…; want books = Books ≠ empty", lower, books, none)
	}
}

// TestEndpointsRefuseBadCollection: /vectors and /vectors/batch answer a
// collection name that is not a Weaviate class name with 400 and a message
// naming the field (they answered 422 and 503), and learn nothing.
func TestEndpointsRefuseBadCollection(t *testing.T) {
	m := newTestModule(t, true)
	m.env.VectorsEndpoint = true
	h := m.RootHandler()
	before := m.mem.Stats()
	for _, c := range []struct{ path, body string }{
		{"/vectors", `{"text":"w1 w2","collection":"../etc"}`},
		{"/vectors", `{"text":"w1 w2","collection":"a b"}`},
		{"/vectors/batch", `{"texts":["w1 w2"],"collection":"../etc"}`},
		{"/vectors/batch", `{"texts":["w1 w2"],"collection":"1Doc"}`},
		{"/vectors/batch", `{"texts":["w1 w2"],"collection":"_Doc"}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(c.body)))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `field \"collection\"`) ||
			!strings.Contains(rec.Body.String(), memory.ErrInvalidCollection.Error()) || !strings.Contains(rec.Body.String(), "an upper-case letter") {
			t.Errorf("%s %s: status %d %s, want 400 naming the collection field", c.path, c.body, rec.Code, rec.Body)
		}
	}
	if _, err := checkCollection("../x"); !errors.Is(err, memory.ErrInvalidCollection) {
		t.Errorf("checkCollection: %v, want ErrInvalidCollection", err)
	}
	if after := m.mem.Stats(); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused request changed the memory: %+v → %+v", before, after)
	}
}

// TestEndpointsSpeakJSON: /vectors and /vectors/batch refuse a body of the
// wrong shape with 400 and a message in the request's own terms (the field,
// the JSON types wanted and sent), never a Go type, and data after the
// body's JSON value (a second value, garbage) naming where the value ends;
// /vectors refuses a body over its bound with 413.
func TestEndpointsSpeakJSON(t *testing.T) {
	m := newTestModule(t, true)
	m.env.VectorsEndpoint = true
	h := m.RootHandler()
	for _, c := range []struct {
		path, body string
		status     int
		want       string
	}{
		{"/vectors", `{"text":1}`, http.StatusBadRequest, `field "text": want a string, got a JSON number`},
		{"/vectors", `[]`, http.StatusBadRequest,
			`the request body must be a JSON object (fields: text, collection), got a JSON array`},
		{"/vectors", `{"txt":"w1"}`, http.StatusBadRequest, `unknown field "txt" (known: text, collection)`},
		{"/vectors", `{"text":"` + strings.Repeat("w", maxVectorBytes) + `"}`, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("body larger than %d bytes", maxVectorBytes)},
		{"/vectors/batch", `{"texts":[1]}`, http.StatusBadRequest,
			`field "texts": an element is a JSON number, want an array of strings`},
		{"/vectors/batch", `{"texts":"w1"}`, http.StatusBadRequest,
			`field "texts": want an array of strings, got a JSON string`},
		{"/vectors/batch", `{"texts":["w1"],"settings":[]}`, http.StatusBadRequest,
			`field "settings": want an object, got a JSON array`},
		{"/vectors/batch", `{"texts":["w1"],"colour":1}`, http.StatusBadRequest,
			`unknown field "colour" (known: texts, settings, collection)`},
		{"/vectors", `{"text":"w1"} {"text":"w2"}`, http.StatusBadRequest,
			`malformed JSON: data after the JSON value, which ends at offset 13`},
		{"/vectors", `{"text":"w1"}garbage`, http.StatusBadRequest,
			`malformed JSON: data after the JSON value, which ends at offset 13`},
		{"/vectors", `{"text":"w1"}]`, http.StatusBadRequest, `data after the JSON value`},
		{"/vectors", `{"text":"w1"}` + strings.Repeat(" ", maxVectorBytes), http.StatusRequestEntityTooLarge,
			fmt.Sprintf("body larger than %d bytes", maxVectorBytes)},
		{"/vectors/batch", `{"texts":["w1"]}garbage`, http.StatusBadRequest,
			`malformed JSON: data after the JSON value, which ends at offset 16`},
		{"/vectors/batch", `{"texts":["w1"]} {"texts":["w2"]}`, http.StatusBadRequest,
			`malformed JSON: data after the JSON value, which ends at offset 16`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(c.body)))
		var ans struct{ Error string }
		err := json.Unmarshal(rec.Body.Bytes(), &ans)
		if err != nil || rec.Code != c.status || !strings.Contains(ans.Error, c.want) {
			t.Errorf("%s %.60s: status %d %s, want %d with %q", c.path, c.body, rec.Code, rec.Body, c.status, c.want)
		}
		for _, leak := range []string{"Go ", "json:", "[]string", "map[string]"} {
			if strings.Contains(ans.Error, leak) {
				t.Errorf("%s %.60s: %s names a Go type (%q)", c.path, c.body, ans.Error, leak)
			}
		}
	}
}

// TestMemoryTimeoutEnvName reads the timeout under serve's name
// (TEXT2VEC_AM_MEMORY_WEAVIATE_TIMEOUT) and under the deprecated one, which
// gives a warning.
func TestMemoryTimeoutEnvName(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		want    float64
		warning string
	}{
		{map[string]string{"TEXT2VEC_AM_MEMORY_WEAVIATE_TIMEOUT": "7s"}, 7, ""},
		{map[string]string{"TEXT2VEC_AM_MEMORY_TIMEOUT": "9s"}, 9, "TEXT2VEC_AM_MEMORY_TIMEOUT is deprecated: set"},
		{map[string]string{"TEXT2VEC_AM_MEMORY_WEAVIATE_TIMEOUT": "7s", "TEXT2VEC_AM_MEMORY_TIMEOUT": "9s"}, 7,
			"TEXT2VEC_AM_MEMORY_TIMEOUT is deprecated and ignored"},
	} {
		cfg, err := LoadEnvConfig(func(k string) string { return c.env[k] })
		if err != nil || cfg.MemoryTimeout.Seconds() != c.want {
			t.Errorf("environment %v: timeout %v, %v; want %vs", c.env, cfg.MemoryTimeout, err, c.want)
		}
		got := strings.Join(cfg.Warnings, "\n")
		if (c.warning == "") != (got == "") || !strings.Contains(got, c.warning) {
			t.Errorf("environment %v: warnings %q, want one containing %q", c.env, got, c.warning)
		}
	}
	_, err := LoadEnvConfig(func(k string) string {
		return map[string]string{"TEXT2VEC_AM_MEMORY_TIMEOUT": "soon"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "TEXT2VEC_AM_MEMORY_TIMEOUT=") {
		t.Errorf("bad deprecated variable: error %v, want one naming it", err)
	}
}
