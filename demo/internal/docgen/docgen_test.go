package docgen

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// shippedGoVersion is the Go release demo/data/godocs.jsonl was generated from
// (see demo/data/NOTICE); other releases document their packages differently.
const shippedGoVersion = "go1.26.8"

func TestGenerateMatchesShippedFile(t *testing.T) {
	shipped, err := os.ReadFile(filepath.Join("..", "..", "data", "godocs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	goroot := GoRoot()
	if _, err := os.Stat(filepath.Join(goroot, "src", "net", "http")); err != nil {
		t.Skipf("no Go source tree at %s: %v", goroot, err)
	}
	docs, err := Generate(goroot, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, docs); err != nil {
		t.Fatal(err)
	}
	if v := runtime.Version(); v != shippedGoVersion {
		// A different release: the selection must still be of the same kind.
		n := bytes.Count(shipped, []byte("\n"))
		if len(docs) < n*3/4 || len(docs) > n*5/4 {
			t.Errorf("%s gives %d documents, the shipped file (%s) %d", v, len(docs), shippedGoVersion, n)
		}
		t.Skipf("running %s, the shipped file is from %s: counts checked, bytes not compared", v, shippedGoVersion)
	}
	if !bytes.Equal(buf.Bytes(), shipped) {
		t.Errorf("go generate ./demo would change demo/data/godocs.jsonl (%d bytes now, %d generated): regenerate it", len(shipped), buf.Len())
	}
}

func TestSections(t *testing.T) {
	text := `Package zz implements the ZZ format. It is fast.

Example:

	zz.Encode(w)

# Details

First paragraph of the details, long enough to keep.

  - item one
  - item two

Second paragraph.

Third paragraph, dropped by MaxParagraphs.

# Tiny

Short.
`
	docs := sections("x/zz", text, Options{MaxParagraphs: 3, MaxChars: 900, MinWords: 4})
	if len(docs) != 2 {
		t.Fatalf("got %d documents %+v, want 2 (overview, Details; Tiny is too short)", len(docs), docs)
	}
	if docs[0].ID != "x/zz" || docs[0].Text != "Package zz implements the ZZ format. It is fast. Example:" {
		t.Errorf("overview %+v", docs[0])
	}
	want := "Details. First paragraph of the details, long enough to keep. item one item two Second paragraph."
	if docs[1].ID != "x/zz#Details" || docs[1].Title != "x/zz: Details" || docs[1].Text != want {
		t.Errorf("section %+v, want text %q", docs[1], want)
	}
	if strings.Contains(docs[0].Text, "Encode") {
		t.Error("code block kept in the text")
	}
}

func TestTruncate(t *testing.T) {
	s := "One sentence here. Another sentence that runs past the limit"
	if got := truncate(s, 30); got != "One sentence here." {
		t.Errorf("truncate at sentence: %q", got)
	}
	if got := truncate("word word word word", 12); got != "word word …" {
		t.Errorf("truncate at word: %q", got)
	}
	if got := truncate("short", 12); got != "short" {
		t.Errorf("no truncation: %q", got)
	}
}

func TestGenerateBadGoroot(t *testing.T) {
	_, err := Generate(t.TempDir(), DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "no src directory") {
		t.Errorf("error %v, want one naming the missing src directory", err)
	}
}
