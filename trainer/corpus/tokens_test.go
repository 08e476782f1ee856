package corpus

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/outpath"
)

// TestWriteTokensDrop: every sentence with a dropped word goes, the rest of
// its line stays on one line (tokenized), a line left without tokens is
// skipped, and the files of a directory come in order.
func TestWriteTokensDrop(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.txt": "The Zorb sings. Birds fly! And the zorb? Gone\nNothing rare here.\nzorb zorb\nblip. End\nA blip-free day.\n",
		"b.txt": "Last line, a clean one",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	st, err := WriteTokens(context.Background(), []string{dir}, map[string]bool{"zorb": true, "blip": true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := "birds fly gone\nnothing rare here\nend\nlast line a clean one\n"
	if out.String() != want {
		t.Fatalf("subcorpus:\n%q\nwant\n%q", out.String(), want)
	}
	// "the zorb sings", "and the zorb", "zorb zorb", "blip" and "a blip free day" ("blip-free" is
	// two tokens); the lines of "zorb zorb" and "a blip-free day" are left empty.
	if st.DroppedSentences != 5 || st.DroppedTokens != 13 || st.DroppedLines != 2 || st.Lines != 4 || st.Tokens != 12 {
		t.Fatalf("stats %+v", st)
	}
	if strings.Contains(out.String(), "zorb") {
		t.Fatal("a dropped word is left")
	}
}

// TestWriteTokensInsideCorpus: --corpus-out inside a corpus directory, or equal
// to a corpus file, is refused before anything is written.
func TestWriteTokensInsideCorpus(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(corpus, []byte("some words here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		paths []string
		out   string
	}{
		{[]string{dir}, filepath.Join(dir, "sub.txt")},
		{[]string{corpus}, corpus},
		{[]string{dir}, filepath.Join(dir, "deeper", "sub.txt")},
	} {
		_, err := WriteTokensFile(context.Background(), c.paths, map[string]bool{"x": true}, outFile(c.out))
		if !errors.Is(err, ErrOutputInCorpus) {
			t.Errorf("out %s, corpus %v: err %v, want ErrOutputInCorpus", c.out, c.paths, err)
		}
	}
	if b, _ := os.ReadFile(corpus); string(b) != "some words here\n" {
		t.Fatalf("the corpus file changed: %q", b)
	}
	// Beside the corpus it is written, and nothing temporary is left.
	out := filepath.Join(t.TempDir(), "sub.txt")
	_, err := WriteTokensFile(context.Background(), []string{dir}, map[string]bool{"x": true}, outFile(out))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "some words here\n" {
		t.Fatalf("subcorpus %q", b)
	}
	if m, _ := filepath.Glob(out + ".tmp*"); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

// outFile is path given to --out.
func outFile(path string) outpath.File { return outpath.File{Flag: "--out", Path: path} }

// TestWriteTokensFileMode: the subcorpus is readable by others (0644), as the
// package's other outputs are, not CreateTemp's 0600.
func TestWriteTokensFileMode(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(corpus, []byte("some words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sub.txt")
	if _, err := WriteTokensFile(context.Background(), []string{corpus}, nil, outFile(out)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("subcorpus mode %v, want 0644", fi.Mode().Perm())
	}
}

// TestWriteTokensInsideCorpusThroughLinks: an output path that reaches the
// corpus through a symbolic link, or a corpus path that is a link to the
// output's directory, is refused too, and the corpus is left as it was.
func TestWriteTokensInsideCorpusThroughLinks(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "corpus")
	if err := os.Mkdir(cdir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cdir, "c.txt")
	if err := os.WriteFile(file, []byte("Some Words, here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	toCorpus := filepath.Join(dir, "to-corpus")
	if err := os.Symlink(cdir, toCorpus); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		paths []string
		out   string
	}{
		{[]string{cdir}, filepath.Join(toCorpus, "c.txt")},      // a corpus file, by a link to its directory
		{[]string{file}, filepath.Join(toCorpus, "c.txt")},      // the corpus file itself
		{[]string{cdir}, filepath.Join(toCorpus, "tokens.txt")}, // inside the directory
		{[]string{toCorpus}, filepath.Join(cdir, "tokens.txt")}, // the corpus path is the link
	} {
		_, err := WriteTokensFile(context.Background(), c.paths, nil, outFile(c.out))
		if !errors.Is(err, ErrOutputInCorpus) {
			t.Errorf("out %s, corpus %v: err %v, want ErrOutputInCorpus", c.out, c.paths, err)
		}
		if b, _ := os.ReadFile(file); string(b) != "Some Words, here\n" {
			t.Fatalf("out %s, corpus %v: the corpus file changed: %q", c.out, c.paths, b)
		}
		os.Remove(filepath.Join(cdir, "tokens.txt"))
	}
}
