package server_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/server"
)

// embeddingsResponse is OpenAI's answer to POST /v1/embeddings, with the
// per-text error Weaviate's text2vec-openai reads.
type embeddingsResponse struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string          `json:"object"`
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
		Error     *openAIError    `json:"error"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
	Error *openAIError `json:"error"`
}

type openAIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func postEmbeddings(t *testing.T, url, body string) (*http.Response, embeddingsResponse) {
	t.Helper()
	return postEmbeddingsWith(t, url, body, nil)
}

// postEmbeddingsWith posts body to url's /v1/embeddings with the headers given.
func postEmbeddingsWith(t *testing.T, url, body string, headers map[string]string) (*http.Response, embeddingsResponse) {
	t.Helper()
	return postJSON[embeddingsResponse](t, url+"/v1/embeddings", body, headers)
}

// postJSON posts body to url with the headers given, as Weaviate's clients
// do (following no redirect), and decodes the answer into a T.
func postJSON[T any](t *testing.T, url, body string, headers map[string]string) (*http.Response, T) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("response %q: %v", raw, err)
	}
	return resp, out
}

// openAIErrorOf sends an empty request and returns the error of its answer
// in OpenAI's shape (nil: none).
func openAIErrorOf(t *testing.T, method, url string) *openAIError {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Error *openAIError }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return out.Error
}

// queryVector returns /vectors' vector of text as a query.
func queryVector(t *testing.T, url, text string) []float32 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"text": text, "config": map[string]any{"task_type": "query"}})
	resp, err := http.Post(url+"/vectors", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Vector []float32 }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/vectors: status %d, %v", resp.StatusCode, err)
	}
	return out.Vector
}

func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestEmbeddingsMatchVectors: OpenAI's embeddings API gives each text the
// vector /vectors gives it as a query, bit for bit, in float and in base64,
// one text or several, with the usage in words, the model named and headers
// that set no rate limit.
func TestEmbeddingsMatchVectors(t *testing.T) {
	_, mem, url := startServer(t, server.DefaultLimits())
	texts := []string{"f1 f2 r1 f3", "r2 f4 f5", "f6"}
	before := mem.Stats()
	resp, got := postEmbeddings(t, url, `{"input":["f1 f2 r1 f3","r2 f4 f5","f6"],"model":"text-embedding-3-small"}`)
	if resp.StatusCode != 200 || got.Object != "list" || len(got.Data) != len(texts) {
		t.Fatalf("status %d, object %q, %d entries", resp.StatusCode, got.Object, len(got.Data))
	}
	if got.Model != "text-embedding-3-small" || got.Usage.PromptTokens != 8 || got.Usage.TotalTokens != 8 {
		t.Errorf("model %q, usage %+v; want the model asked for and 8 words", got.Model, got.Usage)
	}
	if resp.Header.Get("x-ratelimit-remaining-tokens") == "" || resp.Header.Get("x-ratelimit-limit-requests") == "" {
		t.Errorf("rate-limit headers missing: %v", resp.Header)
	}
	for i, d := range got.Data {
		var v []float32
		if err := json.Unmarshal(d.Embedding, &v); err != nil {
			t.Fatalf("data[%d]: %v", i, err)
		}
		if d.Index != i || d.Object != "embedding" || d.Error != nil || !sameBits(v, queryVector(t, url, texts[i])) {
			t.Errorf("data[%d]: index %d, object %q, error %v; vector equals /vectors': %v", i, d.Index, d.Object, d.Error,
				sameBits(v, queryVector(t, url, texts[i])))
		}
	}
	if after := mem.Stats(); after.Passages != before.Passages || after.Contexts != before.Contexts {
		t.Errorf("the memory changed: %+v, then %+v; embeddings are queries", before, after)
	}

	resp, got = postEmbeddings(t, url, `{"input":"f1 f2 r1 f3","encoding_format":"base64","dimensions":32}`)
	if resp.StatusCode != 200 || len(got.Data) != 1 {
		t.Fatalf("base64: status %d, %d entries", resp.StatusCode, len(got.Data))
	}
	var enc string
	if err := json.Unmarshal(got.Data[0].Embedding, &enc); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if !sameBits(v, queryVector(t, url, texts[0])) {
		t.Errorf("base64 vector differs from /vectors'")
	}
}

// TestEmbeddingsErrors: every refusal in OpenAI's error shape naming the
// problem; a text without a vector fails alone, in its entry of data.
func TestEmbeddingsErrors(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch = 2
	lim.MaxTextBytes = 100
	_, _, url := startServer(t, lim)
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"missing input", `{"model":"m"}`, 400, `"input" is required`},
		{"empty input", `{"input":[]}`, 400, "no text"},
		{"token array", `{"input":[1,2,3]}`, 400, "token arrays"},
		{"token arrays", `{"input":[[1,2],[3]]}`, 400, "token arrays"},
		{"too many", `{"input":["f1","f2","f3"]}`, 413, "--max-batch"},
		{"text too long", `{"input":["` + strings.Repeat("f1 ", 50) + `"]}`, 413, "--max-text-bytes"},
		{"dimensions", `{"input":"f1","dimensions":8}`, 400, "32 dimensions"},
		{"dimensions as a string", `{"input":"f1","dimensions":"32"}`, 400, "want an integer"},
		{"dimensions not whole", `{"input":"f1","dimensions":32.5}`, 400, "want an integer"},
		{"null text", `{"input":["f1",null]}`, 400, "text 1 is null"},
		{"encoding", `{"input":"f1","encoding_format":"int8"}`, 400, "encoding_format"},
		{"unknown key", `{"input":"f1","temperature":1}`, 400, `"temperature"`},
		{"wrong type", `{"input":5}`, 400, `"input"`},
		{"malformed", `{"input":`, 400, "malformed JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, got := postEmbeddings(t, url, c.body)
			if resp.StatusCode != c.status || got.Error == nil || !strings.Contains(got.Error.Message, c.want) ||
				got.Error.Type != "invalid_request_error" {
				t.Errorf("status %d, error %+v; want %d and a message with %q", resp.StatusCode, got.Error, c.status, c.want)
			}
		})
	}

	resp, got := postEmbeddings(t, url, `{"input":"f1","dimensions":null}`)
	if resp.StatusCode != 200 || len(got.Data) != 1 {
		t.Errorf("dimensions null: status %d, error %+v; want 200 (null is no value)", resp.StatusCode, got.Error)
	}
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/v1/chat/completions", "no endpoint POST /v1/chat/completions"},
		{"GET", "/v1/embeddings", "method GET not allowed"},
	} {
		if e := openAIErrorOf(t, c.method, url+c.path); e == nil || !strings.Contains(e.Message, c.want) ||
			e.Type != "invalid_request_error" {
			t.Errorf("%s %s: error %+v; want OpenAI's shape with %q", c.method, c.path, e, c.want)
		}
	}

	resp, got = postEmbeddings(t, url, `{"input":["...","f1 f2"]}`)
	if resp.StatusCode != 200 || len(got.Data) != 2 {
		t.Fatalf("status %d, %d entries", resp.StatusCode, len(got.Data))
	}
	if e := got.Data[0].Error; e == nil || !strings.Contains(e.Message, "input[0]") || string(got.Data[0].Embedding) != "[]" {
		t.Errorf("data[0]: error %+v, embedding %s; want input[0]'s error and no vector", e, got.Data[0].Embedding)
	}
	if got.Data[1].Error != nil || len(got.Data[1].Embedding) < 10 {
		t.Errorf("data[1]: error %+v, embedding %s; want a vector", got.Data[1].Error, got.Data[1].Embedding)
	}
}

// TestEmbeddingsTextOverLimitFailsAlone: in a batch, a text over a per-text
// limit gets its error in its entry of data, named as input[i], and the
// others their vectors: Weaviate's text2vec-openai sends up to 2000 objects
// in one request, and one long object must not fail them all.
func TestEmbeddingsTextOverLimitFailsAlone(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxTextBytes = 100
	lim.MaxWords = 10
	_, _, url := startServer(t, lim)
	long, wordy := strings.Repeat("f1", 60), strings.Repeat("f1 ", 20)
	resp, got := postEmbeddings(t, url, `{"input":["f1 f2","`+long+`","r2 f4","`+wordy+`"]}`)
	if resp.StatusCode != 200 || len(got.Data) != 4 {
		t.Fatalf("status %d, error %+v, %d entries; want 200 and 4 entries", resp.StatusCode, got.Error, len(got.Data))
	}
	for i, want := range []string{"", "input[1] has 120 bytes", "", "input[3] has 20 words"} {
		d := got.Data[i]
		switch {
		case want == "" && (d.Error != nil || len(d.Embedding) < 10):
			t.Errorf("data[%d]: error %+v, embedding %s; want a vector", i, d.Error, d.Embedding)
		case want != "" && (d.Error == nil || !strings.Contains(d.Error.Message, want) || string(d.Embedding) != "[]"):
			t.Errorf("data[%d]: error %+v, embedding %s; want no vector and an error with %q", i, d.Error, d.Embedding, want)
		}
	}
}

// TestEmbeddingsOneTextWithoutVector: a request whose only text yields no
// vector is refused as a whole, in OpenAI's error shape: Weaviate's
// text2vec-openai reads per-text errors only in batches, and would take the
// empty embedding of a single object or query as its vector.
func TestEmbeddingsOneTextWithoutVector(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	for _, body := range []string{`{"input":"..."}`, `{"input":["..."]}`} {
		resp, got := postEmbeddings(t, url, body)
		if resp.StatusCode != 422 || got.Error == nil || !strings.Contains(got.Error.Message, "input[0]") || len(got.Data) != 0 {
			t.Errorf("%s: status %d, error %+v, %d entries; want 422 and input[0]'s error", body, resp.StatusCode, got.Error, len(got.Data))
		}
	}
}

// TestPassageEmbeddingsTeach: /passage/v1/embeddings vectorizes its texts as
// imported objects: it teaches the memory and gives each text the vector
// /vectors/batch gives it as a passage in the same batch on a server with
// the same memory, bit for bit; a text over a limit is neither vectorized
// nor taught.
func TestPassageEmbeddingsTeach(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxTextBytes = 100
	lim.AuthToken = "importer-token"
	_, mem, url := startServer(t, lim)
	_, twin, twinURL := startServer(t, lim)
	texts := []string{"f1 f2 r1 f3 r9", "r2 f4 r1 f5", "f6 r9 r2"}
	input, _ := json.Marshal(append(slices.Clone(texts), strings.Repeat("r3 ", 40)))
	resp, got := postEmbeddingsWith(t, url+"/passage", `{"input":`+string(input)+`}`,
		map[string]string{"Authorization": "Bearer importer-token"})
	if resp.StatusCode != 200 || len(got.Data) != len(texts)+1 {
		t.Fatalf("status %d, error %+v, %d entries", resp.StatusCode, got.Error, len(got.Data))
	}
	if e := got.Data[len(texts)].Error; e == nil || !strings.Contains(e.Message, "--max-text-bytes") {
		t.Errorf("the long text: error %+v, want one naming --max-text-bytes", e)
	}
	if st := mem.Stats(); st.Passages != int64(len(texts)) || st.Contexts == 0 {
		t.Errorf("memory after the passages: %d passages, %d contexts; want %d passages and some contexts",
			st.Passages, st.Contexts, len(texts))
	}
	want := passageVectors(t, twinURL, texts)
	for i := range texts {
		var v []float32
		if err := json.Unmarshal(got.Data[i].Embedding, &v); err != nil {
			t.Fatalf("data[%d]: %v", i, err)
		}
		if !sameBits(v, want[i]) {
			t.Errorf("data[%d] is not /vectors/batch's passage vector of %q", i, texts[i])
		}
	}
	if a, b := mem.Stats(), twin.Stats(); a.Passages != b.Passages || a.Contexts != b.Contexts || a.Words != b.Words {
		t.Errorf("memory %+v, the twin's after /vectors/batch %+v: want the same", a, b)
	}
}

// TestPassageEmbeddingsNeedToken: /passage/v1/embeddings teaches the memory,
// and any Weaviate client can name it, so it needs the bearer token, sent as
// the client's OpenAI API key, even on loopback: without --auth-token-file it
// is off (403), with a wrong or missing token 401; refused in OpenAI's shape,
// nothing taught. A cross-origin browser request under /v1/ is refused in
// that shape too.
func TestPassageEmbeddingsNeedToken(t *testing.T) {
	body := `{"input":["f1 f2 r1 f3"]}`
	_, mem, url := startServer(t, server.DefaultLimits())
	resp, got := postEmbeddingsWith(t, url+"/passage", body, map[string]string{"Authorization": "Bearer x"})
	if resp.StatusCode != 403 || got.Error == nil || !strings.Contains(got.Error.Message, "--auth-token-file") {
		t.Errorf("no token configured: status %d, error %+v; want 403 naming --auth-token-file", resp.StatusCode, got.Error)
	}
	lim := server.DefaultLimits()
	lim.AuthToken = "importer-token"
	_, memTok, urlTok := startServer(t, lim)
	for _, auth := range []string{"", "Bearer wrong", "importer-token"} {
		resp, got := postEmbeddingsWith(t, urlTok+"/passage", body, map[string]string{"Authorization": auth})
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != "Bearer" || got.Error == nil ||
			got.Error.Type != "invalid_request_error" {
			t.Errorf("Authorization %q: status %d, error %+v; want 401 with WWW-Authenticate in OpenAI's shape",
				auth, resp.StatusCode, got.Error)
		}
	}
	for _, m := range []*memory.Memory{mem, memTok} {
		if st := m.Stats(); st.Passages != 0 {
			t.Errorf("a refused request taught %d passages", st.Passages)
		}
	}
	resp, got = postEmbeddingsWith(t, url, body, map[string]string{"Sec-Fetch-Site": "cross-site"})
	if resp.StatusCode != 403 || got.Error == nil || !strings.Contains(got.Error.Message, "cross-origin") {
		t.Errorf("cross-origin under /v1/: status %d, error %+v; want 403 in OpenAI's shape", resp.StatusCode, got.Error)
	}
}
