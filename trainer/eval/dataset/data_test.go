package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/shareddata"
)

// writeFile writes content to a file in a fresh temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFixUTF8(t *testing.T) {
	if got := FixUTF8("liver p\xe2t\xe9 i\x92m"); got != "liver pâté i’m" {
		t.Fatalf("FixUTF8 = %q", got)
	}
	if got := FixUTF8("naïve"); got != "naïve" {
		t.Fatalf("valid UTF-8 changed: %q", got)
	}
}

// readLines returns the lines ForEachLine passes for the file at path, as
// "number:line", and its error.
func readLines(path string) ([]string, error) {
	var got []string
	err := ForEachLine(path, func(n int, line string) error {
		got = append(got, fmt.Sprintf("%d:%s", n, line))
		return nil
	})
	return got, err
}

// gzipped returns content compressed with gzip.
func gzipped(t *testing.T, content string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// ForEachLine numbers the lines from 1, drops "\n" and "\r\n", passes blank
// lines and a last line without a line ending, and reads gzip alike.
func TestForEachLine(t *testing.T) {
	const content = "a b\r\n\n\r\nc\nlast"
	want := []string{"1:a b", "2:", "3:", "4:c", "5:last"}
	for name, data := range map[string]string{"plain.txt": content, "packed.txt": gzipped(t, content)} {
		got, err := readLines(writeFile(t, name, data))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: lines %q, err %v; want %q", name, got, err, want)
		}
	}
}

// A line of MaxLineBytes reads (with "\n" or "\r\n"); a longer one, wherever
// it ends, is an error wrapping ErrLineTooLong that names the file, the line
// and the limit, and no line after it is read.
func TestForEachLineBoundsLength(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes)
	for _, end := range []string{"\n", "\r\n", ""} {
		got, err := readLines(writeFile(t, "ok.txt", "first\n"+long+end))
		if err != nil || len(got) != 2 || got[1] != "2:"+long {
			t.Errorf("a line of MaxLineBytes ending %q: %d lines, err %v; want it read", end, len(got), err)
		}
	}
	for _, end := range []string{"\n", "\r\n", ""} {
		path := writeFile(t, "long.txt", "first\n"+long+"y"+end+"next\n")
		got, err := readLines(path)
		if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), path+":2:") || !strings.Contains(err.Error(), fmt.Sprint(MaxLineBytes)) {
			t.Errorf("a line of MaxLineBytes+1 ending %q: err %v; want ErrLineTooLong naming %s:2 and %d", end, err, path, MaxLineBytes)
		}
		if !slices.Equal(got, []string{"1:first"}) {
			t.Errorf("a line of MaxLineBytes+1 ending %q: lines %d read, want only the first", end, len(got))
		}
	}
	if _, err := LoadWordPairs(writeFile(t, "pairs.txt", "a b 1\n"+long+"y\n")); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("LoadWordPairs of a too long line: err %v, want ErrLineTooLong", err)
	}
}

// A single line of 32 MiB (gzip makes it a small file) is refused with
// memory bounded by MaxLineBytes, not read whole.
func TestForEachLineLongLineMemory(t *testing.T) {
	path := writeFile(t, "bomb.txt.gz", gzipped(t, strings.Repeat("x", 32<<20)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readLines(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err %v, want ErrLineTooLong", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6*MaxLineBytes {
		t.Errorf("allocated %d bytes for a 32 MiB line, want at most %d", alloc, 6*MaxLineBytes)
	}
}

func TestLoadWordPairs(t *testing.T) {
	p := writeFile(t, "ws.txt", "love\tsex\t6.77\r\n\n# comment\ntiger cat 7.35\n")
	pairs, err := LoadWordPairs(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0] != (WordPair{"love", "sex", 6.77}) || pairs[1] != (WordPair{"tiger", "cat", 7.35}) {
		t.Fatalf("pairs = %+v", pairs)
	}
	for _, bad := range []struct{ content, want string }{
		{"a b c d\n", "ws.txt:1: want 3 fields"},
		{"a b\tx\n", `ws.txt:1: score "x" is not a number`},
		{"a b 1\na b NaN\n", "ws.txt:2: score"},
		{"\n", "no pairs"},
	} {
		_, err := LoadWordPairs(writeFile(t, "ws.txt", bad.content))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("LoadWordPairs(%q) error = %v, want %q", bad.content, err, bad.want)
		}
	}
	if _, err := LoadWordPairs(filepath.Join(t.TempDir(), "missing.txt")); err == nil {
		t.Error("missing file: want an error")
	}
}

func TestLoadChimeras(t *testing.T) {
	line := "102\tliver p\xe2t\xe9 ___ and lettuce @@ a stick of ___ with veg \trhubarb,onion\t1.86,3.14\n"
	insts, err := LoadChimeras(writeFile(t, "c.txt", line))
	if err != nil {
		t.Fatal(err)
	}
	in := insts[0]
	if in.ID != "102" || len(in.Sentences) != 2 || in.Sentences[0] != "liver pâté ___ and lettuce" ||
		in.Sentences[1] != "a stick of ___ with veg" || in.Probes[1] != "onion" || in.Ratings[1] != 3.14 {
		t.Fatalf("instance = %+v", in)
	}
	for _, bad := range []struct{ content, want string }{
		{"1\ts ___\ta,b\t1\n", "c.txt:1: 2 probes but 1 ratings"},
		{"1\ts ___\ta\n", "want 4 tab-separated fields"},
		{"1\ts ___\ta\tz\n", `rating "z"`},
	} {
		_, err := LoadChimeras(writeFile(t, "c.txt", bad.content))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("LoadChimeras(%q) error = %v, want %q", bad.content, err, bad.want)
		}
	}
}

func TestLoadWordListAndNRC(t *testing.T) {
	words, err := LoadWordList(writeFile(t, "pos.txt", ";;; header\r\n; note\r\n\r\nAbound\r\na+\r\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(words, ",") != "abound,a+" {
		t.Fatalf("words = %q", words)
	}
	if _, err := LoadWordList(writeFile(t, "w.txt", "two words\n"), false); err == nil || !strings.Contains(err.Error(), "w.txt:1") {
		t.Errorf("two words on a line: error = %v", err)
	}
	pos, neg, err := LoadNRC(writeFile(t, "nrc.txt", "abandon\tnegative\t1\nabandon\tpositive\t0\nable\tpositive\t1\nable\tjoy\t1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, ",") != "able" || strings.Join(neg, ",") != "abandon" {
		t.Fatalf("pos %q neg %q", pos, neg)
	}
	if _, _, err := LoadNRC(writeFile(t, "nrc.txt", "able\tpositive\t2\n")); err == nil || !strings.Contains(err.Error(), "nrc.txt:1") {
		t.Errorf("bad association: error = %v", err)
	}
}

func TestLoadSemEval(t *testing.T) {
	terms, err := LoadSemEval(writeFile(t, "se.txt", "0.984\tloves\n-0.5\tcant waitttt\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) != 2 || terms[1] != (ScoredTerm{"cant waitttt", -0.5}) {
		t.Fatalf("terms = %+v", terms)
	}
	if _, err := LoadSemEval(writeFile(t, "se.txt", "loves\n")); err == nil || !strings.Contains(err.Error(), "se.txt:1") {
		t.Errorf("error = %v", err)
	}
}

func TestLoadRetrieval(t *testing.T) {
	docs, err := LoadDocuments(writeFile(t, "d.jsonl", `{"id": "a", "text": "alpha"}`+"\n"+`{"id": "b", "text": "beta"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[1] != (Document{"b", "beta"}) {
		t.Fatalf("docs = %+v", docs)
	}
	qs, err := LoadQueries(writeFile(t, "q.jsonl", `{"id": "q", "text": "alpha?", "relevant": ["a"]}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Relevant[0] != "a" {
		t.Fatalf("queries = %+v", qs)
	}
}

// A documents line that is not an object with a non-empty string "id" and
// a string "text" is an error naming the file, the line and the key.
func TestLoadDocumentsRefusesWrongShape(t *testing.T) {
	const good = `{"id": "a", "text": "alpha"}` + "\n"
	for _, bad := range []struct{ line, want string }{
		{`{"text": "x"}`, `d.jsonl:2: no "id" key (the line has "text"; want {"id": "…", "text": "…"})`},
		{`{"id": "b", "body": "x"}`, `d.jsonl:2: no "text" key (the line has "body", "id"; want`},
		{`{"id": "b", "text": null}`, `d.jsonl:2: "text" must be a string, got null`},
		{`{"id": 7, "text": "x"}`, `d.jsonl:2: "id" must be a string, got 7`},
		{`{"id": " ", "text": "x"}`, `d.jsonl:2: "id" is empty`},
		{`{"id": "b", "text": ["x"]}`, `d.jsonl:2: "text" must be a string, got ["x"]`},
		{`["b", "x"]`, `d.jsonl:2: want a JSON object {"id": "…", "text": "…"}, got a JSON array`},
		{`null`, `d.jsonl:2: want a JSON object`},
		{`{"id": "a", `, "d.jsonl:2: not valid JSON"},
	} {
		_, err := LoadDocuments(writeFile(t, "d.jsonl", good+bad.line+"\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("LoadDocuments(%q) error = %v, want %q", bad.line, err, bad.want)
		}
	}
}

// A queries line that is not an object with a non-empty string "id", a
// string "text" and a non-empty array of document ids "relevant" is an error naming
// the file, the line and the key: the shape {"query", "relevant"} is refused,
// not scored as an empty query.
func TestLoadQueriesRefusesWrongShape(t *testing.T) {
	const good = `{"id": "q1", "text": "alpha?", "relevant": ["a"]}` + "\n"
	for _, bad := range []struct{ line, want string }{
		{`{"query": "alpha?", "relevant": ["a"]}`, `q.jsonl:2: no "id" or "text" key (the line has "query", "relevant"; want ` + `{"id": "…", "text": "…", "relevant": ["doc id", …]})`},
		{`{"id": "q", "query": "alpha?", "relevant": ["a"]}`, `q.jsonl:2: no "text" key (the line has "id", "query", "relevant"`},
		{`{"id": "q", "text": "x"}`, `q.jsonl:2: no "relevant" key`},
		{`{"id": "", "text": "x", "relevant": ["a"]}`, `q.jsonl:2: "id" is empty`},
		{`{"id": "q", "text": "x", "relevant": "a"}`, `q.jsonl:2: "relevant" must be an array of document ids (strings), got "a"`},
		{`{"id": "q", "text": "x", "relevant": [1]}`, `q.jsonl:2: "relevant" must be an array of document ids`},
		{`{"id": "q", "text": "x", "relevant": null}`, `q.jsonl:2: "relevant" must be an array of document ids (strings), got null`},
		{`{"id": "q", "text": "x", "relevant": []}`, `q.jsonl:2: "relevant" has no document ids`},
		{`{"id": "q", "text": "x", "relevant": ["a", ""]}`, `q.jsonl:2: "relevant": document id 2 is empty`},
	} {
		_, err := LoadQueries(writeFile(t, "q.jsonl", good+bad.line+"\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("LoadQueries(%q) error = %v, want %q", bad.line, err, bad.want)
		}
	}
}

// Keys a loader does not read are ignored with one warning naming each and
// the first line holding it.
func TestLoadQueriesWarnsOfIgnoredKeys(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	qs, err := LoadQueries(writeFile(t, "q.jsonl", `{"id": "q1", "text": "a", "relevant": ["a"]}`+"\n"+
		`{"id": "q2", "text": "b", "relevant": ["b"], "score": 1}`+"\n"+`{"id": "q3", "text": "c", "relevant": ["c"], "score": 2}`+"\n"))
	if err != nil || len(qs) != 3 {
		t.Fatalf("LoadQueries = %d queries, %v", len(qs), err)
	}
	if got := logged.String(); strings.Count(got, "keys ignored") != 1 || !strings.Contains(got, `\"score\" (line 2)`) {
		t.Errorf("log = %q, want one warning naming \"score\" (line 2)", got)
	}
}

func TestLoadSharedData(t *testing.T) {
	shared := shareddata.Dir(t)
	eval := filepath.Join(shared, "data", "eval")
	for _, n := range []int{2, 4, 6} {
		insts, err := LoadChimeras(filepath.Join(eval, "chimeras", "chimeras.dataset.l"+string(rune('0'+n))+".tokenised.train.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if len(insts) != 220 {
			t.Errorf("L%d: %d instances, want 220", n, len(insts))
		}
		for _, in := range insts {
			if len(in.Sentences) != n {
				t.Fatalf("L%d instance %s has %d sentences", n, in.ID, len(in.Sentences))
			}
		}
	}
	pairs, err := LoadWordPairs(filepath.Join(eval, "wordsim", "EN-WS-353-ALL.txt"))
	if err != nil || len(pairs) != 353 {
		t.Fatalf("WS-353: %d pairs, err %v", len(pairs), err)
	}
	neg, err := LoadWordList(filepath.Join(eval, "sentiment", "opinion-lexicon-hu-liu", "negative-words.txt"), true)
	if err != nil || len(neg) != 4783 {
		t.Fatalf("Hu & Liu negative: %d words, err %v", len(neg), err)
	}
}
