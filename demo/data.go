package demo

//go:generate go run ./gendocs -goroot $GOROOT -out data/godocs.jsonl

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/text2vec-am/text2vec-am/internal/jsonmsg"
	"github.com/text2vec-am/text2vec-am/internal/lines"
)

// The bundled data set: demo/data/godocs.jsonl is generated from the Go
// distribution's package documentation (BSD-3-Clause, see demo/data/NOTICE);
// demo/data/goqueries.jsonl is hand-written for this project.
var (
	//go:embed data/godocs.jsonl
	docsJSONL []byte
	//go:embed data/goqueries.jsonl
	queriesJSONL []byte
)

// Document is one searchable text of the demo.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is a search with the IDs of the documents that answer it.
type Query struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Relevant []string `json:"relevant"`
}

// BundledDocuments parses the embedded documents.
func BundledDocuments() ([]Document, error) {
	return ParseDocuments(bytes.NewReader(docsJSONL), "demo/data/godocs.jsonl")
}

// BundledQueries parses the embedded queries and checks them against docs.
func BundledQueries(docs []Document) ([]Query, error) {
	return ParseQueries(bytes.NewReader(queriesJSONL), "demo/data/goqueries.jsonl", docs)
}

// maxLine bounds one JSONL line (a document of the bundled set is under 1 KB).
const maxLine = 1 << 20

// record is a JSONL record of the demo: an id unique in its file and a text.
type record interface {
	key() (id, text string)
}

func (d *Document) key() (string, string) { return d.ID, d.Text }
func (q *Query) key() (string, string)    { return q.ID, q.Text }

// readRecords decodes the non-blank lines of r strictly (unknown fields and
// trailing data are errors), checks the id and text every record needs, and
// calls check on each; errors name the file and line. kind and kinds name a
// record and records in messages ("query", "queries").
func readRecords[T any, P interface {
	*T
	record
}](r io.Reader, name, kind, kinds string, check func(v P) error) ([]T, error) {
	var out []T
	seen := make(map[string]int)
	err := lines.ForEach(r, name, maxLine, "a JSONL line", func(line int, text string) error {
		b := bytes.TrimSpace([]byte(text))
		if len(b) == 0 {
			return nil
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if err := jsonmsg.End(dec); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		id, text := P(&v).key()
		switch {
		case strings.TrimSpace(id) == "":
			return fmt.Errorf(`%s:%d: field "id" is missing or empty`, name, line)
		case strings.TrimSpace(text) == "":
			return fmt.Errorf(`%s:%d: %s %q: field "text" is missing or empty`, name, line, kind, id)
		}
		if prev, ok := seen[id]; ok {
			return fmt.Errorf("%s:%d: %s %q: duplicate id (first on line %d)", name, line, kind, id, prev)
		}
		seen[id] = line
		if err := check(&v); err != nil {
			return fmt.Errorf("%s:%d: %s %q: %w", name, line, kind, id, err)
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no %s", name, kinds)
	}
	return out, nil
}

// ParseDocuments reads JSONL documents ({"id", "title", "text"} per line).
// Every document needs a unique non-empty id and a non-empty text; a missing
// title defaults to the id. name is used in error messages.
func ParseDocuments(r io.Reader, name string) ([]Document, error) {
	return readRecords(r, name, "document", "documents", func(d *Document) error {
		if d.Title == "" {
			d.Title = d.ID
		}
		return nil
	})
}

// ParseQueries reads JSONL queries ({"id", "text", "relevant": [doc id]} per
// line) and checks that each names at least one document of docs.
func ParseQueries(r io.Reader, name string, docs []Document) ([]Query, error) {
	ids := make(map[string]bool, len(docs))
	for _, d := range docs {
		ids[d.ID] = true
	}
	return readRecords(r, name, "query", "queries", func(q *Query) error {
		if len(q.Relevant) == 0 {
			return errors.New(`field "relevant" is missing or empty`)
		}
		for _, id := range q.Relevant {
			if !ids[id] {
				return fmt.Errorf("relevant document %q is not in the document set", id)
			}
		}
		return nil
	})
}
