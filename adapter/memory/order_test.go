package memory

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// orderDocs returns documents: each a passage (its tokens) and the
// observations of its rare words.
func orderDocs(n int) (passages [][]string, obs [][]Observation) {
	for i := range n {
		text := fmt.Sprintf("the term%d and term%d appear in document %d with jargon", i%37, i%11, i)
		passages = append(passages, strings.Fields(text))
		obs = append(obs, []Observation{
			{Word: fmt.Sprintf("term%d", i%37), Context: text},
			{Word: fmt.Sprintf("term%d", i%11), Context: text},
			{Word: "jargon", Context: text},
		})
	}
	return passages, obs
}

// importDocs imports the documents in the order given, each as a learn
// request would: its observations, then its passage.
func importDocs(t *testing.T, m *Memory, order []int, passages [][]string, obs [][]Observation) {
	t.Helper()
	for _, i := range order {
		if err := m.Remember(obs[i]); err != nil {
			t.Fatal(err)
		}
		if err := m.CountPassage(passages[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOrderIndependent: two memories that import the same documents in
// different orders, one of them with every third document resent, hold the
// same memory byte for byte, in RAM and after a crash and a replay.
func TestOrderIndependent(t *testing.T) {
	passages, obs := orderDocs(400)
	o := quietOptions()
	o.MaxContexts = 4
	o.SnapshotEvery = 97
	forward := make([]int, len(passages))
	for i := range forward {
		forward[i] = i
	}
	shuffled := rand.New(rand.NewPCG(1, 2)).Perm(len(passages))
	for i := 0; i < len(passages); i += 3 { // retries and duplicates
		shuffled = append(shuffled, shuffled[i])
	}
	a := mustOpen(t, filepath.Join(t.TempDir(), "a"), o)
	b := mustOpen(t, filepath.Join(t.TempDir(), "b"), o)
	importDocs(t, a, forward, passages, obs)
	importDocs(t, b, shuffled, passages, obs)
	want := export(t, a)
	if got := export(t, b); got != want {
		t.Fatalf("memories differ:\n%s\nwant\n%s", got, want)
	}
	if sa, sb := a.Stats(), b.Stats(); sa.Passages != 400 || sb.Passages != 400 || sa.Contexts != sb.Contexts {
		t.Errorf("stats %+v and %+v", sa, sb)
	}
	dirB := b.Dir()
	b.abandon()
	b = mustOpen(t, dirB, o)
	importDocs(t, b, forward[:50], passages, obs) // resent after a restart
	if got := export(t, b); got != want {
		t.Fatalf("replayed and resent memory differs:\n%s\nwant\n%s", got, want)
	}
	a.Close()
	b.Close()
}

// TestPassageCountedOnce: a passage resent counts once while its hash is
// among the MaxPassageHashes most recent; an older one counts again.
func TestPassageCountedOnce(t *testing.T) {
	o := quietOptions()
	o.MaxPassageHashes = 3
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, o)
	countPassages(t, m, "a x", "b x", "a x", "c x")
	checkDocFreqs(t, m, "resent", 3, map[string]int64{"x": 3, "a": 1})
	if err := m.CountPassages([][]string{{"d", "x"}, {"d", "x"}}); err != nil { // one batch
		t.Fatal(err)
	}
	checkDocFreqs(t, m, "twice in a batch", 4, map[string]int64{"x": 4, "d": 1})
	// "a x" was the oldest of 4 and is forgotten: it counts again.
	countPassages(t, m, "c x", "a x")
	checkDocFreqs(t, m, "forgotten", 5, map[string]int64{"x": 5, "a": 2})
	if s := m.Stats(); s.PassageHashes != 3 {
		t.Errorf("%d passage hashes kept, want 3", s.PassageHashes)
	}
	m.abandon()
	m = mustOpen(t, dir, o) // the log restores the hashes
	countPassages(t, m, "a x", "d x")
	checkDocFreqs(t, m, "replayed", 5, map[string]int64{"x": 5, "a": 2})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = mustOpen(t, dir, o) // and so does the snapshot
	countPassages(t, m, "a x", "d x", "c x")
	checkDocFreqs(t, m, "from the snapshot", 5, map[string]int64{"x": 5, "a": 2})
	m.Close()
}

// TestFormat2Converts opens testdata/format2, a memory (a snapshot and a log
// with records after it) written in format version 2: every context it
// stored is offered to the bottom-k, the counts are kept, and the next
// snapshot is written in the current format.
func TestFormat2Converts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	copyDir(t, "testdata/format2", dir)
	o := quietOptions()
	o.MaxContexts = 4
	m := mustOpen(t, dir, o)
	ref := mustOpen(t, "", o)
	remember(t, ref, "jargon", "snapshot context 5 of jargon", "snapshot context 1 of jargon",
		"snapshot context 4 of jargon", "snapshot context 6 of jargon")
	remember(t, ref, "late", "a late word in the log")
	remember(t, ref, "rare", "a rare sentence")
	for _, w := range []string{"jargon", "late", "rare"} {
		got, _ := m.Contexts(nil, w)
		want, _ := ref.Contexts(nil, w)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %q, want %q", w, got, want)
		}
	}
	checkDocFreqs(t, m, "converted", 3, map[string]int64{"jargon": 2, "the": 3, "late": 1, "rare": 1})
	want := export(t, m)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, e := range mustReadDir(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, e))
		if err != nil || len(b) < headerSize || b[8] != fileVersion {
			t.Errorf("%s: not rewritten in version %d (%v)", e, fileVersion, err)
		}
	}
	m = mustOpen(t, dir, o)
	if got := export(t, m); got != want {
		t.Errorf("reopened:\n%s\nwant\n%s", got, want)
	}
	m.Close()
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".amm") {
			names = append(names, e.Name())
		}
	}
	return names
}
