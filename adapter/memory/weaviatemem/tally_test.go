package weaviatemem

import (
	"fmt"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestRecentIDsAreBounded: a copy that reads objects created over a span
// far beyond the lookback keeps the ids of the last lookback's objects
// only, yet counts every object once: its count and version equal those of
// a copy that reads the same objects in one full read, own writes included.
// An object written again long after is counted again when read (its
// creation time is new), and reads nothing more in full.
func TestRecentIDsAreBounded(t *testing.T) {
	f, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, func(o *Options) { o.Lookback = time.Second })
	sc := s.scopes[""]
	const rounds, perRound = 20, 100
	start := f.Now
	for r := range rounds {
		at := start + int64(r)*5000 // 5 s apart: beyond the lookback
		for i := range perRound {
			word := fmt.Sprintf("w%d", r)
			put(f, contextObject(memory.Observation{Word: word, Context: fmt.Sprintf("%s in context %d", word, i)}), at)
		}
		want := int64((r + 1) * perRound)
		waitFor(t, fmt.Sprintf("round %d to be read", r), func() bool { return sc.objects() == want })
		if n := sc.recentIDs(); n > perRound {
			t.Fatalf("round %d: %d recent ids kept, want at most the %d objects of the last lookback", r, n, perRound)
		}
	}
	f.Mu.Lock()
	f.Now = start + rounds*5000
	f.Mu.Unlock()
	vectorize(t, s, baseVectorizer(t), testmodel.JargonPassages(20), vectorizer.TaskPassage)
	waitFor(t, "the own writes to be read back", func() bool { return sc.objects() == int64(f.Count(sharedTenant)) })
	fresh := openStore(t, ts.URL, nil)
	if got, want := s.Stats().Remote.Scopes[""].Version, fresh.Stats().Remote.Scopes[""].Version; got != want {
		t.Errorf("version %s after incremental reads, %s after a full read", got, want)
	}
	if got, want := export(t, s), export(t, fresh); got != want {
		t.Error("the copy read incrementally differs from the copy read in full")
	}
	full := s.Stats().Remote.Refreshes["full"]
	n := sc.objects()
	put(f, contextObject(memory.Observation{Word: "w0", Context: "w0 in context 0"}), f.Now+1000) // written again
	put(f, contextObject(memory.Observation{Word: "w0", Context: "w0 in a new context"}), f.Now+1000)
	waitFor(t, "the new object to be read", func() bool { return sc.objects() >= n+1 })
	time.Sleep(5 * s.o.Refresh)
	if got := s.Stats().Remote.Refreshes["full"]; got != full || sc.objects() != n+2 || f.Count(sharedTenant) != int(n+1) {
		t.Errorf("after an object written again and a new one: %d full reads (was %d), %d objects read (want %d)",
			got, full, sc.objects(), n+2)
	}
}

// objects returns the number of objects read into the copy.
func (sc *scope) objects() int64 {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.read.count
}

// recentIDs returns the number of ids the copy keeps to count objects once.
func (sc *scope) recentIDs() int {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return len(sc.read.recent)
}
