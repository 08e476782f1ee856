package weaviatemem

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// rarePassage is the i-th synthetic passage: three sentences of eight
// frequent words, each around a rare word that no other passage holds
// ("zq" and five letters, which the model has not seen).
func rarePassage(i int) string {
	var sb strings.Builder
	h := uint64(i)*0x9e3779b97f4a7c15 + 1
	for j := range 3 {
		for k := range 9 {
			if k == 4 {
				n, b := 3*i+j, []byte("zqaaaaa")
				for p := len(b) - 1; p >= 2 && n > 0; p, n = p-1, n/26 {
					b[p] = byte('a' + n%26)
				}
				sb.Write(b)
			} else {
				h ^= h >> 29
				h *= 0xbf58476d1ce4e5b9
				sb.WriteString(testmodel.FrequentWord(int(h>>32) % 30))
			}
			sb.WriteString(" ")
		}
		sb.WriteString(". ")
	}
	return strings.TrimSpace(sb.String())
}

// teachPassages teaches passages [lo, hi) to the shared scope of s as serve
// does for /vectors/batch with task passage: batches of 500, from four
// clients at once.
func teachPassages(t *testing.T, s *Store, v *vectorizer.Vectorizer, lo, hi int) {
	t.Helper()
	const batch, clients = 500, 4
	starts := make(chan int)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for start := range starts {
				texts := make([]string, 0, batch)
				for i := start; i < min(start+batch, hi); i++ {
					texts = append(texts, rarePassage(i))
				}
				_, _, err := s.VectorizeBatch(context.Background(), v, "", texts, vectorizer.TaskPassage, vectorizer.DefaultOptions())
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for start := lo; start < hi; start += batch {
		starts <- start
	}
	close(starts)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// cursorGate serves a fake Weaviate and, once armed, holds the request of
// the armed-th page of the cursor (GET /v1/objects) until released.
type cursorGate struct {
	f       *fakeweaviate.Fake
	mu      sync.Mutex
	pages   int // pages listed since armed
	at      int // the page held (0: none)
	held    chan struct{}
	release chan struct{}
}

func (g *cursorGate) arm(page int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pages, g.at, g.held, g.release = 0, page, make(chan struct{}), make(chan struct{})
}

func (g *cursorGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/objects" {
		g.mu.Lock()
		g.pages++
		hold := g.at > 0 && g.pages == g.at
		held, release := g.held, g.release
		g.mu.Unlock()
		if hold {
			close(held)
			<-release
		}
	}
	g.f.ServeHTTP(w, r)
}

// heapAlloc returns the Go heap allocated once garbage is collected.
func heapAlloc() int64 {
	var ms runtime.MemStats
	settle()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestHeapWithinMaxBytes: a copy taught through VectorizeBatch as serve
// teaches it, far past its budgets (every passage with three rare words of
// its own), holds at most MaxBytes of Go heap, and its estimate is within
// MaxBytes; so while it reads every object through the cursor (for an
// object another server wrote late) with passages taught meanwhile, and
// after. The heap is what the store holds: the heap with it less the heap
// once it is gone (the fake's objects, the model and its caches stay).
// heapSlack is for what the estimate leaves out: the buffers of the
// connection and request in flight, the write queue, the goroutines.
// T2V_BENCH=1 teaches ten times as many passages to a copy of 256 MiB.
// go test ./adapter/memory/weaviatemem -run TestHeapWithinMaxBytes -v
// prints the heap and the estimate.
func TestHeapWithinMaxBytes(t *testing.T) {
	const heapSlack = 2 << 20
	maxBytes, before, during := int64(32<<20), 80_000, 30_000
	if os.Getenv("T2V_BENCH") == "1" {
		maxBytes, before, during = 256<<20, 10*before, 10*during
	}
	f, _ := fakeweaviate.New(t)
	gate := &cursorGate{f: f}
	ts := httptest.NewServer(gate)
	defer ts.Close()
	v := baseVectorizer(t)
	s, err := Open(Options{URL: ts.URL, Refresh: 20 * time.Millisecond, Timeout: time.Minute,
		Memory: memory.DefaultOptions(), MaxBytes: maxBytes, Logger: quiet()}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	waitFor(t, "the store to be ready", func() bool { return s.Ready() == nil })
	teachPassages(t, s, v, 0, before)
	objects := func() int64 { return s.Stats().Remote.Scopes[""].Objects }
	waitFor(t, "the copy to count every object", func() bool { return objects() == int64(f.Count(sharedTenant)) })

	gate.arm(f.Count(sharedTenant) / pageSize / 2) // halfway through the cursor
	late := contextObject(memory.Observation{Word: "zzlate", Context: "zzlate written late by another server"})
	put(f, late, f.Now-time.Hour.Milliseconds()) // before every incremental read: counted by a full read only
	<-gate.held
	teachPassages(t, s, v, before, before+during)
	reading, readingEst := heapAlloc(), s.Stats().Remote.Bytes
	close(gate.release)
	waitFor(t, "the full read to count the late object", func() bool { return objects() == int64(f.Count(sharedTenant)) })
	s.Close() // no refresh from now on
	st := s.Stats()
	idle := heapAlloc()
	s = nil
	base := heapAlloc() // the fake's objects and the model's caches stay
	t.Logf("%d passages, %d objects, MaxBytes %d: heap %d while read in full (estimate %d), %d after (estimate %d)",
		before+during, st.Remote.Scopes[""].Objects, maxBytes, reading-base, readingEst, idle-base, st.Remote.Bytes)
	if readingEst > maxBytes || st.Remote.Bytes > maxBytes {
		t.Errorf("the copy's estimate %d bytes while read in full, %d after: above MaxBytes %d",
			readingEst, st.Remote.Bytes, maxBytes)
	}
	if held := reading - base; held > maxBytes+heapSlack {
		t.Errorf("while read in full the copy holds %d bytes of heap, above MaxBytes %d (and %d)", held, maxBytes, heapSlack)
	}
	if held := idle - base; held > maxBytes+heapSlack {
		t.Errorf("the copy holds %d bytes of heap, above MaxBytes %d (and %d)", held, maxBytes, heapSlack)
	}
	if st.Memory.Evicted == 0 || st.Memory.DocFreqRejected == 0 {
		t.Errorf("stats %+v: want the budget and the passage counts past their caps", st.Memory)
	}
}
