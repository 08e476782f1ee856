package dataset

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

// A document whose "text" is empty (a title-only record, a package without
// a description) is a document all the same: it is loaded, and eval
// retrieval counts it among the documents without a vector, rather than
// the whole file being refused.
func TestLoadDocumentsKeepsEmptyText(t *testing.T) {
	docs, err := LoadDocuments(writeFile(t, "d.jsonl", `{"id": "a", "text": "alpha"}`+"\n"+
		`{"id": "b", "text": ""}`+"\n"))
	if err != nil || len(docs) != 2 || docs[1] != (Document{"b", ""}) {
		t.Errorf("LoadDocuments = %+v, %v; want both documents, the second with empty text", docs, err)
	}
}

// A query whose "text" is empty or only spaces is loaded; eval retrieval
// counts it among the queries without a vector.
func TestLoadQueriesKeepsEmptyText(t *testing.T) {
	qs, err := LoadQueries(writeFile(t, "q.jsonl", `{"id": "q1", "text": "", "relevant": ["a"]}`+"\n"+
		`{"id": "q2", "text": "  ", "relevant": ["b"]}`+"\n"))
	if err != nil || len(qs) != 2 || qs[0].Text != "" || qs[1].Text != "  " || qs[1].Relevant[0] != "b" {
		t.Errorf("LoadQueries = %+v, %v; want both queries with their texts", qs, err)
	}
}

// Keys match as encoding/json matches them to fields: without regard to
// case, a key written exactly as wanted winning over another spelling, which
// is then ignored with a warning.
func TestLoadRetrievalKeysIgnoreCase(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	docs, err := LoadDocuments(writeFile(t, "d.jsonl", `{"ID": "d1", "Text": "alpha"}`+"\n"+
		`{"id": "d2", "TEXT": "other", "text": "beta"}`+"\n"))
	want := []Document{{"d1", "alpha"}, {"d2", "beta"}}
	if err != nil || !slices.Equal(docs, want) {
		t.Errorf("LoadDocuments = %+v, %v; want %+v", docs, err, want)
	}
	if got := logged.String(); strings.Count(got, "keys ignored") != 1 || !strings.Contains(got, `\"TEXT\" (line 2)`) ||
		strings.Contains(got, `\"ID\"`) || strings.Contains(got, `\"Text\"`) {
		t.Errorf("log = %q, want one warning naming only \"TEXT\" (line 2)", got)
	}
	qs, err := LoadQueries(writeFile(t, "q.jsonl", `{"Id": "q1", "Text": "alpha?", "Relevant": ["d1"]}`+"\n"))
	if err != nil || len(qs) != 1 || qs[0].ID != "q1" || qs[0].Text != "alpha?" || !slices.Equal(qs[0].Relevant, []string{"d1"}) {
		t.Errorf("LoadQueries = %+v, %v; want query q1", qs, err)
	}
}
