package vectorizer

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

func newModel(t testing.TB) *model.Model {
	t.Helper()
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newMemory opens a memory in RAM with the default options, closed when the
// test ends.
func newMemory(t testing.TB) *memory.Memory {
	t.Helper()
	return openRAM(t, memory.DefaultOptions())
}

// openRAM opens a memory in RAM with opts, closed when the test ends.
func openRAM(t testing.TB, opts memory.Options) *memory.Memory {
	t.Helper()
	mem, err := memory.Open("", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	return mem
}

func newVectorizer(t testing.TB, store ContextStore) *Vectorizer {
	t.Helper()
	v, err := New(newModel(t), store, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func normalize(x []float32) {
	var s float64
	for _, f := range x {
		s += float64(f) * float64(f)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range x {
		x[i] *= inv
	}
}

func assertClose(t *testing.T, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("length %d, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("element %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func assertUnit(t *testing.T, x []float32) {
	t.Helper()
	var s float64
	for _, f := range x {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			t.Fatalf("vector holds %v", f)
		}
		s += float64(f) * float64(f)
	}
	if math.Abs(s-1) > 1e-4 {
		t.Fatalf("|v|² = %v, want 1", s)
	}
}

// TestFrequentWordsSIF checks the SIF combination of base rows by hand.
func TestFrequentWordsSIF(t *testing.T) {
	v := newVectorizer(t, nil)
	m := v.Model()
	text := "F1 f2, f3. f1!"
	got, err := v.Vectorize(text, TaskQuery, sumOptions())
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, c := range m.Base.Counts {
		total += float64(c)
	}
	want := make([]float32, m.Dim)
	for _, w := range []string{"f1", "f2", "f3", "f1"} {
		id, _ := m.Base.ID(w)
		wt := 1e-3 / (1e-3 + float64(m.Base.Count(id))/total)
		for k, x := range m.Base.Row(id) {
			want[k] += float32(wt) * x
		}
	}
	normalize(want)
	assertClose(t, got, want, 1e-5)
	assertUnit(t, got)

	// Mean weighting differs (the counts differ) and is a plain normalized sum.
	o := sumOptions()
	o.Weighting = WeightMean
	mean, err := v.Vectorize(text, TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	clear(want)
	for _, w := range []string{"f1", "f2", "f3", "f1"} {
		id, _ := m.Base.ID(w)
		for k, x := range m.Base.Row(id) {
			want[k] += x
		}
	}
	normalize(want)
	assertClose(t, mean, want, 1e-5)
}

// TestSources checks which source each word gets under the thresholds.
func TestSources(t *testing.T) {
	v := newVectorizer(t, nil)
	ex, err := v.Explain("f1 r1 jargon7", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Source{"f1": SourceBase, "r1": SourceAMSkip, "jargon7": SourceAM}
	if len(ex.Words) != 3 {
		t.Fatalf("explained %d words, want 3", len(ex.Words))
	}
	var sum float32
	for _, w := range ex.Words {
		if w.Source != want[w.Word] {
			t.Errorf("%s: source %s, want %s", w.Word, w.Source, want[w.Word])
		}
		sum += w.Weight
	}
	if math.Abs(float64(sum)-1) > 1e-5 {
		t.Errorf("weights sum to %v, want 1", sum)
	}
	// rare_min above the rare count: r1 becomes an AM word; frequent_min above
	// every count: f1 becomes a bundle (amskip) word.
	o, err := DefaultOptions().WithOverrides(map[string]any{"rare_min": 6.0, "frequent_min": json.Number("5000")})
	if err != nil {
		t.Fatal(err)
	}
	ex, err = v.Explain("f1 r1 jargon7", o)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]Source{"f1": SourceAMSkip, "r1": SourceAM, "jargon7": SourceAM}
	for _, w := range ex.Words {
		if w.Source != want[w.Word] {
			t.Errorf("overridden %s: source %s, want %s", w.Word, w.Source, want[w.Word])
		}
	}
}

// TestUnseenWordAM checks an unseen word's vector against a direct model.Infer
// over the sentence of the text that contains it, its gate lowered by the
// default TextContextDiscount (the sentence is the text's own).
func TestUnseenWordAM(t *testing.T) {
	v := newVectorizer(t, nil)
	m := v.Model()
	text := "Jargon3 f4 f5 f6. f7"
	got, err := v.Vectorize(text, TaskQuery, sumOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := m.ContextIDs(nil, []string{"jargon3", "f4", "f5", "f6"}, "jargon3")
	am := make([]float32, m.Dim)
	ws := m.NewWorkspace()
	ws.ScaleGate(float32(1 - DefaultOptions().TextContextDiscount))
	m.Infer(ws, "jargon3", [][]int32{ctx}, am)
	var total float64
	for _, c := range m.Base.Counts {
		total += float64(c)
	}
	want := append([]float32(nil), am...) // SIF weight 1 for an unseen word
	for _, w := range []string{"f4", "f5", "f6", "f7"} {
		id, _ := m.Base.ID(w)
		wt := float32(1e-3 / (1e-3 + float64(m.Base.Count(id))/total))
		for k, x := range m.Base.Row(id) {
			want[k] += wt * x
		}
	}
	normalize(want)
	assertClose(t, got, want, 1e-5)
}

// TestNoWords: a text without vectorizable words is ErrNoWords, never NaN.
func TestNoWords(t *testing.T) {
	v := newVectorizer(t, nil)
	for _, text := range []string{"", "   ", "!!! ... ???", "\xff\xfe"} {
		vec, err := v.Vectorize(text, TaskQuery, DefaultOptions())
		if !errors.Is(err, ErrNoWords) {
			t.Errorf("%q: got %v, %v; want ErrNoWords", text, vec, err)
		}
	}
	// A context-only model (no form: the base-only baseline) yields nothing
	// for an unseen word without context, not even a character vector.
	m := newModel(t)
	m.Mode = model.ModeContext
	vc, err := New(m, nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vc.Vectorize("zzzzunseen", TaskQuery, DefaultOptions()); !errors.Is(err, ErrNoWords) {
		t.Errorf("context-only unseen word alone: %v, want ErrNoWords", err)
	}
	ex, err := vc.Explain("zzzzunseen f1", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if ex.Words[0].Source != SourceAM || ex.Words[1].Source != SourceBase {
		// With f1 as context the unseen word gets a vector.
		t.Errorf("sources %s %s", ex.Words[0].Source, ex.Words[1].Source)
	}
	ex, err = vc.Explain("zzzzunseen. f1", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if ex.Words[0].Source != SourceDropped {
		t.Errorf("unseen word alone in its sentence, context-only mode: source %s, want dropped", ex.Words[0].Source)
	}
}

// TestMemoryPassageAndQuery: passages teach the memory, queries never write,
// and remembered contexts change (and then stabilize) the query vector.
func TestMemoryPassageAndQuery(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	o := DefaultOptions()
	q1, err := v.Vectorize("jargon9", TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	if s := mem.Stats(); s.Words != 0 {
		t.Fatalf("a query wrote the memory: %+v", s)
	}
	if _, err := v.Vectorize("The jargon9 f10 f11 f12. Other f13 sentence. Jargon9 again f14 r2!", TaskPassage, o); err != nil {
		t.Fatal(err)
	}
	ctxs, _ := mem.Contexts(nil, "jargon9")
	if len(ctxs) != 2 || ctxs[0] != "The jargon9 f10 f11 f12." || ctxs[1] != "Jargon9 again f14 r2!" {
		t.Fatalf("remembered %q", ctxs)
	}
	if r2, _ := mem.Contexts(nil, "r2"); len(r2) != 1 {
		t.Errorf("rare word r2: remembered %q, want its sentence", r2)
	}
	if f13, _ := mem.Contexts(nil, "f13"); len(f13) != 0 {
		t.Errorf("frequent word f13 remembered: %q", f13)
	}
	q2, err := v.Vectorize("jargon9", TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	same := true
	for i := range q1 {
		same = same && q1[i] == q2[i]
	}
	if same {
		t.Fatal("remembered contexts did not change the query vector")
	}
	// The query's own sentence has no known words: the vector comes from the
	// memory alone, so the second identical query is a cache hit.
	before := v.Stats()
	q3, err := v.Vectorize("jargon9", TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	after := v.Stats()
	assertClose(t, q3, q2, 0)
	if after.CacheHits != before.CacheHits+1 || after.AMInferences != before.AMInferences {
		t.Errorf("repeat query: hits %d→%d, inferences %d→%d; want one hit, no inference", before.CacheHits, after.CacheHits, before.AMInferences, after.AMInferences)
	}
	// New contexts invalidate the cache: the passage recomputes (and caches)
	// the vector from the memory, which now holds its sentence too.
	before = v.Stats()
	if _, err := v.Vectorize("Jargon9 f20 f21.", TaskPassage, o); err != nil {
		t.Fatal(err)
	}
	if v.Stats().AMInferences != before.AMInferences+1 {
		t.Error("memory changed but the cached vector was used")
	}
	before = v.Stats()
	q4, err := v.Vectorize("jargon9", TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	if s := v.Stats(); s.CacheHits != before.CacheHits+1 {
		t.Error("query after the passage missed the cache")
	}
	same = true
	for i := range q4 {
		same = same && q4[i] == q3[i]
	}
	if same {
		t.Error("a new remembered context did not change the vector")
	}
	// By default a word the memory knows uses the remembered contexts only.
	ex, err := v.Explain("jargon9 f1", o)
	if err != nil {
		t.Fatal(err)
	}
	if w := ex.Words[0]; w.Source != SourceAM || len(w.Contexts) != 3 || !w.Contexts[2].Remembered {
		t.Fatalf("default explanation %+v: want the 3 remembered contexts only", w)
	}
	// With MixTextContexts, Explain shows the remembered contexts and then
	// this text's sentence, with ρ summing to 1.
	mix := o
	mix.MixTextContexts = true
	ex, err = v.Explain("jargon9 f1", mix)
	if err != nil {
		t.Fatal(err)
	}
	w := ex.Words[0]
	if w.Source != SourceAM || len(w.Contexts) != 4 {
		t.Fatalf("explanation %+v", w)
	}
	var rho float32
	for i, c := range w.Contexts {
		rho += c.Rho
		if c.Remembered != (i < 3) {
			t.Errorf("context %d %q remembered=%v", i, c.Text, c.Remembered)
		}
	}
	if math.Abs(float64(rho)-1) > 1e-4 || !(w.Alpha > 0 && w.Alpha < 1) {
		t.Errorf("ρ sums to %v, α = %v", rho, w.Alpha)
	}
	assertUnit(t, ex.Vector)
}

// TestReadOnlyMemory: a read-only store is read, never written.
func TestReadOnlyMemory(t *testing.T) {
	dir := t.TempDir() + "/mem"
	mem, err := memory.Open(dir, memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Remember([]memory.Observation{{Word: "jargon4", Context: "jargon4 f1 f2"}}); err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	ro := memory.DefaultOptions()
	ro.ReadOnly = true
	rmem, err := memory.Open(dir, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer rmem.Close()
	v := newVectorizer(t, rmem)
	if _, err := v.Vectorize("jargon4 and jargon5 f3.", TaskPassage, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if s := rmem.Stats(); s.Words != 1 {
		t.Errorf("read-only memory has %d words, want 1", s.Words)
	}
	ex, err := v.Explain("jargon4", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Words[0].Contexts) != 1 || !ex.Words[0].Contexts[0].Remembered {
		t.Errorf("remembered context not used: %+v", ex.Words[0])
	}
	if _, err := v.Learn("jargon6 f1", DefaultOptions()); err == nil {
		t.Error("Learn on a read-only memory succeeded")
	}
}

func TestBatchMatchesSingle(t *testing.T) {
	v := newVectorizer(t, newMemory(t))
	texts := []string{"f1 f2 f3", "jargon1 f4. f5", "", "r3 r4 f6", "Jargon2 zq3x f8."}
	vecs, errs := v.VectorizeBatch(texts, TaskQuery, DefaultOptions())
	for i, text := range texts {
		want, werr := v.Vectorize(text, TaskQuery, DefaultOptions())
		if (werr == nil) != (errs[i] == nil) {
			t.Fatalf("text %d: batch error %v, single %v", i, errs[i], werr)
		}
		if werr == nil {
			assertClose(t, vecs[i], want, 0)
		}
	}
	if !errors.Is(errs[2], ErrNoWords) {
		t.Errorf("empty text in batch: %v", errs[2])
	}
}

func TestOverrides(t *testing.T) {
	base := DefaultOptions()
	for _, c := range []struct {
		cfg  map[string]any
		want string // substring of the error, "" = ok
	}{
		{map[string]any{}, ""},
		{map[string]any{"weighting": "mean", "sif_a": 0.01, "max_contexts": 3.0}, ""},
		{map[string]any{"bogus": 1.0}, `"bogus"`},
		{map[string]any{"weighting": "max"}, `"weighting"`},
		{map[string]any{"weighting": 3.0}, `"weighting"`},
		{map[string]any{"sif_a": "x"}, `"sif_a"`},
		{map[string]any{"sif_a": 0.0}, "sif_a"},
		{map[string]any{"max_contexts": 2.5}, `"max_contexts"`},
		{map[string]any{"max_contexts": -1.0}, "max_contexts"},
		{map[string]any{"max_contexts": 1e300}, "max_contexts"},
		{map[string]any{"rare_min": 50.0}, "frequent_min"},
		{map[string]any{"frequent_min": json.Number("1e2")}, ""},
		{map[string]any{"frequent_min": json.Number("x")}, `"frequent_min"`},
		{map[string]any{"rare_min": nil}, `"rare_min"`},
		{map[string]any{"weighting": "sif-collection", "collection_b": 0.05, "mix_text_contexts": true}, ""},
		{map[string]any{"collection_b": 2.0}, "collection_b"},
		{map[string]any{"collection_b": "x"}, `"collection_b"`},
		{map[string]any{"mix_text_contexts": 1.0}, `"mix_text_contexts"`},
	} {
		o, err := base.WithOverrides(c.cfg)
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to mention %s (options %+v)", c.cfg, err, c.want, o)
		}
		// Checkable the Go way: a bad value is a *FieldError, an unknown key ErrUnknownSetting.
		var fe *FieldError
		if !errors.As(err, &fe) && !errors.Is(err, ErrUnknownSetting) {
			t.Errorf("%v: error %v is neither a *FieldError nor ErrUnknownSetting", c.cfg, err)
		}
	}
	o, _ := base.WithOverrides(map[string]any{"weighting": "mean", "max_contexts": 3.0})
	if o.Weighting != WeightMean || o.MaxContexts != 3 || o.SIFA != base.SIFA {
		t.Errorf("overrides gave %+v", o)
	}
}

func TestParse(t *testing.T) {
	if task, err := ParseTask("passage"); err != nil || task != TaskPassage {
		t.Error("passage")
	}
	if task, err := ParseTask(""); err != nil || task != TaskQuery {
		t.Error("empty task")
	}
	if _, err := ParseTask("document"); err == nil {
		t.Error("ParseTask accepted document")
	}
	if w, err := ParseWeighting("mean"); err != nil || w.String() != "mean" {
		t.Error("mean")
	}
	if w, err := ParseWeighting("sif-collection"); err != nil || w != WeightSIFCollection || w.String() != "sif-collection" {
		t.Error("sif-collection")
	}
}

// TestConcurrent runs passages and queries from many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				text := "Jargon" + string(rune('0'+i%10)) + " f" + string(rune('0'+g)) + " f12. Zq" + string(rune('0'+i%7)) + "x r5 f9"
				task := TaskQuery
				if i%2 == 0 {
					task = TaskPassage
				}
				vec, err := v.Vectorize(text, task, DefaultOptions())
				if err != nil {
					t.Error(err)
					return
				}
				if len(vec) != v.Dim() {
					t.Errorf("dim %d", len(vec))
					return
				}
			}
		})
	}
	wg.Wait()
	if mem.Stats().Words == 0 {
		t.Error("nothing remembered")
	}
}

// TestAllocations: vectorizing frequent words allocates only the result.
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	v := newVectorizer(t, nil)
	text := strings.Repeat("f1 f22 f333 f1444 f55. ", 10)
	v.Vectorize(text, TaskQuery, DefaultOptions())
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := v.Vectorize(text, TaskQuery, DefaultOptions()); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations per Vectorize, want 1 (the result)", allocs)
	}
}

// TestSIFCollection: sif-collection multiplies SIF by b/(b + df/N) over the
// passages seen, alike for queries and passages, and is SIF before any
// passage; the counts live in RAM without a memory and in the memory with one.
func TestSIFCollection(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store ContextStore
	}{{"in RAM", nil}, {"in the memory", newMemory(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVectorizer(t, tc.store)
			if v.DocFreqInStore() != (tc.store != nil) {
				t.Errorf("DocFreqInStore = %v with store %v", v.DocFreqInStore(), tc.store)
			}
			checkSIFCollection(t, v)
		})
	}
}

func sifOptions() Options {
	o := sumOptions()
	o.Weighting = WeightSIF
	return o
}

func checkSIFCollection(t *testing.T, v *Vectorizer) {
	m := v.Model()
	o := sumOptions()
	if o.Weighting != WeightSIFCollection {
		t.Errorf("default weighting %v, want sif-collection", o.Weighting)
	}
	o.CollectionB = 0.1
	text := "F1 f2, f3. f1!"
	sif, err := v.Vectorize(text, TaskQuery, sifOptions())
	if err != nil {
		t.Fatal(err)
	}
	before, err := v.Vectorize(text, TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, before, sif, 0) // no passage yet: plain SIF
	// Four passages: f1 in all four (twice in one, counted once), f2 in one, f3 in none.
	for _, p := range []string{"f1 f2 f9", "f1 f1 f8", "f1 f7"} {
		if err := v.Observe(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Vectorize("f1. f6", TaskPassage, o); err != nil {
		t.Fatal(err)
	}
	// A passage under another weighting is not counted, nor a text without words.
	if _, err := v.Vectorize("f1 f2 f3", TaskPassage, sifOptions()); err != nil {
		t.Fatal(err)
	}
	if err := v.Observe(" ... "); err != nil {
		t.Fatal(err)
	}
	if v.Passages() != 4 {
		t.Fatalf("passages = %d, want 4", v.Passages())
	}
	var total float64
	for _, c := range m.Base.Counts {
		total += float64(c)
	}
	df := map[string]float64{"f1": 4, "f2": 1, "f3": 0}
	want := make([]float32, m.Dim)
	for _, w := range []string{"f1", "f2", "f3", "f1"} {
		id, _ := m.Base.ID(w)
		wt := 1e-3 / (1e-3 + float64(m.Base.Count(id))/total) * 0.1 / (0.1 + df[w]/4)
		for k, x := range m.Base.Row(id) {
			want[k] += float32(wt) * x
		}
	}
	normalize(want)
	got, err := v.Vectorize(text, TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, got, want, 1e-5)
	assertUnit(t, got)
	// Plain SIF ignores the collection.
	got, err = v.Vectorize(text, TaskQuery, sifOptions())
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, got, sif, 0)
	// The weighting keeps the query path free of allocations but the result.
	if !raceEnabled {
		lower := "f1 f2, f3. f1!" // capitals cost the tokenizer an allocation
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := v.Vectorize(lower, TaskQuery, o); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 1 {
			t.Errorf("%v allocations per sif-collection Vectorize, want 1", allocs)
		}
	}
	if got := collectionWeight(0, 10, 0.01); got != 1 {
		t.Errorf("collectionWeight of an unseen word = %v, want 1", got)
	}
	if got := collectionWeight(1, 100, 0.01); math.Abs(float64(got)-0.5) > 1e-6 {
		t.Errorf("collectionWeight(df 1, N 100, b 0.01) = %v, want 0.5", got)
	}
}

// TestSIFCollectionSurvivesRestart: the counts persist with the memory, so a
// query weighs the same after a restart; a read-only memory counts nothing.
func TestSIFCollectionSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	open := func(readOnly bool) *memory.Memory {
		o := memory.DefaultOptions()
		o.ReadOnly = readOnly
		mem, err := memory.Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		return mem
	}
	mem := open(false)
	v := newVectorizer(t, mem)
	passages := []string{"f1 f2 zqa", "f1 f3 f4. f1 zqa f5", "f1 f6"}
	vecs, errs := v.VectorizeBatch(passages, TaskPassage, v.Options())
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	query := "f1 f2 f3 zqa"
	before, err := v.Vectorize(query, TaskQuery, v.Options())
	if err != nil {
		t.Fatal(err)
	}
	sif, err := v.Vectorize(query, TaskQuery, sifOptions())
	if err != nil {
		t.Fatal(err)
	}
	if simd.Dot(before, sif) > 0.99999 { // both unit vectors: their cosine
		t.Fatal("three passages did not change the sif-collection vector")
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []bool{false, true} {
		mem = open(readOnly)
		v = newVectorizer(t, mem)
		if v.Passages() != 3 {
			t.Errorf("read-only %v: %d passages after the restart, want 3", readOnly, v.Passages())
		}
		after, err := v.Vectorize(query, TaskQuery, v.Options())
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, after, before, 0)
		// The passages vectorize as before too: they were counted "so far".
		again, err := v.Vectorize(passages[2], TaskQuery, v.Options())
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, again, vecs[2], 1e-6)
		if readOnly {
			if _, err := v.Vectorize("f1 f9", TaskPassage, v.Options()); err != nil {
				t.Fatalf("passage with a read-only memory: %v", err)
			}
			if v.Passages() != 3 {
				t.Errorf("a read-only memory counted a passage: %d", v.Passages())
			}
		}
		if err := mem.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// sumOptions are the default options with no common component taken out:
// the vector is the normalized weighted sum the tests compute by hand.
func sumOptions() Options {
	o := DefaultOptions()
	o.CommonComponents = 0
	return o
}

// TestNormalizeHugeSum: a finite sum whose squared norm overflows float32
// still has a direction, which normalizeSum finds; a sum holding NaN or Inf
// is an error that says so.
func TestNormalizeHugeSum(t *testing.T) {
	acc := []float32{3e30, -4e30}
	if err := normalizeSum(acc); err != nil || math.Abs(float64(acc[0])-0.6) > 1e-6 || math.Abs(float64(acc[1])+0.8) > 1e-6 {
		t.Errorf("normalize (3e30, -4e30): %v, %v; want (0.6, -0.8)", acc, err)
	}
	for _, bad := range []float32{float32(math.Inf(1)), float32(math.NaN())} {
		if err := normalizeSum([]float32{1, bad}); err == nil || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("normalize (1, %v): %v, want an error saying the vector is not finite", bad, err)
		}
	}
}
