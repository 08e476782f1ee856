package weaviatemem

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
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
	if s.o.Memory.MaxBytes != maxBytes {
		t.Errorf("a copy's budget %d, want at most MaxBytes %d", s.o.Memory.MaxBytes, maxBytes)
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
// hold once read: contexts, passage counts and hashes, recent ids.
// go test ./adapter/memory/weaviatemem -run TestBytesEstimateBoundsHeap -v
// prints both.
func TestBytesEstimateBoundsHeap(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	const scopes, contexts = 4, 5000
	for s := range scopes {
		tenant := tenantName(fmt.Sprintf("S%d", s))
		for i := range contexts {
			word := fmt.Sprintf("w%d", i%1000)
			o := contextObject(memory.Observation{Word: word, Context: fmt.Sprintf("%s %d %s", word, i, strings.Repeat("x", 100))})
			f.Put(tenant, o.batchObject("", tenant), f.Now+int64(i))
			if i%4 == 0 {
				p := passageObject(uint64(s*contexts+i+1), []string{word, "a", "b"})
				f.Put(tenant, p.batchObject("", tenant), f.Now+int64(i))
			}
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := openStore(t, ts.URL, nil)
	for i := range scopes {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := s.loadedScope(ctx, fmt.Sprintf("S%d", i))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap, est := int64(after.HeapAlloc)-int64(before.HeapAlloc), s.Stats().Remote.Bytes
	t.Logf("%d copies of %d contexts and %d passages: heap %d bytes, estimate %d (heap/estimate %.3f)",
		scopes, contexts, contexts/4, heap, est, float64(heap)/float64(est))
	if heap > est*11/10 {
		t.Errorf("the copies hold %d bytes of heap, more than 1.1 × their estimate %d", heap, est)
	}
}
