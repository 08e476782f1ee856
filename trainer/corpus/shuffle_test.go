package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/outpath"
)

func shuffled(t *testing.T, text string, seed uint64) string {
	t.Helper()
	var out bytes.Buffer
	r := strings.NewReader(text)
	n, err := ShuffleLines(context.Background(), r, r.Size(), &out, seed)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(strings.Count(out.String(), "\n")); n != want {
		t.Fatalf("ShuffleLines reported %d lines, wrote %d", n, want)
	}
	return out.String()
}

// TestShuffleLines: the lines come out each once, in an order fixed by the
// seed, a last line without '\n' given one; no line, no output.
func TestShuffleLines(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%7))
	}
	text := b.String() + "last without newline"
	got := shuffled(t, text, 1)
	want := strings.Split(text+"\n", "\n")
	lines := strings.Split(got, "\n")
	slices.Sort(want)
	slices.Sort(lines)
	if !slices.Equal(lines, want) {
		t.Fatalf("the shuffled lines are not the lines of the input:\n%q", got)
	}
	if got == text+"\n" {
		t.Fatal("200 lines in their own order: not shuffled")
	}
	if again := shuffled(t, text, 1); again != got {
		t.Fatal("the same seed gave another order")
	}
	if other := shuffled(t, text, 2); other == got {
		t.Fatal("seeds 1 and 2 gave the same order of 201 lines")
	}
	if empty := shuffled(t, "", 1); empty != "" {
		t.Fatalf("no line: %q", empty)
	}
	// A line longer than the reader's buffer and the copy's pieces.
	long := strings.Repeat("y", 3<<20) + "\nz\n"
	got = shuffled(t, long, 1)
	l := strings.Split(got, "\n")
	slices.Sort(l) // "", "yyy…", "z"
	if len(l) != 3 || l[0] != "" || len(l[1]) != 3<<20 || strings.Trim(l[1], "y") != "" || l[2] != "z" {
		t.Fatal("a 3 MiB line did not come out whole")
	}
	// The order of seed 1 is fixed (math/rand/v2's PCG).
	if got := shuffled(t, "a\nb\nc\nd\ne\n", 1); got != "d\nc\na\nb\ne\n" {
		t.Fatalf("seed 1 on five lines: %q", got)
	}
}

// eofReaderAt returns io.EOF with a read that reaches the end, as
// io.ReaderAt allows.
type eofReaderAt struct{ *strings.Reader }

func (r eofReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.Reader.ReadAt(p, off)
	if err == nil && off+int64(n) == r.Size() {
		err = io.EOF
	}
	return n, err
}

// TestShuffleLinesEOF: a full read that reports io.EOF is a full read; a
// source shorter than its size is an error.
func TestShuffleLinesEOF(t *testing.T) {
	var out bytes.Buffer
	r := eofReaderAt{strings.NewReader("a\nb\nc")}
	if n, err := ShuffleLines(context.Background(), r, r.Size(), &out, 1); err != nil || n != 3 {
		t.Fatalf("io.EOF with the last bytes: %d lines, %v", n, err)
	}
	short := strings.NewReader("a\nb\n")
	if _, err := ShuffleLines(context.Background(), short, 10, &out, 1); err == nil {
		t.Fatal("a source 6 bytes short of its size: no error")
	}
}

// TestWriteShuffledTokensFileStops: a run cancelled midway leaves an
// earlier output as it was and no temporary file beside it.
func TestWriteShuffledTokensFileStops(t *testing.T) {
	dir := t.TempDir()
	corpusFile := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(corpusFile, []byte(strings.Repeat("some words here\n", 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "tok.txt")
	if err := os.WriteFile(out, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := WriteShuffledTokensFile(ctx, []string{corpusFile}, nil, outpath.File{Flag: "--out", Path: out}, 1)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "earlier\n" {
		t.Fatalf("the earlier output: %q", got)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Fatalf("beside the output: %v, want it alone", entries)
	}
}

// TestShuffleLinesStops: a cancelled context stops the writing with its
// error.
func TestShuffleLinesStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := strings.NewReader("a\nb\n")
	if _, err := ShuffleLines(ctx, r, r.Size(), &bytes.Buffer{}, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
