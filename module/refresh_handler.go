package module

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/usecases/config"

	"github.com/text2vec-am/text2vec-am/internal/jsonmsg"
)

// Limits of the module's /vectors/batch endpoint (those of text2vec-am serve).
const (
	maxBatchTexts = 1024
	maxBatchBytes = 8 << 20
)

// RootHandler serves Weaviate's /v1/modules/text2vec-am/: POST /vectors/batch
// vectorizes texts as queries (it never teaches the memory) with a
// collection's settings and passage counts, for "text2vec-am refresh" on the
// in-process path; POST /vectors is the diagnostic endpoint of serveVector.
// Body {"texts": […], "settings": {the collection's text2vec-am settings},
// "collection": the class name};
// answer {"dims", "vectors", "errors"} as the text2vec-am server's.
// Weaviate mounts module handlers ahead of its authentication: like the
// inference server, this endpoint is for a private network; admission
// (admit.go) bounds the requests served at once and the bytes they hold.
func (m *Module) RootHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /vectors/batch", m.adm.admitted(maxBatchBytes, m.serveBatch))
	mux.HandleFunc("POST /vectors", m.adm.admitted(maxVectorBytes, m.serveVector))
	return mux
}

// batchRequest is the body of POST /vectors/batch.
type batchRequest struct {
	Texts      batchTexts     `json:"texts"`
	Settings   map[string]any `json:"settings"`
	Collection string         `json:"collection"`
}

func (m *Module) serveBatch(w http.ResponseWriter, r *http.Request, held *hold) {
	fail := func(status int, format string, args ...any) {
		held.fail(w, status, fmt.Errorf(format, args...))
	}
	if m.vec == nil {
		fail(http.StatusServiceUnavailable, "%s is not initialized", Name)
		return
	}
	var req batchRequest
	if status, err := decodeBody(r, &req, []string{"texts", "settings", "collection"}); err != nil {
		fail(status, "%w", err)
		return
	}
	if req.Texts == nil {
		fail(http.StatusBadRequest, "field \"texts\" is required")
		return
	}
	collection, err := checkCollection(req.Collection)
	if err != nil {
		fail(http.StatusBadRequest, "%v", err)
		return
	}
	cr, err := m.request(settingsConfig(req.Settings))
	if err == nil {
		err = cr.settings.ValidateClassSettings() // "properties", as a collection's definition checks it
	}
	if err != nil {
		fail(http.StatusBadRequest, "settings: %v", err)
		return
	}
	vecs, verrs, err := m.vectorizeHeld(r.Context(), held, collection, req.Texts, cr.opts)
	if errors.Is(err, errOwnCollection) {
		fail(http.StatusBadRequest, "field \"collection\": %v", err) // never vectorized: no retry helps
		return
	}
	if err != nil {
		fail(http.StatusServiceUnavailable, "%w", err)
		return
	}
	msgs := make([]*string, len(req.Texts))
	for i, e := range verrs {
		if e != nil {
			s := e.Error()
			msgs[i] = &s
		}
	}
	held.answer(w, struct {
		Dims    int         `json:"dims"`
		Vectors [][]float32 `json:"vectors"`
		Errors  []*string   `json:"errors"`
	}{m.vec.Dim(), vecs, msgs})
}

// batchTexts is the "texts" of a batch, decoded one string at a time: the
// first string beyond maxBatchTexts is refused (errTooManyTexts) before the
// strings beyond it take memory. A null element is an empty text.
type batchTexts []string

// errTooManyTexts refuses a batch of more than maxBatchTexts texts.
var errTooManyTexts = fmt.Errorf("more than %d texts per batch", maxBatchTexts)

// UnmarshalJSON decodes a JSON array of strings (or null).
func (t *batchTexts) UnmarshalJSON(b []byte) error {
	switch kind := jsonmsg.ValueKind(b); kind {
	case "null":
		*t = nil
		return nil
	case "array":
	default:
		return fmt.Errorf("field \"texts\": want an array of strings, got a JSON %s", kind)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // the array's '['
		return err
	}
	texts := batchTexts{}
	for dec.More() {
		if len(texts) == maxBatchTexts {
			return errTooManyTexts
		}
		var s string
		if err := dec.Decode(&s); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return fmt.Errorf("field \"texts\": an element is a JSON %s, want an array of strings", typ.Value)
			}
			return err
		}
		texts = append(texts, s)
	}
	*t = texts
	return nil
}

// settingsConfig is a collection's text2vec-am settings as the ClassConfig
// the module reads them from.
type settingsConfig map[string]any

func (c settingsConfig) TargetVector() string                            { return "" }
func (c settingsConfig) Tenant() string                                  { return "" }
func (c settingsConfig) Class() map[string]any                           { return c }
func (c settingsConfig) ClassByModuleName(string) map[string]any         { return c }
func (c settingsConfig) Property(string) map[string]any                  { return nil }
func (c settingsConfig) PropertiesDataTypes() map[string]schema.DataType { return nil }
func (c settingsConfig) Config() *config.Config                          { return nil }
