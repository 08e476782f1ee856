package model

import (
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestSplitAtPageEnd splits texts of every length up to 300 bytes that end
// where a page ends, the next page unreadable, and looks their words up:
// the block scanner's 64-byte loads (AVX2 or SWAR, whichever Block runs
// here) and the keys loaded from the text must read nothing past its end (a
// load past it faults). The words and ids must
// be those of the same text elsewhere.
func TestSplitAtPageEnd(t *testing.T) {
	ps := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[ps:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	var vocab []string
	for n := 1; n <= 30; n++ {
		vocab = append(vocab, strings.Repeat("a", n), strings.Repeat("ba", n)[:n])
	}
	e, err := NewEmbeddings(1, vocab, make([]float32, len(vocab)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	alphabets := []string{"ab ", "aaaaaB.\n ", "ab a.é\xff", "a"} // words up to the end, long words, non-ASCII
	for n := range 301 {
		for _, abc := range alphabets {
			b := mem[ps-n : ps]
			for k := range b {
				b[k] = abc[rng.IntN(len(abc))]
			}
			text := unsafe.String(unsafe.SliceData(b), n)
			got := Split{Vocab: e}
			DefaultTokenizer().AppendSplit(&got, text)
			want := Split{Vocab: e}
			DefaultTokenizer().AppendSplit(&want, strings.Clone(text)+"  "[:n%2]) // in the heap, maybe with room after it
			if !slices.Equal(got.Tokens, want.Tokens) || !slices.Equal(got.IDs, want.IDs) {
				t.Fatalf("%q at a page end: %q %v, elsewhere %q %v", text, got.Tokens, got.IDs, want.Tokens, want.IDs)
			}
			if blocks := blockSplit(DefaultTokenizer(), text); !slices.Equal(blocks.Tokens, want.Tokens) { // by blocks on any CPU
				t.Fatalf("%q at a page end: by blocks %q, elsewhere %q", text, blocks.Tokens, want.Tokens)
			}
		}
	}
}
