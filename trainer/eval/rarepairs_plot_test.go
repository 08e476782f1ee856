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
