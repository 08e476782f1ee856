package demo

import (
	"strings"
	"testing"
)

func TestBundledData(t *testing.T) {
	docs, err := BundledDocuments()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 200 || len(docs) > 1000 {
		t.Errorf("bundled documents: %d, want a few hundred", len(docs))
	}
	qs, err := BundledQueries(docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 8 {
		t.Errorf("bundled queries: %d, want at least 8", len(qs))
	}
}

func TestParseDocumentsErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"bad json", `{"id":"a","text":"x"}` + "\n" + `{"id":"b",`, "docs.jsonl:2: unexpected EOF"},
		{"missing id", `{"text":"x"}`, `docs.jsonl:1: field "id" is missing or empty`},
		{"empty text", `{"id":"a","text":"  "}`, `docs.jsonl:1: document "a": field "text" is missing or empty`},
		{"duplicate", "{\"id\":\"a\",\"text\":\"x\"}\n\n{\"id\":\"a\",\"text\":\"y\"}", `docs.jsonl:3: document "a": duplicate id (first on line 1)`},
		{"unknown field", `{"id":"a","text":"x","txet":"y"}`, `docs.jsonl:1: json: unknown field "txet"`},
		{"two values", `{"id":"a","text":"x"} {"id":"b","text":"y"}`,
			"docs.jsonl:1: malformed JSON: data after the JSON value, which ends at offset 21"},
		{"closing bracket after", `{"id":"a","text":"x"}]`, "docs.jsonl:1: malformed JSON: data after the JSON value"},
		{"closing brace after", `{"id":"a","text":"x"}}`, "docs.jsonl:1: malformed JSON: data after the JSON value"},
		{"wrong type", `{"id":1,"text":"x"}`, `docs.jsonl:1: json: cannot unmarshal number into Go struct field Document.id of type string`},
		{"empty file", "\n\n", "docs.jsonl: no documents"},
		{"line too long", `{"id":"a","text":"` + strings.Repeat("x", maxLine) + `"}`, "docs.jsonl:1: line too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDocuments(strings.NewReader(tc.in), "docs.jsonl")
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseDocumentsTitleDefault(t *testing.T) {
	docs, err := ParseDocuments(strings.NewReader(`{"id":"a","text":"x"}`+"\n"+`{"id":"b","title":"B","text":"y"}`), "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Title != "a" || docs[1].Title != "B" {
		t.Errorf("documents %+v: want titles a (defaulted) and B", docs)
	}
}

func TestParseQueriesErrors(t *testing.T) {
	docs := []Document{{ID: "a", Title: "a", Text: "x"}}
	for _, tc := range []struct{ name, in, want string }{
		{"unknown relevant", `{"id":"q","text":"t","relevant":["zz"]}`, `q.jsonl:1: query "q": relevant document "zz" is not in the document set`},
		{"no relevant", `{"id":"q","text":"t"}`, `q.jsonl:1: query "q": field "relevant" is missing or empty`},
		{"no text", `{"id":"q","relevant":["a"]}`, `q.jsonl:1: query "q": field "text" is missing or empty`},
		{"duplicate", "{\"id\":\"q\",\"text\":\"t\",\"relevant\":[\"a\"]}\n{\"id\":\"q\",\"text\":\"u\",\"relevant\":[\"a\"]}", `q.jsonl:2: query "q": duplicate id (first on line 1)`},
		{"no queries", "", "q.jsonl: no queries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQueries(strings.NewReader(tc.in), "q.jsonl", docs)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}
