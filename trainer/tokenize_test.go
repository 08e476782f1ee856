package trainer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// TestTokenize: every output line, split at spaces as fastText splits, is
// the tokenizer's words of one corpus line, in order, across the files of a
// directory; a line without words is left out.
func TestTokenize(t *testing.T) {
	dir := t.TempDir()
	lines := []string{"The nftables CLI (nft) replaced iptables.", "Straße, e-mail; ÉCOLE 42!", "...", "x86_64 Linux"}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Join(lines[:3], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte(lines[3]), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "tok.txt")
	var stderr bytes.Buffer
	env := cli.Env{Args: []string{"--corpus", dir, "--out", out}, Stdout: &bytes.Buffer{}, Stderr: &stderr}
	if err := runTokenize(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tok := model.DefaultTokenizer()
	var want []string
	for _, l := range lines {
		if words := tok.AppendTokens(nil, l); len(words) > 0 {
			want = append(want, strings.Join(words, " "))
		}
	}
	if string(got) != strings.Join(want, "\n")+"\n" {
		t.Fatalf("tokenized:\n%q\nwant\n%q", got, strings.Join(want, "\n")+"\n")
	}
	if want[0] != "the nftables cli nft replaced iptables" || !strings.Contains(stderr.String(), "3 lines, 14 tokens") {
		t.Fatalf("first line %q, report %q", want[0], stderr.String())
	}
}

// TestTokenizeRefusals: a missing flag, an argument, a missing or binary
// corpus and an output inside the corpus are refused by name, and no output
// is left behind.
func TestTokenizeRefusals(t *testing.T) {
	dir := t.TempDir()
	corpusDir := filepath.Join(dir, "corpus")
	if err := os.Mkdir(corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corpusDir, "a.txt"), []byte("some words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "bin.dat")
	if err := os.WriteFile(binary, []byte("ab\x00cd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tok.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out}, "--corpus is required"},
		{[]string{"--corpus", corpusDir}, "--out is required"},
		{[]string{"--corpus", corpusDir, "--out", out, "extra"}, "unexpected arguments"},
		{[]string{"--corpus", filepath.Join(dir, "none"), "--out", out}, "none"},
		{[]string{"--corpus", binary, "--out", out}, "NUL byte"},
		{[]string{"--corpus", corpusDir, "--out", filepath.Join(corpusDir, "tok.txt")}, "inside the corpus"},
		{[]string{"--corpus", corpusDir, "--out", filepath.Join(corpusDir, "tok.txt"), "--shuffle"}, "inside the corpus"},
		{[]string{"--corpus", corpusDir, "--out", dir}, "is a directory"},
	} {
		env := cli.Env{Args: c.args, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		err := runTokenize(context.Background(), env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %q", c.args, err, c.want)
		}
	}
	for _, p := range []string{out, filepath.Join(corpusDir, "tok.txt")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a refused run left %s (%v)", p, err)
		}
	}
	if entries, _ := os.ReadDir(corpusDir); len(entries) != 1 {
		t.Errorf("the corpus directory after the refusals: %v, want a.txt alone", entries)
	}
}

// TestTokenizeShuffle: --shuffle writes the lines tokenize writes, in an
// order drawn from --seed, and leaves no temporary file beside --out;
// --seed alone is refused.
func TestTokenizeShuffle(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "Line %d of the corpus.\n", i)
	}
	corpusFile := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(corpusFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	tokenize := func(name string, args ...string) (string, error) {
		out := filepath.Join(outDir, name)
		env := cli.Env{Args: append([]string{"--corpus", corpusFile, "--out", out}, args...),
			Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		if err := runTokenize(context.Background(), env); err != nil {
			return "", err
		}
		got, err := os.ReadFile(out)
		return string(got), err
	}
	plain, err := tokenize("plain.txt")
	if err != nil {
		t.Fatal(err)
	}
	s1, err := tokenize("s1.txt", "--shuffle")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := tokenize("s2.txt", "--shuffle", "--seed", "2")
	if err != nil {
		t.Fatal(err)
	}
	sorted := func(s string) []string { l := strings.Split(s, "\n"); slices.Sort(l); return l }
	if s1 == plain || s1 == s2 || !slices.Equal(sorted(s1), sorted(plain)) || !slices.Equal(sorted(s2), sorted(plain)) {
		t.Fatalf("--shuffle: want the same lines in two other orders\n%s\n%s", s1, s2)
	}
	if again, err := tokenize("again.txt", "--shuffle", "--seed", "1"); err != nil || again != s1 {
		t.Fatalf("--shuffle --seed 1 twice: %v, or another order", err)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 4 {
		t.Fatalf("files beside --out: %v, want plain.txt, s1.txt, s2.txt, again.txt", entries)
	}
	if _, err := tokenize("x.txt", "--seed", "3"); !errors.Is(err, cli.ErrUsage) {
		t.Fatalf("--seed without --shuffle: %v, want a usage error", err)
	}
}
