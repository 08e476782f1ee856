package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// setRateLimitHeaders tells OpenAI clients that this server sets no rate
// limit: Weaviate's text2vec-openai paces its batches by these headers, and
// without them sleeps between requests as if the limit were zero. The
// server's own bounds (--max-concurrent, --max-batch, --max-body-bytes)
// answer 503 or 413.
func setRateLimitHeaders(h http.Header) {
	const requests, tokens = "1000000000", "2000000000" // below 2³¹: Weaviate parses them with Atoi
	h.Set("x-ratelimit-limit-requests", requests)
	h.Set("x-ratelimit-remaining-requests", requests)
	h.Set("x-ratelimit-reset-requests", "0s")
	h.Set("x-ratelimit-limit-tokens", tokens)
	h.Set("x-ratelimit-remaining-tokens", tokens)
	h.Set("x-ratelimit-reset-tokens", "0s")
}

// embeddingsRequest is the body of POST /v1/embeddings, OpenAI's embeddings
// API: Weaviate's text2vec-openai (and any OpenAI client) with its base URL
// set to this server.
type embeddingsRequest struct {
	Input          embeddingsInput `json:"input"`
	Model          *string         `json:"model"`
	Dimensions     json.RawMessage `json:"dimensions"` // an integer: json.Number would take "32" too
	EncodingFormat *string         `json:"encoding_format"`
	User           *string         `json:"user"`
}

// embeddingsInput is "input": one string or an array of strings (token
// arrays are refused), at most --max-batch of them.
type embeddingsInput struct{ textList }

// UnmarshalJSON decodes a string or an array of strings.
func (in *embeddingsInput) UnmarshalJSON(b []byte) error {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return errorf(http.StatusBadRequest, "malformed JSON: field \"input\": %v", err)
		}
		in.texts, in.set = []string{s}, true
		return nil
	}
	if len(b) > 0 && b[0] == '[' {
		if rest := bytes.TrimLeft(b[1:], " \t\r\n"); len(rest) > 0 && (rest[0] == '[' || rest[0] == '-' ||
			rest[0] >= '0' && rest[0] <= '9') {
			return errorf(http.StatusBadRequest, "field \"input\": token arrays are not supported; send the texts")
		}
	}
	return in.textList.UnmarshalJSON(b)
}

// embeddings answers POST /v1/embeddings with task TaskQuery and POST
// /passage/v1/embeddings with TaskPassage. OpenAI's API cannot say whether
// a text is a query or an imported object, so the path says it: a client
// that imports sets Weaviate's X-OpenAI-BaseURL header to serve's /passage
// (the collection's baseURL, which queries use, names serve). In a batch, a
// text over a per-text limit or that yields no vector gets an "error" in
// its entry of "data", as Weaviate's text2vec-openai reads it, so that one
// bad text does not fail the others; a request of one text gets its error
// as the answer.
func (s *Server) embeddings(task vectorizer.Task) answerFunc {
	return func(ctx context.Context, hdr http.Header, body *bytes.Buffer) ([]byte, error) {
		return s.embeddingsAs(ctx, hdr, body, task)
	}
}

func (s *Server) embeddingsAs(ctx context.Context, hdr http.Header, body *bytes.Buffer,
	task vectorizer.Task) ([]byte, error) {
	req := embeddingsRequest{Input: embeddingsInput{textList{field: "input", limit: s.limits.MaxBatch}}}
	if err := decodeStrict(body.Bytes(), &req, "input", "model", "dimensions", "encoding_format", "user"); err != nil {
		return nil, err
	}
	base64Format, err := s.checkEmbeddingsRequest(&req)
	if err != nil {
		return nil, err
	}
	texts := req.Input.texts
	vecs, errs, err := s.embed(ctx, texts, task)
	if err != nil {
		return nil, err
	}
	if len(texts) == 1 && errs[0] != nil {
		// Weaviate's text2vec-openai reads no per-text error for a single
		// object or query: it would take the empty embedding as the vector.
		return nil, errs[0]
	}
	model := s.modelName
	if req.Model != nil && *req.Model != "" {
		model = *req.Model
	}
	words := 0
	for _, t := range texts {
		words += s.vec.Model().Tokenizer.CountWords(t, len(t))
	}
	out := body.AvailableBuffer()[:0]
	out = append(out, `{"object":"list","data":[`...)
	for i, v := range vecs {
		if i > 0 {
			out = append(out, ',')
		}
		out = s.appendEmbedding(out, i, v, errs[i], base64Format)
		if errors.Is(errs[i], vectorizer.ErrTooManyAMWords) {
			s.metrics.amWordsRefused.Inc()
		}
	}
	out = append(out, `],"model":`...)
	out = appendString(out, model)
	out = append(out, `,"usage":{"prompt_tokens":`...)
	out = strconv.AppendInt(out, int64(words), 10)
	out = append(out, `,"total_tokens":`...)
	out = strconv.AppendInt(out, int64(words), 10)
	out = append(out, "}}"...)
	setRateLimitHeaders(hdr)
	return out, nil
}

// embed vectorizes the texts that keep the per-text limits for task (a
// passage teaches the memory, when it is on); errs[i] is nil or the error
// of texts[i], named input[i]: a text over a limit is refused without being
// vectorized or taught.
func (s *Server) embed(ctx context.Context, texts []string, task vectorizer.Task) (vecs [][]float32, errs []error, err error) {
	vecs, errs = make([][]float32, len(texts)), make([]error, len(texts))
	kept, at := make([]string, 0, len(texts)), make([]int, 0, len(texts))
	for i, t := range texts {
		if errs[i] = s.checkTextAt(t, inputName(i)); errs[i] == nil {
			kept, at = append(kept, t), append(at, i)
		}
	}
	if len(kept) > 0 {
		kv, ke, err := s.vz.VectorizeBatch(ctx, s.vec, "", kept, task, s.vec.Options())
		if err != nil {
			return nil, nil, err
		}
		for j, i := range at {
			vecs[i] = kv[j]
			if ke[j] != nil {
				errs[i] = vectorError(ke[j], inputName(i))
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return vecs, errs, nil
}

// inputName names text i of "input" in errors.
func inputName(i int) string { return "input[" + strconv.Itoa(i) + "]" }

// checkEmbeddingsRequest checks the decoded request against the model and
// the limits; it reports whether the vectors are wanted in base64.
func (s *Server) checkEmbeddingsRequest(req *embeddingsRequest) (base64Format bool, err error) {
	if !req.Input.set {
		return false, errorf(http.StatusBadRequest, "field \"input\" is required")
	}
	if len(req.Input.texts) == 0 {
		return false, errorf(http.StatusBadRequest, "field \"input\": no text")
	}
	if err := s.checkDimensions("dimensions", req.Dimensions); err != nil {
		var he *httpError
		if d := string(req.Dimensions); (d == "1536" || d == "3072") && errors.As(err, &he) {
			he.msg += ` (Weaviate's text2vec-openai asks for it with OpenAI's models: give the collection's ` +
				`moduleConfig a "model" of another name)`
		}
		return false, err
	}
	if f := req.EncodingFormat; f != nil {
		switch *f {
		case "float":
		case "base64":
			base64Format = true
		default:
			return false, errorf(http.StatusBadRequest, "field \"encoding_format\" = %q: want \"float\" or \"base64\"", *f)
		}
	}
	return base64Format, nil
}

// checkDimensions checks the number of dimensions a request asks for in
// field (raw: absent, null, or an integer): this model's own, or none.
func (s *Server) checkDimensions(field string, raw json.RawMessage) error {
	dims := string(raw)
	if dims == "" || dims == "null" {
		return nil
	}
	d, err := strconv.ParseInt(dims, 10, 64)
	if err != nil {
		return errorf(http.StatusBadRequest, "field %q: want an integer", field)
	}
	return s.dimensionsError(fmt.Sprintf("field %q", field), d)
}

// dimensionsError refuses a number of dimensions d, asked for in where, other
// than the model's: vectors are neither lengthened nor shortened.
func (s *Server) dimensionsError(where string, d int64) error {
	dim := int64(s.vec.Dim())
	switch {
	case d > dim:
		return errorf(http.StatusBadRequest, "%s = %d: this model's vectors have %d dimensions; "+
			"a larger number cannot be given", where, d, dim)
	case d < 1:
		return errorf(http.StatusBadRequest, "%s = %d: want a positive number (this model's vectors have %d dimensions)",
			where, d, dim)
	case d < dim:
		return errorf(http.StatusBadRequest, "%s = %d: this model's vectors have %d dimensions and cannot be shortened",
			where, d, dim)
	}
	return nil
}

// appendEmbedding appends the entry of "data" for text i: its vector, or an
// empty vector and the error (Weaviate's text2vec-openai reads per-text
// errors there; an internal one is logged and not described).
func (s *Server) appendEmbedding(b []byte, i int, v []float32, err error, base64Format bool) []byte {
	b = append(b, `{"object":"embedding","index":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `,"embedding":`...)
	switch {
	case err != nil:
		he := s.answered(err)
		b = append(b, `[],"error":`...)
		b = appendOpenAIError(b, he.msg, openAIErrorType(he.status))
	case base64Format:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, float32Bytes(v))
		b = append(b, '"')
	default:
		b = appendVector(b, v)
	}
	return append(b, '}')
}

// float32Bytes returns v as little-endian IEEE 754 bytes, as OpenAI's
// base64 encoding holds them.
func float32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// appendOpenAIError appends OpenAI's error object.
func appendOpenAIError(b []byte, msg, typ string) []byte {
	b = append(b, `{"message":`...)
	b = appendString(b, msg)
	b = append(b, `,"type":`...)
	b = appendString(b, typ)
	return append(b, `,"param":null,"code":null}`...)
}

// writeOpenAIError answers err in OpenAI's shape, {"error": {"message",
// "type", "param", "code"}}.
func (s *Server) writeOpenAIError(w http.ResponseWriter, err error) {
	he := s.answered(err)
	writeErrorBody(w, he, append(appendOpenAIError([]byte(`{"error":`), he.msg, openAIErrorType(he.status)), '}'))
}

// openAIErrorType is the "type" of OpenAI's error object for status.
func openAIErrorType(status int) string {
	if status >= 500 {
		return "server_error"
	}
	return "invalid_request_error"
}
