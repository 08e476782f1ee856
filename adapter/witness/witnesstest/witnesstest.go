// Package witnesstest is test support for package witness: a Weaviate that
// answers the calls a witness makes (its meta, its class, one object by id,
// batches) as Weaviate v1.39 does with its auto-schema on, and can fail them.
package witnesstest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/text2vec-am/text2vec-am/adapter/witness"
)

// Weaviate is the fake Weaviate.
type Weaviate struct {
	// URL is its base URL.
	URL string

	ts      *httptest.Server
	mu      sync.Mutex
	class   bool
	auto    bool // the class was made by auto-schema
	objects map[string]map[string]any
	fail    int // the status every call fails with (0: none)
	refuse  int // the status writes fail with (0: none)
}

// New starts a fake Weaviate; Close stops it.
func New() *Weaviate {
	w := &Weaviate{objects: map[string]map[string]any{}}
	w.ts = httptest.NewServer(w)
	w.URL = w.ts.URL
	return w
}

// Close stops the fake.
func (w *Weaviate) Close() { w.ts.Close() }

// ServeHTTP answers a witness's calls, or fails them as Fail and FailWrites say.
func (w *Weaviate) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	objects := "/v1/objects/" + witness.Class + "/"
	switch {
	case w.fail != 0:
		rw.WriteHeader(w.fail)
	case w.refuse != 0 && r.Method == http.MethodPost:
		rw.WriteHeader(w.refuse)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/meta":
		rw.Write([]byte(`{"hostname":"http://[::]:8080","version":"1.39.0","modules":{}}`))
	case r.Method == http.MethodGet && r.URL.Path == "/v1/schema/"+witness.Class:
		if !w.class {
			rw.WriteHeader(http.StatusNotFound)
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema":
		w.class, w.auto = true, false
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, objects):
		o, ok := w.objects[strings.TrimPrefix(r.URL.Path, objects)]
		if !ok || !w.class {
			rw.WriteHeader(http.StatusNotFound)
			return
		}
		json.NewEncoder(rw).Encode(map[string]any{"properties": o})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/batch/objects":
		w.batch(rw, r)
	default:
		http.Error(rw, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
	}
}

func (w *Weaviate) batch(rw http.ResponseWriter, r *http.Request) {
	var body struct {
		Objects []struct {
			Class, ID  string
			Properties map[string]any
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Objects) != 1 ||
		body.Objects[0].Class != witness.Class {
		http.Error(rw, "bad batch", http.StatusUnprocessableEntity)
		return
	}
	if !w.class {
		w.class, w.auto = true, true
	}
	w.objects[body.Objects[0].ID] = body.Objects[0].Properties
	json.NewEncoder(rw).Encode([]map[string]any{{"result": map[string]any{}}})
}

// HasClass reports whether the witnesses' class exists, and whether Weaviate's
// auto-schema made it (a batch into a missing class).
func (w *Weaviate) HasClass() (exists, auto bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.class, w.auto
}

// DeleteClass deletes the witnesses' class and its objects.
func (w *Weaviate) DeleteClass() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.class, w.auto = false, false
	clear(w.objects)
}

// Passages returns the count the witness of the memory name recorded (nil: none).
func (w *Weaviate) Passages(name string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	if o, ok := w.objects[witness.ID(name)]; ok {
		return o["passages"]
	}
	return nil
}

// SetPassages stores a witness of the memory name as another server would.
func (w *Weaviate) SetPassages(name string, passages any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.class = true
	w.objects[witness.ID(name)] = map[string]any{"name": name, "passages": passages}
}

// Fail makes every call fail with status (0: answer again).
func (w *Weaviate) Fail(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fail = status
}

// FailWrites makes every write (class, objects) fail with status (0: write again).
func (w *Weaviate) FailWrites(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refuse = status
}
