package vectorizer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// cachePassages returns passages whose unseen words (zqNx, jargonN) and
// rare words (rN, which have base rows) sit inside sentences of frequent
// words, some twice in one sentence, some in sentences too short to cache.
func cachePassages(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = testmodel.FrequentWord(r.IntN(300))
		}
		return strings.Join(ws, " ")
	}
	out := make([]string, n)
	for i := range out {
		zq, jargon, rare := fmt.Sprintf("zq%dx", r.IntN(12)), fmt.Sprintf("jargon%d", r.IntN(12)), testmodel.RareWord(r.IntN(12))
		out[i] = fmt.Sprintf("%s %s %s. %s %s %s %s. %s f%d. %s %s.", words(3), zq, words(6),
			rare, words(4), rare, words(2), jargon, r.IntN(9), words(8), zq)
	}
	return out
}

// openMemory opens the memory in dir, closed at the end of the test.
func openMemory(t *testing.T, dir string) *memory.Memory {
	t.Helper()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(dir, memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	return mem
}

// assertSameVectors vectorizes texts with a and b under o and checks that
// every vector agrees bit for bit.
func assertSameVectors(t *testing.T, a, b *Vectorizer, texts []string, task Task, o Options) {
	t.Helper()
	va, ea := a.VectorizeBatch(texts, task, o)
	vb, eb := b.VectorizeBatch(texts, task, o)
	for i := range texts {
		if (ea[i] == nil) != (eb[i] == nil) {
			t.Fatalf("%q: errors %v and %v", texts[i], ea[i], eb[i])
		}
		for j := range va[i] {
			if math.Float32bits(va[i][j]) != math.Float32bits(vb[i][j]) {
				t.Fatalf("%q: element %d is %g with the cache, %g without", texts[i], j, va[i][j], vb[i][j])
			}
		}
	}
}

// TestContextIDCacheBitIdentical checks that the vectors of passages and
// queries are the same bits with the cache of context ids and without it
// (every remembered context tokenized for model.ContextIDs), while the
// memories grow, for words with and
// without a base row, and after both memories are reloaded from their
// directories (the warm cache kept by a vectorizer over the reloaded memory).
func TestContextIDCacheBitIdentical(t *testing.T) {
	m := newModel(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	memA, memB := openMemory(t, dirA), openMemory(t, dirB)
	cached, err := New(m, memA, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(m, memB, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	plain.ctxCache = nil // every remembered context tokenized for model.ContextIDs
	rareAM := DefaultOptions()
	rareAM.RareMin = 10 // the rare words (count 5) are AM words with base rows
	queries := []string{"zq3x", "jargon5 f1 f2", "r4", "zq1x r2 jargon0", "f7 zq7x f8 f9 f10 f11 f12 f13 f14 r7"}
	for round := range 4 {
		assertSameVectors(t, cached, plain, cachePassages(48, uint64(round)), TaskPassage, DefaultOptions())
		assertSameVectors(t, cached, plain, queries, TaskQuery, DefaultOptions())
		assertSameVectors(t, cached, plain, queries, TaskQuery, rareAM)
	}
	if len(cached.ctxCache.cur) == 0 {
		t.Fatal("the cache holds no context: the test compares nothing")
	}
	memA.Close()
	memB.Close()
	memA, memB = openMemory(t, dirA), openMemory(t, dirB)
	if cached, err = cached.WithStores(memA, memA, nil); err != nil {
		t.Fatal(err)
	}
	if plain, err = plain.WithStores(memB, memB, nil); err != nil {
		t.Fatal(err)
	}
	assertSameVectors(t, cached, plain, queries, TaskQuery, DefaultOptions())
	assertSameVectors(t, cached, plain, queries, TaskQuery, rareAM)
	assertSameVectors(t, cached, plain, cachePassages(48, 9), TaskPassage, DefaultOptions())
}

// TestContextIDCacheBounded checks that the two generations together stay
// within the budget, that the latest entries are kept, that a hit in the
// previous generation moves the entry to the current one, and that a
// context larger than a generation is not kept.
func TestContextIDCacheBounded(t *testing.T) {
	const limit = 8 << 10
	c := newContextIDCache(limit)
	ctx := func(i int) string { return fmt.Sprintf("context number %d with some words in it", i) }
	for i := range 1000 {
		c.put(ctx(i), []int32{int32(i), 1, 2})
		if got := cacheBytes(c); got > limit {
			t.Fatalf("after %d puts the cache holds %d bytes, more than %d", i+1, got, limit)
		}
	}
	if ids, ok := c.get(ctx(999)); !ok || ids[0] != 999 {
		t.Fatalf("the latest context: %v %v", ids, ok)
	}
	if _, ok := c.get(ctx(0)); ok {
		t.Fatal("the first context survived 1000 puts into 8 KiB")
	}
	old := -1
	for i := 999; i >= 0 && old < 0; i-- {
		if _, inPrev := c.prev[ctx(i)]; inPrev {
			if _, inCur := c.cur[ctx(i)]; !inCur {
				old = i
			}
		}
	}
	if old < 0 {
		t.Fatal("no entry only in the previous generation")
	}
	if ids, ok := c.get(ctx(old)); !ok || ids[0] != int32(old) {
		t.Fatalf("entry %d of the previous generation: %v %v", old, ids, ok)
	}
	if _, ok := c.cur[ctx(old)]; !ok {
		t.Errorf("a hit in the previous generation did not move entry %d to the current one", old)
	}
	huge := strings.Repeat("word ", limit/5)
	c.put(huge, []int32{1})
	if _, ok := c.get(huge); ok {
		t.Error("a context larger than a generation was kept")
	}
}

// cacheBytes is what both generations of c hold, each entry counted once.
func cacheBytes(c *contextIDCache) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.curBytes
	for ctx, ids := range c.prev {
		if _, moved := c.cur[ctx]; !moved {
			n += entryBytes(ctx, ids)
		}
	}
	return n
}

// TestContextIDCacheCopiesStrings checks that the cache keeps its own copy
// of a context, never the caller's bytes (a request body).
func TestContextIDCacheCopiesStrings(t *testing.T) {
	body := []byte(`{"text": "the context of a word, long enough to be cached"}`)
	ctx := unsafe.String(&body[10], len(body)-12)
	c := newContextIDCache(1 << 20)
	c.put(ctx, []int32{1})
	for key := range c.cur {
		p, b := uintptr(unsafe.Pointer(unsafe.StringData(key))), uintptr(unsafe.Pointer(&body[0]))
		if p >= b && p < b+uintptr(len(body)) {
			t.Fatal("the cache keeps the caller's bytes")
		}
		if key != ctx {
			t.Fatalf("kept %q, want %q", key, ctx)
		}
	}
	if len(c.cur) != 1 {
		t.Fatalf("%d entries, want 1", len(c.cur))
	}
}

// TestContextIDCacheConcurrent looks contexts up and adds them from many
// goroutines while generations turn over (run it with -race): every hit
// returns the ids put for that context.
func TestContextIDCacheConcurrent(t *testing.T) {
	c := newContextIDCache(16 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range 5000 {
				i := r.IntN(600)
				ctx := fmt.Sprintf("a remembered context, number %d of them", i)
				if ids, ok := c.get(ctx); ok {
					if len(ids) != 2 || ids[0] != int32(i) || ids[1] != int32(2*i) {
						t.Errorf("context %d: ids %v", i, ids)
						return
					}
					continue
				}
				c.put(ctx, []int32{int32(i), int32(2 * i)})
			}
		})
	}
	wg.Wait()
}
