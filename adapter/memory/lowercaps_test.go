package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

// writeLargeMemory writes, with caps far above the defaults, a memory of
// words word0 … word{words-1} (least recently changed first) with contexts
// of about 1 KB each, snapshotted, and returns its directory, the words in
// their order and the size of its snapshot.
func writeLargeMemory(t *testing.T, words, contexts int) (dir string, order []string, size int64) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "mem")
	high := quietOptions()
	high.MaxBytes, high.MaxWords = 1<<40, 1<<30
	high.Sync = SyncNever
	m := mustOpen(t, dir, high)
	pad := strings.Repeat("x", 960)
	m.mu.Lock()
	for i := range words {
		w := fmt.Sprintf("word%d", i)
		for j := range contexts {
			m.keepLocked(w, fmt.Sprintf("%d %s %s", j, w, pad), 0)
		}
		order = append(order, w)
	}
	m.mu.Unlock()
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(onlyFile(t, dir, "snapshot-*.amm"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, order, st.Size()
}

// peakLiveHeap calls f and returns the most the live Go heap (what a garbage
// collection marked) grew over its size before, collecting again and again
// while f runs.
func peakLiveHeap(f func()) int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() int64 {
		runtime.GC()
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	base := live()
	var peak int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			peak = max(peak, live()-base)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	f()
	close(stop)
	wg.Wait()
	return peak
}

// TestLowerCapsLoadWithinThem: a memory written with caps far above the
// defaults and reopened with low ones loads without holding its files in
// RAM: the live heap grows by no more than the read buffer and a few budgets
// while it loads, a small part of the snapshot's size (its records are read
// through a bounded buffer and the words evicted as they come). The memory
// keeps the most recently changed words that fit, each with every context of
// its own, as if it had read everything and then evicted, and it says in its
// log how many words it evicted to fit, naming the caps.
func TestLowerCapsLoadWithinThem(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads an 80 MB snapshot")
	}
	dir, order, size := writeLargeMemory(t, 1300, 64)
	if size < 72<<20 {
		t.Fatalf("snapshot of %d bytes, want at least 72 MiB", size)
	}
	for _, ro := range []bool{true, false} {
		var wc warnCapture
		low := wc.options()
		low.MaxBytes, low.ReadOnly = 1<<20, ro
		var m *Memory
		peak := peakLiveHeap(func() { m = mustOpen(t, dir, low) })
		st := m.Stats()
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("read-only %v: snapshot %d bytes, live heap grew by at most %d while loading, %d words kept",
			ro, size, peak, st.Words)
		if bound := int64(readBuffer) + 4*low.MaxBytes + 16<<20; peak > bound || size < 5*bound/2 {
			t.Errorf("read-only %v: the live heap grew by %d loading a %d-byte snapshot with a budget of %d, "+
				"want at most %d", ro, peak, size, low.MaxBytes, bound)
		}
		if len(st.Damaged) != 0 || st.BudgetBytes > low.MaxBytes || st.Words < 2 {
			t.Fatalf("read-only %v: %+v", ro, st)
		}
		if st.Evicted != int64(len(order)-st.Words) || st.EvictedContexts != 64*st.Evicted {
			t.Errorf("read-only %v: evicted %d words, %d contexts; want %d, %d", ro, st.Evicted, st.EvictedContexts,
				len(order)-st.Words, 64*(len(order)-st.Words))
		}
		m = mustOpen(t, dir, low)
		for _, w := range order[len(order)-st.Words:] {
			if c, _ := m.Contexts(nil, w); len(c) != 64 {
				t.Errorf("read-only %v: %s has %d contexts, want 64", ro, w, len(c))
			}
		}
		m.Close()
		log := wc.buf.String()
		for _, want := range []string{"evicted as they were read", fmt.Sprintf("evicted_words=%d", st.Evicted),
			"max_bytes=1048576", dir} {
			if !strings.Contains(log, want) {
				t.Errorf("read-only %v: the log lacks %q:\n%s", ro, want, log)
			}
		}
	}
}

// TestLowerCapsNoDamage: a snapshot written with more contexts per word,
// passage hashes and counted words than the caps it is opened with allow is
// read as intact (its end record counts what the snapshot holds, not what
// the lower caps keep); the words not counted for want of room are counted in
// DocFreqRejected and logged.
func TestLowerCapsNoDamage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	fill(t, m, 20, 8)
	for i := range 50 {
		if err := m.CountPassage([]string{fmt.Sprintf("term%d", i), "common"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var wc warnCapture
	low := wc.options()
	low.MaxContexts, low.MaxPassageHashes, low.MaxDocFreqWords, low.ReadOnly = 2, 10, 5, true
	m = mustOpen(t, dir, low)
	st := m.Stats()
	m.Close()
	if len(st.Damaged) != 0 {
		t.Fatalf("damage %+v", st.Damaged)
	}
	if st.Contexts != 40 || st.PassageHashes != 10 || st.DocFreqWords != 5 || st.Passages != 50 {
		t.Errorf("%+v: want 40 contexts, 10 passage hashes, 5 counted words over 50 passages", st)
	}
	if st.DocFreqRejected != 46 || !strings.Contains(wc.buf.String(), "df_rejected=46") {
		t.Errorf("%d words not counted, want 46; log:\n%s", st.DocFreqRejected, wc.buf.String())
	}
}

// TestSalvageStreamWindows: read through a buffer of a few records, a stream
// of records with junk between them, flipped bits and a torn tail is salvaged
// exactly as read whole: the same records applied in the same order, the same
// ones refused, the same bytes skipped, the same first damage and end, the
// same verdict on a torn tail.
func TestSalvageStreamWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const reserve = 256 // every record below is smaller
	for trial := range 300 {
		var b []byte
		for i := range rng.IntN(200) {
			switch rng.IntN(10) {
			case 0: // junk, which may claim any length
				junk := make([]byte, rng.IntN(300))
				for k := range junk {
					junk[k] = byte(rng.UintN(256))
				}
				b = append(b, junk...)
			case 1: // a record with a flipped bit
				var start int
				b, start = beginRecord(b)
				b = appendKeep(b, fmt.Sprintf("w%d", i), strings.Repeat("c", rng.IntN(150)))
				endRecord(b, start)
				b[start+rng.IntN(len(b)-start)] ^= 1 << rng.IntN(8)
			default:
				var start int
				b, start = beginRecord(b)
				b = appendKeep(b, fmt.Sprintf("w%d", i), strings.Repeat("c", rng.IntN(150)))
				endRecord(b, start)
			}
		}
		if rng.IntN(3) == 0 && len(b) > 0 { // a torn tail
			b = b[:len(b)-rng.IntN(min(len(b), 40))]
		}
		apply := func(applied *[]string) func(record) error {
			return func(r record) error {
				*applied = append(*applied, r.word+"/"+r.contexts[0])
				if strings.HasSuffix(r.word, "7") {
					return errors.New("refused")
				}
				return nil
			}
		}
		var whole, windowed []string
		want, err := salvageStream(bytes.NewReader(b), int64(len(b)), fileVersion, apply(&whole), len(b)+1, reserve)
		if err != nil {
			t.Fatal(err)
		}
		size := 2*reserve + rng.IntN(1000)
		got, err := salvageStream(iotest.HalfReader(bytes.NewReader(b)), int64(len(b)), fileVersion, apply(&windowed),
			size, reserve)
		if err != nil {
			t.Fatal(err)
		}
		want.hashed, want.decoded, got.hashed, got.decoded = 0, 0, 0, 0 // the work differs, not the outcome
		// A length claimed beyond this test's reserve (never beyond the
		// reserve Open reads with) is judged within the window: the damage
		// is the same, the words saying what is wrong may differ.
		if errors.Is(want.firstErr, errCorrupt) != errors.Is(got.firstErr, errCorrupt) ||
			!errors.Is(want.firstErr, errCorrupt) && fmt.Sprint(want.firstErr) != fmt.Sprint(got.firstErr) {
			t.Fatalf("trial %d: first error %v, read whole %v", trial, got.firstErr, want.firstErr)
		}
		want.firstErr, got.firstErr = nil, nil
		if got != want || !slices.Equal(windowed, whole) {
			t.Fatalf("trial %d, %d bytes through %d: salvage %+v, %d records;\nwhole %+v, %d records",
				trial, len(b), size, got, len(windowed), want, len(whole))
		}
	}
}

// TestSalvageStreamShortAndFailing: a stream that ends before the size it was
// opened with is read to where it ends; an error reading it is returned.
func TestSalvageStreamShortAndFailing(t *testing.T) {
	var b []byte
	for i := range 100 {
		var start int
		b, start = beginRecord(b)
		b = appendKeep(b, fmt.Sprintf("w%d", i), "a context")
		endRecord(b, start)
	}
	n := 0
	count := func(record) error { n++; return nil }
	sv, err := salvageStream(bytes.NewReader(b), int64(len(b))+1000, fileVersion, count, 64, 32)
	if err != nil || n != 100 || sv.firstErr != nil || sv.end != int64(len(b)) {
		t.Errorf("a stream shorter than its size: %+v, %d records, %v", sv, n, err)
	}
	broken := errors.New("broken disk")
	r := io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotest.ErrReader(broken))
	if _, err := salvageStream(r, int64(len(b)), fileVersion, count, 64, 32); !errors.Is(err, broken) {
		t.Errorf("a failing read: %v, want it returned", err)
	}
}
