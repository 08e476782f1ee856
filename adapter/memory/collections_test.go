package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollections(t *testing.T) {
	dir := t.TempDir()
	opts := DefaultOptions()
	shared, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	cs := NewCollections(dir, opts, MaxCollections)
	if m, err := cs.Find("Books"); m != nil || err != nil {
		t.Fatalf("Find of a collection never counted: %v, %v; want nil, nil", m, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "collections", "Books")); err == nil {
		t.Fatal("Find created the collection's directory")
	}
	books, err := cs.Get("Books")
	if err != nil {
		t.Fatal(err)
	}
	cc := CollectionCounts{Collection: books, Shared: shared}
	for _, p := range [][]string{{"a", "b"}, {"a"}} {
		if err := cc.CountPassage(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := shared.CountPassage([]string{"c"}); err != nil {
		t.Fatal(err)
	}
	df := make([]int64, 3)
	if n := cc.DocFreqs(df, []string{"a", "b", "c"}); n != 2 || df[0] != 2 || df[1] != 1 || df[2] != 0 {
		t.Errorf("collection counts: %d passages, df %v; want 2, [2 1 0]", n, df)
	}
	if n := shared.DocFreqs(df, []string{"a", "b", "c"}); n != 3 || df[0] != 2 || df[2] != 1 {
		t.Errorf("shared counts: %d passages, df %v; want 3, [2 1 1]", n, df)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	// A new run finds the counts on disk.
	cs2 := NewCollections(dir, opts, MaxCollections)
	defer cs2.Close()
	again, err := cs2.Find("Books")
	if err != nil || again == nil || again.Stats().Passages != 2 {
		t.Fatalf("after reopening: %v, %v; want the 2 passages of Books", again, err)
	}
	for _, bad := range []string{"", "../x", "a/b", "1abc", string(make([]byte, 300))} {
		if _, err := cs2.Get(bad); !errors.Is(err, ErrInvalidCollection) {
			t.Errorf("collection name %q accepted", bad)
		}
	}
	shared.Close()
}

// TestCollectionName: a request's collection is named as Weaviate names it
// (first letter upper-cased, then Weaviate's class-name rule).
func TestCollectionName(t *testing.T) {
	for in, want := range map[string]string{"Books": "Books", "books": "Books", "b": "B", "my_Books2": "My_Books2"} {
		if got, err := CollectionName(in); err != nil || got != want {
			t.Errorf("CollectionName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "_Books", "1abc", "../x", "a b", "Bö", "B" + strings.Repeat("x", 255)} {
		if got, err := CollectionName(bad); !errors.Is(err, ErrInvalidCollection) || !strings.Contains(err.Error(), "an upper-case letter") {
			t.Errorf("CollectionName(%q) = %q, %v; want ErrInvalidCollection stating the rule", bad, got, err)
		}
	}
}
