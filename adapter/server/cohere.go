package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// embedRequest is the body of POST /v2/embed, Cohere's embed API (v2):
// Weaviate's text2vec-cohere (and any Cohere client) with its base URL set
// to this server.
type embedRequest struct {
	Texts           textList        `json:"texts"`
	Images          json.RawMessage `json:"images"`
	Inputs          json.RawMessage `json:"inputs"`
	Model           *string         `json:"model"`
	InputType       *string         `json:"input_type"`
	EmbeddingTypes  []string        `json:"embedding_types"`
	Truncate        *string         `json:"truncate"`
	OutputDimension json.RawMessage `json:"output_dimension"` // an integer, as "dimensions" of /v1/embeddings
	MaxTokens       json.RawMessage `json:"max_tokens"`
}

// cohereTask maps Cohere's input_type to the vectorizer's task: a document
// is a passage (imported: it teaches the memory, when it is on); a query,
// and a text embedded to be classified or clustered, is vectorized as a
// query and teaches nothing. Weaviate's text2vec-cohere sends
// "search_document" for the objects it imports and "search_query" for
// nearText, so the import and the search are told apart by what Weaviate
// sends, whoever the client is.
var cohereTask = map[string]vectorizer.Task{
	"search_document": vectorizer.TaskPassage,
	"search_query":    vectorizer.TaskQuery,
	"classification":  vectorizer.TaskQuery,
	"clustering":      vectorizer.TaskQuery,
}

// embedCohere answers POST /v2/embed. Cohere's API has no per-text error,
// and Weaviate's text2vec-cohere would store an object without a vector for
// an empty one, so one bad text fails the whole request, its error naming
// texts[i] and the text's first bytes (Weaviate gives every object of the
// request that error, and the index alone does not say which object it
// was). A text over a per-text limit or without a word fails the request
// before anything is taught; one that has words but yields no vector, or
// has more distinct AM words than --max-am-words, fails it after the others
// were taught (a resend of them teaches nothing new).
func (s *Server) embedCohere(ctx context.Context, _ http.Header, body *bytes.Buffer) ([]byte, error) {
	req := embedRequest{Texts: textList{limit: s.limits.MaxBatch}}
	if err := decodeStrict(body.Bytes(), &req, "texts", "images", "inputs", "model", "input_type",
		"embedding_types", "truncate", "output_dimension", "max_tokens"); err != nil {
		return nil, err
	}
	task, err := s.checkEmbedRequest(&req)
	if err != nil {
		return nil, err
	}
	texts := req.Texts.texts
	words := 0
	for i, t := range texts {
		if err := s.checkTextAt(t, textName(i, t)); err != nil {
			return nil, err
		}
		n := s.vec.Model().Tokenizer.CountWords(t, len(t))
		if n == 0 {
			return nil, vectorError(vectorizer.ErrNoWords, textName(i, t))
		}
		words += n
	}
	vecs, errs, err := s.vz.VectorizeBatch(ctx, s.vec, "", texts, task, s.vec.Options())
	if err != nil {
		return nil, err
	}
	for i, e := range errs {
		if e != nil {
			if errors.Is(e, vectorizer.ErrTooManyAMWords) {
				s.metrics.amWordsRefused.Inc()
			}
			return nil, vectorError(e, textName(i, texts[i]))
		}
	}
	out := body.AvailableBuffer()[:0]
	out = append(out, `{"id":"`...)
	out = strconv.AppendUint(out, s.embedIDs.Add(1), 16)
	out = append(out, `","embeddings":{"float":[`...)
	for i, v := range vecs {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendVector(out, v)
	}
	out = append(out, `]},"meta":{"api_version":{"version":"2"},"billed_units":{"input_tokens":`...)
	out = strconv.AppendInt(out, int64(words), 10)
	out = append(out, "}}}"...)
	return out, nil
}

// textName names text i of "texts" in errors, with its first bytes.
func textName(i int, text string) string {
	const show = 40
	if len(text) > show {
		cut := show
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return "texts[" + strconv.Itoa(i) + "] " + strconv.Quote(text)
}

// checkEmbedRequest checks the decoded request against the model and the
// limits and returns the task its input_type asks for.
func (s *Server) checkEmbedRequest(req *embedRequest) (vectorizer.Task, error) {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"images", req.Images}, {"inputs", req.Inputs}} {
		if len(f.raw) > 0 && string(f.raw) != "null" {
			return 0, errorf(http.StatusBadRequest, "field %q: this model embeds texts only; send \"texts\"", f.name)
		}
	}
	if !req.Texts.set {
		return 0, errorf(http.StatusBadRequest, "field \"texts\" is required")
	}
	if len(req.Texts.texts) == 0 {
		return 0, errorf(http.StatusBadRequest, "field \"texts\": no text")
	}
	task := vectorizer.TaskQuery // no input_type: a query, which never writes
	if it := req.InputType; it != nil {
		t, ok := cohereTask[*it]
		if !ok {
			return 0, errorf(http.StatusBadRequest, "field \"input_type\" = %q: want \"search_document\", "+
				"\"search_query\", \"classification\" or \"clustering\"", *it)
		}
		task = t
	}
	if i := slices.IndexFunc(req.EmbeddingTypes, func(t string) bool { return t != "float" }); i >= 0 {
		return 0, errorf(http.StatusBadRequest, "field \"embedding_types\": %q is not served; want [\"float\"]",
			req.EmbeddingTypes[i])
	}
	if tr := req.Truncate; tr != nil && !slices.Contains([]string{"NONE", "START", "END", "LEFT", "RIGHT"}, *tr) {
		return 0, errorf(http.StatusBadRequest, "field \"truncate\" = %q: want \"NONE\", \"START\", \"END\", "+
			"\"LEFT\" or \"RIGHT\"", *tr)
	}
	if err := s.checkDimensions("output_dimension", req.OutputDimension); err != nil {
		return 0, err
	}
	return task, nil
}

// writeCohereError answers err in Cohere's shape, {"message": "..."}, which
// Weaviate's text2vec-cohere reads.
func (s *Server) writeCohereError(w http.ResponseWriter, err error) {
	he := s.answered(err)
	writeErrorBody(w, he, append(appendString([]byte(`{"message":`), he.msg), '}'))
}
