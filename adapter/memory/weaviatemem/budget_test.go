package weaviatemem

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// TestCopiesKeepWithinMaxBytes: copies of scopes that together pass
// MaxBytes are dropped, least recently used first, until the rest fit; the
// copy in use stays, and a dropped copy is read again when used.
func TestCopiesKeepWithinMaxBytes(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	const maxBytes = 1 << 20
	scopes := []string{"A", "B", "C", "D"}
	for _, name := range scopes {
		for i := range 400 { // about 400 KiB a copy
			word := fmt.Sprintf("w%d", i)
			o := contextObject(memory.Observation{Word: word, Context: word + " " + strings.Repeat("x", 1000)})
			f.Put(tenantName(name), o.batchObject("", tenantName(name)), f.Now)
		}
	}
	s := openStore(t, ts.URL, func(o *Options) { o.MaxBytes = maxBytes })
	if reach := capsBytes(s.o.Memory); reach > maxBytes*7/8 {
		t.Errorf("a copy's budget, passage counts and hashes reach %.0f bytes, more than 7/8 of MaxBytes %d", reach, maxBytes)
	}
	use := func(name string) *scope {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		sc, err := s.loadedScope(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		sc.current() // marks it used
		return sc
	}
	for _, name := range scopes {
		use(name)
		waitFor(t, "the copies to be within MaxBytes after using "+name, func() bool { return s.Stats().Remote.Bytes <= maxBytes })
	}
	st := s.Stats().Remote
	if _, kept := st.Scopes["D"]; !kept || st.Dropped < 2 || st.Bytes < maxBytes/4 {
		t.Errorf("copies %v (%d bytes), %d dropped: want D kept and at least two dropped", st.Scopes, st.Bytes, st.Dropped)
	}
	if _, kept := st.Scopes["A"]; kept {
		t.Error("the least recently used copy A was kept")
	}
	if sc := use("A"); sc.objects() != 400 {
		t.Errorf("A read again: %d objects, want 400", sc.objects())
	}
}

// TestBytesEstimateBoundsHeap: the copies' estimated bytes (Stats'
// Remote.Bytes, what MaxBytes bounds) are at least the Go heap the copies
// hold once read and queried: contexts, passage counts and hashes, AM
// vectors, ids; whether the objects are lessons or a context or passage
// each.
// go test ./adapter/memory/weaviatemem -run TestBytesEstimateBoundsHeap -v
// prints both.
func TestBytesEstimateBoundsHeap(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	const scopes, contexts = 4, 5000
	for s := range scopes { // S0 and S2 of lesson objects, S1 and S3 of a context or passage each
		tenant := tenantName(fmt.Sprintf("S%d", s))
		var objs []object
		var lesson teaching
		for i := range contexts {
			word := fmt.Sprintf("w%d", i%1000)
			c := memory.Observation{Word: word, Context: fmt.Sprintf("%s %d %s", word, i, strings.Repeat("x", 100))}
			lesson.obs, objs = append(lesson.obs, c), append(objs, contextObject(c))
			if i%4 == 0 {
				p := passageObject(uint64(s*contexts+i+1), []string{word, "a", "b"})
				lesson.ps, objs = append(lesson.ps, p.ps...), append(objs, p)
			}
		}
		if s%2 == 0 {
			objs = lessonObjects(lesson)
		}
		for i, o := range objs {
			f.Put(tenant, o.batchObject("", tenant), f.Now+int64(i))
		}
	}
	queries := make([]string, 0, 100)
	for i := range 100 {
		queries = append(queries, fmt.Sprintf("w%d w%d w%d w%d w%d w%d w%d w%d w%d w%d",
			10*i, 10*i+1, 10*i+2, 10*i+3, 10*i+4, 10*i+5, 10*i+6, 10*i+7, 10*i+8, 10*i+9))
	}
	v := baseVectorizer(t)
	query := func(s *Store, scope string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, _, err := s.VectorizeBatch(ctx, v, scope, queries, vectorizer.TaskQuery, vectorizer.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
	}
	warm := openStore(t, ts.URL, nil)
	query(warm, "S0") // fills v's caches of the contexts' token ids, which are the model's, not a copy's
	warm.Close()
	var before, after runtime.MemStats
	settle()
	runtime.ReadMemStats(&before)
	// No refresh but the first reads: a probe's answer would take the
	// fake's buffer of a page out of the pool settle empties.
	s := openStore(t, ts.URL, func(o *Options) { o.Refresh = time.Hour })
	var cached int64
	for i := range scopes {
		query(s, fmt.Sprintf("S%d", i))
		sc, _ := s.scope(fmt.Sprintf("S%d", i))
		_, cache := sc.current()
		cached += cache.Bytes()
	}
	ts.Close() // waits for the fake's handlers: their buffers go back to the pools settle empties
	settle()
	runtime.ReadMemStats(&after)
	heap, est := int64(after.HeapAlloc)-int64(before.HeapAlloc), s.Stats().Remote.Bytes
	t.Logf("%d copies of %d contexts and %d passages, queried: heap %d bytes, estimate %d (AM vectors %d; heap/estimate %.3f)",
		scopes, contexts, contexts/4, heap, est, cached, float64(heap)/float64(est))
	if cached < scopes*1000*4*int64(v.Dim()) {
		t.Errorf("the copies' AM vectors are estimated at %d bytes, want at least their %d vectors' floats", cached, scopes*1000)
	}
	if heap > est*11/10 {
		t.Errorf("the copies hold %d bytes of heap, more than 1.1 × their estimate %d", heap, est)
	}
}

// TestCountEstimatesBoundHeap: a counted word of the longest countable
// length and a remembered passage hash hold at most what a copy's estimate
// charges them (docFreqWordBytes, passageHashBytes), at numbers of them from
// 250,000 to the default 2,000,000, where Go's maps hold more per entry just
// after each doubling.
// go test ./adapter/memory/weaviatemem -run TestCountEstimatesBoundHeap -v
// prints them.
func TestCountEstimatesBoundHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("counts up to 2,000,000 words and passages")
	}
	heapOf := func(fill func(m *memory.Memory)) int64 {
		opts := memory.DefaultOptions()
		m, err := memory.Open("", opts)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		var before, after runtime.MemStats
		settle()
		runtime.ReadMemStats(&before)
		fill(m)
		settle()
		runtime.ReadMemStats(&after)
		return int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	count := func(m *memory.Memory, passage []string) {
		if err := m.CountPassage(passage); err != nil {
			t.Fatal(err)
		}
	}
	longest := memory.DefaultOptions().MaxWordBytes
	for _, n := range []int{250_000, 485_000, 500_000, 1_000_000, 2_000_000} {
		words := heapOf(func(m *memory.Memory) {
			passage := make([]string, 0, 100)
			for i := range n {
				if passage = append(passage, fmt.Sprintf("%0*d", longest, i)); len(passage) == cap(passage) {
					count(m, passage)
					passage = passage[:0]
				}
			}
		})
		hashes := heapOf(func(m *memory.Memory) {
			for i := range n { // distinct passages of few distinct words
				count(m, []string{fmt.Sprint("a", i%1000), fmt.Sprint("b", i/1000)})
			}
		})
		perWord, perHash := float64(words)/float64(n), float64(hashes)/float64(n)
		t.Logf("%d: %.1f B a counted word, %.1f B a passage hash", n, perWord, perHash)
		if perWord > docFreqWordBytes || perHash > passageHashBytes {
			t.Errorf("%d counted: %.1f B a word, %.1f B a hash; the estimate charges %d and %d",
				n, perWord, perHash, docFreqWordBytes, passageHashBytes)
		}
	}
}

// TestTrimKeepsWhatIsInUse: past MaxBytes, the copies' ids count in their
// estimate, and trim drops the least recently used copies until the rest
// fit, in one log line, but never a copy not read yet (requests wait for
// it), the shared copy with SharedCounts (every passage counts in it) or
// the most recently used one.
func TestTrimKeepsWhatIsInUse(t *testing.T) {
	var log strings.Builder
	o := Options{URL: "http://localhost:1", Memory: memory.DefaultOptions(), MaxBytes: 1 << 20, SharedCounts: true,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	o.defaults()
	s := &Store{o: o, scopes: make(map[string]*scope)}
	const ids = 50_000 // 400,000 bytes a copy
	for i, name := range []string{"", "A", "B", "C", "D"} {
		sc, err := newScope(name, o)
		if err != nil {
			t.Fatal(err)
		}
		for k := range uint64(ids) {
			sc.read.ids.insert(k<<8 | uint64(i))
		}
		if name != "C" {
			close(sc.loaded)
		}
		sc.used = time.Now().Add(time.Duration(i-10) * time.Minute)
		if b := sc.bytes(); b < ids*sortedIDBytes {
			t.Fatalf("copy %q: estimate %d bytes, less than its %d ids' %d", name, b, ids, ids*sortedIDBytes)
		}
		s.scopes[name] = sc
	}
	total := s.trim()
	var kept []string
	for name := range s.scopes {
		kept = append(kept, name)
	}
	slices.Sort(kept)
	if want := []string{"", "C", "D"}; !slices.Equal(kept, want) || s.dropped != 2 {
		t.Errorf("copies kept %q (%d dropped), want %q", kept, s.dropped, want)
	}
	if total < 3*ids*sortedIDBytes {
		t.Errorf("trim returned %d bytes for three copies of %d ids", total, ids)
	}
	if n := strings.Count(log.String(), "msg="); n != 1 {
		t.Errorf("%d log lines for one trim:\n%s", n, log.String())
	}
}

// TestCapsFitSevenEighthsOfMaxBytes: a copy's budget, passage counts and
// hashes are kept as they are when they fit in 7/8 of MaxBytes (the
// defaults in the default 1 GiB), else scaled down together to fit (but
// for the least count and hash, one each), caps near the largest int64
// included.
func TestCapsFitSevenEighthsOfMaxBytes(t *testing.T) {
	huge := memory.DefaultOptions()
	huge.MaxBytes, huge.MaxDocFreqWords, huge.MaxPassageHashes = math.MaxInt64/2, math.MaxInt32, math.MaxInt32
	for _, c := range []struct {
		mem      memory.Options
		maxBytes int64
		scaled   bool
	}{
		{memory.DefaultOptions(), DefaultMaxBytes, false},
		{memory.DefaultOptions(), 1 << 20, true},
		{memory.DefaultOptions(), 256 << 20, true},
		{huge, DefaultMaxBytes, true},
	} {
		o := Options{URL: "http://localhost:1", Memory: c.mem, MaxBytes: c.maxBytes}
		if err := o.Check(); err != nil {
			t.Fatal(err)
		}
		o.defaults()
		reach, m := capsBytes(o.Memory), o.Memory
		scaled := m.MaxBytes != c.mem.MaxBytes || m.MaxDocFreqWords != c.mem.MaxDocFreqWords ||
			m.MaxPassageHashes != c.mem.MaxPassageHashes
		room := float64(c.maxBytes - c.maxBytes/8)
		if reach > room+docFreqWordBytes+passageHashBytes || scaled != c.scaled {
			t.Errorf("MaxBytes %d: caps reach %.0f bytes (budget %d, %d counts, %d hashes), scaled %v, want %v",
				c.maxBytes, reach, m.MaxBytes, m.MaxDocFreqWords, m.MaxPassageHashes, scaled, c.scaled)
		}
		if c.scaled && reach < room*0.99 {
			t.Errorf("MaxBytes %d: caps scaled to %.0f bytes, far below 7/8 of it", c.maxBytes, reach)
		}
	}
}

// settle lets goroutines that are ending end, then collects garbage twice:
// the second empties the pools the first left (sync.Pool keeps a victim
// cache across one collection), such as encoding/json's buffers of the
// fake's large answers, which are no copy's.
func settle() {
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	runtime.GC()
}

// TestFreshCopyKeepsTheNewestWords: a fresh copy of a memory larger than
// its budget keeps the words of the objects created last, although the
// cursor lists the objects by id; so does a copy that read them as they
// came. A word first seen late gets its contexts on every server.
func TestFreshCopyKeepsTheNewestWords(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	const words, keep = 200, 20
	small := func(o *Options) { o.Memory.MaxWords = keep }
	t0 := f.Now
	early := openStore(t, ts.URL, small)
	for i := range words {
		w := fmt.Sprintf("w%d", i)
		put(f, contextObject(memory.Observation{Word: w, Context: w + " in a sentence"}), t0+int64(i))
		if i%50 == 49 {
			waitFor(t, "the early copy to read the objects", func() bool { return early.Stats().Remote.Scopes[""].Objects == int64(i+1) })
		}
	}
	for name, s := range map[string]*Store{"a fresh copy": openStore(t, ts.URL, small), "a copy that read them as they came": early} {
		sc, _ := s.loadedScope(context.Background(), "")
		mem, _ := sc.current()
		var missing []string
		for i := words - keep; i < words; i++ {
			if c, _ := mem.Contexts(nil, fmt.Sprintf("w%d", i)); len(c) == 0 {
				missing = append(missing, fmt.Sprintf("w%d", i))
			}
		}
		if len(missing) > 0 || mem.Stats().Words != keep {
			t.Errorf("%s: %d words; of the %d newest, %v have no context", name, mem.Stats().Words, keep, missing)
		}
	}
}

// TestEventCountsOnlyGrow: the store's counts of events (evicted words and
// their contexts, among them) add those of the copies it replaced by a
// copy read afresh and of the copies it dropped, so that they never fall.
func TestEventCountsOnlyGrow(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	const words, keep = 50, 10
	for i := range words {
		w := fmt.Sprintf("w%d", i)
		put(f, contextObject(memory.Observation{Word: w, Context: w + " in a sentence"}), f.Now+int64(i))
	}
	s := openStore(t, ts.URL, func(o *Options) { o.Refresh, o.Memory.MaxWords = time.Hour, keep })
	sc, err := s.loadedScope(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	first := s.Stats().Memory
	if mem, _ := sc.current(); first.Evicted == 0 || first.Evicted != mem.Stats().Evicted ||
		first.EvictedContexts != first.Evicted { // a context each
		t.Fatalf("after reading %d words into a copy of %d: %d evicted with %d contexts, the copy %d; want some, a context each",
			words, keep, first.Evicted, first.EvictedContexts, mem.Stats().Evicted)
	}
	// A count below the objects read: the copy is read afresh into a new one.
	f.Mu.Lock()
	for id := range f.Tenants[sharedTenant] {
		delete(f.Tenants[sharedTenant], id)
		break
	}
	f.Mu.Unlock()
	sc.mu.Lock()
	sc.lastFull = time.Now().Add(-2 * fullReadEvery)
	sc.mu.Unlock()
	if err := s.refreshScope(context.Background(), sc); err != nil || s.Stats().Remote.Refreshes["afresh"] != 1 {
		t.Fatalf("read afresh: %v, refreshes %v", err, s.Stats().Remote.Refreshes)
	}
	mem, _ := sc.current()
	afresh := s.Stats().Memory
	if own := mem.Stats().Evicted; own == 0 || afresh.Evicted != first.Evicted+own ||
		afresh.EvictedContexts != first.EvictedContexts+mem.Stats().EvictedContexts {
		t.Errorf("after a copy read afresh that evicted %d words: %d evicted (%d contexts), want %d",
			own, afresh.Evicted, afresh.EvictedContexts, first.Evicted+own)
	}
	// The copy dropped: its counts stay, and those of the copy read next add.
	if !s.drop(sc) {
		t.Fatal("the copy was not dropped")
	}
	if st := s.Stats().Memory; st.Evicted != afresh.Evicted || st.EvictedContexts != afresh.EvictedContexts {
		t.Errorf("after the copy was dropped: %d evicted (%d contexts), want %d (%d)",
			st.Evicted, st.EvictedContexts, afresh.Evicted, afresh.EvictedContexts)
	}
	again, err := s.loadedScope(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	mem, _ = again.current()
	if st, own := s.Stats().Memory, mem.Stats().Evicted; own == 0 || st.Evicted != afresh.Evicted+own {
		t.Errorf("after the copy was read again, evicting %d words: %d evicted, want %d", own, st.Evicted, afresh.Evicted+own)
	}
}

// TestAddStatsCountsEachOnce: a copy's sizes and event counts add to the
// store's sum once each.
func TestAddStatsCountsEachOnce(t *testing.T) {
	st := memory.Stats{Words: 1, Contexts: 2, Passages: 3, DocFreqWords: 4, DocFreqRejected: 5, ContextBytes: 6,
		BudgetBytes: 7, PassageHashes: 8, Evicted: 9, EvictedContexts: 10, Offered: 11, Rejected: 12}
	var sum memory.Stats
	addStats(&sum, st)
	if !reflect.DeepEqual(sum, st) {
		t.Errorf("addStats of %+v into zero: %+v", st, sum)
	}
}
