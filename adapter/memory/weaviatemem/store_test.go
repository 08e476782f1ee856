package weaviatemem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// baseVectorizer is a vectorizer of the synthetic model without a memory.
func baseVectorizer(t testing.TB) *vectorizer.Vectorizer {
	t.Helper()
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(m, nil, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// put stores o in the shared memory's tenant of f as another server
// would, created at time t.
func put(f *fakeweaviate.Fake, o object, t int64) {
	f.Put(sharedTenant, o.batchObject("", sharedTenant), t)
}

// openStore opens a store of the fake at url for the shared scope and
// waits until it is read.
func openStore(t testing.TB, url string, tweak func(*Options)) *Store {
	t.Helper()
	o := Options{URL: url, Refresh: 20 * time.Millisecond, Timeout: 5 * time.Second, Memory: memory.DefaultOptions(), Logger: quiet()}
	if tweak != nil {
		tweak(&o)
	}
	s, err := Open(o, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	waitFor(t, "the store to be ready", func() bool { return s.Ready() == nil })
	return s
}

// fullReads returns the reads of every object a store made, into its
// copies and into new ones.
func fullReads(s *Store) int64 {
	r := s.Stats().Remote.Refreshes
	return r["full"] + r["afresh"]
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// vectorize runs VectorizeBatch and fails the test on any error.
func vectorize(t testing.TB, s memstore.Store, v *vectorizer.Vectorizer, texts []string, task vectorizer.Task) [][]float32 {
	t.Helper()
	vecs, errs, err := s.VectorizeBatch(context.Background(), v, "", texts, task, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if e != nil {
			t.Fatalf("text %d: %v", i, e)
		}
	}
	return vecs
}

// localMemory returns a memory in RAM of options mo and v over it.
func localMemory(t testing.TB, v *vectorizer.Vectorizer, mo memory.Options) (*memory.Memory, *vectorizer.Vectorizer) {
	t.Helper()
	local, err := memory.Open("", mo)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := vectorizer.New(v.Model(), local, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return local, lv
}

// export returns the memory of scope "" of s as memory.Export writes it.
func export(t testing.TB, s *Store) string {
	t.Helper()
	sc, err := s.scope("")
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := sc.current()
	var b bytes.Buffer
	if err := mem.Export(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReplicasAgreeWithALocalMemory: passages imported in batches through
// two stores over one Weaviate, some through each, some twice, give both
// copies the memory a local memory gets from importing each passage once,
// byte for byte, and the same query vectors, bit for bit, once the copies
// are refreshed; only what changes the memory is written.
func TestReplicasAgreeWithALocalMemory(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	v := baseVectorizer(t)
	mo := memory.DefaultOptions()
	mo.MaxContexts = 4 // most contexts offered are not kept: they need not be written
	small := func(o *Options) { o.Memory = mo }
	a, b := openStore(t, ts.URL, small), openStore(t, ts.URL, small)
	docs := testmodel.JargonPassages(120)
	local, lv := localMemory(t, v, mo)
	for i := 0; i < len(docs); i += 10 {
		batch := docs[i : i+10]
		lv.VectorizeBatch(batch, vectorizer.TaskPassage, vectorizer.DefaultOptions())
		s := a
		if i/10%2 == 1 {
			s = b
		}
		vectorize(t, s, v, batch, vectorizer.TaskPassage)
		if i%30 == 0 {
			vectorize(t, b, v, batch, vectorizer.TaskPassage) // a resend
		}
	}
	n := f.Count(sharedTenant)
	waitFor(t, "both copies to read every object", func() bool {
		return a.Stats().Remote.Scopes[""].Objects == int64(n) && b.Stats().Remote.Scopes[""].Objects == int64(n)
	})
	var want bytes.Buffer
	local.Export(&want)
	if ea, eb := export(t, a), export(t, b); ea != want.String() || eb != ea {
		t.Fatalf("copies differ from the local memory:\nA %.300s\nB %.300s\nlocal %.300s", ea, eb, want.String())
	}
	if st := a.Stats(); st.Memory.Passages != int64(len(docs)) || st.Remote.Scopes[""].Version != b.Stats().Remote.Scopes[""].Version {
		t.Fatalf("stats %+v / %+v: want %d passages and one version", st, b.Stats(), len(docs))
	}
	if _, contexts, _ := stored(t, f, sharedTenant); int64(contexts) >= local.Stats().Offered*3/4 { // the 4 smallest of ~20 a word: ~10 written
		t.Errorf("%d contexts written of %d offered: the lessons were not reduced", contexts, local.Stats().Offered)
	}
	qa, qb := vectorize(t, a, v, testmodel.JargonQueries(), vectorizer.TaskQuery), vectorize(t, b, v, testmodel.JargonQueries(), vectorizer.TaskQuery)
	ql, _ := lv.VectorizeBatch(testmodel.JargonQueries(), vectorizer.TaskQuery, vectorizer.DefaultOptions())
	for i := range qa {
		if !slices.Equal(qa[i], qb[i]) || !slices.Equal(qa[i], ql[i]) {
			t.Fatalf("query %d: the replicas' and the local memory's vectors differ", i)
		}
	}
}

// TestWriteFailureIsUnavailable: a lesson Weaviate does not take fails the
// call with ErrUnavailable and leaves the copy as it was; the resend, once
// Weaviate is back, counts each passage once.
func TestWriteFailureIsUnavailable(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	v := baseVectorizer(t)
	s := openStore(t, ts.URL, nil)
	docs := testmodel.JargonPassages(20)
	f.Fail("/v1/batch", writeAttempts, 500)
	before := export(t, s)
	_, _, err := s.VectorizeBatch(context.Background(), v, "", docs, vectorizer.TaskPassage, vectorizer.DefaultOptions())
	if !errors.Is(err, memstore.ErrUnavailable) || !strings.Contains(err.Error(), ts.URL) {
		t.Fatalf("error %v: want ErrUnavailable naming Weaviate", err)
	}
	if export(t, s) != before || s.Stats().Remote.WriteErrors != 1 {
		t.Fatalf("the failed write changed the copy, or was not counted (%+v)", s.Stats().Remote)
	}
	f.Fail("/v1/batch", writeAttempts-1, 503) // fails, then succeeds on the last attempt
	vectorize(t, s, v, docs, vectorizer.TaskPassage)
	vectorize(t, s, v, docs, vectorizer.TaskPassage)
	if p := s.Stats().Memory.Passages; p != int64(len(docs)) {
		t.Errorf("%d passages counted, want %d", p, len(docs))
	}
}

// TestSlowStart: a Weaviate that is unreachable at first (answers 503, then
// 500) delays readiness, fails nothing for good, and requests wait for
// the first read up to their deadline.
func TestSlowStart(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	f.Fail("/v1/schema", 4, 503)
	s, err := Open(Options{URL: ts.URL, Refresh: 20 * time.Millisecond, Memory: memory.DefaultOptions(), Logger: quiet()}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ready(); !errors.Is(err, memstore.ErrUnavailable) {
		t.Fatalf("ready before the class exists: %v", err)
	}
	if st := s.Stats().Remote.State; st != "loading" {
		t.Errorf("state %q, want loading", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	vecs, _, err := s.VectorizeBatch(ctx, baseVectorizer(t), "", testmodel.JargonQueries(), vectorizer.TaskQuery, vectorizer.DefaultOptions())
	if err != nil || len(vecs) != len(testmodel.JargonQueries()) {
		t.Fatalf("a query waiting for the first read: %v", err)
	}
	if err := s.Ready(); err != nil {
		t.Fatalf("not ready after the first read: %v", err)
	}
}

// TestCredentialsNeverPrinted: a user and password in the URL are sent as
// basic authentication and appear in no error, log line or Stats; the API
// key is sent as a bearer token.
func TestCredentialsNeverPrinted(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	var logs bytes.Buffer
	url := strings.Replace(ts.URL, "http://", "http://admin:s3cr3t@", 1)
	s := openStore(t, url, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	f.Mu.Lock()
	auth := f.Auth
	f.Mu.Unlock()
	if !strings.HasPrefix(auth, "Basic ") {
		t.Errorf("Authorization %q, want basic authentication", auth)
	}
	f.Fail("/v1/batch", writeAttempts, 500)
	_, _, err := s.VectorizeBatch(context.Background(), baseVectorizer(t), "", testmodel.JargonPassages(3), vectorizer.TaskPassage, vectorizer.DefaultOptions())
	st := fmt.Sprintf("%+v", *s.Stats().Remote)
	for what, text := range map[string]string{"error": fmt.Sprint(err), "log": logs.String(), "stats": st, "redacted": weaviateapi.Redact(url)} {
		if strings.Contains(text, "s3cr3t") {
			t.Errorf("the password is in the %s: %s", what, text)
		}
	}
	if _, err := Open(Options{URL: "ftp://admin:s3cr3t@x"}); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("a bad URL: %v", err)
	}
	_, ts2 := fakeweaviate.New(t)
	openStore(t, ts2.URL, func(o *Options) { o.APIKey = "key-1" })
}

// TestStalledCursor: a Weaviate that ignores the cursor's "after" fails the
// read with an error naming it instead of listing forever.
func TestStalledCursor(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	for i := range 3 * pageSize {
		put(f, passageObject(uint64(i+1), []string{"w"}), f.Now)
	}
	f.IgnoreAfter = true
	s, err := Open(Options{URL: ts.URL, Refresh: 20 * time.Millisecond, Memory: memory.DefaultOptions(), Logger: quiet()}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitFor(t, "the read to fail", func() bool { return strings.Contains(s.Stats().Remote.Error, "do not move the cursor") })
	if s.Ready() == nil {
		t.Error("ready without a read")
	}
}

// TestIncrementalAndFullReads: objects another server writes are read by
// their creation time; one created before the lookback is found by the
// count and a full read; a tenant emptied is read again in full.
func TestIncrementalAndFullReads(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, func(o *Options) { o.Lookback, o.Replicas = time.Second, 3 }) // several replicas: no consistency level in Get
	objects := func() int64 { return s.Stats().Remote.Scopes[""].Objects }
	for i := range 10 {
		put(f, passageObject(uint64(i+1), []string{"w"}), f.Now)
	}
	waitFor(t, "a full read", func() bool { return objects() == 10 })
	for i := range 3 {
		put(f, contextObject(memory.Observation{Word: "r1", Context: fmt.Sprintf("r1 in context %d", i)}), f.Now+int64(i))
	}
	waitFor(t, "an incremental read", func() bool { return objects() == 13 })
	if s.Stats().Remote.Refreshes["incremental"] == 0 {
		t.Errorf("refreshes %v: want an incremental read", s.Stats().Remote.Refreshes)
	}
	full := s.Stats().Remote.Refreshes["full"]
	put(f, contextObject(memory.Observation{Word: "r2", Context: "r2 long ago"}), 1_600_000_000_000)
	waitFor(t, "a full read", func() bool { return objects() == 14 && s.Stats().Remote.Refreshes["full"] > full })
	if n := s.Stats().Remote.Refreshes["incomplete"]; n == 0 {
		t.Errorf("refreshes %v: want the incremental read that missed r2 counted as incomplete", s.Stats().Remote.Refreshes)
	}
	if ctx, _ := s.scopes[""].mem.Contexts(nil, "r2"); len(ctx) != 1 {
		t.Errorf("r2's contexts %q", ctx)
	}
}

// TestFutureCreationTime: an object whose creation time is years ahead
// (a node's clock, or a forged object) does not move the incremental reads
// past the objects created after it: they are read by creation time, not
// each in a full read.
func TestFutureCreationTime(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	objects := func() int64 { return s.Stats().Remote.Scopes[""].Objects }
	now := func() int64 { return time.Now().UnixMilli() }
	put(f, passageObject(1, []string{"w"}), now())
	waitFor(t, "the first object", func() bool { return objects() == 1 })
	put(f, passageObject(2, []string{"w"}), now()+10*365*24*3600*1000)
	waitFor(t, "the object of the future", func() bool { return objects() == 2 })
	full := fullReads(s)
	for i := range 3 {
		put(f, contextObject(memory.Observation{Word: "r1", Context: fmt.Sprintf("r1 in context %d", i)}), now())
		waitFor(t, "an object created now", func() bool { return objects() == int64(3+i) })
	}
	if st := s.Stats().Remote; fullReads(s) != full || st.Refreshes["incomplete"] != 0 {
		t.Errorf("refreshes %v: want the objects created after the one of the future read by creation time", st.Refreshes)
	}
}

// TestUnreadableCreationTimes: when Weaviate answers the incremental read
// with creation times that are not numbers, the copy reads through the
// cursor instead and still gets every object.
func TestUnreadableCreationTimes(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	objects := func() int64 { return s.Stats().Remote.Scopes[""].Objects }
	put(f, passageObject(1, []string{"w"}), f.Now)
	waitFor(t, "the first object", func() bool { return objects() == 1 })
	f.Mu.Lock()
	f.BadTimes = true
	f.Mu.Unlock()
	full := s.Stats().Remote.Refreshes["full"]
	put(f, contextObject(memory.Observation{Word: "r1", Context: "r1 in a context"}), f.Now+1)
	waitFor(t, "a full read", func() bool { return objects() == 2 && s.Stats().Remote.Refreshes["full"] > full })
	if ctx, _ := s.scopes[""].mem.Contexts(nil, "r1"); len(ctx) != 1 {
		t.Errorf("r1's contexts %q", ctx)
	}
	// From now on reads are full ones, at most every fullReadEvery: another
	// object waits for the next (not due in this test), and no refresh fails.
	full = fullReads(s)
	put(f, contextObject(memory.Observation{Word: "r2", Context: "r2 in a context"}), f.Now+2)
	probes := s.Stats().Remote.Refreshes["probe"]
	waitFor(t, "ten more refreshes", func() bool { return s.Stats().Remote.Refreshes["probe"] >= probes+10 })
	if st := s.Stats().Remote; fullReads(s) != full || st.Error != "" || st.Scopes[""].Objects != 2 {
		t.Errorf("full reads %d → %d, error %q, objects %d: want no full read within fullReadEvery, no error, 2 objects",
			full, fullReads(s), st.Error, st.Scopes[""].Objects)
	}
}

// TestQueryMemoryOnlyLeavesPassagesAlone: a passage read through a copy
// keeps its own sentences under QueryMemoryOnly, which changes a query's
// vector of the same text.
func TestQueryMemoryOnlyLeavesPassagesAlone(t *testing.T) {
	_, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, func(o *Options) { o.ReadOnly = true }) // nothing taught: the memory stays empty
	v := baseVectorizer(t)
	texts := []string{"f20 frobnicate f21 f22. Another sentence f23"}
	only := vectorizer.DefaultOptions()
	only.QueryMemoryOnly = true
	batch := func(task vectorizer.Task, opts vectorizer.Options) []float32 {
		t.Helper()
		vecs, errs, err := s.VectorizeBatch(context.Background(), v, "", texts, task, opts)
		if err != nil || errs[0] != nil {
			t.Fatal(err, errs)
		}
		return vecs[0]
	}
	p := batch(vectorizer.TaskPassage, vectorizer.DefaultOptions())
	if slices.Equal(batch(vectorizer.TaskQuery, only), p) {
		t.Fatal("QueryMemoryOnly did not change the query: the text gives AM no context")
	}
	if !slices.Equal(batch(vectorizer.TaskPassage, only), p) {
		t.Error("QueryMemoryOnly changed a passage's vector")
	}
}

// TestCopyReadAfreshKeepsOwnWrites: when the count falls below the objects
// read (here another server's object gone), the copy is read again into a
// new one, which the estimate counts meanwhile, without the object; the
// passages taught while the cursor is halfway through are in it too, those
// whose objects the cursor passed included.
func TestCopyReadAfreshKeepsOwnWrites(t *testing.T) {
	f, _ := fakeweaviate.New(t)
	gate := &cursorGate{f: f}
	ts := httptest.NewServer(gate)
	defer ts.Close()
	s := openStore(t, ts.URL, func(o *Options) { o.Refresh = time.Hour }) // the loop's refreshes an hour apart
	sc := s.scopes[""]
	v := baseVectorizer(t)
	for i := range 100 {
		put(f, contextObject(memory.Observation{Word: fmt.Sprintf("w%d", i), Context: fmt.Sprintf("w%d ctx", i)}), f.Now)
	}
	gone := contextObject(memory.Observation{Word: "gone", Context: "gone soon"})
	put(f, gone, f.Now)
	if err := s.refreshScope(context.Background(), sc); err != nil || sc.objects() != 101 {
		t.Fatalf("%d objects read: %v", sc.objects(), err)
	}
	f.Mu.Lock()
	delete(f.Tenants[sharedTenant], gone.id.String())
	f.Mu.Unlock()
	sc.mu.Lock()
	sc.lastFull = time.Now().Add(-2 * fullReadEvery)
	sc.mu.Unlock()
	gate.arm(2)
	afresh, est := s.Stats().Remote.Refreshes["afresh"], s.Stats().Remote.Bytes
	done := make(chan error, 1)
	go func() { done <- s.refreshScope(context.Background(), sc) }()
	<-gate.held
	if reading := s.Stats().Remote.Bytes; reading <= est {
		t.Errorf("estimate %d bytes with a copy being read beside the copy of %d", reading, est)
	}
	docs := testmodel.JargonPassages(200)
	for i := 0; i < len(docs); i += 10 {
		vectorize(t, s, v, docs[i:i+10], vectorizer.TaskPassage)
	}
	close(gate.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, want := sc.objects(), int64(f.Count(sharedTenant))
	if got != want || s.Stats().Remote.Refreshes["afresh"] != afresh+1 {
		t.Fatalf("%d objects after the full read, Weaviate holds %d; refreshes %v", got, want, s.Stats().Remote.Refreshes)
	}
	mem, _ := sc.current()
	if c, _ := mem.Contexts(nil, "gone"); len(c) != 0 || mem.Stats().Passages != int64(len(docs)) {
		t.Errorf("the gone object's contexts %q, %d passages counted: want none and %d", c, mem.Stats().Passages, len(docs))
	}
	sameAsFresh(t, s, ts.URL)
}

// countGate holds Weaviate's answer to the first count asked for once
// armed, computed when it was asked, until released.
type countGate struct {
	f       *fakeweaviate.Fake
	mu      sync.Mutex
	armed   bool
	held    chan struct{}
	release chan struct{}
}

func (g *countGate) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.held, g.release = true, make(chan struct{}), make(chan struct{})
}

func (g *countGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/graphql" {
		g.f.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	g.f.ServeHTTP(rec, r)
	g.mu.Lock()
	hold := g.armed && bytes.Contains(body, []byte("Aggregate"))
	g.armed = g.armed && !hold
	held, release := g.held, g.release
	g.mu.Unlock()
	if hold {
		close(held)
		<-release
	}
	maps.Copy(w.Header(), rec.Header())
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// TestOwnWritesDuringACount: the server's own writes acknowledged while a
// count is under way make the count lower than the copy's objects, which
// is no reason to read every object afresh; objects gone from Weaviate,
// more than those writes, still are.
func TestOwnWritesDuringACount(t *testing.T) {
	for _, gone := range []int{0, 10} {
		t.Run(fmt.Sprintf("%d gone", gone), func(t *testing.T) {
			f, _ := fakeweaviate.New(t)
			gate := &countGate{f: f}
			ts := httptest.NewServer(gate)
			defer ts.Close()
			var ids []string
			for i := range 50 {
				o := contextObject(memory.Observation{Word: fmt.Sprintf("w%d", i), Context: fmt.Sprintf("w%d ctx", i)})
				put(f, o, f.Now)
				ids = append(ids, o.id.String())
			}
			s := openStore(t, ts.URL, func(o *Options) { o.Refresh = time.Hour }) // the loop's refreshes an hour apart
			waitFor(t, "the loop's first refreshes", func() bool { return s.Stats().Remote.Refreshes["probe"] >= 2 })
			sc := s.scopes[""]
			v := baseVectorizer(t)
			f.Mu.Lock()
			for _, id := range ids[:gone] {
				delete(f.Tenants[sharedTenant], id)
			}
			f.Mu.Unlock()
			sc.mu.Lock()
			sc.lastFull = time.Now().Add(-2 * fullReadEvery)
			sc.mu.Unlock()
			gate.arm()
			done := make(chan error, 1)
			go func() { done <- s.refreshScope(context.Background(), sc) }()
			<-gate.held
			docs := testmodel.JargonPassages(40)
			for i := 0; i < len(docs); i += 10 {
				vectorize(t, s, v, docs[i:i+10], vectorizer.TaskPassage)
			}
			close(gate.release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			r, want := s.Stats().Remote.Refreshes, int64(f.Count(sharedTenant))
			if got := sc.objects(); got != want || got <= int64(50-gone) || r["afresh"] != min(int64(gone), 1) {
				t.Errorf("%d objects in the copy, %d in Weaviate; refreshes %v: want a read afresh only with objects gone",
					got, want, r)
			}
		})
	}
}
