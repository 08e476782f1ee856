package command_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// TestMemoryClearForgetsCollectionCounts: "memory clear" forgets everything,
// the passage counts of each collection (kept for the in-process module) too.
func TestMemoryClearForgetsCollectionCounts(t *testing.T) {
	dir := t.TempDir()
	o := memory.DefaultOptions()
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	counts := func() int64 {
		c := memory.NewCollections(dir, o, memory.MaxCollections)
		defer c.Close()
		m, err := c.Get("Doc")
		if err != nil {
			t.Fatal(err)
		}
		return m.DocFreqs(make([]int64, 1), []string{"zzqxa"})
	}
	c := memory.NewCollections(dir, o, memory.MaxCollections)
	m, err := c.Get("Doc")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CountPassage([]string{"zzqxa", "f1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := counts(); n != 1 {
		t.Fatalf("before clear: %d passages, want 1", n)
	}
	if code, _, stderr := runCLI(context.Background(), "memory", "clear", "--yes", "--memory-dir", dir); code != 0 {
		t.Fatalf("clear: %s", stderr)
	}
	if n := counts(); n != 0 {
		t.Errorf("after memory clear the collection Doc still counts %d passages", n)
	}
}
