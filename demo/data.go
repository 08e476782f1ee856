package demo

//go:generate go run ./gendocs -goroot $GOROOT -out data/docs.jsonl

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The bundled data set: demo/data/docs.jsonl is generated from the Go
// distribution's package documentation (BSD-3-Clause, see demo/data/NOTICE);
// demo/data/queries.jsonl is hand-written for this project.
var (
	//go:embed data/docs.jsonl
	docsJSONL []byte
	//go:embed data/queries.jsonl
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
	return ParseDocuments(bytes.NewReader(docsJSONL), "demo/data/docs.jsonl")
}

// BundledQueries parses the embedded queries and checks them against docs.
func BundledQueries(docs []Document) ([]Query, error) {
	return ParseQueries(bytes.NewReader(queriesJSONL), "demo/data/queries.jsonl", docs)
}

// maxLine bounds one JSONL line (a document of the bundled set is under 1 KB).
const maxLine = 1 << 20

// decodeLines calls fn with each non-blank line of r, decoded strictly
// (unknown fields and trailing data are errors), and its 1-based line number.
func decodeLines[T any](r io.Reader, name string, fn func(v *T, line int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if dec.More() {
			return fmt.Errorf("%s:%d: more than one JSON value on the line", name, line)
		}
		if err := fn(&v, line); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, maxLine)
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// ParseDocuments reads JSONL documents ({"id", "title", "text"} per line).
// Every document needs a unique non-empty id and a non-empty text; a missing
// title defaults to the id. name is used in error messages.
func ParseDocuments(r io.Reader, name string) ([]Document, error) {
	var docs []Document
	seen := make(map[string]int)
	err := decodeLines(r, name, func(d *Document, line int) error {
		switch {
		case strings.TrimSpace(d.ID) == "":
			return errors.New(`field "id" is missing or empty`)
		case strings.TrimSpace(d.Text) == "":
			return fmt.Errorf(`document %q: field "text" is missing or empty`, d.ID)
		}
		if prev, ok := seen[d.ID]; ok {
			return fmt.Errorf("document %q: duplicate id (first on line %d)", d.ID, prev)
		}
		seen[d.ID] = line
		if d.Title == "" {
			d.Title = d.ID
		}
		docs = append(docs, *d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", name)
	}
	return docs, nil
}

// ParseQueries reads JSONL queries ({"id", "text", "relevant": [doc id]} per
// line) and checks that each names at least one document of docs.
func ParseQueries(r io.Reader, name string, docs []Document) ([]Query, error) {
	ids := make(map[string]bool, len(docs))
	for _, d := range docs {
		ids[d.ID] = true
	}
	var qs []Query
	seen := make(map[string]int)
	err := decodeLines(r, name, func(q *Query, line int) error {
		switch {
		case strings.TrimSpace(q.ID) == "":
			return errors.New(`field "id" is missing or empty`)
		case strings.TrimSpace(q.Text) == "":
			return fmt.Errorf(`query %q: field "text" is missing or empty`, q.ID)
		case len(q.Relevant) == 0:
			return fmt.Errorf(`query %q: field "relevant" is missing or empty`, q.ID)
		}
		if prev, ok := seen[q.ID]; ok {
			return fmt.Errorf("query %q: duplicate id (first on line %d)", q.ID, prev)
		}
		seen[q.ID] = line
		for _, id := range q.Relevant {
			if !ids[id] {
				return fmt.Errorf("query %q: relevant document %q is not in the document set", q.ID, id)
			}
		}
		qs = append(qs, *q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", name)
	}
	return qs, nil
}
