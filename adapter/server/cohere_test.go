package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/server"
)

// embedResponse is Cohere's answer to POST /v2/embed, as Weaviate's
// text2vec-cohere reads it.
type embedResponse struct {
	ID         string `json:"id"`
	Embeddings struct {
		Float [][]float32 `json:"float"`
	} `json:"embeddings"`
	Meta struct {
		BilledUnits struct {
			InputTokens int `json:"input_tokens"`
		} `json:"billed_units"`
	} `json:"meta"`
	Message string `json:"message"`
}

// postEmbed posts body to url's /v2/embed with the headers given.
func postEmbed(t *testing.T, url, body string, headers map[string]string) (*http.Response, embedResponse) {
	t.Helper()
	return postJSON[embedResponse](t, url+"/v2/embed", body, headers)
}

// passageVectors returns /vectors/batch's passage vectors of texts.
func passageVectors(t *testing.T, url string, texts []string) [][]float32 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"texts": texts, "config": map[string]any{"task_type": "passage"}})
	r, err := http.Post(url+"/vectors/batch", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var out struct{ Vectors [][]float32 }
	if err := json.NewDecoder(r.Body).Decode(&out); err != nil || r.StatusCode != 200 || len(out.Vectors) != len(texts) {
		t.Fatalf("/vectors/batch: status %d, %v, %d vectors", r.StatusCode, err, len(out.Vectors))
	}
	return out.Vectors
}

// TestEmbedQueriesMatchVectors: Cohere's embed API with input_type
// search_query (what Weaviate's text2vec-cohere sends for nearText), or none,
// gives each text the vector /vectors gives it as a query, bit for bit, with
// the words counted as input tokens, and teaches the memory nothing.
func TestEmbedQueriesMatchVectors(t *testing.T) {
	_, mem, url := startServer(t, server.DefaultLimits())
	texts := []string{"f1 f2 r1 f3", "r2 f4 f5", "f6"}
	before := mem.Stats()
	for _, body := range []string{
		`{"texts":["f1 f2 r1 f3","r2 f4 f5","f6"],"model":"embed-multilingual-v3.0","input_type":"search_query",` +
			`"embedding_types":["float"],"truncate":"END"}`,
		`{"texts":["f1 f2 r1 f3","r2 f4 f5","f6"],"input_type":"clustering","output_dimension":32}`,
		`{"texts":["f1 f2 r1 f3","r2 f4 f5","f6"]}`,
	} {
		resp, got := postEmbed(t, url, body, map[string]string{"Authorization": "Bearer any-key"})
		if resp.StatusCode != 200 || len(got.Embeddings.Float) != len(texts) || got.ID == "" {
			t.Fatalf("%s: status %d, message %q, %d vectors, id %q", body, resp.StatusCode, got.Message,
				len(got.Embeddings.Float), got.ID)
		}
		if got.Meta.BilledUnits.InputTokens != 8 {
			t.Errorf("input tokens %d, want 8 words", got.Meta.BilledUnits.InputTokens)
		}
		for i, v := range got.Embeddings.Float {
			if !sameBits(v, queryVector(t, url, texts[i])) {
				t.Errorf("%s: vector %d differs from /vectors' query vector", body, i)
			}
		}
	}
	if after := mem.Stats(); after.Passages != before.Passages || after.Contexts != before.Contexts {
		t.Errorf("the memory changed: %+v, then %+v; queries teach nothing", before, after)
	}
}

// TestEmbedDocumentsTeach: input_type search_document (what Weaviate's
// text2vec-cohere sends for the objects it imports) vectorizes the texts as
// imported passages: the memory is taught as /vectors/batch teaches a twin,
// and each vector is the twin's passage vector, bit for bit. No token is
// needed: a search always sends search_query, whoever the client is.
func TestEmbedDocumentsTeach(t *testing.T) {
	_, mem, url := startServer(t, server.DefaultLimits())
	_, twin, twinURL := startServer(t, server.DefaultLimits())
	texts := []string{"f1 f2 r1 f3 r9", "r2 f4 r1 f5", "f6 r9 r2"}
	input, _ := json.Marshal(texts)
	resp, got := postEmbed(t, url, `{"texts":`+string(input)+`,"input_type":"search_document"}`, nil)
	if resp.StatusCode != 200 || len(got.Embeddings.Float) != len(texts) {
		t.Fatalf("status %d, message %q, %d vectors", resp.StatusCode, got.Message, len(got.Embeddings.Float))
	}
	if st := mem.Stats(); st.Passages != int64(len(texts)) || st.Contexts == 0 {
		t.Errorf("memory: %d passages, %d contexts; want %d passages and some contexts", st.Passages, st.Contexts, len(texts))
	}
	want := passageVectors(t, twinURL, texts)
	for i, v := range got.Embeddings.Float {
		if !sameBits(v, want[i]) {
			t.Errorf("vector %d is not /vectors/batch's passage vector of %q", i, texts[i])
		}
	}
	if a, b := mem.Stats(), twin.Stats(); a.Passages != b.Passages || a.Contexts != b.Contexts || a.Words != b.Words {
		t.Errorf("memory %+v, the twin's after /vectors/batch %+v: want the same", a, b)
	}
	resp, got = postEmbed(t, url, `{"texts":`+string(input)+`,"input_type":"search_document"}`, nil)
	if st := mem.Stats(); resp.StatusCode != 200 || st.Passages != int64(len(texts)) {
		t.Errorf("resent: status %d, %d passages; want 200 and each passage counted once", resp.StatusCode, st.Passages)
	}
}

// TestEmbedErrors: every refusal in Cohere's error shape ({"message"},
// which Weaviate's text2vec-cohere reports) naming the problem. Cohere's API
// has no per-text error, so one text over a limit or without a vector fails
// the request, named as texts[i]; a text over a limit teaches nothing.
func TestEmbedErrors(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch = 2
	lim.MaxTextBytes = 100
	_, mem, url := startServer(t, lim)
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"missing texts", `{"model":"m"}`, 400, `"texts" is required`},
		{"empty texts", `{"texts":[]}`, 400, "no text"},
		{"null text", `{"texts":["f1",null]}`, 400, "text 1 is null"},
		{"too many", `{"texts":["f1","f2","f3"]}`, 413, "--max-batch"},
		{"text too long", `{"texts":["f1","` + strings.Repeat("f1 ", 50) + `"],"input_type":"search_document"}`, 413,
			`texts[1] "f1 f1 f1 f1 f1 f1 f1 f1 f1 f1 f1 f1 f1 f…" has 150 bytes`},
		{"no word", `{"texts":["f1 r1 f2","..."],"input_type":"search_document"}`, 422, `texts[1] "..."`},
		{"images", `{"images":["data:image/png;base64,AAAA"],"input_type":"image"}`, 400, "texts only"},
		{"inputs", `{"inputs":[{"content":[]}]}`, 400, "texts only"},
		{"input type", `{"texts":["f1"],"input_type":"image"}`, 400, `"input_type" = "image"`},
		{"embedding type", `{"texts":["f1"],"embedding_types":["float","int8"]}`, 400, `"int8" is not served`},
		{"truncate", `{"texts":["f1"],"truncate":"MIDDLE"}`, 400, `"truncate" = "MIDDLE"`},
		{"output dimension", `{"texts":["f1"],"output_dimension":8}`, 400, "32 dimensions"},
		{"output dimension as a string", `{"texts":["f1"],"output_dimension":"32"}`, 400, "want an integer"},
		{"unknown key", `{"texts":["f1"],"temperature":1}`, 400, `"temperature"`},
		{"malformed", `{"texts":`, 400, "malformed JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, got := postEmbed(t, url, c.body, nil)
			if resp.StatusCode != c.status || !strings.Contains(got.Message, c.want) || len(got.Embeddings.Float) != 0 {
				t.Errorf("status %d, message %q; want %d and a message with %q", resp.StatusCode, got.Message, c.status, c.want)
			}
		})
	}
	if st := mem.Stats(); st.Passages != 0 || st.Contexts != 0 {
		t.Errorf("refused requests taught %d passages, %d contexts", st.Passages, st.Contexts)
	}
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/v2/rerank", "no endpoint POST /v2/rerank"},
		{"GET", "/v2/embed", "method GET not allowed"},
	} {
		req, _ := http.NewRequest(c.method, url+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Message string }
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || !strings.Contains(out.Message, c.want) {
			t.Errorf("%s %s: %v, message %q; want Cohere's shape with %q", c.method, c.path, err, out.Message, c.want)
		}
	}
	resp, got := postEmbed(t, url, `{"texts":["f1"]}`, map[string]string{"Sec-Fetch-Site": "cross-site"})
	if resp.StatusCode != 403 || !strings.Contains(got.Message, "cross-origin") {
		t.Errorf("cross-origin: status %d, message %q; want 403 in Cohere's shape", resp.StatusCode, got.Message)
	}
}

// TestEmbedBaseURLWithSlash: Weaviate's text2vec-cohere appends "/v2/embed"
// to the collection's base URL, so a base URL that ends in a slash asks for
// "//v2/embed": it is served as /v2/embed, not redirected (Weaviate's clients
// follow no redirect).
func TestEmbedBaseURLWithSlash(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	resp, got := postEmbed(t, url+"/", `{"texts":["f1 f2"],"input_type":"search_query"}`, nil)
	if resp.StatusCode != 200 || len(got.Embeddings.Float) != 1 ||
		!sameBits(got.Embeddings.Float[0], queryVector(t, url, "f1 f2")) {
		t.Errorf("//v2/embed: status %d, message %q, %d vectors; want /v2/embed's answer", resp.StatusCode, got.Message,
			len(got.Embeddings.Float))
	}
	resp, got = postEmbed(t, url+"/", `{"texts":["f1"]}`, map[string]string{"Sec-Fetch-Site": "cross-site"})
	if resp.StatusCode != 403 || !strings.Contains(got.Message, "cross-origin") {
		t.Errorf("cross-origin //v2/embed: status %d, message %q; want 403 in Cohere's shape", resp.StatusCode, got.Message)
	}
}
