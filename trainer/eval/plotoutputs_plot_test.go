//go:build plot

package eval

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

// unchanged fails t when a file of before (path → contents) was changed.
func unchanged(t *testing.T, what string, before map[string][]byte) {
	t.Helper()
	for p, b := range before {
		if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
			t.Fatalf("%s: input %s was changed", what, p)
		}
	}
}

// eval sentiment refuses a --plot that is one of its input files (the
// lexicons, the embeddings, a weights file, a corpus file) before any work,
// naming both flags; the input is left as it was.
func TestSentimentPlotIsNotAnInput(t *testing.T) {
	in := map[string]string{}
	before := map[string][]byte{}
	args := []string{"sentiment"}
	for _, flag := range []string{"--embeddings", "--corpus", "--am", "--hu-liu-positive", "--hu-liu-negative", "--nrc", "--semeval"} {
		in[flag] = writeFile(t, flag[2:]+".txt", "contents of "+flag+"\n")
		before[in[flag]] = []byte("contents of " + flag + "\n")
		args = append(args, flag, in[flag])
	}
	for flag, p := range in {
		_, _, err := run(t, append(args, "--plot", p)...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "--plot "+p+" is the input "+flag) {
			t.Errorf("--plot %s: err = %v, want it refused as the input %s", flag, err, flag)
		}
	}
	unchanged(t, "eval sentiment", before)
}

// eval vecmap refuses a --plot that is an input (a --corpus file, --gold, a
// PAPER_LIST), the --work-dir or a file the run keeps there; a .png in the
// work directory is allowed.
func TestVecMapPlotIsNotAnInput(t *testing.T) {
	corpus := writeFile(t, "corpus.txt", "the music\n")
	gold := writeFile(t, "gold.vec", "1 2\nthe 1 0\n")
	list := writeFile(t, "selected-words-4.txt", "zorb\n")
	dir := t.TempDir()
	down := filepath.Join(dir, "down.txt")
	if err := os.WriteFile(down, []byte("the music\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{corpus: []byte("the music\n"), gold: []byte("1 2\nthe 1 0\n"), list: []byte("zorb\n"), down: []byte("the music\n")}
	for plot, want := range map[string]string{
		corpus:                      "is the input --corpus",
		gold:                        "is the input --gold",
		list:                        "is the input PAPER_LIST",
		down:                        "inside --work-dir",
		filepath.Join(dir, "p.txt"): "inside --work-dir",
		dir:                         "is a directory",
	} {
		args := []string{"--corpus", corpus, "--gold", gold, "--work-dir", dir, "--plot", plot, list}
		_, _, err := parseVecMap(cli.Env{Args: args, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("--plot %s: err = %v, want a usage error saying %q", plot, err, want)
		}
	}
	unchanged(t, "eval vecmap", before)
	args := []string{"--corpus", corpus, "--gold", gold, "--work-dir", dir, "--plot", filepath.Join(dir, "cos.PNG"), list}
	if _, _, err := parseVecMap(cli.Env{Args: args, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}); err != nil {
		t.Errorf("a .png in the work directory: %v", err)
	}
}
