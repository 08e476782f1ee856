package weaviatemem

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestRewrittenObjectCountedOnce: a copy that reads objects created over a
// span far beyond the lookback, and its own writes, counts every object
// once: its count and version equal a fresh copy's, which reads the same
// objects in one full read. A round created in one millisecond, more than
// a page, is read by creation time and id, never in full. An object written again long after (Weaviate
// gives it a new creation time) is still counted once: the count stays
// Weaviate's, the version a fresh copy's, and nothing is read in full.
func TestRewrittenObjectCountedOnce(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, func(o *Options) { o.Lookback = time.Second })
	sc := s.scopes[""]
	const rounds, perRound = 20, 100
	start := f.Now
	var fullAfterFirst int64
	for r := range rounds {
		at := start + int64(r)*5000 // 5 s apart: beyond the lookback
		for i := range perRound {   // one batch: one creation time, more than a page
			word := fmt.Sprintf("w%d", r)
			put(f, contextObject(memory.Observation{Word: word, Context: fmt.Sprintf("%s in context %d", word, i)}), at)
		}
		want := int64((r + 1) * perRound)
		waitFor(t, fmt.Sprintf("round %d to be read", r), func() bool { return sc.objects() == want })
		if r == 0 {
			fullAfterFirst = fullReads(s)
		}
	}
	if got := fullReads(s); got != fullAfterFirst {
		t.Errorf("%d full reads of rounds of one millisecond each, want none after the first round", got-fullAfterFirst)
	}
	f.Mu.Lock()
	f.Now = start + rounds*5000
	f.Mu.Unlock()
	vectorize(t, s, baseVectorizer(t), testmodel.JargonPassages(20), vectorizer.TaskPassage)
	waitFor(t, "the own writes to be read back", func() bool { return sc.objects() == int64(f.Count(sharedTenant)) })
	sameAsFresh(t, s, ts.URL)
	full := fullReads(s)
	n := sc.objects()
	put(f, contextObject(memory.Observation{Word: "w0", Context: "w0 in context 0"}), f.Now+1000) // written again
	put(f, contextObject(memory.Observation{Word: "w0", Context: "w0 in a new context"}), f.Now+1000)
	waitFor(t, "the new object to be read", func() bool { return sc.objects() >= n+1 })
	time.Sleep(5 * s.o.Refresh)
	if got := fullReads(s); got != full || sc.objects() != n+1 || f.Count(sharedTenant) != int(n+1) {
		t.Errorf("after an object written again and a new one: %d full reads (was %d), %d objects read, want %d (Weaviate's %d)",
			got, full, sc.objects(), n+1, f.Count(sharedTenant))
	}
	sameAsFresh(t, s, ts.URL)
}

// TestFullReadCountsOnceWhateverTheClocks: a full read of objects created
// by a clock an hour ahead of the server's, then an incremental read that
// lists them again, count each object once: the count is Weaviate's and
// the version a fresh copy's.
func TestFullReadCountsOnceWhateverTheClocks(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	ahead := time.Now().Add(time.Hour).UnixMilli()
	for i := range 3000 {
		put(f, contextObject(memory.Observation{Word: fmt.Sprintf("w%d", i%300), Context: fmt.Sprintf("c %d", i)}), ahead+int64(i))
	}
	s := openStore(t, ts.URL, func(o *Options) { o.Lookback = time.Second })
	sc := s.scopes[""]
	put(f, contextObject(memory.Observation{Word: "new", Context: "new one"}), ahead+3001)
	waitFor(t, "the new object to be read", func() bool {
		mem, _ := sc.current()
		c, _ := mem.Contexts(nil, "new")
		return len(c) == 1
	})
	time.Sleep(5 * s.o.Refresh)
	if got, want := sc.objects(), int64(f.Count(sharedTenant)); got != want {
		t.Errorf("%d objects counted, Weaviate holds %d", got, want)
	}
	sameAsFresh(t, s, ts.URL)
}

// TestLateObjectIsRead: an object that becomes visible after the
// incremental reads passed its creation time (a replica that lagged) makes
// the count exceed the objects read, even after an object was written
// again, and so is read by a full read.
func TestLateObjectIsRead(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	t0 := f.Now
	x := contextObject(memory.Observation{Word: "x", Context: "x ctx"})
	put(f, x, t0)
	s := openStore(t, ts.URL, func(o *Options) { o.Lookback = time.Second })
	sc := s.scopes[""]
	put(f, contextObject(memory.Observation{Word: "a", Context: "a ctx"}), t0+10_000)
	waitFor(t, "a to be read", func() bool { return sc.objects() == 2 })
	put(f, x, t0+20_000) // written again: a new creation time
	put(f, contextObject(memory.Observation{Word: "b", Context: "b ctx"}), t0+20_001)
	waitFor(t, "b to be read", func() bool { return sc.objects() >= 3 })
	time.Sleep(5 * s.o.Refresh)
	if sc.objects() != 3 {
		t.Fatalf("%d objects counted, want 3 (x written again counts once)", sc.objects())
	}
	put(f, contextObject(memory.Observation{Word: "late", Context: "late ctx"}), t0+5_000)
	waitFor(t, "the late object to be read", func() bool {
		mem, _ := sc.current()
		c, _ := mem.Contexts(nil, "late")
		return len(c) == 1 && sc.objects() == 4
	})
	if s.Stats().Remote.Refreshes["incomplete"] == 0 {
		t.Error("the late object was read without an incomplete incremental read")
	}
	sameAsFresh(t, s, ts.URL)
}

// TestIDSetIsExactAndItsBytesBoundItsHeap: the id set holds every key
// once, in any order of insertion, and its estimated bytes are at least
// the heap it holds, at every size.
// go test ./adapter/memory/weaviatemem -run TestIDSetIsExactAndItsBytesBoundItsHeap -v
// prints the bytes a key.
func TestIDSetIsExactAndItsBytesBoundItsHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1000, 4095, 4096, 70_000, 1_000_000} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = rng.Uint64()
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var s idSet
		for _, k := range keys {
			if !s.insert(k) {
				t.Fatalf("%d keys: key %x inserted as held already", n, k)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%d keys: heap %.1f bytes a key, estimate %.1f", n, float64(heap)/float64(n), float64(s.bytes())/float64(n))
		if heap > s.bytes()*11/10+1024 {
			t.Errorf("%d keys: heap %d bytes, more than 1.1 × the estimate %d", n, heap, s.bytes())
		}
		for _, k := range slices.Backward(keys) {
			if s.insert(k) {
				t.Fatalf("%d keys: key %x inserted again", n, k)
			}
		}
		if got := len(s.sorted) + len(s.recent); got != n {
			t.Errorf("%d keys inserted, %d held", n, got)
		}
	}
}

// sameAsFresh fails t unless the copy of the shared scope of s has the
// version and the memory of a fresh copy's, which reads every object once.
func sameAsFresh(t *testing.T, s *Store, url string) {
	t.Helper()
	fresh := openStore(t, url, func(o *Options) { o.Lookback = s.o.Lookback })
	if got, want := s.Stats().Remote.Scopes[""].Version, fresh.Stats().Remote.Scopes[""].Version; got != want {
		t.Errorf("version %s, a fresh copy's %s", got, want)
	}
	if got, want := export(t, s), export(t, fresh); got != want {
		t.Error("the copy differs from a fresh copy")
	}
}

// TestPassageInTwoLessonsCountedOnce: a passage carried by two lesson
// objects counts once in a copy however many passages it counted between
// them (more than MaxPassageHashes) and in whatever order it read them: a
// copy that read the lesson of the passage alone and then a larger one
// (listed first by id) holds what a fresh copy reading both at once holds.
func TestPassageInTwoLessonsCountedOnce(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	mo := memory.DefaultOptions()
	mo.MaxPassageHashes = 2
	tweak := func(o *Options) { o.Memory = mo }
	p := memory.Passage{Hash: 1, Words: []string{"p"}}
	one := lessonObject(nil, []memory.Passage{p})
	var more object
	for h := uint64(100); ; h += 3 {
		more = lessonObject(nil, []memory.Passage{p,
			{Hash: h, Words: []string{"q"}}, {Hash: h + 1, Words: []string{"q"}}, {Hash: h + 2, Words: []string{"q"}}})
		if more.id.String() < one.id.String() {
			break
		}
	}
	put(f, one, f.Now)
	a := openStore(t, ts.URL, tweak)
	put(f, more, f.Now+1)
	waitFor(t, "the second lesson to be read", func() bool { return a.scopes[""].objects() == 2 })
	b := openStore(t, ts.URL, tweak)
	sa, sb := a.Stats().Remote.Scopes[""], b.Stats().Remote.Scopes[""]
	if sa.Version != sb.Version || sa.Passages != 4 || sb.Passages != 4 {
		t.Errorf("copies of version %s and %s hold %d and %d passages: want one version and 4 passages",
			sa.Version, sb.Version, sa.Passages, sb.Passages)
	}
	if a.Stats().Remote.Refreshes["incremental"] == 0 {
		t.Errorf("refreshes %v: want the second lesson read by creation time", a.Stats().Remote.Refreshes)
	}
}

// TestKnownObjectsAreNotDecodedAgain: an object the copy counted is not
// decoded again when a read lists it again, by creation time or through
// the cursor: what Weaviate holds under its id since (here, properties no
// lesson has) neither warns nor counts.
func TestKnownObjectsAreNotDecodedAgain(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	var logs bytes.Buffer
	s := openStore(t, ts.URL, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	x := contextObject(memory.Observation{Word: "x", Context: "x ctx"})
	put(f, x, f.Now)
	waitFor(t, "x to be read", func() bool { return s.scopes[""].objects() == 1 })
	f.Put(sharedTenant, map[string]any{"id": x.id.String(), "properties": map[string]any{"kind": kindLesson, "contexts": 5}}, f.Now+1)
	put(f, contextObject(memory.Observation{Word: "y", Context: "y ctx"}), f.Now+1)
	waitFor(t, "y to be read by creation time", func() bool { return s.scopes[""].objects() == 2 })
	full := s.Stats().Remote.Refreshes["full"]
	put(f, contextObject(memory.Observation{Word: "z", Context: "z ctx"}), f.Now-time.Hour.Milliseconds())
	waitFor(t, "z to be read in full", func() bool {
		return s.scopes[""].objects() == 3 && s.Stats().Remote.Refreshes["full"] > full
	})
	s.Close()
	if st := s.Stats().Remote; st.Scopes[""].Objects != int64(f.Count(sharedTenant)) || strings.Contains(logs.String(), "ignored") {
		t.Errorf("%d objects counted of %d, log:\n%s", st.Scopes[""].Objects, f.Count(sharedTenant), logs.String())
	}
}
