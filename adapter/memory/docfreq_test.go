package memory

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// countPassages counts each text (split at spaces) as a passage.
func countPassages(t testing.TB, m *Memory, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if err := m.CountPassage(strings.Fields(text)); err != nil {
			t.Fatal(err)
		}
	}
}

// docFreqs returns the document frequencies of words and the passage count.
func docFreqs(m *Memory, words ...string) ([]int64, int64) {
	dst := make([]int64, len(words))
	n := m.DocFreqs(dst, words)
	return dst, n
}

func checkDocFreqs(t testing.TB, m *Memory, what string, passages int64, want map[string]int64) {
	t.Helper()
	words := make([]string, 0, len(want))
	for w := range want {
		words = append(words, w)
	}
	got, n := docFreqs(m, words...)
	if n != passages {
		t.Errorf("%s: %d passages, want %d", what, n, passages)
	}
	for i, w := range words {
		if got[i] != want[w] {
			t.Errorf("%s: df(%q) = %d, want %d", what, w, got[i], want[w])
		}
	}
}

func TestDocFreqCountsAndPersists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	m := mustOpen(t, dir, o)
	countPassages(t, m, "the package the library", "the tool", "a library of the tools", "")
	want := map[string]int64{"the": 3, "package": 1, "library": 2, "tool": 1, "tools": 1, "a": 1, "of": 1, "never": 0}
	checkDocFreqs(t, m, "counted", 4, want)
	if s := m.Stats(); s.Passages != 4 || s.DocFreqWords != 7 {
		t.Errorf("stats %+v: want 4 passages, 7 df words", s)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = mustOpen(t, dir, o)
	checkDocFreqs(t, m, "after Close and Open", 4, want)
	// A crash: the log alone restores the later passages.
	countPassages(t, m, "the end", "the")
	want["the"], want["end"] = 5, 1
	m.abandon()
	ro := o
	ro.ReadOnly = true
	r := mustOpen(t, dir, ro)
	checkDocFreqs(t, r, "read-only after a crash", 6, want)
	if err := r.CountPassage([]string{"x"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only CountPassage: %v", err)
	}
	r.Close()
	m = mustOpen(t, dir, o)
	checkDocFreqs(t, m, "after a crash", 6, want)

	// Export carries df, also for words without contexts; Clear forgets them.
	remember(t, m, "library", "a library of the tools")
	out := export(t, m)
	for _, line := range []string{
		`{"word":"library","contexts":["a library of the tools"],"df":2}`,
		`{"word":"the","contexts":[],"df":5}`,
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("export lacks %s:\n%s", line, out)
		}
	}
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	checkDocFreqs(t, m, "after Clear", 0, map[string]int64{"the": 0, "library": 0})
	m.abandon()
	m = mustOpen(t, dir, o)
	if s := m.Stats(); s.Passages != 0 || s.DocFreqWords != 0 || s.Words != 0 {
		t.Errorf("after Clear and reopen: %+v", s)
	}
	m.Close()
}

func TestDocFreqSnapshotsAndLargePassages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	o.SnapshotEvery = 7
	m := mustOpen(t, dir, o)
	for i := range 40 {
		countPassages(t, m, fmt.Sprintf("common w%d w%d", i, i%5))
		remember(t, m, fmt.Sprintf("w%d", i), fmt.Sprintf("common w%d", i))
	}
	// A passage too large for one record spans several.
	big := make([]string, 30000)
	for i := range big {
		big[i] = fmt.Sprintf("bigword%05d", i)
	}
	if err := m.CountPassage(append(big, "common")); err != nil {
		t.Fatal(err)
	}
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	countPassages(t, m, "common after") // in the log after the snapshot
	want := export(t, m)
	s := m.Stats()
	if s.Generation < 3 || s.Passages != 42 || s.DocFreqWords != 1+40+30000+1 {
		t.Errorf("stats %+v", s)
	}
	m.abandon()
	m = mustOpen(t, dir, o)
	if got := export(t, m); got != want {
		t.Fatal("state after snapshots and reopen differs")
	}
	checkDocFreqs(t, m, "after snapshots", 42, map[string]int64{"common": 42, "w3": 8, "w7": 1, "bigword29999": 1, "after": 1})
	m.Close()
}

func TestDocFreqCap(t *testing.T) {
	o := quietOptions()
	o.MaxDocFreqWords = 3
	o.MaxWordBytes = 8
	m := mustOpen(t, "", o)
	countPassages(t, m, "a b a", "b c d e", "toolongword a", "d")
	checkDocFreqs(t, m, "capped", 4, map[string]int64{"a": 2, "b": 2, "c": 1, "d": 0, "e": 0, "toolongword": 0})
	if s := m.Stats(); s.DocFreqWords != 3 || s.DocFreqRejected != 4 {
		t.Errorf("stats %+v: want 3 df words, 4 rejected (d twice, e, toolongword)", s)
	}
	m.Close()
	o.MaxDocFreqWords = 0
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "MaxDocFreqWords") {
		t.Errorf("Validate: %v", err)
	}
}

// TestDocFreqTornTail cuts the log inside the record of the last passage.
func TestDocFreqTornTail(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "mem")
	m := mustOpen(t, dir, quietOptions())
	countPassages(t, m, "alpha beta", "alpha gamma")
	want := export(t, m)
	logPath := logFile(t, dir)
	st, _ := os.Stat(logPath)
	lastStart := st.Size()
	countPassages(t, m, "alpha delta epsilon")
	m.abandon()
	st, _ = os.Stat(logPath)
	for _, cut := range []int64{lastStart + 3, lastStart + recHeader + 2, st.Size() - 1} {
		d := filepath.Join(root, fmt.Sprintf("cut%d", cut))
		copyDir(t, dir, d)
		if err := os.Truncate(filepath.Join(d, filepath.Base(logPath)), cut); err != nil {
			t.Fatal(err)
		}
		var wc warnCapture
		m, err := Open(d, wc.options())
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if got := export(t, m); got != want {
			t.Errorf("cut at %d: state differs:\n%s\nwant\n%s", cut, got, want)
		}
		logged := wc.buf.String()
		if !strings.Contains(logged, "torn or corrupt tail") || !strings.Contains(logged, filepath.Base(logPath)) ||
			!strings.Contains(logged, fmt.Sprintf("offset=%d", lastStart)) {
			t.Errorf("cut at %d: the warning does not name the file and offset %d: %s", cut, lastStart, logged)
		}
		countPassages(t, m, "alpha")
		m.Close()
		m = mustOpen(t, d, quietOptions())
		checkDocFreqs(t, m, "appended after recovery", 3, map[string]int64{"alpha": 3, "beta": 1, "delta": 0})
		m.Close()
	}
}

// writeV1 writes a memory directory as the format version 1 wrote it: a
// snapshot of generation 1 and a log of generation 2.
func writeV1(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	header := func(kind byte) []byte {
		h := fileHeader(kind)
		h[8] = 1
		return h
	}
	snap := header(kindSnapshot)
	var start int
	snap, start = beginRecord(snap)
	snap = appendWordStateV2(snap, "oldword", 2, []string{"an oldword context", "another oldword"})
	endRecord(snap, start)
	snap, start = beginRecord(snap)
	snap = append(snap, recEnd)
	snap = binary.AppendUvarint(snap, 1)
	snap = binary.AppendUvarint(snap, 2)
	endRecord(snap, start)
	log := header(kindLog)
	log, start = beginRecord(log)
	log = appendOffer(log, "logword", 1, 0, "a logword context")
	endRecord(log, start)
	for name, b := range map[string][]byte{"snapshot-0000000000000001.amm": snap, "log-0000000000000002.amm": log} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOldFormatOpens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	writeV1(t, dir)
	var wc warnCapture
	m, err := Open(dir, wc.options())
	if err != nil {
		t.Fatalf("open a version 1 memory: %v", err)
	}
	if c, _ := m.Contexts(nil, "oldword"); len(c) != 2 {
		t.Errorf("oldword contexts %q", c)
	}
	if c, _ := m.Contexts(nil, "logword"); len(c) != 1 {
		t.Errorf("logword contexts %q", c)
	}
	if s := m.Stats(); s.Passages != 0 || s.DocFreqWords != 0 {
		t.Errorf("a version 1 memory has document frequencies: %+v", s)
	}
	if !strings.Contains(wc.buf.String(), "without document frequencies") {
		t.Errorf("opening a version 1 memory is not logged: %s", wc.buf.String())
	}
	// New records go to a new version 2 log, never into the version 1 one.
	countPassages(t, m, "oldword new")
	if g := m.Stats().Generation; g != 3 {
		t.Errorf("generation %d after opening a version 1 log of generation 2, want 3", g)
	}
	old, err := os.ReadFile(filepath.Join(dir, "log-0000000000000002.amm"))
	if err != nil || old[8] != 1 {
		t.Fatalf("the version 1 log was changed: %v", err)
	}
	m.abandon()
	m = mustOpen(t, dir, quietOptions())
	checkDocFreqs(t, m, "after reopen", 1, map[string]int64{"oldword": 1, "new": 1})
	if s := m.Stats(); s.Words != 2 || s.Contexts != 3 {
		t.Errorf("after reopen: %+v", s)
	}
	if err := m.Close(); err != nil { // compacts into version 2 files
		t.Fatal(err)
	}
	var wc2 warnCapture
	m, err = Open(dir, wc2.options())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if strings.Contains(wc2.buf.String(), "without document frequencies") {
		t.Errorf("still reported as version 1 after compaction: %s", wc2.buf.String())
	}
	checkDocFreqs(t, m, "after compaction", 1, map[string]int64{"oldword": 1, "new": 1})
}

// TestNewerFormatSalvaged: a file of a version this build does not know is
// neither refused nor rewritten: what decodes is read, the file moves aside.
func TestNewerFormatSalvaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	b := fileHeader(kindLog)
	b[8] = fileVersion + 1
	var start int
	b, start = beginRecord(b)
	b = appendKeep(b, "kept", "a context of kept")
	endRecord(b, start)
	os.MkdirAll(dir, 0o700)
	p := filepath.Join(dir, "log-0000000000000001.amm")
	os.WriteFile(p, b, 0o600)
	m, err := Open(dir, quietOptions())
	if err != nil {
		t.Fatalf("a newer format: %v", err)
	}
	defer m.Close()
	if c, _ := m.Contexts(nil, "kept"); len(c) != 1 {
		t.Errorf("record of the newer-format file not salvaged: %q", c)
	}
	st := m.Stats()
	if len(st.Damaged) != 1 || !strings.Contains(st.Damaged[0].Problem, "unsupported memory file version") ||
		st.Damaged[0].MovedTo != filepath.Base(p)+damagedSuffix {
		t.Errorf("damage report %+v", st.Damaged)
	}
	if _, err := os.Stat(p + damagedSuffix); err != nil {
		t.Errorf("not moved aside: %v", err)
	}
}

func TestDocFreqRecordsInVersion1Refused(t *testing.T) {
	var b []byte
	var start int
	b, start = beginRecord(b)
	b = append(b, recDocFreq) // the version 2 layout
	b = binary.AppendUvarint(b, 2)
	b = appendString(b, "word")
	b = binary.AppendUvarint(b, 1)
	endRecord(b, start)
	if _, err := scanRecords(b, 1, func(record) error { return nil }); err == nil {
		t.Error("a document-frequency record was accepted in a version 1 file")
	}
	if err := newerRecords(1, true); err == nil {
		t.Error("version 3 records under a version 1 header not reported")
	}
	r, err := decodeRecord(b[recHeader:], 2)
	if err != nil || r.passages != 2 || len(r.dfs) != 1 || r.dfs[0] != (wordDF{"word", 1}) {
		t.Errorf("decode: %+v, %v", r, err)
	}
	// A document frequency above the passage count is corruption.
	b = b[:0]
	dw := docFreqWriter{passages: 1, start: -1}
	b = dw.add(b, "word", 2)
	b = dw.end(b)
	if _, err := decodeRecord(b[recHeader:], 2); err == nil {
		t.Error("df > passages accepted")
	}
}

func TestStatsJSONNames(t *testing.T) {
	m := mustOpen(t, "", quietOptions())
	defer m.Close()
	countPassages(t, m, "x y")
	b, _ := json.Marshal(m.Stats())
	for _, k := range []string{`"passages":1`, `"df_words":2`, `"df_rejected":0`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("stats JSON lacks %s: %s", k, b)
		}
	}
}

// TestClearIsAtomic: a Clear whose empty snapshot cannot be written changes
// nothing, in RAM or on disk, and the writes after it survive a crash with
// the counts consistent (before the fix the records after such a Clear went
// to a new log replayed on top of the old snapshot: 1 passage, df("the") 3).
func TestClearIsAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	m := mustOpen(t, dir, o)
	countPassages(t, m, "the old", "the older", "the oldest")
	remember(t, m, "old", "an old context")
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	before := export(t, m)
	// A directory where the snapshot's temporary file goes makes it fail.
	gen := m.Stats().Generation
	blocker := m.path(kindSnapshot, gen+1) + ".tmp"
	if err := os.Mkdir(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := m.Clear(); err == nil {
		t.Fatal("Clear succeeded without its snapshot")
	}
	if got := export(t, m); got != before {
		t.Fatalf("a failed Clear changed the memory:\n%s\nwant\n%s", got, before)
	}
	os.Remove(blocker)
	countPassages(t, m, "brand new")
	want := map[string]int64{"the": 3, "old": 1, "new": 1}
	checkDocFreqs(t, m, "after a failed Clear", 4, want)
	m.abandon()
	m = mustOpen(t, dir, o)
	checkDocFreqs(t, m, "after a failed Clear and a crash", 4, want)
	if c, _ := m.Contexts(nil, "old"); len(c) != 1 {
		t.Errorf("contexts after a failed Clear and a crash: %q", c)
	}
	// A Clear that succeeds is durable before anything is written after it.
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	countPassages(t, m, "fresh start")
	m.abandon()
	m = mustOpen(t, dir, o)
	checkDocFreqs(t, m, "after Clear, a passage and a crash", 1, map[string]int64{"the": 0, "fresh": 1, "old": 0})
	if s := m.Stats(); s.Words != 0 || s.DocFreqWords != 2 {
		t.Errorf("after Clear, a passage and a crash: %+v", s)
	}
	m.Close()
}

// TestDocFreqConcurrentReplay: passages counted by many goroutines at once
// (with log rotations and snapshots among them) are logged in the order they
// were applied, so the absolute records replay to exactly the state in RAM
// (a record "the=5" logged after "the=6" would replay to 5).
func TestDocFreqConcurrentReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	o.SnapshotEvery = 50
	m := mustOpen(t, dir, o)
	const workers, each = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for g := range workers {
		wg.Go(func() {
			for i := range each {
				words := []string{"the", fmt.Sprintf("g%d", g), fmt.Sprintf("i%d", i%7), fmt.Sprintf("p%d", i)}
				if err := m.CountPassage(words); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			if err := m.Snapshot(); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkDocFreqs(t, m, "in RAM", workers*each, map[string]int64{"the": workers * each, "g3": each})
	want := export(t, m)
	m.abandon()
	m = mustOpen(t, dir, o)
	defer m.Close()
	if got := export(t, m); got != want {
		t.Fatalf("replay differs from RAM:\n%s\nwant\n%s", got, want)
	}
	checkDocFreqs(t, m, "replayed", workers*each, map[string]int64{"the": workers * each, "g3": each})
}

// appendDocFreqRecord appends one recDocFreq record.
func appendDocFreqRecord(b []byte, passages uint64, dfs ...wordDF) []byte {
	dw := docFreqWriter{passages: passages, start: -1}
	for _, x := range dfs {
		b = dw.add(b, x.word, x.df)
	}
	if dw.records == 0 {
		var start int
		b, start = beginRecord(b)
		b = append(b, recDocFreq3)
		b = binary.AppendUvarint(b, passages)
		b = binary.AppendUvarint(b, 0) // no passage hash
		endRecord(b, start)
		return b
	}
	return dw.end(b)
}

// TestDocFreqReplayChecks: a record whose passage count goes down (the counts
// of two histories mixed) or whose count is absurd is refused with an error
// naming the file and offset, never df > N, and the intact records after it
// are still read; words CountPassage would not count are not loaded either.
func TestDocFreqReplayChecks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b := fileHeader(kindLog)
	b = appendDocFreqRecord(b, 5, wordDF{"the", 5}, wordDF{strings.Repeat("x", 65), 1}, wordDF{"bad\xff", 1})
	good := len(b)
	b = appendDocFreqRecord(b, 1, wordDF{"new", 1})
	b = appendDocFreqRecord(b, 6, wordDF{"the", 6})
	path := filepath.Join(dir, "log-0000000000000001.amm")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var wc warnCapture
	m, err := Open(dir, wc.options())
	if err != nil {
		t.Fatal(err)
	}
	checkDocFreqs(t, m, "a passage count going down", 6, map[string]int64{"the": 6, "new": 0})
	if s := m.Stats(); s.DocFreqWords != 1 {
		t.Errorf("loaded %d document frequencies, want 1 (a too long and an invalid word skipped)", s.DocFreqWords)
	}
	if w := wc.buf.String(); !strings.Contains(w, "passage count 1 after 5") || !strings.Contains(w, fmt.Sprintf("offset %d", good)) ||
		!strings.Contains(w, filepath.Base(path)) {
		t.Errorf("warning does not name the problem, file and offset %d: %s", good, w)
	}
	m.Close()

	rec := appendDocFreqRecord(nil, maxPassages+1)
	if _, err := decodeRecord(rec[recHeader:], 2); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("passage count 2^62+1: %v", err)
	}
	rec = appendEnd(nil, 0, 0, 1<<63, 0, 0)
	if _, err := decodeRecord(rec, 2); err == nil {
		t.Error("end record with passage count 2^63 accepted")
	}
}

// breakLog makes m's next log write fail (a read-only handle in place of the
// log, and no repair for a second); the returned func puts the log back.
func breakLog(t *testing.T, m *Memory) (restore func()) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	good := m.logFile
	ro, err := os.Open(good.Name())
	if err != nil {
		t.Fatal(err)
	}
	m.logFile = ro
	return func() {
		m.mu.Lock()
		m.logFile, m.lastRepair = good, time.Time{}
		m.mu.Unlock()
		ro.Close()
	}
}

// TestFailedCountIsTakenBack: passages whose log write fails are not
// counted (the error means "not counted"), so a retry once the log is
// writable again counts them once, in RAM and after a restart.
func TestFailedCountIsTakenBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	if err := m.CountPassage([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	before := m.Stats()
	restore := breakLog(t, m)
	batch := [][]string{{"a", "c"}, {"c", "c", "d"}, {}}
	if err := m.CountPassages(batch); err == nil {
		t.Fatal("a failed log write returned no error")
	}
	want := map[string]int64{"a": 1, "b": 1, "c": 0, "d": 0}
	checkDocFreqs(t, m, "after the failed write", 1, want)
	if s := m.Stats(); s.Passages != before.Passages || s.DocFreqWords != before.DocFreqWords || s.DocFreqRejected != before.DocFreqRejected {
		t.Errorf("stats after the failed write %+v, want the counts of %+v", s, before)
	}
	restore()
	if err := m.WriteErr(); err != nil {
		t.Fatalf("log not repaired: %v", err)
	}
	if err := m.CountPassages(batch); err != nil {
		t.Fatal(err)
	}
	want = map[string]int64{"a": 2, "b": 1, "c": 2, "d": 1}
	checkDocFreqs(t, m, "after the retry", 4, want)
	// The next passage after a take-back counts its words (their last
	// passage was reset), and everything survives a restart.
	if err := m.CountPassage([]string{"c", "e"}); err != nil {
		t.Fatal(err)
	}
	want["c"], want["e"] = 3, 1
	checkDocFreqs(t, m, "after one more passage", 5, want)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = mustOpen(t, dir, quietOptions())
	defer m.Close()
	checkDocFreqs(t, m, "after a restart", 5, want)
}

// TestCollectionCountsRefuseBeforeCounting: when the collection's counts
// cannot be written, CountPassages refuses before the shared counts count
// anything, so a retry does not count the passages twice there.
func TestCollectionCountsRefuseBeforeCounting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	shared := mustOpen(t, dir, o)
	defer shared.Close()
	cs := NewCollections(dir, o, 4)
	defer cs.Close()
	coll, err := cs.Get("Books")
	if err != nil {
		t.Fatal(err)
	}
	cc := CollectionCounts{Collection: coll, Shared: shared}
	restore := breakLog(t, coll)
	if err := coll.CountPassage([]string{"x"}); err == nil {
		t.Fatal("the broken collection log accepted a passage")
	}
	coll.mu.Lock()
	coll.lastRepair = time.Now() // no repair for a second: the disk is still full
	coll.mu.Unlock()
	if err := cc.CountPassages([][]string{{"a"}, {"a", "b"}}); err == nil {
		t.Fatal("CountPassages with a failed collection log returned no error")
	}
	// A learn with contexts but no passages counts nothing, so it does not fail.
	if err := cc.CountPassages(nil); err != nil {
		t.Errorf("CountPassages of no passages with a failed collection log: %v", err)
	}
	checkDocFreqs(t, shared, "shared counts after the refusal", 0, map[string]int64{"a": 0, "b": 0})
	restore()
	if err := cc.CountPassages([][]string{{"a"}, {"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	for what, m := range map[string]*Memory{"shared": shared, "collection": coll} {
		checkDocFreqs(t, m, what+" counts after the retry", 2, map[string]int64{"a": 2, "b": 1, "x": 0})
	}
}

// TestFailedSyncKeepsCounts: with SyncAlways, a good write whose fsync fails
// returns the error but keeps its passages counted (documented: they cannot
// be taken back once other writers may have appended behind them), and the
// memory refuses further writes until it is repaired.
func TestFailedSyncKeepsCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := quietOptions()
	o.Sync = SyncAlways
	m := mustOpen(t, dir, o)
	// A pipe in place of the log: the write succeeds, the fsync fails (EINVAL).
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m.mu.Lock()
	good := m.logFile
	m.logFile, m.lastRepair = w, time.Now()
	m.mu.Unlock()
	if err := m.CountPassages([][]string{{"a"}, {"a", "b"}}); err == nil || !strings.Contains(err.Error(), "fsync") {
		t.Fatalf("a failed fsync returned %v, want its error", err)
	}
	checkDocFreqs(t, m, "after the failed fsync", 2, map[string]int64{"a": 2, "b": 1})
	if err := m.CountPassage([]string{"c"}); err == nil {
		t.Error("a write after the failed fsync was accepted before any repair")
	}
	m.mu.Lock()
	m.logFile = good
	m.mu.Unlock()
	w.Close()
	m.abandon() // the pipe took the records: close without cutting the real log
}

// TestWriteErrHealthyIsRead: WriteErr of a healthy memory takes only the
// read lock, so it answers while readers hold it (it asks before every
// count on the import path).
func TestWriteErrHealthyIsRead(t *testing.T) {
	m := mustOpen(t, filepath.Join(t.TempDir(), "mem"), quietOptions())
	defer m.Close()
	m.mu.RLock() // a reader
	done := make(chan error, 1)
	go func() { done <- m.WriteErr() }()
	select {
	case err := <-done:
		m.mu.RUnlock()
		if err != nil {
			t.Errorf("WriteErr of a healthy memory: %v", err)
		}
	case <-time.After(10 * time.Second):
		m.mu.RUnlock()
		<-done
		t.Error("WriteErr of a healthy memory waited for a reader (took the write lock)")
	}
}
