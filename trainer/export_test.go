package trainer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

func TestExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	base, err := model.NewEmbeddings(3, []string{"the", "zorb", "é"}, []float32{0.1, -2, 3.25, 1e-7, 5, -0.333333, 9, 8, 7}, []int64{100, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: 3, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"zorb"}, cfg.Ngram), base, 1)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "b.am")
	if err := m.SaveFile(bundle, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	for _, binary := range []bool{false, true} {
		out := filepath.Join(dir, "out.vec")
		args := []string{"--model", bundle, "--out", out, "--counts-out", filepath.Join(dir, "counts.txt")}
		if binary {
			args = append(args, "--binary")
		}
		var stdout, stderr bytes.Buffer
		if err := runExport(context.Background(), cli.Env{Args: args, Stdout: &stdout, Stderr: &stderr}); err != nil {
			t.Fatal(err)
		}
		got, err := model.LoadEmbeddings(out)
		if err != nil {
			t.Fatal(err)
		}
		if got.Dim != 3 || len(got.Words) != 3 || got.Words[2] != "é" {
			t.Fatalf("binary %v: words %v", binary, got.Words)
		}
		for i, x := range base.Vectors {
			if got.Vectors[i] != x {
				t.Fatalf("binary %v: value %d = %v, want %v exactly", binary, i, got.Vectors[i], x)
			}
		}
		counts, err := model.LoadCounts(filepath.Join(dir, "counts.txt"))
		if err != nil || counts["zorb"] != 2 || counts["the"] != 100 {
			t.Fatalf("counts: %v, %v", counts, err)
		}
	}
	// A weights file without base embeddings is refused by name.
	w := filepath.Join(dir, "w.am")
	if err := m.SaveFile(w, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	err = runExport(context.Background(), cli.Env{Args: []string{"--model", w, "--out", filepath.Join(dir, "x")}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	if err == nil {
		t.Fatal("export of weights without base: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Fatal("export wrote a file after failing")
	}
}

func TestExportDefaultModel(t *testing.T) {
	var stdout bytes.Buffer
	err := runExport(context.Background(), cli.Env{Args: []string{"--model", "default", "--out", "-"}, Stdout: &stdout, Stderr: &bytes.Buffer{}})
	if err != nil {
		t.Skipf("no embedded default model: %v", err)
	}
	e, err := model.ReadEmbeddings(&stdout, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() < 1000 || e.Dim < 2 {
		t.Fatalf("exported default model: %d words of dimension %d", e.Len(), e.Dim)
	}
}

// TestExportRefusesOutputThatIsAnInput: --out or --counts-out that is the
// --model bundle, or the two outputs one file, is refused before the bundle
// is read, naming both flags, and the bundle is left as it was.
func TestExportRefusesOutputThatIsAnInput(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.am")
	if err := os.WriteFile(bundle, []byte("a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", bundle}, "--out " + bundle + " is the input --model"},
		{[]string{"--out", out, "--counts-out", filepath.Join(dir, "x", "..", "b.am")}, "is the input --model"},
		{[]string{"--out", out, "--counts-out", out}, "--counts-out " + out + " is also --out"},
		{[]string{"--out", dir}, "is a directory"},
	} {
		args := append([]string{"--model", bundle}, c.args...)
		err := runExport(context.Background(), cli.Env{Args: args, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	if b, err := os.ReadFile(bundle); err != nil || string(b) != "a bundle" {
		t.Errorf("the bundle changed: %q, %v", b, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written")
	}
}
