package amtrain

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/internal/lines"
	"github.com/text2vec-am/text2vec-am/model"
)

// InferStats summarizes an Infer run.
type InferStats struct {
	Words int
	// Contexts given in total, and how many had no word with a base vector.
	Contexts, EmptyContexts int
}

// Infer reads the reference implementation's inference format from r — one
// word per line, `word<TAB>context<TAB>context…`, each context raw text
// tokenized with the model's tokenizer — and writes word2vec text with the
// inferred vectors to w, in input order. A word with no context gets its form
// embedding. Blank lines are skipped. Errors name the line.
//
// The word is matched (n-grams, and dropped from its own contexts) after the
// tokenizer's lowercasing; the output keeps it as written.
func Infer(m *model.Model, r io.Reader, name string, w io.Writer) (InferStats, error) {
	var st InferStats
	if m.Base == nil {
		return st, errors.New("the model has no base embeddings attached")
	}
	in := inferInput{m: m, name: name, seen: make(map[string]int), st: &st}
	if err := in.read(r); err != nil {
		return st, err
	}
	if len(in.words) == 0 {
		return st, fmt.Errorf("%s: no words to infer (empty input)", name)
	}
	dim := m.Dim
	vecs := make([]float32, len(in.words)*dim)
	outs := make([][]float32, len(in.words))
	for i := range outs {
		outs[i] = vecs[i*dim : (i+1)*dim]
	}
	m.InferBatch(in.queries, outs)
	e, err := model.NewEmbeddings(dim, in.words, vecs, nil)
	if err != nil {
		return st, fmt.Errorf("the inferred vectors: %w", err)
	}
	if err := model.WriteEmbeddingsText(w, e); err != nil {
		return st, fmt.Errorf("write the vectors: %w", err)
	}
	st.Words = len(in.words)
	return st, nil
}

// inferInput collects the words (as written) and the queries of Infer's
// input, counting the contexts in st.
type inferInput struct {
	m       *model.Model
	name    string
	seen    map[string]int // word → its line
	toks    []string
	words   []string
	queries []model.Query
	st      *InferStats
}

// MaxInferLineBytes bounds one line of Infer's input (a word and all its
// contexts): 16 MiB, room for thousands of sentences. A longer line is an
// error wrapping lines.ErrTooLong that names the line.
const MaxInferLineBytes = 16 << 20

// read parses every line of r.
func (in *inferInput) read(r io.Reader) error {
	return lines.ForEach(r, in.name, MaxInferLineBytes, "an infer line (a word and its contexts)", func(lineNo int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		return in.add(line, lineNo)
	})
}

// add parses line lineNo, `word<TAB>context<TAB>context…`, into a query.
func (in *inferInput) add(line string, lineNo int) error {
	name, m := in.name, in.m
	if !utf8.ValidString(line) {
		return fmt.Errorf("%s:%d: not valid UTF-8", name, lineNo)
	}
	fields := strings.Split(line, "\t")
	word := strings.TrimSpace(fields[0])
	switch {
	case word == "":
		return fmt.Errorf("%s:%d: the word (before the first tab) is empty; want word<TAB>context<TAB>context…", name, lineNo)
	case strings.IndexFunc(word, unicode.IsSpace) >= 0:
		return fmt.Errorf("%s:%d: the word %q contains a space (separate the word and its contexts with tabs)", name, lineNo, word)
	}
	if err := model.ValidWord(word); err != nil {
		return fmt.Errorf("%s:%d: %w", name, lineNo, err)
	}
	if prev, dup := in.seen[word]; dup {
		return fmt.Errorf("%s:%d: word %q already given on line %d", name, lineNo, word, prev)
	}
	in.seen[word] = lineNo
	key := word
	if m.Tokenizer.Lowercase {
		key = strings.ToLower(word)
	}
	var ctxs [][]int32
	for k, c := range fields[1:] {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("%s:%d: context %d of %q is empty", name, lineNo, k+1, word)
		}
		in.toks = m.Tokenizer.AppendTokens(in.toks[:0], c)
		ids := m.ContextIDs(nil, in.toks, key)
		in.st.Contexts++
		if len(ids) == 0 {
			in.st.EmptyContexts++
			continue
		}
		ctxs = append(ctxs, ids)
	}
	in.words = append(in.words, word)
	in.queries = append(in.queries, model.Query{Word: key, Contexts: ctxs})
	return nil
}
