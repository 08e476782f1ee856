package outpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check refuses an output that is another output, an input file (spelt
// otherwise), a file inside an input directory, a directory or in a missing
// directory, and accepts a fresh file beside the inputs.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := []File{{"--in", in}, {"DIR", sub}, {"--none", ""}}
	for out, want := range map[string]string{
		filepath.Join(dir, "sub", "..", "in.txt"): "is the input --in",
		filepath.Join(sub, "deep", "x.png"):       "inside the input directory DIR",
		sub:                                       "is the input DIR",
		dir:                                       "is a directory",
		filepath.Join(dir, "no", "x"):             "cannot write to directory",
	} {
		if err := Check([]File{{"--out", out}}, inputs); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("output %s: err = %v, want %q", out, err, want)
		}
	}
	out := filepath.Join(dir, "out.bin")
	if err := Check([]File{{"--out", out}, {"--other", ""}}, inputs); err != nil {
		t.Errorf("a fresh output: %v", err)
	}
	if err := Check([]File{{"--out", out}, {"--bundle", dir + "/./out.bin"}}, nil); err == nil || !strings.Contains(err.Error(), "is also --out") {
		t.Errorf("two outputs, one file: err = %v", err)
	}
	if Within(dir, sub) || Within(filepath.Join(dir, "subx", "a"), sub) || !Within(filepath.Join(sub, "a"), sub) {
		t.Error("Within: wrong answer for a parent, a sibling with a common prefix or a child")
	}
}
