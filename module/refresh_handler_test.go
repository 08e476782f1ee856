package module

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate/entities/models"
	basesettings "github.com/weaviate/weaviate/usecases/modulecomponents/settings"
	objectsvectorizer "github.com/weaviate/weaviate/usecases/modulecomponents/vectorizer"

	"github.com/text2vec-am/text2vec-am/adapter/refresh"
)

// TestRootHandlerVectorizesAsTheCollection checks /vectors/batch: the vector
// of a text is the one the module stores for an object with that text and
// the same settings, and it never teaches the memory.
func TestRootHandlerVectorizesAsTheCollection(t *testing.T) {
	m := newTestModule(t, true)
	h := m.RootHandler()
	settings := map[string]any{"weighting": "sif", "maxContexts": 8, "teach": false}
	texts := []string{"w1 w2 r3 unseenword", "w5 r7", "w9 w10 w11"}
	post := func(body string) (int, []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors/batch", strings.NewReader(body)))
		return rec.Code, rec.Body.Bytes()
	}
	before := m.mem.Stats()
	body, _ := json.Marshal(map[string]any{"texts": texts, "settings": settings})
	code, raw := post(string(body))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, raw)
	}
	var ans struct {
		Dims    int         `json:"dims"`
		Vectors [][]float32 `json:"vectors"`
		Errors  []*string   `json:"errors"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || len(ans.Vectors) != len(texts) {
		t.Fatalf("answer %s: %v", raw, err)
	}
	cfg := fakeClassConfig{settings: settings}
	for i, text := range texts {
		want, _, err := m.VectorizeObject(t.Context(), object(i, map[string]any{"text": text}), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !sameVector(ans.Vectors[i], want) {
			t.Errorf("text %d: /vectors/batch differs from the object's vector", i)
		}
	}
	if after := m.mem.Stats(); !reflect.DeepEqual(after, before) {
		t.Errorf("/vectors/batch changed the memory: %+v → %+v", before, after)
	}
	for body, want := range map[string]int{
		`{"texts":["w1"],"settings":{"weighting":"tfidf"}}`:              http.StatusBadRequest,
		`{"texts":["w1"],"settings":{"properties":"text"}}`:              http.StatusBadRequest,
		`{"texts":["w1"],"settings":{"properties":[1]}}`:                 http.StatusBadRequest,
		`{"texts":["w1"],"settings":{"properties":[]}}`:                  http.StatusBadRequest,
		`{"texts":["w1"],"colour":1}`:                                    http.StatusBadRequest,
		`{"settings":{}}`:                                                http.StatusBadRequest,
		`{"texts":["w1"]} {}`:                                            http.StatusBadRequest,
		`{"texts":[` + strings.Repeat(`"w1",`, maxBatchTexts) + `"w1"]}`: http.StatusRequestEntityTooLarge,
	} {
		if code, raw := post(body); code != want || !bytes.Contains(raw, []byte(`"error"`)) {
			t.Errorf("%.60s: status %d %s, want %d with an error", body, code, raw, want)
		}
	}
	if code, raw := post(`{"texts":["w1"],"settings":{"properties":["text"]}}`); code != http.StatusOK {
		t.Errorf("settings naming properties: status %d %s, want 200", code, raw)
	}
}

// TestRootHandlerRefusesTextsAsDecoded: a batch of 2.7 million empty texts
// (an 8 MiB body) is refused 413 at the first text beyond the limit, before
// the texts beyond it take memory: the request allocates a few times its
// body, not the tens of bytes a text that a whole []string takes.
func TestRootHandlerRefusesTextsAsDecoded(t *testing.T) {
	m := newTestModule(t, true)
	h := m.RootHandler()
	body := []byte(`{"texts":[""` + strings.Repeat(`,""`, 2_700_000) + `]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors/batch", bytes.NewReader(body)))
	runtime.ReadMemStats(&after)
	if want := fmt.Sprintf("more than %d texts per batch", maxBatchTexts); rec.Code != http.StatusRequestEntityTooLarge ||
		!strings.Contains(rec.Body.String(), want) {
		t.Errorf("2.7 M texts: %d %.200s, want 413 naming %q", rec.Code, rec.Body.String(), want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 10*uint64(len(body)) {
		t.Errorf("refusing a body of %d bytes allocated %d bytes, want at most 10 times the body", len(body), n)
	}
	for body, want := range map[string]int{`{"texts":[]}`: http.StatusOK, `{"texts":["w1",null]}`: http.StatusOK,
		`{"texts":null}`: http.StatusBadRequest, `{"texts":[["w1"]]}`: http.StatusBadRequest} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/vectors/batch", strings.NewReader(body)))
		if rec.Code != want {
			t.Errorf("%s: %d %.200s, want %d", body, rec.Code, rec.Body.String(), want)
		}
	}
}

// TestRefreshTextMatchesWeaviate checks that refresh assembles an object's
// text from its REST form exactly as Weaviate's ObjectVectorizer does from
// the typed properties its validator makes, over random objects and
// settings (class name, skip, vectorizePropertyName, a properties list).
func TestRefreshTextMatchesWeaviate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	types := map[string]string{"titleText": "text", "body": "text", "tags": "text[]", "itemCount": "int", "price": "number",
		"flag": "boolean", "when": "date", "days": "date[]", "ref": "uuid", "blobData": "blob", "scores": "number[]"}
	names := []string{"titleText", "body", "tags", "itemCount", "price", "flag", "when", "days", "ref", "blobData", "scores"}
	ov := objectsvectorizer.New()
	for trial := range 300 {
		settings := map[string]any{"vectorizeClassName": rng.IntN(2) == 0}
		if rng.IntN(3) == 0 {
			var ps []any
			for _, n := range names {
				if rng.IntN(2) == 0 {
					ps = append(ps, n)
				}
			}
			if len(ps) > 0 {
				settings["properties"] = ps
			}
		}
		props := map[string]map[string]any{}
		rs := refresh.TextSettings{Skip: map[string]bool{}, PropertyName: map[string]bool{}, DataTypes: types}
		rs.VectorizeClassName = settings["vectorizeClassName"].(bool)
		if ps, ok := settings["properties"].([]any); ok {
			for _, p := range ps {
				rs.Properties = append(rs.Properties, p.(string))
			}
		}
		for _, n := range names {
			pc := map[string]any{}
			if rng.IntN(4) == 0 {
				pc["skip"] = true
				rs.Skip[n] = true
			}
			if rng.IntN(3) == 0 {
				pc["vectorizePropertyName"] = true
				rs.PropertyName[n] = true
			}
			props[n] = pc
		}
		typed, rest := randomProperties(rng, names)
		obj := &models.Object{Class: "MixedThings", Properties: typed}
		want, wantEmpty := ov.Texts(t.Context(), obj, basesettings.NewBaseClassSettings(fakeClassConfig{settings: settings, props: props}, false))
		got, gotEmpty := rs.Text("MixedThings", rest)
		if got != want || gotEmpty != wantEmpty {
			t.Fatalf("trial %d, settings %v, properties %v:\nWeaviate %q (empty %v)\nrefresh  %q (empty %v)", trial, settings, rest, want, wantEmpty, got, gotEmpty)
		}
	}
}

// randomProperties returns an object's properties as Weaviate's validator
// types them and as its REST API returns them (JSON).
func randomProperties(rng *rand.Rand, names []string) (map[string]any, map[string]any) {
	typed, rest := map[string]any{}, map[string]any{}
	words := []string{"nftables", "Kernel", "zstd compression", "systemd unit", "libqcoro6qml0"}
	word := func() string { return words[rng.IntN(len(words))] }
	for _, n := range names {
		if rng.IntN(5) == 0 {
			continue // not set
		}
		switch n {
		case "titleText", "body", "blobData":
			typed[n] = word() + " " + word()
		case "tags":
			v := []string{word(), word()}
			typed[n] = v
			rest[n] = []any{v[0], v[1]}
			continue
		case "itemCount":
			typed[n] = float64(rng.IntN(100000))
		case "price":
			typed[n] = rng.Float64() * 1000
		case "flag":
			typed[n] = rng.IntN(2) == 0
		case "when":
			d := time.Date(2024, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 0, 0, 0, time.FixedZone("", 3600*rng.IntN(3)))
			typed[n] = d
			rest[n] = d.Format(time.RFC3339Nano)
			continue
		case "days":
			d := time.Date(2023, 1, 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
			typed[n] = []time.Time{d}
			rest[n] = []any{d.Format(time.RFC3339Nano)}
			continue
		case "ref":
			u := uuid.New()
			typed[n] = u
			rest[n] = u.String()
			continue
		case "scores":
			v := []float64{rng.Float64(), float64(rng.IntN(10))}
			typed[n] = v
			rest[n] = []any{v[0], v[1]}
			continue
		}
		// JSON round trip: what the REST API returns.
		var back any
		data, _ := json.Marshal(typed[n])
		json.Unmarshal(data, &back)
		rest[n] = back
	}
	return typed, rest
}
