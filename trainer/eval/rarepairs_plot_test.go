//go:build plot

package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --plot replaces an existing file with the PNG of ρ by k; with one value of
// k (--max-k 1) it is refused before any work, and the file keeps its bytes.
func TestEvalRarePairsPlot(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\nthe zorb music\nzorb the guitar\n"})
	pairs := writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\nfood zorb 2\n")
	plot := filepath.Join(t.TempDir(), "rp.png")
	if err := os.WriteFile(plot, []byte("old plot"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--trials", "1", "--plot", plot}
	if _, _, err := run(t, append(args, "--max-k", "1", pairs, dir)...); err == nil || !strings.Contains(err.Error(), "needs two values of k") {
		t.Fatalf("--max-k 1: error %v, want --plot refused", err)
	}
	if data, err := os.ReadFile(plot); err != nil || string(data) != "old plot" {
		t.Fatalf("after the refused plot the file holds %q (%v), want it untouched", data, err)
	}
	if _, _, err := run(t, append(args, "--max-k", "2", pairs, dir)...); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(plot); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("--plot: %d bytes, %v: want a PNG", len(data), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(plot)); len(ents) != 1 {
		t.Fatalf("%d files beside the plot, want none (no temporary file left)", len(ents)-1)
	}
}

// A --plot that is an input (PAIRS, --embeddings, --counts,
// --alacarte-corpus), lies in
// CONTEXT_DIR, is a directory or has no directory is refused before any
// work, and the inputs keep their bytes: the plot used to replace an input,
// or to fail only once the evaluation was done.
func TestEvalRarePairsPlotRefusesInputs(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\nthe zorb music\nzorb the guitar\n"})
	pairs := writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\nfood zorb 2\n")
	corpus := writeFile(t, "corpus.txt", "the music\n")
	args := []string{"rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--trials", "1", "--max-k", "2",
		"--alacarte-corpus", corpus}
	for plot, want := range map[string]string{
		pairs:                          "is the input PAIRS",
		corpus:                         "is the input --alacarte-corpus",
		emb:                            "is the input --embeddings",
		counts:                         "is the input --counts",
		filepath.Join(dir, "zorb.txt"): "read as one of its context files",
		filepath.Join(dir, "new.txt"):  "read as one of its context files",
		dir:                            "is the input CONTEXT_DIR",
		t.TempDir():                    "is a directory",
		filepath.Join(t.TempDir(), "no", "p.png"): "cannot write to directory",
	} {
		before := map[string][]byte{}
		for _, p := range []string{pairs, emb, counts, corpus, filepath.Join(dir, "zorb.txt")} {
			before[p], _ = os.ReadFile(p)
		}
		if _, _, err := run(t, append(args, "--plot", plot, pairs, dir)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--plot %s: error %v, want it refused (%q)", plot, err, want)
		}
		for p, b := range before {
			if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
				t.Fatalf("--plot %s: input %s was changed", plot, p)
			}
		}
	}
}
