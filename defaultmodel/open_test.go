package defaultmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// writeModel saves a tiny model (with base embeddings when bundle is set).
func writeModel(t *testing.T, dir string, bundle bool) string {
	t.Helper()
	base, err := model.NewEmbeddings(2, []string{"a", "b"}, []float32{1, 2, 3, 4}, []int64{7, 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: 2, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"abc"}, cfg.Ngram), base, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "m.am")
	if err := m.SaveFile(path, model.SaveOptions{IncludeBase: bundle}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenAndOpenBundle(t *testing.T) {
	dir := t.TempDir()
	bundle := writeModel(t, dir, true)
	bm, ok, err := OpenBundle(bundle)
	if err != nil || !ok {
		t.Fatalf("OpenBundle(bundle) = %v, %v", ok, err)
	}
	if base := bm.Base; base.Len() != 2 || base.Row(1)[1] != 4 || base.Counts[0] != 7 {
		t.Fatalf("OpenBundle(bundle): base %v", base)
	}
	m, err := Open(bundle)
	if err != nil || m.Base == nil {
		t.Fatalf("Open(bundle): %v", err)
	}
	wdir := filepath.Join(dir, "w")
	if err := os.MkdirAll(wdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := OpenBundle(writeModel(t, wdir, false)); !ok || err == nil || !strings.Contains(err.Error(), "not a serving bundle") {
		t.Fatalf("OpenBundle(weights without base) = %v, %v; want an error naming the problem", ok, err)
	}
	text := filepath.Join(dir, "e.vec")
	if err := os.WriteFile(text, []byte("2 2\na 1 2\nb 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := OpenBundle(text); ok || err != nil {
		t.Fatalf("OpenBundle(text embeddings) = %v, %v; want not a bundle, no error", ok, err)
	}
	if _, _, err := OpenBundle(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("OpenBundle(missing file): no error")
	}
	for _, ref := range []string{"", Ref} {
		m, err := Open(ref)
		if len(weights) == 0 {
			if err == nil {
				t.Fatalf("Open(%q) without an embedded model: no error", ref)
			}
			continue
		}
		if err != nil || m.Base == nil {
			t.Fatalf("Open(%q): %v", ref, err)
		}
		b, ok, err := OpenBundle(ref)
		if err != nil || !ok || b.Base.Len() != m.Base.Len() || b.Base.Counts == nil {
			t.Fatalf("OpenBundle(%q) = %v, %v", ref, ok, err)
		}
	}
}
