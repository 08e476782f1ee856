package vectorizer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
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

// TestContextIDReadingsMatchTokenizing checks, for a mixed workload of
// unseen and rare words whose contexts the memory adds, keeps in order and
// drops (a small MaxContexts), that the reading of every word's remembered
// contexts holds the texts the memory gives and the ids model.ContextIDs
// gives for them, both from a store that hands out its own strings and from
// one that hands out fresh copies of them each time.
func TestContextIDReadingsMatchTokenizing(t *testing.T) {
	mem := smallMemory(t, 4)
	own := newVectorizer(t, mem)
	fresh, err := own.WithStores(copyingStore{mem}, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh.ctxCache = newContextIDCache(contextIDBytes)
	if own.ctxScope == 0 || fresh.ctxScope != 0 {
		t.Fatal("the vectorizers do not tell the memory's strings from copies")
	}
	words := map[string]bool{}
	for round := range 6 {
		teachRound(t, own, round, words)
		for word := range words {
			for _, v := range []*Vectorizer{own, fresh} {
				checkReading(t, v, word)
			}
		}
	}
	if len(own.ctxCache.cur) == 0 || len(fresh.ctxCache.cur) == 0 {
		t.Fatal("no reading cached: the test compares nothing")
	}
}

// checkReading reads word's remembered contexts through v's cache, twice,
// and compares each reading with tokenizing the memory's texts.
func checkReading(t *testing.T, v *Vectorizer, word string) {
	t.Helper()
	texts, _ := v.store.Contexts(nil, word)
	if len(texts) == 0 {
		return
	}
	w := v.newWork()
	w.ctxTexts, w.ctxRem = texts, len(texts)
	for range 2 {
		r := v.rememberedIDs(w, word)
		if !slices.Equal(r.ctx, texts) {
			t.Fatalf("%q: the reading holds %q, the memory %q", word, r.ctx, texts)
		}
		for i, text := range texts {
			want := m0ContextIDs(v, text, word)
			if got := r.contextIDs(i); !slices.Equal(got, want) {
				t.Fatalf("%q, context %q: ids %v, tokenizing gives %v", word, text, got, want)
			}
		}
	}
}

// m0ContextIDs tokenizes text and gives its ids as model.ContextIDs does.
func m0ContextIDs(v *Vectorizer, text, word string) []int32 {
	return v.m.ContextIDs(nil, v.tok.AppendTokens(nil, text), word)
}

// copyingStore hands out fresh copies of the memory's contexts.
type copyingStore struct{ *memory.Memory }

func (s copyingStore) Contexts(dst []string, word string) ([]string, uint64) {
	n := len(dst)
	dst, version := s.Memory.Contexts(dst, word)
	for i := n; i < len(dst); i++ {
		dst[i] = strings.Clone(dst[i])
	}
	return dst, version
}

// reading returns a reading of n contexts of word, context i with ids
// first, i, 2.
func reading(word string, n int, first int32) wordContexts {
	r := newWordContexts(readingKey{word: word}, n, 3*n, wordContexts{})
	for i := range n {
		r.ctx[i] = fmt.Sprintf("context number %d with some words in it", i)
		r.ids = append(r.ids, first, int32(i), 2)
		r.ids[i] = int32(len(r.ids))
	}
	return r
}

// TestContextIDReadingsPerMemory reads the contexts of one word from two
// memories in turn through vectorizers sharing a cache (a collection's and
// a tenant's memory): each memory keeps its own reading, which is read
// again without tokenizing.
func TestContextIDReadingsPerMemory(t *testing.T) {
	memA, memB := newMemory(t), newMemory(t)
	a := newVectorizer(t, memA)
	b, err := a.WithStores(memB, memB, nil)
	if err != nil {
		t.Fatal(err)
	}
	remember := func(mem *memory.Memory, ctx string) {
		if err := mem.Remember([]memory.Observation{{Word: "zq1x", Context: ctx}}); err != nil {
			t.Fatal(err)
		}
	}
	remember(memA, "f1 zq1x f2.")
	remember(memB, "f3 f4 zq1x.")
	var first [2]wordContexts
	for round := range 3 {
		for k, v := range []*Vectorizer{a, b} {
			texts, _ := v.store.Contexts(nil, "zq1x")
			w := v.newWork()
			w.ctxTexts, w.ctxRem = texts, len(texts)
			r := v.rememberedIDs(w, "zq1x")
			if !slices.Equal(r.ctx, texts) {
				t.Fatalf("memory %d: the reading holds %q, the memory %q", k, r.ctx, texts)
			}
			if round == 0 {
				first[k] = r
			} else if &r.ids[0] != &first[k].ids[0] {
				t.Fatalf("round %d: memory %d's reading was made again", round, k)
			}
		}
	}
}

// TestContextIDCacheBounded checks that the two generations together stay
// within the budget, that the latest entries are kept, that a hit in the
// previous generation moves the entry to the current one, that replacing a
// word's reading charges only the new one, and that a reading larger than a
// generation is not kept.
func TestContextIDCacheBounded(t *testing.T) {
	const limit = 8 << 10
	c := newContextIDCache(limit)
	word := func(i int) readingKey { return readingKey{word: fmt.Sprintf("word%d", i)} }
	for i := range 1000 {
		c.put(reading(word(i).word, 1+i%3, int32(i)))
		if got := cacheBytes(c); got > limit {
			t.Fatalf("after %d puts the cache holds %d bytes, more than %d", i+1, got, limit)
		}
	}
	if r, ok := c.get(word(999)); !ok || r.contextIDs(0)[0] != 999 {
		t.Fatalf("the latest word: %v", r)
	}
	if _, ok := c.get(word(0)); ok {
		t.Fatal("the first word survived 1000 puts into 8 KiB")
	}
	old := -1
	for i := 999; i >= 0 && old < 0; i-- {
		if _, inPrev := c.prev[word(i)]; inPrev {
			if _, inCur := c.cur[word(i)]; !inCur {
				old = i
			}
		}
	}
	if old < 0 {
		t.Fatal("no entry only in the previous generation")
	}
	if r, ok := c.get(word(old)); !ok || r.contextIDs(0)[0] != int32(old) {
		t.Fatalf("entry %d of the previous generation: %v", old, r)
	}
	if _, ok := c.cur[word(old)]; !ok {
		t.Errorf("a hit in the previous generation did not move entry %d to the current one", old)
	}
	c.get(word(999)) // in the current generation, wherever it was
	before := c.curBytes
	for range 100 {
		r, _ := c.get(word(999))
		c.put(r)
	}
	if c.curBytes != before {
		t.Errorf("replacing a reading 100 times moved the charge from %d to %d bytes", before, c.curBytes)
	}
	c.put(reading("huge", limit/20, 0))
	if _, ok := c.get(readingKey{word: "huge"}); ok {
		t.Error("a reading larger than a generation was kept")
	}
}

// cacheBytes is what both generations of c hold, each entry counted once.
func cacheBytes(c *contextIDCache) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.curBytes
	for word, r := range c.prev {
		if _, moved := c.cur[word]; !moved {
			n += r.bytes()
		}
	}
	return n
}

// TestContextIDCacheCopiesStrings checks that the cache keeps its own copy
// of a word, and a vectorizer its own copy of a context, never the caller's
// bytes (a request body), unless the store is a memory, whose strings are
// its own.
func TestContextIDCacheCopiesStrings(t *testing.T) {
	body := []byte(`{"text": "zq1x is the word of the context"}`)
	word := unsafe.String(&body[10], 4)
	ctx := unsafe.String(&body[10], len(body)-12)
	inBody := func(s string) bool {
		p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&body[0]))
		return p >= b && p < b+uintptr(len(body))
	}
	mem := newMemory(t)
	v, err := newVectorizer(t, mem).WithStores(copyingStore{mem}, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := v.newWork()
	w.ctxTexts, w.ctxRem = []string{ctx}, 1
	r := v.rememberedIDs(w, word)
	if len(v.ctxCache.cur) != 1 {
		t.Fatalf("%d entries, want 1", len(v.ctxCache.cur))
	}
	for key, kept := range v.ctxCache.cur {
		if inBody(key.word) || inBody(kept.ctx[0]) || inBody(r.ctx[0]) {
			t.Fatal("the cache keeps the caller's bytes")
		}
		if key.word != word || kept.ctx[0] != ctx {
			t.Fatalf("kept %q: %q, want %q: %q", key.word, kept.ctx, word, ctx)
		}
	}
}

// TestContextIDCacheConcurrent looks readings up and adds them from many
// goroutines while generations turn over (run it with -race): every hit
// returns the reading put for that word.
func TestContextIDCacheConcurrent(t *testing.T) {
	c := newContextIDCache(16 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range 5000 {
				i := r.IntN(600)
				word := fmt.Sprintf("word%d", i)
				if got, ok := c.get(readingKey{word: word}); ok {
					if ids := got.contextIDs(0); len(ids) != 3 || ids[0] != int32(i) || got.key.word != word {
						t.Errorf("word %d: %q, ids %v", i, got.key.word, ids)
						return
					}
					continue
				}
				c.put(reading(word, 1, int32(i)))
			}
		})
	}
	wg.Wait()
}

// TestContextIDCacheHeap fills caches with readings of several shapes, a
// word's contexts copied as from a store other than a memory, many times
// over their budget: the heap they hold grows by at most a tenth more than
// the budget.
func TestContextIDCacheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 32 MiB several times over")
	}
	for _, shape := range []struct{ contexts, length, ids int }{{1, 30, 6}, {3, 60, 12}, {16, 120, 20}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := newContextIDCache(contextIDBytes)
		text := strings.Repeat("x", shape.length)
		turnovers := 0
		for i := 0; ; i++ { // until just before the third generation starts, when most is held
			r := newWordContexts(readingKey{word: fmt.Sprintf("w%07d", i)}, shape.contexts,
				shape.contexts*shape.ids, wordContexts{})
			for k := range shape.contexts {
				r.ctx[k] = strings.Clone(text)
				r.ids = append(r.ids, make([]int32, shape.ids)...)
				r.ids[k] = int32(len(r.ids))
			}
			if c.curBytes+r.bytes() > c.half {
				if turnovers++; turnovers == 3 {
					break
				}
			}
			c.put(r)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%+v: %d words, heap grew %.1f MiB", shape, len(c.cur)+len(c.prev), float64(grew)/(1<<20))
		if limit := int64(contextIDBytes * 11 / 10); grew > limit {
			t.Errorf("%+v: the cache holds %d bytes of heap, more than %d", shape, grew, limit)
		}
		runtime.KeepAlive(c)
	}
}

// TestContextIDReadingsExactSize checks, as a memory adds, keeps and drops
// the contexts of words round after round (a small MaxContexts), that every
// reading made anew from the last one holds the ids tokenizing gives, in
// room of exactly their number.
func TestContextIDReadingsExactSize(t *testing.T) {
	mem := smallMemory(t, 4)
	v := newVectorizer(t, mem)
	words := map[string]bool{}
	last := map[string]*int32{} // each word's reading, by its ids' first element
	remade := 0
	for round := range 6 {
		teachRound(t, v, round, words)
		for word := range words {
			r, ok := v.ctxCache.get(readingKey{word: word, scope: v.ctxScope})
			if !ok {
				continue
			}
			if cap(r.ids) != len(r.ids) {
				t.Fatalf("%q: the reading has room for %d ids and offsets, holds %d", word, cap(r.ids), len(r.ids))
			}
			if p, seen := last[word]; seen && p != &r.ids[0] {
				remade++ // made anew from the reading before
			}
			last[word] = &r.ids[0]
			checkReading(t, v, word)
		}
	}
	if remade == 0 {
		t.Fatal("no reading made from a previous one: the test compares nothing")
	}
}

// TestContextIDsPinNoContext: after contextIDs a work, which goes back to a
// pool shared by every view, holds no token of the remembered contexts it
// tokenized, longer ones before shorter ones included; read through the
// cache of readings and without it.
func TestContextIDsPinNoContext(t *testing.T) {
	mem := newMemory(t)
	long := "f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 zq5x."
	if err := mem.Remember([]memory.Observation{{Word: "zq5x", Context: long}, {Word: "zq5x", Context: "zq5x f1."}}); err != nil {
		t.Fatal(err)
	}
	texts, _ := mem.Contexts(nil, "zq5x")
	for _, cached := range []bool{true, false} {
		v := newVectorizer(t, mem)
		if !cached {
			v.ctxCache = nil // every remembered context tokenized in contextIDs itself
		}
		w := v.newWork()
		w.ctxTexts, w.ctxRem = append(w.ctxTexts[:0], texts...), len(texts)
		v.contextIDs(w, "zq5x")
		if len(w.ctxIDs) != 2 {
			t.Fatalf("cache %v: %d contexts with ids, want 2", cached, len(w.ctxIDs))
		}
		for i, s := range w.ctxTok[:cap(w.ctxTok)] {
			if s != "" {
				t.Fatalf("cache %v: token %d %q of a remembered context stays in the work", cached, i, s)
			}
		}
	}
}

// teachRound imports the passages of round through v, teaching its memory,
// and adds the words AM reads from the memory in them to words.
func teachRound(t *testing.T, v *Vectorizer, round int, words map[string]bool) {
	t.Helper()
	texts := cachePassages(32, uint64(round))
	if _, errs := v.VectorizeBatch(texts, TaskPassage, DefaultOptions()); errors.Join(errs...) != nil {
		t.Fatal(errors.Join(errs...))
	}
	_, am := v.memoryWords(texts, DefaultOptions())
	for _, word := range am {
		words[word] = true
	}
}

// smallMemory opens a memory in RAM that keeps at most maxContexts contexts
// a word, closed when the test ends.
func smallMemory(t testing.TB, maxContexts int) *memory.Memory {
	t.Helper()
	mo := memory.DefaultOptions()
	mo.MaxContexts = maxContexts
	return openRAM(t, mo)
}
