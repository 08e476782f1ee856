package weaviatemem

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// stored returns the objects of tenant of f by kind and the contexts and
// passages they carry, each as often as objects carry it.
func stored(t testing.TB, f *fakeweaviate.Fake, tenant string) (kinds map[string]int, contexts, passages int) {
	t.Helper()
	f.Mu.Lock()
	defer f.Mu.Unlock()
	kinds = make(map[string]int)
	for id, o := range f.Tenants[tenant] {
		obj, err := decodeObject(id, o.Props)
		if err != nil {
			t.Fatal(err)
		}
		kinds[obj.kind]++
		contexts, passages = contexts+len(obj.obs), passages+len(obj.ps)
	}
	return kinds, contexts, passages
}

// TestLessonsBundleAndRetriesWriteNothing: each request writes one lesson
// object to its scope, which carries its passages and the contexts the
// copy admits; sending the same texts again writes nothing.
func TestLessonsBundleAndRetriesWriteNothing(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	v := baseVectorizer(t)
	docs := testmodel.JargonPassages(60)
	for i := 0; i < len(docs); i += 20 {
		vectorize(t, s, v, docs[i:i+20], vectorizer.TaskPassage)
	}
	kinds, contexts, passages := stored(t, f, sharedTenant)
	st := s.Stats()
	if kinds[kindLesson] != 3 || len(kinds) != 1 || passages != len(docs) || st.Remote.Written != 3 {
		t.Fatalf("objects %v carrying %d passages (%d written): want 3 lessons carrying the %d passages",
			kinds, passages, st.Remote.Written, len(docs))
	}
	if sc := st.Remote.Scopes[""]; sc.Objects != 3 || sc.Passages != int64(len(docs)) || sc.Contexts != contexts {
		t.Errorf("scope %+v: want 3 objects, %d passages, %d contexts", sc, len(docs), contexts)
	}
	for i := 0; i < len(docs); i += 30 { // resent in another grouping
		vectorize(t, s, v, docs[i:i+30], vectorizer.TaskPassage)
	}
	if n, w := f.Count(sharedTenant), s.Stats().Remote.Written; n != 3 || w != 3 {
		t.Errorf("resending wrote %d objects (%d in Weaviate): want none", w-3, n)
	}
}

// TestGroupingsGiveOneMemory: the same documents taught in two groupings
// and orders, in one Weaviate through one server, in another through two
// servers, one of which teaches again what the other taught (its copy
// lags, so a passage is in two lessons), give copies that hold the same
// memory as a local one, byte for byte, and the same query vectors, bit for
// bit.
func TestGroupingsGiveOneMemory(t *testing.T) {
	mo := memory.DefaultOptions()
	mo.MaxContexts = 4
	v := baseVectorizer(t)
	docs := testmodel.JargonPassages(120)
	f1, ts1 := fakeweaviate.New(t)
	f2, ts2 := fakeweaviate.New(t)
	a := openStore(t, ts1.URL, func(o *Options) { o.Memory = mo })
	for i := 0; i < len(docs); i += 10 {
		vectorize(t, a, v, docs[i:i+10], vectorizer.TaskPassage)
	}
	b := openStore(t, ts2.URL, func(o *Options) { o.Memory = mo })
	lagging := openStore(t, ts2.URL, func(o *Options) { o.Memory, o.Refresh = mo, time.Hour })
	shuffled := slices.Clone(docs)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for i, n := 0, 7; i < len(shuffled); i, n = i+n, 20-n {
		batch := shuffled[i:min(i+n, len(shuffled))]
		vectorize(t, b, v, batch, vectorizer.TaskPassage)
		if i%3 == 0 {
			vectorize(t, lagging, v, batch, vectorizer.TaskPassage)
		}
	}
	if _, _, p := stored(t, f2, sharedTenant); p <= len(docs) {
		t.Fatalf("%d passages stored for %d documents: want some in two lessons", p, len(docs))
	}
	if _, _, p := stored(t, f1, sharedTenant); p != len(docs) {
		t.Fatalf("%d passages stored for %d documents taught once", p, len(docs))
	}
	local, lv := localMemory(t, v, mo)
	lv.VectorizeBatch(docs, vectorizer.TaskPassage, vectorizer.DefaultOptions())
	var want strings.Builder
	local.Export(&want)
	ql, _ := lv.VectorizeBatch(testmodel.JargonQueries(), vectorizer.TaskQuery, vectorizer.DefaultOptions())
	for name, url := range map[string]string{"one server": ts1.URL, "two servers": ts2.URL} {
		fresh := openStore(t, url, func(o *Options) { o.Memory = mo })
		if got := export(t, fresh); got != want.String() {
			t.Errorf("%s: the copy differs from the local memory:\n%.300s\nlocal %.300s", name, got, want.String())
		}
		q := vectorize(t, fresh, v, testmodel.JargonQueries(), vectorizer.TaskQuery)
		for i := range q {
			if !slices.Equal(q[i], ql[i]) {
				t.Fatalf("%s: query %d: the copy's and the local memory's vectors differ", name, i)
			}
		}
	}
}

// TestOldMemoryIsRead: a memory written as context and passage objects, in
// a class made with their properties only, is read as it is; the class gets
// the properties of lessons, and what is taught next is written as lessons:
// the copy is the local memory of every document.
func TestOldMemoryIsRead(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	def := classDefinition(DefaultClass, 1)
	def["properties"] = def["properties"].([]any)[:5] // kind, word, context, hash, words
	raw, _ := json.Marshal(def)
	json.Unmarshal(raw, &f.Class)
	v := baseVectorizer(t)
	docs := testmodel.JargonPassages(80)
	l, _, err := v.Lesson(docs[:40], vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := memory.Open("", memory.DefaultOptions())
	for i, o := range empty.Admitted(nil, l.Observations) { // every context, cut
		put(f, contextObject(o), f.Now+int64(i))
	}
	for i, p := range l.Passages {
		put(f, passageObject(memory.PassageHash(p), p), f.Now+int64(i))
	}
	s := openStore(t, ts.URL, nil)
	f.Mu.Lock()
	props := len(f.Class["properties"].([]any))
	f.Mu.Unlock()
	if props != len(properties) {
		t.Fatalf("the class has %d properties, want the %d of the memory", props, len(properties))
	}
	vectorize(t, s, v, docs[40:], vectorizer.TaskPassage)
	kinds, _, _ := stored(t, f, sharedTenant)
	if kinds[kindLesson] != 1 || kinds[kindContext] == 0 || kinds[kindPassage] != 40 {
		t.Errorf("objects by kind %v: want the old ones and one lesson", kinds)
	}
	local, lv := localMemory(t, v, memory.DefaultOptions())
	lv.VectorizeBatch(docs, vectorizer.TaskPassage, vectorizer.DefaultOptions())
	var want strings.Builder
	local.Export(&want)
	if got := export(t, openStore(t, ts.URL, nil)); got != want.String() {
		t.Errorf("the copy of old objects and lessons differs from the local memory:\n%.300s\nlocal %.300s", got, want.String())
	}
}

// TestLessonObjectBounds: a teaching is cut into objects of at most
// maxLessonItems items and maxLessonBytes of text (an item larger alone is
// an object of its own), which carry each context and passage once; the
// same teaching in another order makes the same objects; an object reads
// back as it was written, and one whose content does not match its id is
// refused.
func TestLessonObjectBounds(t *testing.T) {
	var small, large teaching
	for i := range 1500 {
		small.obs = append(small.obs, memory.Observation{Word: fmt.Sprintf("w%d", i%40), Context: fmt.Sprintf("context %d", i)})
	}
	for i := range 100 {
		large.obs = append(large.obs, memory.Observation{Word: "w", Context: fmt.Sprintf("%d %s", i, strings.Repeat("x", 10_000))})
		large.ps = append(large.ps, memory.Passage{Hash: uint64(i + 1), Words: []string{"a", fmt.Sprint(i)}})
	}
	huge := memory.Passage{Hash: 7777} // more text than an object holds
	for i := range 40_000 {
		huge.Words = append(huge.Words, fmt.Sprintf("word%06d", i))
	}
	large.ps = append(large.ps, huge)
	for name, tc := range map[string]struct {
		t    teaching
		objs int
	}{"small": {small, 3}, "large": {large, 5}} {
		objs := lessonObjects(teaching{slices.Clone(tc.t.obs), slices.Clone(tc.t.ps)})
		var all teaching
		for _, o := range objs {
			size := 0
			for _, c := range o.obs {
				size += len(c.Word) + len(c.Context)
			}
			for _, p := range o.ps {
				size += passageBytes(p)
			}
			if n := len(o.obs) + len(o.ps); n > maxLessonItems || n == 0 || (size > maxLessonBytes && n > 1) {
				t.Errorf("%s: an object of %d items, %d bytes", name, n, size)
			}
			all.obs, all.ps = append(all.obs, o.obs...), append(all.ps, o.ps...)
			back, err := decodeObject(o.id.String(), roundTrip(t, o.batchObject("", "")))
			if err != nil || back.id != o.id || !slices.Equal(back.obs, o.obs) || fmt.Sprint(back.ps) != fmt.Sprint(o.ps) {
				t.Fatalf("%s: an object read back: %v", name, err)
			}
		}
		if len(objs) != tc.objs || len(all.obs) != len(tc.t.obs) || len(all.ps) != len(tc.t.ps) {
			t.Errorf("%s: %d objects of %d contexts and %d passages, want %d of %d and %d", name, len(objs),
				len(all.obs), len(all.ps), tc.objs, len(tc.t.obs), len(tc.t.ps))
		}
		shuffled := teaching{slices.Clone(tc.t.obs), slices.Clone(tc.t.ps)}
		rand.Shuffle(len(shuffled.obs), func(i, j int) { shuffled.obs[i], shuffled.obs[j] = shuffled.obs[j], shuffled.obs[i] })
		shuffled.obs = append(shuffled.obs, shuffled.obs[:10]...)
		slices.Reverse(shuffled.ps)
		again := lessonObjects(shuffled)
		if !slices.EqualFunc(objs, again, func(a, b object) bool { return a.id == b.id }) {
			t.Errorf("%s: the same teaching in another order made other objects", name)
		}
	}
	o := lessonObjects(teaching{obs: []memory.Observation{{Word: "w", Context: "w here"}}})[0]
	props := roundTrip(t, o.batchObject("", ""))
	props[propContexts] = []any{"w there"}
	if _, err := decodeObject(o.id.String(), props); err == nil || !strings.Contains(err.Error(), "not a lesson with its id") {
		t.Errorf("a lesson whose content does not match its id: %v", err)
	}
}

// roundTrip returns the properties of a batch object as Weaviate lists them (JSON).
func roundTrip(t testing.TB, o map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(o["properties"])
	if err != nil {
		t.Fatal(err)
	}
	var props map[string]any
	if err := json.Unmarshal(raw, &props); err != nil {
		t.Fatal(err)
	}
	return props
}

// TestPageBytesBounded: pages of lesson objects as large as they come, read
// through the cursor and by creation time, are at most pageSize objects of
// maxLessonBytes of text and their JSON, and the copy reads them all.
func TestPageBytesBounded(t *testing.T) {
	f, _ := fakeweaviate.New(t)
	var mu sync.Mutex
	largest := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, r)
		mu.Lock()
		largest[r.URL.Path] = max(largest[r.URL.Path], rec.Body.Len())
		mu.Unlock()
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer ts.Close()
	full := func(n, from int) {
		var tc teaching
		for i := range n * maxLessonBytes / 1000 {
			tc.obs = append(tc.obs, memory.Observation{Word: fmt.Sprintf("w%d", (from+i)%500),
				Context: fmt.Sprintf("w%d %06d %s", (from+i)%500, from+i, strings.Repeat("x", 980))})
		}
		for i, o := range lessonObjects(tc) {
			put(f, o, f.Now+int64(from+i))
		}
	}
	full(2*pageSize+5, 0)
	s := openStore(t, ts.URL, nil)
	n := f.Count(sharedTenant)
	full(pageSize+3, 1_000_000)
	waitFor(t, "the new objects to be read", func() bool { return s.Stats().Remote.Scopes[""].Objects == int64(f.Count(sharedTenant)) })
	if s.Stats().Remote.Refreshes["incremental"] == 0 || n < 2*pageSize {
		t.Fatalf("refreshes %v of %d objects: want incremental ones", s.Stats().Remote.Refreshes, n)
	}
	bound := pageSize * (maxLessonBytes + maxLessonBytes/4) // text and its JSON
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/v1/objects", "/v1/graphql"} {
		t.Logf("%s: largest answer %d bytes, bound %d", path, largest[path], bound)
		if largest[path] > bound || largest[path] < bound/4 {
			t.Errorf("%s: largest answer %d bytes: want pages of full objects within %d", path, largest[path], bound)
		}
	}
}

// TestLessonDecodeErrors: a lesson whose properties are not as written is
// refused with an error naming what is wrong: the property of an element
// that is not a text, a property that is not an array, a passage of no
// words or of an empty word.
func TestLessonDecodeErrors(t *testing.T) {
	o := lessonObjects(teaching{obs: []memory.Observation{{Word: "w", Context: "w here"}},
		ps: []memory.Passage{{Hash: 9, Words: []string{"a", "b"}}}})[0]
	for name, tc := range map[string]struct {
		prop string
		v    any
		want string
	}{
		"element":   {propContexts, []any{7.0}, "property contexts: element 0 is float64, not a text"},
		"not array": {propContextWords, "w", "property contextWords is string, not a text[]"},
		"no words":  {propPassages, []any{hashString(9) + ":0"}, "(at least 1, of the 2 left)"},
		"empty":     {propWords, []any{"a", ""}, "passage 0: word 1 is empty"},
	} {
		props := roundTrip(t, o.batchObject("", ""))
		props[tc.prop] = tc.v
		if _, err := decodeObject(o.id.String(), props); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
	if _, err := decodeObject(o.id.String(), roundTrip(t, o.batchObject("", ""))); err != nil {
		t.Errorf("the object as written: %v", err)
	}
}
