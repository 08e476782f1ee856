package model

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSavedFilesReadable checks that saved embeddings and model files can be
// read by other users (0644), e.g. a container's user that did not write them.
func TestSavedFilesReadable(t *testing.T) {
	dir := t.TempDir()
	e, err := NewEmbeddings(2, []string{"a", "b"}, []float32{1, 0, 0, 1}, []int64{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	emb := filepath.Join(dir, "e.txt")
	if err := SaveEmbeddings(emb, e, false); err != nil {
		t.Fatal(err)
	}
	am := filepath.Join(dir, "m.am")
	if err := testModel(t, ModeAM, 12, 7).SaveFile(am, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{emb, am} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o644 {
			t.Errorf("%s: mode %v, want 0644", filepath.Base(path), got)
		}
	}
}
