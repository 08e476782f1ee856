package vectorizer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestRAMDocFreqMatchesMemory counts the same passages in the vectorizer's
// RAM counter (by base row and by word) and in a memory.Memory in RAM, with
// a cap on the distinct words, and compares every document frequency.
func TestRAMDocFreqMatchesMemory(t *testing.T) {
	v := newVectorizer(t, nil)
	const maxWords = 40
	opts := memory.DefaultOptions()
	opts.MaxDocFreqWords = maxWords
	mem := openRAM(t, opts)
	// One counter per vectorizer: the counts of base words live in its rows.
	byRow, byWord, fused := v.ram, newVectorizer(t, nil).ram, newVectorizer(t, nil).ram
	byRow.maxWords, byWord.maxWords, fused.maxWords = maxWords, maxWords, maxWords
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := []string{strings.Repeat("x", opts.MaxWordBytes+1), "unseen\xff"}
	for i := range 30 {
		vocab = append(vocab, testmodel.FrequentWord(i), testmodel.RareWord(i), fmt.Sprintf("oov%d", i))
	}
	o := DefaultOptions()
	var all []string
	drawn := map[string]bool{} // the memory counts a passage of the same tokens once
	for range 200 {
		var words []string
		for words == nil || drawn[strings.Join(words, " ")] {
			words = make([]string, 1+rng.IntN(12))
			for i := range words {
				words[i] = vocab[rng.IntN(len(vocab))]
			}
		}
		drawn[strings.Join(words, " ")] = true
		all = append(all, words...)
		info := make([]tokInfo, len(words))
		for i, w := range words {
			info[i] = v.classify(w, &o)
		}
		byRow.countIDs(words, info)
		// countRead gives what counting, then reading this passage gives.
		read, wantRead := make([]int64, len(words)), make([]int64, len(words))
		readN := fused.countRead(read, words, info)
		if n := byRow.docFreqIDs(wantRead, words, info); n != readN || !slices.Equal(read, wantRead) {
			t.Fatalf("countRead(%q): %d passages, dfs %v; counting, then reading: %d, %v", words, readN, read, n, wantRead)
		}
		if err := byWord.CountPassage(words); err != nil {
			t.Fatal(err)
		}
		if err := mem.CountPassage(words); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	want := make([]int64, len(all))
	got := make([]int64, len(all))
	info := make([]tokInfo, len(all))
	for i, w := range all {
		info[i] = v.classify(w, &o)
	}
	wantN := mem.DocFreqs(want, all)
	counted := 0
	for i := range want {
		if want[i] > 0 {
			counted++
		}
	}
	if counted != maxWords {
		t.Fatalf("memory counted %d distinct words, want the cap %d (test too weak)", counted, maxWords)
	}
	if n := byRow.docFreqIDs(got, all, info); n != wantN || !slices.Equal(got, want) {
		t.Fatalf("by row: %d passages, dfs %v; memory: %d, %v", n, got, wantN, want)
	}
	if n := byWord.DocFreqs(got, all); n != wantN || !slices.Equal(got, want) {
		t.Fatalf("by word: %d passages, dfs %v; memory: %d, %v", n, got, wantN, want)
	}
}

// classify says which source a word's vector comes from under o.
func (v *Vectorizer) classify(word string, o *Options) tokInfo {
	id, ok := v.base.ID(word)
	if !ok {
		id = -1
	}
	return v.classifyID(id, o)
}

// TestRowMetaSize checks that a row's metadata and document frequency fill
// half a cache line, so that a row never straddles two.
func TestRowMetaSize(t *testing.T) {
	if s := unsafe.Sizeof(rowMeta{}); s != 32 {
		t.Fatalf("rowMeta is %d bytes, want 32", s)
	}
}
