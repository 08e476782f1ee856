package vectorizer

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/simd"
)

// TestBatchPassagesMatchesLearnThenVectorize: a passage batch, which
// tokenizes each text once (the texts in runs, in parallel, when there are
// many) and infers the AM vectors of its remembered words while it counts
// the passages, gives the vectors, errors, memory contents and passage
// counts of the two-step definition: every text learned in order (refused as
// a whole over MaxAMWords), then every text vectorized as a query.
func TestBatchPassagesMatchesLearnThenVectorize(t *testing.T) {
	six := []string{
		"f1 f2 jargonx. f3 jargonx f4", "", "r3 r4 f6 jargony", "Jargonx f8. zq3x f9 f1",
		"many new words: " + strings.Repeat("qa qb qc qd qe ", 3), "f5 f7 jargony.",
	}
	for _, copies := range []int{1, 8} {
		var texts []string
		for c := range copies {
			for _, text := range six { // copies differ: a passage counts once
				if text != "" {
					text += strings.Repeat(" f2", c)
				}
				texts = append(texts, text)
			}
		}
		if copies > 1 { // prepared in several runs, whatever the machine
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 4)))
		}
		checkBatchPassages(t, texts, int64(4*copies))
	}
}

// TestBatchPassagesInferWhileCounting: a passage batch infers each of its AM
// words that the memory holds contexts for once, before the texts are
// combined, and every text then takes the word's vector from the cache.
func TestBatchPassagesInferWhileCounting(t *testing.T) {
	v := newVectorizer(t, newMemory(t))
	texts := []string{"f1 f2 jargonx f3. f4 f5", "f4 jargonx f6 jargony", "jargony f5 f6. jargonx f1", "f7 f8 f9"}
	uses := int64(5) // texts holding jargonx, and those holding jargony
	_, errs := v.VectorizeBatch(texts, TaskPassage, v.Options())
	for i, err := range errs {
		if err != nil {
			t.Fatalf("text %d: %v", i, err)
		}
	}
	st := v.Stats()
	if st.AMInferences != 2 || st.CacheMisses != 2 || st.CacheHits != uses {
		t.Errorf("%d inferences, %d cache misses, %d hits; want 2, 2 and %d (each word inferred before any text "+
			"is combined)", st.AMInferences, st.CacheMisses, st.CacheHits, uses)
	}
}

// checkBatchPassages checks a batch of texts (six's copies) against the
// two-step definition; passages is how many of them count.
func checkBatchPassages(t *testing.T, texts []string, passages int64) {
	opts := DefaultOptions()
	opts.MaxAMWords = 4
	for _, store := range []bool{true, false} {
		var a, b *Vectorizer
		if store {
			a, b = newVectorizer(t, newMemory(t)), newVectorizer(t, newMemory(t))
		} else {
			a, b = newVectorizer(t, nil), newVectorizer(t, nil)
		}
		vecs, errs := a.VectorizeBatch(texts, TaskPassage, opts)
		learnErr := make([]error, len(texts))
		for i, text := range texts {
			if _, err := b.learn(text, opts, true); err != nil && !errors.Is(err, errNoMemory) {
				learnErr[i] = err
			}
		}
		for i, text := range texts {
			want, werr := learnErr[i], error(nil)
			var wantVec []float32
			if want == nil {
				wantVec, werr = b.Vectorize(text, TaskQuery, opts)
				want = werr
			}
			if (want == nil) != (errs[i] == nil) || want != nil && want.Error() != errs[i].Error() {
				t.Fatalf("store %v, text %d: batch error %v, two-step %v", store, i, errs[i], want)
			}
			if want == nil {
				assertClose(t, vecs[i], wantVec, 0)
			}
		}
		if !errors.Is(errs[1], ErrNoWords) || !errors.Is(errs[4], ErrTooManyAMWords) {
			t.Errorf("store %v: errors %v", store, errs)
		}
		if a.Passages() != b.Passages() || a.Passages() != passages {
			t.Errorf("store %v: %d and %d passages counted, want %d", store, a.Passages(), b.Passages(), passages)
		}
		if store {
			for _, word := range []string{"jargonx", "jargony", "r3", "zq3x"} {
				ca, _ := a.Store().Contexts(nil, word)
				cb, _ := b.Store().Contexts(nil, word)
				if strings.Join(ca, "|") != strings.Join(cb, "|") {
					t.Errorf("contexts of %q: batch %q, two-step %q", word, ca, cb)
				}
			}
		}
	}
}

// TestByteRuns: the runs cover the texts in order, at most n of them, none
// empty, and with texts of equal length no run is more than one text longer
// than another.
func TestByteRuns(t *testing.T) {
	for _, c := range []struct{ texts, n int }{{1, 1}, {1, 4}, {16, 2}, {17, 2}, {100, 3}, {5, 0}, {3, 8}} {
		texts := make([]string, c.texts)
		for i := range texts {
			texts[i] = "abcdef"
		}
		b := byteRuns(texts, c.n)
		if b[0] != 0 || b[len(b)-1] != len(texts) || len(b)-1 > max(c.n, 1) {
			t.Fatalf("%d texts, n %d: runs %v", c.texts, c.n, b)
		}
		shortest, longest := len(texts), 0
		for r := 1; r < len(b); r++ {
			shortest, longest = min(shortest, b[r]-b[r-1]), max(longest, b[r]-b[r-1])
		}
		if shortest < 1 || longest-shortest > 1 || len(b)-1 < min(c.n, c.texts) {
			t.Errorf("%d texts, n %d: runs %v", c.texts, c.n, b)
		}
	}
	long := []string{strings.Repeat("x", 1000), "a", "b", "c", "d"}
	if b := byteRuns(long, 2); len(b) != 3 || b[1] != 1 {
		t.Errorf("a long text and four short ones in two runs: %v, want the long one alone", b)
	}
}

// BenchmarkVectorizeBatchPassages vectorizes batches of 64 passages of 50
// frequent words with TaskPassage (the import path) into a vectorizer without
// a memory (the counts in RAM). Interleaved with each batch, the anchor sums
// the rows of 64 other passages with simd.GatherSum on the benchmark's own
// thread, as the anchor of BenchmarkVectorize50Frequent does, and is timed
// by that thread's CPU time (gatherCPU); the batches by the process's CPU time
// over the whole run less the anchor's, so that they carry every goroutine
// and all of the collector's work. batch/anchor is the ratio of the two.
func BenchmarkVectorizeBatchPassages(b *testing.B) {
	m, _, err := testmodel.BenchModel()
	if err != nil {
		b.Fatal(err)
	}
	words := testmodel.FrequentWords(m, 32, 20_000)
	passages := testmodel.Passages(words, 1024, 50, 1)
	ids := passageRows(m, passages)
	dst := make([]float32, m.Dim)
	v, err := New(m, nil, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	const batch = 64
	if _, errs := v.VectorizeBatch(passages[:batch], TaskPassage, v.Options()); errs[0] != nil {
		b.Fatal(errs[0]) // the first text computes the common space
	}
	runtime.GC()
	p0, ok := testmodel.ProcessCPUTime()
	if _, tok := testmodel.ThreadCPUTime(); !ok || !tok {
		b.Skip("no process or thread CPU time on this system")
	}
	var anchor int64
	n := 0
	for i := 0; b.Loop(); i++ {
		from := (i * batch) % len(passages)
		_, errs := v.VectorizeBatch(passages[from:from+batch], TaskPassage, v.Options())
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		anchor += gatherCPU(dst, m.Base.Vectors, ids, (from+len(passages)/2)%len(passages), batch)
		n += batch
	}
	p1, _ := testmodel.ProcessCPUTime()
	batches := p1 - p0 - anchor
	b.ReportMetric(float64(batches)/float64(n), "cpu-ns/passage")
	b.ReportMetric(float64(anchor)/float64(n), "anchor-cpu-ns/passage")
	b.ReportMetric(float64(batches)/float64(anchor), "batch/anchor")
}

// gatherCPU sums the rows of the n passages from (cyclically) of ids into
// dst with simd.GatherSum and returns the CPU time it took its thread.
func gatherCPU(dst, table []float32, ids [][]int32, from, n int) int64 {
	runtime.LockOSThread() // the goroutine stays on the thread whose time is read
	defer runtime.UnlockOSThread()
	t0, _ := testmodel.ThreadCPUTime()
	for k := range n {
		simd.GatherSum(dst, table, ids[(from+k)%len(ids)])
	}
	t1, _ := testmodel.ThreadCPUTime()
	return t1 - t0
}

// failingStore is a memory whose Remember always fails, as on a full disk.
type failingStore struct{ *memory.Memory }

var errDiskFull = errors.New("disk full")

func (failingStore) Remember([]memory.Observation) error { return errDiskFull }

// TestBatchPassagesRefusedContexts: when the memory refuses a batch's
// contexts, every text that offered some fails with that error and is not
// counted as a passage, while the texts of frequent words alone are
// vectorized and counted, as when each text is taught and counted in turn.
func TestBatchPassagesRefusedContexts(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, failingStore{mem})
	texts := []string{"f1 f2 f3.", "f4 jargonx f5.", "f6 f7.", "zq3x f8 f9."}
	vecs, errs := v.VectorizeBatch(texts, TaskPassage, DefaultOptions())
	for i, refused := range []bool{false, true, false, true} {
		if refused != errors.Is(errs[i], errDiskFull) || refused != (vecs[i] == nil) {
			t.Errorf("text %q: vector %v, error %v; want refused %v", texts[i], vecs[i] != nil, errs[i], refused)
		}
	}
	if got := mem.Stats().Passages; got != 2 {
		t.Errorf("%d passages counted, want the 2 without refused contexts", got)
	}
}

// arenaCap sums what capacity gives of each arena.
func arenaCap(arenas []parseArena, capacity func(parseArena) int) int {
	n := 0
	for _, a := range arenas {
		n += capacity(a)
	}
	return n
}

// TestBatchArenasFollowTheTexts prepares a batch of one long text followed
// by many one-word texts, and counts it by rows: the parses' arena and the
// rows' array hold at most twice the tokens of the whole batch, whatever
// the first text's length.
func TestBatchArenasFollowTheTexts(t *testing.T) {
	v := newVectorizer(t, newMemory(t))
	if v.dfRows == nil {
		t.Fatal("a vectorizer over a memory counts without rows")
	}
	texts := []string{strings.Repeat("f1 f2 f3 f4 f5. ", 2000)}
	for range 1023 {
		texts = append(texts, "f6")
	}
	opts := DefaultOptions()
	errs := make([]error, len(texts))
	parses, keep, _, _ := v.prepareBatch(t.Context(), texts, &opts, errs)
	var tokens, offsets, sentences int
	index := make([]int, len(parses))
	for i, p := range parses {
		if errs[i] != nil {
			t.Fatalf("text %d: %v", i, errs[i])
		}
		tokens, offsets, sentences = tokens+len(p.tokens), offsets+len(p.tokOff), sentences+len(p.sentences)
		index[i] = i
	}
	for _, c := range []struct {
		name        string
		capacity, n int
	}{
		{"tokens", arenaCap(keep, func(a parseArena) int { return cap(a.tokens) }), tokens},
		{"token classes", arenaCap(keep, func(a parseArena) int { return cap(a.info) }), tokens},
		{"token offsets", arenaCap(keep, func(a parseArena) int { return cap(a.tokOff) }), offsets},
		{"sentences", arenaCap(keep, func(a parseArena) int { return cap(a.sentences) }), sentences},
	} {
		if c.capacity > 2*c.n {
			t.Errorf("the arena's %s hold %d, for %d in the batch", c.name, c.capacity, c.n)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rows := batchRows(parses, index)
	runtime.ReadMemStats(&after)
	if got, want := after.TotalAlloc-before.TotalAlloc, uint64(2*4*tokens+24*len(index)+1024); got > want {
		t.Errorf("the rows of %d tokens allocated %d bytes, more than %d", tokens, got, want)
	}
	for i, r := range rows {
		if len(r) != len(parses[i].info) {
			t.Fatalf("text %d: %d rows for %d tokens", i, len(r), len(parses[i].info))
		}
	}
}

// panicStore is a memory whose passage counting, or reading of the counts,
// panics, as a store with a bug might.
type panicStore struct {
	*memory.Memory
	onCount bool
}

func (p panicStore) CountPassages(passages [][]string) error {
	if p.onCount {
		panic("store bug: count")
	}
	return p.Memory.CountPassages(passages)
}

func (p panicStore) DocFreqs(dst []int64, words []string) int64 {
	if !p.onCount {
		panic("store bug: doc freqs")
	}
	return p.Memory.DocFreqs(dst, words)
}

// TestBatchPassagesStorePanicReachesCaller: a store that panics while the
// batch counts its passages or while its texts are combined (both on
// goroutines of the batch) panics in the caller of VectorizeBatch, who can
// recover, and the vectorizer then works on.
func TestBatchPassagesStorePanicReachesCaller(t *testing.T) {
	v := newVectorizer(t, newMemory(t))
	texts := []string{"f1 f2 jargonx f3.", "f4 jargony f5.", "f6 f7 f8."}
	for _, onCount := range []bool{true, false} {
		mem := newMemory(t)
		w, err := v.WithStores(mem, panicStore{mem, onCount}, nil)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "store bug") {
					t.Errorf("count %v: recovered %v, want the store's panic", onCount, r)
				}
			}()
			w.VectorizeBatch(texts, TaskPassage, DefaultOptions())
		}()
	}
	if _, errs := v.VectorizeBatch(texts, TaskPassage, DefaultOptions()); errs[0] != nil {
		t.Fatalf("after the panics: %v", errs[0])
	}
}

// TestBatchVectorsStandAlone: the vectors of a batch share one array but
// each ends at Dim, so a caller's append to one never writes into the next,
// and a later batch leaves them as they were (a passage batch's parses reuse
// the arrays of the one before); for passages and for queries.
func TestBatchVectorsStandAlone(t *testing.T) {
	for _, task := range []Task{TaskPassage, TaskQuery} {
		v := newVectorizer(t, newMemory(t))
		first, errs := v.VectorizeBatch([]string{"f1 f2 jargonx.", "f3 f4", "f5 jargony f6."}, task, DefaultOptions())
		kept := make([][]float32, len(first))
		for i, vec := range first {
			if errs[i] != nil {
				t.Fatalf("%v, text %d: %v", task, i, errs[i])
			}
			if len(vec) != v.dim || cap(vec) != v.dim {
				t.Fatalf("%v, vector %d: length %d, capacity %d, want both %d", task, i, len(vec), cap(vec), v.dim)
			}
			kept[i] = append([]float32(nil), vec...)
		}
		_ = append(first[0], 42)
		if _, errs := v.VectorizeBatch([]string{"f7 qz9y f8. f9", "jargonz f1"}, task, DefaultOptions()); errs[0] != nil {
			t.Fatal(errs[0])
		}
		for i := range first {
			assertClose(t, first[i], kept[i], 0)
		}
	}
}

// TestBatchReusedArenasMatchFresh: a passage batch whose parses reuse the
// arrays of an earlier batch's (longer texts, more sentences) gives the
// vectors the same batch gives with new arrays, and the arena given back
// holds no string of its texts.
func TestBatchReusedArenasMatchFresh(t *testing.T) {
	long := []string{strings.Repeat("f1 f2 jargonx f3. ", 40), strings.Repeat("Jargony f4 f5! ", 30)}
	short := []string{"f6 jargonx. f7", "zq3x f8 f9.", "f1"}
	vecs := make([][][]float32, 2)
	for k := range vecs {
		v := newVectorizer(t, newMemory(t))
		if _, errs := v.VectorizeBatch(long, TaskPassage, DefaultOptions()); errs[0] != nil {
			t.Fatal(errs[0])
		}
		switch {
		case k == 1:
			v.arenas = &sync.Pool{} // the second batch gets new arrays
		case !raceEnabled: // (the race detector's pool drops some of what it is given)
			a := v.arenas.Get()
			if a == nil {
				t.Fatal("the first batch gave back no arena")
			}
			v.arenas.Put(a)
		}
		var errs []error
		if vecs[k], errs = v.VectorizeBatch(short, TaskPassage, DefaultOptions()); errs[0] != nil {
			t.Fatal(errs[0])
		}
	}
	for i := range short {
		assertClose(t, vecs[0][i], vecs[1][i], 0)
	}

	v := newVectorizer(t, newMemory(t))
	opts := DefaultOptions()
	parses, keep, _, _ := v.prepareBatch(t.Context(), long, &opts, make([]error, len(long)))
	if len(parses[0].tokens) == 0 || len(keep) != 1 {
		t.Fatalf("%d tokens in %d arenas", len(parses[0].tokens), len(keep))
	}
	a := &keep[0]
	v.putArena(a)
	for i, s := range append(a.tokens[:cap(a.tokens)], a.sentences[:cap(a.sentences)]...) {
		if s != "" {
			t.Fatalf("string %d of the arena given back is %q, want it cleared", i, s)
		}
	}
	if len(a.tokens)+len(a.sentences)+len(a.info)+len(a.tokOff)+len(a.sentEnd)+len(a.occ) != 0 {
		t.Error("the arena given back is not empty")
	}
}

// batchOf returns batch b of goroutine g for TestBatchViewsShareArenas: 24
// texts of 1–9 sentences, some with unseen words, unlike those of other g
// and b.
func batchOf(g, b int) []string {
	var texts []string
	for i := range 24 {
		n := 1 + (g*7+b*5+i*3)%9
		var sb strings.Builder
		for k := range n {
			fmt.Fprintf(&sb, "f%d f%d jargon%c f%d. ", 1+(i+k)%9, 1+(b+k)%9, 'x'+rune((g+k+i)%3), 1+(g+b)%9)
		}
		if i%5 == 0 {
			sb.WriteString(strings.Repeat("zq3x f2 r3 ", n))
		}
		texts = append(texts, sb.String())
	}
	return texts
}

// TestBatchViewsShareArenas: views of one vectorizer (WithStores), which
// share its pooled parse arenas, each running batches of passages and of
// queries on its own memory at the same time as the others, give the
// vectors each gives alone.
func TestBatchViewsShareArenas(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const views, batches = 4, 12
	task := func(b int) Task { return []Task{TaskPassage, TaskPassage, TaskQuery}[b%3] }
	run := func(v *Vectorizer, g, b int) [][]float32 {
		vecs, _ := v.VectorizeBatch(batchOf(g, b), task(b), DefaultOptions())
		return vecs
	}
	view := func(base *Vectorizer) *Vectorizer {
		mem := newMemory(t)
		v, err := base.WithStores(mem, mem, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := make([][][][]float32, views)
	for g := range want {
		v := view(newVectorizer(t, newMemory(t)))
		for b := range batches {
			want[g] = append(want[g], run(v, g, b))
		}
	}
	base := newVectorizer(t, newMemory(t))
	got := make([][][][]float32, views)
	var wg sync.WaitGroup
	for g := range got {
		v := view(base)
		wg.Go(func() {
			for b := range batches {
				got[g] = append(got[g], run(v, g, b))
			}
		})
	}
	wg.Wait()
	for g := range got {
		for b := range batches {
			for i := range want[g][b] {
				if (got[g][b][i] == nil) != (want[g][b][i] == nil) {
					t.Fatalf("view %d, batch %d, text %d: vector %v, want %v", g, b, i, got[g][b][i] != nil, want[g][b][i] != nil)
				}
				assertClose(t, got[g][b][i], want[g][b][i], 0)
			}
		}
	}
}
