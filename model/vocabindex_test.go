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
