package memory

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// abandon simulates a crash: files are closed without a final sync or snapshot.
func (m *Memory) abandon() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	close(m.stop)
	m.bg.Wait()
	if m.logFile != nil {
		m.logFile.Close()
	}
	if m.unlock != nil {
		m.unlock()
	}
}

func quietOptions() Options {
	o := DefaultOptions()
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return o
}

// warnCapture collects warnings.
type warnCapture struct{ buf bytes.Buffer }

func (w *warnCapture) options() Options {
	o := DefaultOptions()
	o.Logger = slog.New(slog.NewTextHandler(&w.buf, nil))
	return o
}

func mustOpen(t testing.TB, dir string, o Options) *Memory {
	t.Helper()
	m, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func export(t testing.TB, m *Memory) string {
	t.Helper()
	var b bytes.Buffer
	if err := m.Export(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func remember(t testing.TB, m *Memory, word string, contexts ...string) {
	t.Helper()
	obs := make([]Observation, len(contexts))
	for i, c := range contexts {
		obs[i] = Observation{Word: word, Context: c}
	}
	if err := m.Remember(obs); err != nil {
		t.Fatal(err)
	}
}

func TestBottomK(t *testing.T) {
	o := quietOptions()
	o.MaxContexts = 8
	m := mustOpen(t, "", o)
	var all []string
	for i := range 1000 {
		c := fmt.Sprintf("context number %d of jargon", i)
		all = append(all, c)
		remember(t, m, "jargon", c)
	}
	got, v1 := m.Contexts(nil, "jargon")
	slices.SortFunc(all, func(a, b string) int {
		return cmp.Or(cmp.Compare(contextHash(o.Seed, a), contextHash(o.Seed, b)), cmp.Compare(a, b))
	})
	if !slices.Equal(got, all[:8]) {
		t.Fatalf("kept %q, want the 8 smallest-hash contexts %q", got, all[:8])
	}
	if s := m.Stats(); s.Words != 1 || s.Contexts != 8 || s.Offered != 1000 {
		t.Errorf("stats %+v", s)
	}
	// A context already kept, or one not among the k smallest, changes nothing.
	remember(t, m, "jargon", got[3], all[500])
	if _, v2 := m.Contexts(nil, "jargon"); v2 != v1 {
		t.Error("a duplicate or a large-hash context changed the contexts")
	}
}

// TestRememberAtKeepsTheMostRecent: observations made at increasing times
// and applied in any order leave a full memory holding the words of the
// latest ones, as applying them in time order does; a word changed late
// keeps its place whatever older observations of it arrive after.
func TestRememberAtKeepsTheMostRecent(t *testing.T) {
	o := quietOptions()
	o.MaxWords = 4
	const n = 12
	want := map[string]bool{"w0": true, "w9": true, "w10": true, "w11": true}
	for trial := range 20 {
		order := rand.New(rand.NewPCG(uint64(trial), 1)).Perm(n)
		if trial == 0 {
			order = nil
			for i := range n {
				order = append(order, i)
			}
		}
		m := mustOpen(t, "", o)
		for _, i := range order {
			w := fmt.Sprintf("w%d", i)
			if err := m.RememberAt([]Observation{{Word: w, Context: w + " in a context"}}, int64(10*i+5)); err != nil {
				t.Fatal(err)
			}
			if i == 0 { // w0 is seen again last
				if err := m.RememberAt([]Observation{{Word: w, Context: w + " seen late"}}, 10*n); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i := range n {
			w := fmt.Sprintf("w%d", i)
			if c, _ := m.Contexts(nil, w); (len(c) > 0) != want[w] {
				t.Errorf("order %v: %s has contexts %q; want the four most recent words kept", order, w, c)
			}
		}
		if s := m.Stats(); s.Words != 4 {
			t.Errorf("order %v: stats %+v; want 4 words", order, s)
		}
	}
}

// TestRefusedObservationLogsItsEvictions: an observation that evicts an
// older word and then finds no more room (the next word was changed later)
// is refused, and the eviction it made is in the log: the memory its log
// replays holds what the writer held.
func TestRefusedObservationLogsItsEvictions(t *testing.T) {
	o := quietOptions()
	o.MaxBytes, o.MaxContextBytes = 1000, 1000
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, o)
	for _, r := range []struct {
		word  string
		n     int
		stamp int64
	}{{"a", 300, 10}, {"b", 100, 30}, {"c", 600, 20}} { // c needs a's and b's room; b is newer
		if err := m.RememberAt([]Observation{{Word: r.word, Context: r.word + " " + strings.Repeat("x", r.n)}}, r.stamp); err != nil {
			t.Fatal(err)
		}
	}
	held := func(m *Memory) string {
		var out []string
		for _, w := range []string{"a", "b", "c"} {
			if c, _ := m.Contexts(nil, w); len(c) > 0 {
				out = append(out, w)
			}
		}
		return strings.Join(out, " ")
	}
	if got := held(m); got != "b" {
		t.Fatalf("the writer holds %q, want b (a evicted, c refused)", got)
	}
	m.abandon() // the log is replayed
	if got := held(mustOpen(t, dir, o)); got != "b" {
		t.Errorf("read back: %q, want b, as the writer held", got)
	}
}

// TestBudgetEvicts: past MaxWords and MaxBytes the least recently changed
// words are evicted, so a word first seen late still gets its contexts and
// the accounted bytes never exceed the budget.
func TestBudgetEvicts(t *testing.T) {
	o := quietOptions()
	o.MaxWords = 3
	m := mustOpen(t, "", o)
	remember(t, m, "w0", "another context")
	for i := range 5 {
		remember(t, m, fmt.Sprintf("w%d", i), "some context")
	}
	remember(t, m, "w4", "another context")
	remember(t, m, "w5", "a context")
	remember(t, m, strings.Repeat("x", 65), "too long a word")
	remember(t, m, "bad", "invalid \xff utf8")
	remember(t, m, "empty", "   ")
	s := m.Stats()
	if s.Words != 3 || s.Contexts != 4 || s.Rejected != 3 || s.Evicted != 3 || s.EvictedContexts != 4 {
		t.Errorf("stats %+v; want 3 words, 4 contexts, 3 rejected, 3 words evicted with 4 contexts", s)
	}
	for i, want := range []int{0, 0, 0, 1, 2, 1} {
		if c, _ := m.Contexts(nil, fmt.Sprintf("w%d", i)); len(c) != want {
			t.Errorf("w%d: %q, want %d contexts (the oldest words evicted)", i, c, want)
		}
	}

	dir := filepath.Join(t.TempDir(), "mem")
	o = quietOptions()
	o.MaxBytes = 64 << 10
	o.SnapshotEvery = 500
	m = mustOpen(t, dir, o)
	for i := range 5000 {
		remember(t, m, fmt.Sprintf("word%d", i), fmt.Sprintf("the %d-th sentence about word%d", i, i),
			fmt.Sprintf("another sentence about word%d", i))
		if s := m.Stats(); s.BudgetBytes > o.MaxBytes {
			t.Fatalf("after %d words: %d bytes accounted, budget %d", i+1, s.BudgetBytes, o.MaxBytes)
		}
	}
	s = m.Stats()
	if s.Evicted == 0 || s.Words < 100 {
		t.Errorf("stats %+v: want evictions and a full memory", s)
	}
	if c, _ := m.Contexts(nil, "word4999"); len(c) != 2 {
		t.Errorf("the last word has %q, want its 2 contexts", c)
	}
	if c, _ := m.Contexts(nil, "word0"); len(c) != 0 {
		t.Errorf("the first word was not evicted: %q", c)
	}
	want := export(t, m)
	m.abandon() // the log replays the evictions
	m = mustOpen(t, dir, o)
	if got := export(t, m); got != want {
		t.Errorf("replayed memory differs")
	}
	m.Close()
	o.MaxBytes = 16 << 10 // a lower budget at Open shrinks the memory
	m = mustOpen(t, dir, o)
	if s := m.Stats(); s.BudgetBytes > o.MaxBytes || s.Words == 0 {
		t.Errorf("after a lower budget: %+v", s)
	}
	if c, _ := m.Contexts(nil, "word4999"); len(c) != 2 {
		t.Errorf("the most recent word was evicted by the shrink")
	}
	m.Close()
}

func TestCutContext(t *testing.T) {
	long := strings.Repeat("alpha beta gamma ", 100) + "the jargon word here " + strings.Repeat("délta épsilon ", 100)
	got := CutContext(long, "jargon", 64)
	if len(got) > 64 || !strings.Contains(got, "jargon") || !utf8.ValidString(got) {
		t.Errorf("cut %q (%d bytes)", got, len(got))
	}
	if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") {
		t.Errorf("cut %q has surrounding space", got)
	}
	if got := CutContext("  short one ", "x", 64); got != "short one" {
		t.Errorf("short context %q", got)
	}
	// Not found: a prefix, valid UTF-8.
	got = CutContext(strings.Repeat("é", 100), "zz", 33)
	if len(got) > 33 || !utf8.ValidString(got) {
		t.Errorf("cut %q", got)
	}
}

func fill(t testing.TB, m *Memory, words, per int) {
	t.Helper()
	for i := range per {
		for w := range words {
			remember(t, m, fmt.Sprintf("word%d", w), fmt.Sprintf("sentence %d about word%d", i, w))
		}
	}
}

func TestPersistenceAcrossReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	o.MaxContexts = 5
	m := mustOpen(t, dir, o)
	fill(t, m, 20, 9)
	want := export(t, m)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v, %v; want 0700", st.Mode().Perm(), err)
	}
	m = mustOpen(t, dir, o)
	if got := export(t, m); got != want {
		t.Fatalf("after Close and Open:\n%s\nwant\n%s", got, want)
	}
	// Without Close (a crash): the log alone restores everything.
	fill(t, m, 25, 3)
	want = export(t, m)
	m.abandon()
	m = mustOpen(t, dir, o)
	if got := export(t, m); got != want {
		t.Fatal("after a crash the state differs")
	}
	m.Close()
}

func TestSnapshotsCompact(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	o.SnapshotEvery = 50
	m := mustOpen(t, dir, o)
	fill(t, m, 30, 20)
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	want := export(t, m)
	s := m.Stats()
	if s.Generation < 2 || s.SnapshotBytes == 0 {
		t.Errorf("after 600 records with SnapshotEvery=50: %+v", s)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 3 { // LOCK, one log, one snapshot
		t.Errorf("files after compaction: %v", names)
	}
	m.abandon()
	m = mustOpen(t, dir, o)
	if got := export(t, m); got != want {
		t.Fatal("state after snapshot and reopen differs")
	}
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	remember(t, m, "after", "after the clear")
	m.abandon()
	m = mustOpen(t, dir, o)
	if s := m.Stats(); s.Words != 1 {
		t.Errorf("after Clear and a crash: %d words, want 1", s.Words)
	}
	m.Close()
}

func TestLockedDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	defer m.Close()
	_, err := Open(dir, quietOptions())
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second Open: %v", err)
	}
	ro := quietOptions()
	ro.ReadOnly = true
	r := mustOpen(t, dir, ro)
	if err := r.Remember([]Observation{{Word: "a", Context: "b"}}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only Remember: %v", err)
	}
	r.Close()
	missing := mustOpen(t, filepath.Join(dir, "nope"), ro)
	if s := missing.Stats(); s.Words != 0 {
		t.Error("missing dir not empty")
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); !os.IsNotExist(err) {
		t.Error("read-only Open created the directory")
	}
}

// logFile returns the single log file in dir.
func logFile(t testing.TB, dir string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "log-*.amm"))
	if len(matches) != 1 {
		t.Fatalf("log files %v", matches)
	}
	return matches[0]
}

func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTornTail truncates the log at every byte offset of its last record:
// Open succeeds with exactly the earlier records, warns, and appends work.
func TestTornTail(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "mem")
	m := mustOpen(t, dir, quietOptions())
	fill(t, m, 4, 3)
	want := export(t, m) // state before the last record
	logPath := logFile(t, dir)
	st, _ := os.Stat(logPath)
	lastStart := st.Size()
	remember(t, m, "lastword", "the last record of the log")
	m.abandon()
	st, _ = os.Stat(logPath)
	end := st.Size()
	if end <= lastStart+recHeader {
		t.Fatalf("last record spans %d..%d", lastStart, end)
	}
	for cut := lastStart; cut < end; cut++ {
		d := filepath.Join(root, fmt.Sprintf("cut%d", cut))
		copyDir(t, dir, d)
		lp := filepath.Join(d, filepath.Base(logPath))
		if err := os.Truncate(lp, cut); err != nil {
			t.Fatal(err)
		}
		var wc warnCapture
		m, err := Open(d, wc.options())
		if err != nil {
			t.Fatalf("cut at %d: Open failed: %v", cut, err)
		}
		if got := export(t, m); got != want {
			t.Fatalf("cut at %d: state differs", cut)
		}
		if cut > lastStart && !strings.Contains(wc.buf.String(), "torn or corrupt tail") {
			t.Errorf("cut at %d: no warning, log: %s", cut, wc.buf.String())
		}
		remember(t, m, "next", "written after recovery")
		m.abandon()
		m = mustOpen(t, d, quietOptions())
		if c, _ := m.Contexts(nil, "next"); len(c) != 1 {
			t.Fatalf("cut at %d: record appended after recovery lost", cut)
		}
		m.Close()
	}
	// A flipped bit in the last record is caught by the checksum.
	d := filepath.Join(root, "flip")
	copyDir(t, dir, d)
	lp := filepath.Join(d, filepath.Base(logPath))
	b, _ := os.ReadFile(lp)
	b[end-3] ^= 0x10
	os.WriteFile(lp, b, 0o600)
	m = mustOpen(t, d, quietOptions())
	if got := export(t, m); got != want {
		t.Fatal("corrupt last record not dropped")
	}
	m.Close()
	// A torn header (crash right after creating the log).
	d = filepath.Join(root, "header")
	copyDir(t, dir, d)
	os.Truncate(filepath.Join(d, filepath.Base(logPath)), 5)
	m = mustOpen(t, d, quietOptions())
	remember(t, m, "x", "y z")
	m.Close()
	m = mustOpen(t, d, quietOptions())
	if s := m.Stats(); s.Words != 1 {
		t.Errorf("after a torn header: %+v", s)
	}
	m.Close()
}

// TestSyncPolicies: every policy persists across Close.
func TestSyncPolicies(t *testing.T) {
	for _, p := range []string{"always", "interval", "never"} {
		pol, err := ParseSyncPolicy(p)
		if err != nil || pol.String() != p {
			t.Fatalf("%s: %v", p, err)
		}
		dir := filepath.Join(t.TempDir(), p)
		o := quietOptions()
		o.Sync = pol
		o.SyncEvery = time.Millisecond
		m := mustOpen(t, dir, o)
		fill(t, m, 3, 3)
		time.Sleep(5 * time.Millisecond)
		want := export(t, m)
		m.Close()
		m = mustOpen(t, dir, o)
		if export(t, m) != want {
			t.Errorf("%s: state lost", p)
		}
		m.Close()
	}
	if _, err := ParseSyncPolicy("sometimes"); err == nil {
		t.Error("ParseSyncPolicy accepted sometimes")
	}
}

func TestValidate(t *testing.T) {
	o := DefaultOptions()
	o.MaxContexts = 0
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "MaxContexts") {
		t.Errorf("MaxContexts 0: %v", err)
	}
	if _, err := Open("", o); err == nil {
		t.Error("Open with invalid options succeeded")
	}
}

// fuzzSeeds returns record sequences of every kind, well-formed and
// corrupted: log records (offers, passages of one or several records, a
// passage without countable words) and snapshot records (words, the count
// table, the end record).
func fuzzSeeds() (logs, snapshots [][]byte) {
	var b []byte
	var start int
	b, start = beginRecord(b)
	b = appendKeep(b, "word", "a context")
	endRecord(b, start)
	b = appendDocFreqRecord(b, 5, wordDF{"df-word", 2}, wordDF{"word", 5})
	b = appendDocFreqRecord(b, 6) // a passage without countable words
	big := make([]wordDF, 7000)   // a passage of two records
	for i := range big {
		big[i] = wordDF{fmt.Sprintf("big%d", i), 1}
	}
	b = appendDocFreqRecord(b, 7, big...)
	logs = append(logs, b)
	// Corrupted: df > passages, df 0, an empty word, a passage count going
	// down, an absurd passage count, a truncated record, a flipped bit.
	logs = append(logs,
		appendDocFreqRecord(nil, 1, wordDF{"w", 2}),
		appendDocFreqRecord(nil, 1, wordDF{"w", 0}),
		appendDocFreqRecord(nil, 1, wordDF{"", 1}),
		appendDocFreqRecord(appendDocFreqRecord(nil, 3, wordDF{"w", 3}), 2, wordDF{"v", 1}),
		appendDocFreqRecord(nil, maxPassages+1, wordDF{"w", 1}),
	)
	small := appendDocFreqRecord(nil, 2, wordDF{"alpha", 2}, wordDF{"beta", 1})
	logs = append(logs, small[:len(small)-1])
	flipped := slices.Clone(small)
	flipped[len(flipped)-2] ^= 0x04
	logs = append(logs, flipped)

	var snap []byte
	snap, start = beginRecord(snap)
	snap = appendWordState(snap, "w", []string{"x", "y"})
	endRecord(snap, start)
	snap = appendDocFreqRecord(snap, 4, wordDF{"w", 3}, wordDF{"v", 4})
	snap, start = beginRecord(snap)
	snap = appendEnd(snap, 1, 2, 4, 2, 0)
	endRecord(snap, start)
	snapshots = append(snapshots, snap)
	// Corrupted: the end record counts other document frequencies, or fewer passages.
	for _, end := range [][4]uint64{{1, 2, 4, 3}, {1, 2, 3, 2}} {
		s := slices.Clone(snap[:len(snap)-len(appendEnd(nil, 1, 2, 4, 2, 0))-recHeader])
		s, start = beginRecord(s)
		s = appendEnd(s, end[0], end[1], end[2], end[3], 0)
		endRecord(s, start)
		snapshots = append(snapshots, s)
	}
	snapshots = append(snapshots, snap[:len(snap)-3])
	return logs, snapshots
}

// FuzzScanRecords: the log reader never panics, and what it accepts is a prefix.
func FuzzScanRecords(f *testing.F) {
	logs, snapshots := fuzzSeeds()
	for _, b := range append(logs, snapshots...) {
		f.Add(b)
		f.Add(b[:len(b)-1])
	}
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		good, err := scanRecords(data, fileVersion, func(r record) error {
			n++
			if (r.typ == recOffer || r.typ == recWord) && r.word == "" {
				t.Fatal("accepted an empty word")
			}
			if r.passages > maxPassages {
				t.Fatalf("accepted a passage count of %d", r.passages)
			}
			for _, x := range r.dfs {
				if x.word == "" || x.df == 0 || x.df > r.passages {
					t.Fatalf("accepted document frequency %+v with %d passages", x, r.passages)
				}
			}
			return nil
		})
		if good < 0 || good > len(data) || (err == nil) != (good == len(data)) {
			t.Fatalf("good %d of %d, err %v", good, len(data), err)
		}
		again, err2 := scanRecords(data[:good], fileVersion, func(record) error { return nil })
		if again != good || err2 != nil {
			t.Fatalf("prefix rescan %d, %v", again, err2)
		}
		// A version 1 file has no document frequencies (a version 3
		// record in it marks the file damaged: newerRecords).
		scanRecords(data, 1, func(r record) error {
			if !r.v3 && (r.typ == recDocFreq || r.passages != 0) {
				t.Fatalf("version 1 accepted counts: %+v", r)
			}
			return nil
		})
	})
}

// checkCounts fails unless no word is in more passages than were counted.
func checkCounts(t *testing.T, m *Memory) {
	t.Helper()
	n := m.Stats().Passages
	var b bytes.Buffer
	if err := m.Export(&b); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&b)
	for {
		var w ExportedWord
		if err := dec.Decode(&w); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if w.DocFreq < 0 || w.DocFreq > n {
			t.Fatalf("df(%q) = %d with %d passages", w.Word, w.DocFreq, n)
		}
	}
}

// FuzzOpenLog: whatever bytes follow the header of the log, Open succeeds,
// the counts are consistent, and the memory is writable and persistent afterwards.
func FuzzOpenLog(f *testing.F) {
	var b []byte
	var start int
	b, start = beginRecord(b)
	b = appendKeep(b, "word", "a context")
	endRecord(b, start)
	f.Add(b)
	f.Add(append(b, 0xff, 0xff, 0xff, 0x7f))
	f.Add([]byte("garbage"))
	logs, _ := fuzzSeeds()
	for _, l := range logs {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, fmt.Sprintf("log-%016x.amm", 1))
		if err := os.WriteFile(path, append(fileHeader(kindLog), data...), 0o600); err != nil {
			t.Fatal(err)
		}
		reopenProbe(t, dir)
	})
}

// FuzzOpenSnapshot: whatever bytes follow the header of the snapshot, Open
// succeeds, the counts are consistent, the log after the snapshot is applied
// when it fits, and the memory is writable and persistent afterwards.
func FuzzOpenSnapshot(f *testing.F) {
	_, snapshots := fuzzSeeds()
	for _, s := range snapshots {
		f.Add(s)
	}
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("snapshot-%016x.amm", 1)), append(fileHeader(kindSnapshot), data...), 0o600); err != nil {
			t.Fatal(err)
		}
		log := appendDocFreqRecord(fileHeader(kindLog), 5, wordDF{"v", 5}, wordDF{"u", 1})
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("log-%016x.amm", 1)), log, 0o600); err != nil {
			t.Fatal(err)
		}
		reopenProbe(t, dir)
	})
}

// reopenProbe opens dir (whatever it holds), checks the counts, writes a
// probe, crashes and checks the reopened memory reads the same.
func reopenProbe(t *testing.T, dir string) {
	t.Helper()
	m, err := Open(dir, quietOptions())
	if err != nil {
		t.Fatalf("Open refused: %v", err)
	}
	checkCounts(t, m)
	remember(t, m, "probe", "probe context")
	if err := m.CountPassage([]string{"probe", "v"}); err != nil {
		t.Fatal(err)
	}
	want := export(t, m)
	st := m.Stats()
	m.abandon()
	m, err = Open(dir, quietOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := export(t, m); got != want {
		t.Fatalf("reopen differs:\n%s\nwant\n%s", got, want)
	}
	if got := m.Stats(); got.Passages != st.Passages || got.DocFreqWords != st.DocFreqWords {
		t.Fatalf("reopen: %d passages, %d df words; want %d, %d", got.Passages, got.DocFreqWords, st.Passages, st.DocFreqWords)
	}
	checkCounts(t, m)
}

const crashEnv = "T2VAM_MEMORY_CRASH_CHILD"

// crashBigWords is the number of extra words of every crashBigEvery-th
// passage of TestCrashChild: enough for a passage of two log records.
const crashBigWords, crashBigEvery = 8000, 25

// TestCrashChild is the child of TestKill9: it writes observations with
// SyncAlways, counts a passage ("common", w(i mod 500), u(i), and every
// crashBigEvery-th time crashBigWords more words, spanning two log records)
// and prints "ack N" after each durable Remember and CountPassage, until killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("helper process of TestKill9")
	}
	o := quietOptions()
	o.Sync = SyncAlways
	o.SnapshotEvery = 97 // compactions happen during the run, and get killed too
	m, err := Open(dir, o)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		obs := []Observation{
			{Word: fmt.Sprintf("w%d", i%500), Context: fmt.Sprintf("durable context %d", i)},
			{Word: fmt.Sprintf("u%d", i), Context: fmt.Sprintf("unique %d", i)},
		}
		if err := m.Remember(obs); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		// Rounds restart i: the process id keeps each round's passages distinct.
		passage := []string{"common", obs[0].Word, obs[1].Word, fmt.Sprintf("pid%d", os.Getpid())}
		if i%crashBigEvery == 0 {
			for j := range crashBigWords {
				passage = append(passage, fmt.Sprintf("big%d", j))
			}
		}
		if err := m.CountPassage(passage); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Fprintf(out, "ack %d\n", i)
		out.Flush()
	}
}

// TestKill9 kills a writing child process at random moments and checks that
// every acknowledged observation and passage survives, that no passage is
// counted that was not logged, and that the counts are consistent.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := filepath.Join(t.TempDir(), "mem")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	acked := -1
	var passages int64 // counted before this round
	for round := range 3 {
		roundAcked := -1
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill comes at a random moment after the child's first
		// acknowledgement (process start-up time varies on a loaded machine),
		// or after 60 s if it never acknowledges anything.
		delay := time.Duration(20+rng.IntN(300)) * time.Millisecond
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Signal(syscall.SIGKILL) })
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "error") {
				t.Fatalf("child: %s", line)
			}
			if n, ok := strings.CutPrefix(line, "ack "); ok {
				i, _ := strconv.Atoi(n)
				if first {
					timer.Reset(delay)
				}
				first = false
				acked = max(acked, i)
				roundAcked = i
			}
		}
		timer.Stop()
		cmd.Wait()
		if acked < 0 {
			t.Fatal("child acknowledged nothing")
		}
		var wc warnCapture
		m, err := Open(dir, wc.options())
		if err != nil {
			t.Fatalf("round %d: reopen after kill -9: %v", round, err)
		}
		// Rounds restart the counter, so the contexts of round 0..acked hold.
		for i := 0; i <= acked; i++ {
			c, _ := m.Contexts(nil, fmt.Sprintf("u%d", i))
			if len(c) != 1 || c[0] != fmt.Sprintf("unique %d", i) {
				t.Fatalf("round %d: acknowledged observation %d lost (acked up to %d): %q", round, i, acked, c)
			}
		}
		// Passages 0..roundAcked were acknowledged; passage roundAcked+1 may
		// have been logged before the kill, no later one.
		p := m.Stats().Passages
		if n := p - passages; n < int64(roundAcked+1) || n > int64(roundAcked+2) {
			t.Fatalf("round %d: %d passages counted, %d acknowledged", round, n, roundAcked+1)
		}
		passages = p
		checkCrashCounts(t, m, round, acked)
		state := export(t, m)
		m.abandon()
		m = mustOpen(t, dir, quietOptions())
		if export(t, m) != state {
			t.Fatalf("round %d: the memory reads differently on a second open", round)
		}
		m.Close()
		t.Logf("round %d: killed after %v, %d acknowledged, warnings: %q", round, delay, acked+1, wc.buf.String())
	}
}

// checkCrashCounts checks the counts of TestCrashChild's passages after a crash:
// every passage holds "common" and one w word in its first record, so both
// add up to the passage count; no word is in more passages than were counted;
// the acknowledged u words are counted.
func checkCrashCounts(t *testing.T, m *Memory, round, acked int) {
	t.Helper()
	words := []string{"common"}
	for k := range 500 {
		words = append(words, fmt.Sprintf("w%d", k))
	}
	for i := 0; i <= acked; i++ {
		words = append(words, fmt.Sprintf("u%d", i))
	}
	for j := range crashBigWords {
		words = append(words, fmt.Sprintf("big%d", j))
	}
	df := make([]int64, len(words))
	p := m.DocFreqs(df, words)
	var sumW int64
	for i, w := range words {
		switch {
		case df[i] > p:
			t.Fatalf("round %d: df(%s) = %d > %d passages", round, w, df[i], p)
		case w[0] == 'w':
			sumW += df[i]
		case w[0] == 'u' && df[i] < 1:
			t.Fatalf("round %d: acknowledged passage of %s not counted", round, w)
		}
	}
	if df[0] != p || sumW != p {
		t.Fatalf("round %d: %d passages, but df(common) = %d and the w words add up to %d", round, p, df[0], sumW)
	}
}
