package server_test

import (
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// TestRequestErrorsSpeakJSON: a body or a field of the wrong JSON type, an
// unknown field or config key and a number of dimensions other than the
// model's are refused 400 with a message in the request's own terms: JSON
// types and the fields and keys a request takes, never a Go type.
func TestRequestErrorsSpeakJSON(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits()) // a model of 32 dimensions
	for _, c := range []struct{ path, body, want string }{
		{"/vectors", `[]`, "the request body must be a JSON object (fields: text, config), got a JSON array"},
		{"/vectors", `"x"`, "must be a JSON object (fields: text, config), got a JSON string"},
		{"/vectors", `{"text":1}`, `field "text": want a string, got a JSON number`},
		{"/vectors", `{"text":"f1","config":[]}`, `field "config": want an object, got a JSON array`},
		{"/vectors", `{"text":"f1","vector":{}}`, `field "vector" is a field of the answer, sent in a request only empty`},
		{"/vectors", `{"text":"f1","vector":["a"]}`, `field "vector" is a field of the answer, sent in a request only empty`},
		{"/vectors", `{"text":"f1","dims":"0"}`, `field "dims" is a field of the answer, sent in a request only empty`},
		{"/vectors", `{"text":"f1","config":{"sif_a":[1]}}`,
			`config key "sif_a": want a string, number, boolean or null, got a JSON array`},
		{"/vectors", `{"text":"f1","config":{"task_type":"query","sif_a":{"a":1}}}`,
			`config key "sif_a": want a string, number, boolean or null, got a JSON object`},
		{"/vectors", `{"Text":"x"}`, `unknown field "Text" (known: text, config)`},
		{"/vectors", `{"text":"f1","dims":32}`, `field "dims" is a field of the answer`},
		{"/vectors", `{"text":"f1","vector":[0.5]}`, `field "vector" is a field of the answer, sent in a request only empty`},
		{"/vectors", `{"text":"f1","error":"x"}`, `field "error" is a field of the answer`},
		{"/vectors", `{"text":"f1","config":{"tasktype":"query"}}`, `unknown config key "tasktype" ` +
			`(known: task_type, pooling_strategy, dimensions, weighting, sif_a,`},
		{"/vectors", `{"text":"f1","config":{"dimensions":64}}`,
			`config key "dimensions" = 64: this model's vectors have 32 dimensions; a larger number cannot be given`},
		{"/vectors", `{"text":"f1","config":{"dimensions":16}}`,
			`config key "dimensions" = 16: this model's vectors have 32 dimensions and cannot be shortened`},
		{"/vectors/batch", `[]`, "must be a JSON object (fields: texts, config), got a JSON array"},
		{"/vectors/batch", `{"texts":[1]}`, `field "texts": text 0: want a string, got a JSON number`},
		{"/vectors/batch", `{"texts":["f1"],"config":1}`, `field "config": want an object, got a JSON number`},
		{"/vectors/batch", `{"texts":["f1"],"config":{"sif_a":[1]}}`,
			`config key "sif_a": want a string, number, boolean or null, got a JSON array`},
		{"/explain", `{"text":"f1","config":{"sif_a":[1]}}`,
			`config key "sif_a": want a string, number, boolean or null, got a JSON array`},
		{"/explain", `{"text":"f1","config":"x"}`, `field "config": want an object, got a JSON string`},
		{"/explain", `[]`, "must be a JSON object (fields: text, config), got a JSON array"},
		{"/explain", `{"text":[]}`, `field "text": want a string, got a JSON array`},
		{"/v1/embeddings", `[]`, "must be a JSON object (fields: input, model, dimensions, encoding_format, user)"},
		{"/v1/embeddings", `{"input":"f1","model":1}`, `field "model": want a string, got a JSON number`},
		{"/v1/embeddings", `{"input":["f1",2]}`, `field "input": text 1: want a string, got a JSON number`},
		{"/v1/embeddings", `{"input":"f1","dimensions":1536}`,
			`field "dimensions" = 1536: this model's vectors have 32 dimensions; a larger number cannot be given ` +
				`(Weaviate's text2vec-openai asks for it with OpenAI's models: give the collection's moduleConfig ` +
				`a "model" of another name)`},
		{"/v1/embeddings", `{"input":"f1","dimensions":10}`,
			`field "dimensions" = 10: this model's vectors have 32 dimensions and cannot be shortened`},
		{"/v1/embeddings", `{"input":"f1","dimensions":0}`, `field "dimensions" = 0: want a positive number`},
		{"/v2/embed", `[]`, "must be a JSON object (fields: texts, images, inputs, model,"},
		{"/v2/embed", `{"texts":["f1"],"embedding_types":"float"}`,
			`field "embedding_types": want an array of strings, got a JSON string`},
		{"/v2/embed", `{"texts":["f1"],"embedding_types":[1]}`,
			`field "embedding_types": an element is a JSON number, want an array of strings`},
		{"/v2/embed", `{"texts":["f1"],"output_dimension":64}`,
			`field "output_dimension" = 64: this model's vectors have 32 dimensions; a larger number cannot be given`},
	} {
		code, _, body := testhttp.Post(t, url, c.path, c.body)
		if code != 400 || !strings.Contains(body, strings.ReplaceAll(c.want, `"`, `\"`)) {
			t.Errorf("%s %s: %d %s, want 400 with %q", c.path, c.body, code, body, c.want)
		}
		for _, leak := range []string{"server.", "[]float32", "[]string", "Go value", "want int,", "want string,"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s %s: %s names a Go type (%q)", c.path, c.body, body, leak)
			}
		}
	}
	// The hint for OpenAI's dimensions is given where text2vec-openai asks.
	for _, c := range []struct {
		path, body string
		hint       bool
	}{
		{"/v1/embeddings", `{"input":"f1","dimensions":1536}`, true},
		{"/v2/embed", `{"texts":["f1"],"output_dimension":1536}`, false},
		{"/vectors", `{"text":"f1","config":{"dimensions":1536}}`, false},
	} {
		code, _, body := testhttp.Post(t, url, c.path, c.body)
		if code != 400 || strings.Contains(body, "text2vec-openai asks") != c.hint {
			t.Errorf("%s %s: %d %s, want 400 with the text2vec-openai hint %v", c.path, c.body, code, body, c.hint)
		}
	}
	// Weaviate's transformers client sends the answer's fields back empty.
	body := `{"text":"f1 f2","dims":0,"vector":null,"error":"","config":{"pooling_strategy":"masked_mean"}}`
	if code, _, resp := testhttp.Post(t, url, "/vectors", body); code != 200 {
		t.Errorf("/vectors as Weaviate sends it: %d %s", code, resp)
	}
}
