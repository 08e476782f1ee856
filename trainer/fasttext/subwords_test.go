package fasttext

import (
	"bytes"
	"slices"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfasttext"
)

func openSynth(t *testing.T, sm testfasttext.Model) *Model {
	t.Helper()
	data := testfasttext.Bin(sm)
	m, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Subwords gives each word fastText's vector and each n-gram of the words
// kept its bucket's row, the n-grams held by more words first.
func TestSubwords(t *testing.T) {
	sm := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 1000, Words: []string{"</s>", "ab", "abc", "fé"},
		Counts: []int64{9, 5, 4, 3}}
	m := openSynth(t, sm)
	words, ngrams, err := m.Subwords(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(words.Words, []string{"ab", "abc", "fé"}) || !slices.Equal(words.Counts, []int64{5, 4, 3}) {
		t.Fatalf("words %v counts %v", words.Words, words.Counts)
	}
	v := make([]float32, 2)
	for i, w := range words.Words {
		if _, err := m.WordVector(v, w); err != nil || !slices.Equal(words.Row(int32(i)), v) {
			t.Errorf("%s: %v, WordVector %v (%v)", w, words.Row(int32(i)), v, err)
		}
	}
	// "<ab" is in two words; then by the summed counts: ab's n-grams (5), abc's (4), fé's (3).
	want := []string{"<ab", "ab>", "abc", "bc>", "<fé", "fé>"}
	if !slices.Equal(ngrams.Words, want) || !slices.Equal(ngrams.Counts, []int64{2, 1, 1, 1, 1, 1}) {
		t.Fatalf("n-grams %v counts %v, want %v", ngrams.Words, ngrams.Counts, want)
	}
	for i, g := range ngrams.Words {
		r, _ := m.NgramRow(g)
		if got := ngrams.Row(int32(i)); got[0] != testfasttext.Value(int(r), 0) || got[1] != testfasttext.Value(int(r), 1) {
			t.Errorf("n-gram %s: %v, want row %d", g, got, r)
		}
	}
	words, ngrams, err = m.Subwords(1, 0)
	if err != nil || words.Len() != 1 || !slices.Equal(ngrams.Words, []string{"<ab", "ab>"}) {
		t.Fatalf("Subwords(1): %v %v %v", words, ngrams, err)
	}
	words, ngrams, err = m.Subwords(0, 2)
	if err != nil || words.Len() != 3 || !slices.Equal(ngrams.Words, want[:2]) {
		t.Fatalf("Subwords(0, 2): %v %v %v", words, ngrams, err)
	}
	if r, _ := m.NgramRow("ab>"); ngrams.Row(1)[0] != testfasttext.Value(int(r), 0) {
		t.Errorf("ab>: %v, want row %d", ngrams.Row(1), r)
	}
	for _, n := range [][2]int{{-1, 0}, {0, -1}} {
		if _, _, err := m.Subwords(n[0], n[1]); err == nil {
			t.Errorf("Subwords(%d, %d): no error", n[0], n[1])
		}
	}
	sm.MaxN, sm.MinN = 0, 0
	if words, ngrams, err := openSynth(t, sm).Subwords(0, 0); err != nil || words.Len() != 3 || ngrams != nil {
		t.Errorf("a model without n-grams: %v %v %v", words, ngrams, err)
	}
}

// A cased model's words are kept as the tokens AM meets: a capitalised
// spelling gives the token its vector when it is the most frequent, every
// spelling its count; a word of two tokens is left out, and --max-words
// counts tokens.
func TestSubwordsCaseFolds(t *testing.T) {
	sm := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 1000,
		Words:  []string{"</s>", "Linux", "the", "The", "dog,", "linux", "Kube"},
		Counts: []int64{50, 9, 8, 7, 6, 5, 4}}
	m := openSynth(t, sm)
	words, ngrams, err := m.Subwords(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(words.Words, []string{"the", "linux", "kube"}) || !slices.Equal(words.Counts, []int64{15, 14, 4}) {
		t.Fatalf("words %v counts %v, want [the linux kube] [15 14 4]", words.Words, words.Counts)
	}
	v := make([]float32, 2)
	for i, spelling := range []string{"the", "Linux", "Kube"} {
		if _, err := m.WordVector(v, spelling); err != nil || !slices.Equal(words.Row(int32(i)), v) {
			t.Errorf("%s: %v, want the vector of %s %v (%v)", words.Words[i], words.Row(int32(i)), spelling, v, err)
		}
	}
	if !slices.Contains(ngrams.Words, "<li") || slices.Contains(ngrams.Words, "<Li") {
		t.Errorf("n-grams %v: want those of the tokens", ngrams.Words)
	}
	words, _, err = m.Subwords(2, 0)
	if err != nil || !slices.Equal(words.Words, []string{"the", "linux"}) || !slices.Equal(words.Counts, []int64{15, 14}) {
		t.Errorf("Subwords(2, 0): %v %v %v", words.Words, words.Counts, err)
	}
}

// --max-words keeps the most frequent tokens by the counts of all their
// spellings, written most frequent first: "x" (5 + 5) before "y" (9).
func TestSubwordsMaxWordsCountsEverySpelling(t *testing.T) {
	m := openSynth(t, testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 1000,
		Words: []string{"</s>", "y", "X", "x"}, Counts: []int64{20, 9, 5, 5}})
	words, _, err := m.Subwords(0, 0)
	if err != nil || !slices.Equal(words.Words, []string{"x", "y"}) || !slices.Equal(words.Counts, []int64{10, 9}) {
		t.Fatalf("Subwords(0, 0): %v %v %v, want [x y] [10 9]", words.Words, words.Counts, err)
	}
	words, _, err = m.Subwords(1, 0)
	if err != nil || !slices.Equal(words.Words, []string{"x"}) || !slices.Equal(words.Counts, []int64{10}) {
		t.Fatalf("Subwords(1, 0): %v %v %v, want [x] [10]", words.Words, words.Counts, err)
	}
}

// A model trained with -minn 0 has the n-grams of 1 character up (the lone
// '<' and '>' never), one trained with -minn above -maxn none: Subwords
// gives fastText's vectors of both, as fastText computes them.
func TestSubwordsNgramLengths(t *testing.T) {
	sm := testfasttext.Model{Dim: 2, MinN: 0, MaxN: 2, Bucket: 1000, Words: []string{"ab", "b"}, Counts: []int64{5, 4}}
	m := openSynth(t, sm)
	if m.MinN != 1 || m.MaxN != 2 {
		t.Fatalf("-minn 0 -maxn 2 read as %d…%d", m.MinN, m.MaxN)
	}
	words, ngrams, err := m.Subwords(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b", "b>", "<a", "a", "ab", "<b"} // b and b> in both words
	if !slices.Equal(ngrams.Words, want) {
		t.Errorf("n-grams %v, want %v", ngrams.Words, want)
	}
	v := make([]float32, 2)
	if _, err := m.WordVector(v, "ab"); err != nil || !slices.Equal(words.Row(0), v) {
		t.Errorf("ab: %v, WordVector %v (%v)", words.Row(0), v, err)
	}
	sm.MinN, sm.MaxN = 5, 3
	m = openSynth(t, sm)
	words, ngrams, err = m.Subwords(0, 0)
	if err != nil || ngrams != nil || m.MaxN != 0 {
		t.Fatalf("-minn 5 -maxn 3: n-grams %v, maxn %d, %v; want none", ngrams, m.MaxN, err)
	}
	if r := testfasttext.Value(0, 1); words.Row(0)[1] != r {
		t.Errorf("ab: %v, want its own row alone (%v in column 1)", words.Row(0), r)
	}
}
