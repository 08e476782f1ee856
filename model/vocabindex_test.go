package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestVocabIndexAgreesWithMap checks the vocabulary index against a Go map on
// words of every length around the inline limit, words that are prefixes of
// one another, and absent words.
func TestVocabIndexAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var words []string
	want := map[string]int32{}
	add := func(w string) {
		if _, dup := want[w]; !dup {
			want[w] = int32(len(words))
			words = append(words, w)
		}
	}
	for n := 1; n <= 40; n++ {
		add(strings.Repeat("a", n)) // each a prefix of the next
		add(strings.Repeat("é", n))
	}
	for n := 20; n <= 40; n++ { // the same first 24 bytes and length, another tail
		add(strings.Repeat("a", n-1) + "b")
		add(strings.Repeat("a", n-2) + "ba")
	}
	for range 5000 {
		b := make([]byte, 1+rng.IntN(30))
		for i := range b {
			b[i] = byte('a' + rng.IntN(4))
		}
		add(string(b))
	}
	dim := 1
	e, err := NewEmbeddings(dim, words, make([]float32, len(words)*dim), nil)
	if err != nil {
		t.Fatal(err)
	}
	for w, id := range want {
		if got, ok := e.ID(w); !ok || got != id {
			t.Fatalf("ID(%q) = %d, %v; want %d, true", w, got, ok, id)
		}
	}
	absent := []string{"", "b", "\x00", "a\x00", strings.Repeat("a", 41), strings.Repeat("a", 23) + "\x00", strings.Repeat("a", 8) + "\x00", strings.Repeat("a", 24) + "\x00", strings.Repeat("a", 30) + "c", "\x00a", "ab" + strings.Repeat("c", 30)}
	for range 5000 {
		absent = append(absent, fmt.Sprintf("%dx", rng.IntN(1e6)))
	}
	for _, w := range absent {
		if _, in := want[w]; in {
			continue
		}
		if got, ok := e.ID(w); ok {
			t.Fatalf("ID(%q) = %d, true; want absent", w, got)
		}
	}
}

// TestVocabIndexDuplicate checks that duplicates are refused with both
// entries named, for inline and long words.
func TestVocabIndexDuplicate(t *testing.T) {
	long := strings.Repeat("x", 30)
	for _, words := range [][]string{{"a", "b", "a"}, {long, "b", long}} {
		_, err := NewEmbeddings(1, words, make([]float32, 3), nil)
		if err == nil || !strings.Contains(err.Error(), "entries 0 and 2") {
			t.Errorf("%q: err = %v, want duplicate entries 0 and 2", words, err)
		}
	}
}

// BenchmarkVocabLookup looks up passages of 50 words drawn from the 20,000
// most frequent of a 74,504-word vocabulary (the default model's size), ns
// per passage.
func BenchmarkVocabLookup(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	var words []string
	for len(words) < 74_504 {
		w := make([]byte, 2+rng.IntN(7)+rng.IntN(7))
		for i := range w {
			w[i] = byte('a' + rng.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			words = append(words, string(w))
		}
	}
	e, err := NewEmbeddings(1, words, make([]float32, len(words)), nil)
	if err != nil {
		b.Fatal(err)
	}
	passages := make([][]string, 1024)
	for i := range passages {
		for range 50 {
			passages[i] = append(passages[i], words[rng.IntN(20_000)])
		}
	}
	var sink int32
	for i := 0; b.Loop(); i++ {
		for _, w := range passages[i%len(passages)] {
			id, _ := e.ID(w)
			sink += id
		}
	}
	_ = sink
}

// checkAppendIDs looks every word of words up with appendIDs, as substrings
// of text and as strings of their own, and compares with lookup.
func checkAppendIDs(t *testing.T, x *vocabIndex, words []string, text string) {
	t.Helper()
	got := x.appendIDs([]int32{7}, words, text) // appends after what dst holds
	if len(got) != len(words)+1 || got[0] != 7 {
		t.Fatalf("appendIDs returned %d ids (first %d) for %d words", len(got), got[0], len(words))
	}
	for k, w := range words {
		want, ok := x.lookup(w)
		if !ok {
			want = -1
		}
		if got[k+1] != want {
			t.Fatalf("appendIDs: %q (word %d of %q) has id %d, lookup %d", w, k, text, got[k+1], want)
		}
	}
}

// TestAppendIDsMatchesLookup checks appendIDs against lookup for every word
// of a vocabulary with words of every length around the inline limit (and
// non-ASCII ones), each at every place in a text that matters (far from its
// end, where the key is loaded from the text, and in its last 24 bytes,
// where it is not), and for absent words: words that are a present word's
// prefix, extension or neighbour in a longer text.
func TestAppendIDsMatchesLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var words []string
	seen := map[string]bool{}
	for len(words) < 20000 {
		b := make([]byte, 1+rng.IntN(40))
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789é"[rng.IntN(37)]
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	e, err := NewEmbeddings(1, words, make([]float32, len(words)), nil)
	if err != nil {
		t.Fatal(err)
	}
	x := e.index
	for start := 0; start < len(words); start += 50 {
		batch := words[start:min(len(words), start+50)]
		text := strings.Join(batch, " ")
		var inText []string // the words as substrings of text
		for _, w := range batch {
			i := strings.Index(text, w)
			inText = append(inText, text[i:i+len(w)])
		}
		checkAppendIDs(t, x, inText, text)
		checkAppendIDs(t, x, batch, text) // not substrings of text: keyOf
		var absent []string
		for _, w := range batch {
			absent = append(absent, w+"q", w[:len(w)-1]+"\x00")
		}
		checkAppendIDs(t, x, absent, strings.Join(absent, " "))
		// A word followed by more word bytes in the text: only its own
		// bytes count.
		long := strings.Join(batch, "")
		var prefixes []string
		for _, w := range batch {
			j := strings.Index(long, w)
			prefixes = append(prefixes, long[j:j+len(w)], long[j:j+max(1, len(w)/2)])
		}
		checkAppendIDs(t, x, prefixes, long)
	}
	checkAppendIDs(t, x, nil, "")
	checkAppendIDs(t, x, []string{""}, "")
}

// FuzzAppendIDs checks appendIDs against lookup on the words of any text
// (split at spaces, so that they are substrings of it) over a vocabulary of
// words of every length.
func FuzzAppendIDs(f *testing.F) {
	var words []string
	for n := 1; n <= 40; n++ {
		words = append(words, strings.Repeat("a", n), strings.Repeat("b", n-1)+"c")
	}
	e, err := NewEmbeddings(1, words, make([]float32, len(words)), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("a aa aaa bc " + strings.Repeat("a", 25) + " c")
	f.Add(strings.Repeat("a", 23) + " " + strings.Repeat("a", 24))
	f.Fuzz(func(t *testing.T, text string) {
		var toks []string
		for i := 0; i < len(text); {
			j := strings.IndexByte(text[i:], ' ')
			if j < 0 {
				j = len(text) - i
			}
			toks = append(toks, text[i:i+j])
			i += j + 1
		}
		checkAppendIDs(t, e.index, toks, text)
	})
}

// TestAppendIDsOneByteOff looks up, in a table of a single word (8 slots, so
// that many absent words start at the word's slot), every word that differs
// from it in one byte, for words of every length around the inline limit:
// each part of a key must be compared.
func TestAppendIDsOneByteOff(t *testing.T) {
	for n := 1; n <= 40; n++ {
		word := strings.Repeat("k", n)
		e, err := NewEmbeddings(1, []string{word}, make([]float32, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		var near []string
		for i := range n {
			for _, c := range "abcdefghij" {
				b := []byte(word)
				b[i] = byte(c)
				near = append(near, string(b))
			}
		}
		near = append(near, word, word+"k", word[:n-1], word+"\x00", word+"\x00\x00")
		text := strings.Join(near, " ")
		var inText []string
		for at := 0; at < len(text); {
			j := strings.IndexByte(text[at:], ' ')
			if j < 0 {
				j = len(text) - at
			}
			inText = append(inText, text[at:at+j])
			at += j + 1
		}
		checkAppendIDs(t, e.index, inText, text)
	}
}
