package vectorizer

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// TestWithStoresCountsAddUp: what a vectorizer made by WithStores vectorizes
// counts in the statistics of the vectorizer it was made of.
func TestWithStoresCountsAddUp(t *testing.T) {
	v := newVectorizer(t, newMemory(t))
	mem := newMemory(t)
	w, err := v.WithStores(mem, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := v.Stats()
	if _, err := w.Vectorize("f1 f2 jargonx f3", TaskQuery, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	after := v.Stats()
	words := func(s Stats) (n int64) {
		for _, c := range s.WordsBySource {
			n += c
		}
		return n
	}
	if words(after)-words(before) != 4 || after.AMInferences != before.AMInferences+1 {
		t.Errorf("before %+v, after %+v: want 4 more words and 1 more inference", before, after)
	}
	if w.Stats().AMInferences != after.AMInferences {
		t.Error("the derived vectorizer reports other counts")
	}
}

// TestBoundedCacheKeepsWithinItsBytes: a bounded cache fed more vectors
// than its bound holds evicts to stay within it, keeps the vector just put
// and still serves it, and keeps none larger than the bound; an unbounded
// one keeps every vector up to its count.
func TestBoundedCacheKeepsWithinItsBytes(t *testing.T) {
	const dim, n = 32, 4000
	vec := make([]float32, dim)
	one := amEntryBytes("w0000", cacheEntry{vec: vec, form: wordForm{vec: vec}})
	bounded, unbounded := NewBoundedCache(100*one), NewCache()
	for i := range n {
		k := cacheKey{word: fmt.Sprintf("w%04d", i), maxCtx: 4}
		bounded.c.put(k, 1, slices.Clone(vec), wordForm{vec: slices.Clone(vec)})
		unbounded.c.put(k, 1, slices.Clone(vec), wordForm{vec: slices.Clone(vec)})
		if b := bounded.Bytes(); b > 100*one {
			t.Fatalf("after %d vectors: %d bytes, bound %d", i+1, b, 100*one)
		}
		if _, ok, _ := bounded.c.get(k, 1); !ok {
			t.Fatalf("vector %d evicted as it was put", i)
		}
	}
	if b := bounded.Bytes(); b < 50*one {
		t.Errorf("the bounded cache holds %d bytes, less than half its bound %d", b, 100*one)
	}
	if got := unbounded.c.len(); got != n || unbounded.Bytes() != n*one {
		t.Errorf("the unbounded cache holds %d vectors (%d bytes), want %d (%d)", got, unbounded.Bytes(), n, n*one)
	}
	tiny := NewBoundedCache(one / 2)
	tiny.c.put(cacheKey{word: "w0000"}, 1, vec, wordForm{vec: vec})
	if tiny.c.len() != 0 || tiny.Bytes() != 0 {
		t.Errorf("a vector larger than the bound was kept (%d bytes)", tiny.Bytes())
	}
}

// TestViewsPerBatchMatchOwnVectorizers: vectorizers made by WithStores for
// each batch, as the in-process module makes them, over two memories in
// turn, with texts long and short (their scratch works are those of the
// vectorizer they were made of, used for both memories in turn), give the
// vectors, bit for bit, and leave the memories that a vectorizer of each
// memory's own gives and leaves.
func TestViewsPerBatchMatchOwnVectorizers(t *testing.T) {
	m := newModel(t)
	base, err := New(m, newMemory(t), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	type scope struct {
		mem, ownMem *memory.Memory
		own         *Vectorizer
		cache       *Cache
	}
	scopes := make([]scope, 2)
	for i := range scopes {
		s := &scopes[i]
		s.mem, s.ownMem, s.cache = newMemory(t), newMemory(t), NewCache()
		if s.own, err = New(m, s.ownMem, DefaultOptions()); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"zq3x", "jargon5 f1 f2", "zq1x r2 jargon0 f7 f8"}
	for round := range 4 {
		for i, s := range scopes {
			texts := cachePassages(6+5*round, uint64(10*round+i))
			texts = append(texts, strings.Join(cachePassages(24, uint64(round)), " "), "zq1x f1.")
			view, err := base.WithStores(s.mem, s.mem, s.cache)
			if err != nil {
				t.Fatal(err)
			}
			if view.pool != base.pool {
				t.Fatal("the view has scratch works of its own")
			}
			assertSameVectors(t, view, s.own, texts, TaskPassage, DefaultOptions())
			assertSameVectors(t, view, s.own, queries, TaskQuery, DefaultOptions())
		}
	}
	for i, s := range scopes {
		var got, want bytes.Buffer
		if err := errors.Join(s.mem.Export(&got), s.ownMem.Export(&want)); err != nil {
			t.Fatal(err)
		}
		if got.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("memory %d: the views left\n%s\nits own vectorizer\n%s", i, got.Bytes(), want.Bytes())
		}
		if a, b := s.mem.Stats().Passages, s.ownMem.Stats().Passages; a != b {
			t.Errorf("memory %d: %d passages counted by the views, %d by its own vectorizer", i, a, b)
		}
	}
}
