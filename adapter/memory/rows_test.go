package memory

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rowPassages returns n passages of words of a vocabulary (v0 … v29, row
// i; fresh0 and fresh1 are rows 30 and 31), words outside it, words repeated in a passage and too long words,
// with the row of each word: its vocabulary row, -1, or now and then -1 or
// a row out of range for a vocabulary word (a caller that does not know it).
func rowPassages(n int, seed uint64) (passages [][]string, rows [][]int32) {
	r := rand.New(rand.NewPCG(seed, 5))
	for range n {
		var words []string
		var ids []int32
		for range 3 + r.IntN(8) {
			switch k := r.IntN(10); {
			case k < 6:
				v := r.IntN(30)
				row := int32(v)
				switch r.IntN(12) {
				case 0:
					row = -1
				case 1:
					row = 1000 + int32(v)
				}
				words, ids = append(words, fmt.Sprintf("v%d", v)), append(ids, row)
			case k < 9:
				words, ids = append(words, fmt.Sprintf("other%d", r.IntN(40))), append(ids, -1)
			default:
				words, ids = append(words, strings.Repeat("long", 40)), append(ids, -1)
			}
		}
		passages, rows = append(passages, words), append(rows, ids)
	}
	return passages, rows
}

// sameDocFreqs checks that b, read with and without its table, gives the
// document frequencies a gives, for every word of passages.
func sameDocFreqs(t *testing.T, what string, a, b *Memory, tb *RowTable, passages [][]string, rows [][]int32) {
	t.Helper()
	for i, words := range passages {
		want, wantN := docFreqs(a, words...)
		got := make([]int64, len(words))
		gotN := b.DocFreqsRows(got, words, tb, rows[i])
		plain, plainN := docFreqs(b, words...)
		if gotN != wantN || plainN != wantN || !slices.Equal(got, want) || !slices.Equal(plain, want) {
			t.Fatalf("%s: %q: %v and %v (%d, %d passages) by row and by word, want %v (%d)",
				what, words, got, plain, gotN, plainN, want, wantN)
		}
	}
}

// TestRowTableCountsAsWords counts the same passages in two memories, one
// finding words by their rows, and checks that every document frequency and
// the export are the same, through a failed write taken back, a clear, a
// table of another memory and a restart.
func TestRowTableCountsAsWords(t *testing.T) {
	o := quietOptions()
	o.MaxDocFreqWords = 60 // some words are rejected
	o.SnapshotEvery = 50
	dirA, dirB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	a, b := mustOpen(t, dirA, o), mustOpen(t, dirB, o)
	tb := b.NewRowTable(32)
	scratch := mustOpen(t, "", o) // its table, filled, is not b's
	defer scratch.Close()
	other := scratch.NewRowTable(32)
	sp, sr := rowPassages(3, 99)
	if err := scratch.CountPassagesRows(sp, other, sr); err != nil {
		t.Fatal(err)
	}
	all, allRows := sp[:1], sr[:1]
	if err := a.CountPassages(all); err != nil {
		t.Fatal(err)
	}
	if err := b.CountPassagesRows(all, tb, allRows); err != nil {
		t.Fatal(err)
	}
	sameDocFreqs(t, "another memory's table", a, b, other, all, allRows)
	// A failed write takes the counters of the words it added out of the memory.
	fresh, freshRows := [][]string{{"fresh0", "v1"}, {"fresh1", "other1"}}, [][]int32{{30, 1}, {31, -1}}
	restoreA, restoreB := breakLog(t, a), breakLog(t, b)
	if a.CountPassages(fresh) == nil || b.CountPassagesRows(fresh, tb, freshRows) == nil {
		t.Fatal("a failed log write returned no error")
	}
	sameDocFreqs(t, "after a failed write", a, b, tb, fresh, freshRows)
	restoreA()
	restoreB()
	fresh, freshRows = fresh[:1], freshRows[:1]
	if err := a.CountPassages(fresh); err != nil {
		t.Fatal(err)
	}
	if err := b.CountPassagesRows(fresh, tb, freshRows); err != nil {
		t.Fatal(err)
	}
	all, allRows = append(all, fresh...), append(allRows, freshRows...)
	for round := range 6 {
		passages, rows := rowPassages(40, uint64(round))
		passages = append(passages, passages[:5]...) // resent passages count once
		rows = append(rows, rows[:5]...)
		all, allRows = append(all, passages...), append(allRows, rows...)
		for from := 0; from < len(passages); from += 7 {
			to := min(from+7, len(passages))
			if err := a.CountPassages(passages[from:to]); err != nil {
				t.Fatal(err)
			}
			if err := b.CountPassagesRows(passages[from:to], tb, rows[from:to]); err != nil {
				t.Fatal(err)
			}
		}
		sameDocFreqs(t, fmt.Sprintf("round %d", round), a, b, tb, all, allRows)
		sameDocFreqs(t, "another memory's table", a, b, other, all, allRows)
		if round == 4 {
			if err := a.Clear(); err != nil {
				t.Fatal(err)
			}
			if err := b.Clear(); err != nil {
				t.Fatal(err)
			}
			all, allRows = nil, nil
		}
	}
	if got, want := export(t, b), export(t, a); got != want {
		t.Fatalf("the memories differ:\n%s\nwant\n%s", got, want)
	}
	a.Close()
	b.Close()
	a, b = mustOpen(t, dirA, o), mustOpen(t, dirB, o)
	defer a.Close()
	defer b.Close()
	if got, want := export(t, b), export(t, a); got != want {
		t.Fatalf("the reopened memories differ:\n%s\nwant\n%s", got, want)
	}
	sameDocFreqs(t, "reopened", a, b, b.NewRowTable(32), all, allRows)
}
