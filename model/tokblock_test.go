package model

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refSplit is the rune-by-rune scan over the whole text (no blocks): the
// definition the block scanner must match.
func refSplit(tk Tokenizer, text string) Split {
	return splitWith(tk, text, func(st *tokState) { st.runes(text, 0, len(text)) })
}

// blockSplit is AppendSplit by blocks whatever the CPU (AppendSplit scans by
// blocks only where asciiscan.Fast holds).
func blockSplit(tk Tokenizer, text string) Split {
	return splitWith(tk, text, func(st *tokState) { st.scanBlocks(text) })
}

// splitWith is AppendSplit (without a vocabulary) with scan as the scan.
func splitWith(tk Tokenizer, text string, scan func(*tokState)) Split {
	st := tokState{t: tk, offs: make([]int32, 0, 16), split: true, start: -1}
	scan(&st)
	if st.start >= 0 {
		st.closeWord(text, len(text))
	}
	st.sp.emit(text, len(text), len(st.dst), st.offs)
	return Split{Sentences: st.sp.sents, Tokens: st.dst, Offsets: st.offs, SentEnd: st.sp.ends}
}

// checkBlocks compares the block scan, AppendSplit and AppendTokens on text
// with refSplit.
func checkBlocks(t *testing.T, tk Tokenizer, text string) {
	t.Helper()
	want := refSplit(tk, text)
	var got Split
	tk.AppendSplit(&got, text)
	for _, got := range []Split{got, blockSplit(tk, text)} {
		if !slices.Equal(got.Tokens, want.Tokens) || !slices.Equal(got.Offsets, want.Offsets) ||
			!slices.Equal(got.Sentences, want.Sentences) || !slices.Equal(got.SentEnd, want.SentEnd) {
			t.Fatalf("%+v: text %q:\nblocks %q %v %q %v\nrunes  %q %v %q %v", tk, text,
				got.Tokens, got.Offsets, got.Sentences, got.SentEnd, want.Tokens, want.Offsets, want.Sentences, want.SentEnd)
		}
	}
	if toks := tk.AppendTokens(nil, text); !slices.Equal(toks, want.Tokens) {
		t.Fatalf("%+v: AppendTokens(%q) = %q, want %q", tk, text, toks, want.Tokens)
	}
}

// blockPieces are the pieces random texts are made of: word bytes, upper
// case, separators that end sentences or not, multi-byte letters and
// separators (one whose lower case is longer), invalid UTF-8.
var blockPieces = []string{"a", "z", "0", "9", "word", "Word", "WORD", "x7", "A", "Z", "@", "[", "`", "{",
	" ", " ", "  ", ".", ". ", "!", "? ", "\n", "\r\n", "\t", ",", "'", "-", "\x00", "\x7f",
	"é", "É", "ß", "İ", "日本", "—", "\u00a0", "\xff", "\xe2\x80"}

// TestBlockScannerMatchesRunes checks the block scanner against the rune by
// rune scan on 30,000 random texts of up to 400 bytes (most of them mostly
// ASCII, so that whole blocks occur, with words across block edges).
func TestBlockScannerMatchesRunes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 30000 {
		var b strings.Builder
		ascii := round%3 != 0 // two texts in three: ASCII pieces only
		n := rng.IntN(400)
		for b.Len() < n {
			p := blockPieces[rng.IntN(len(blockPieces))]
			if ascii && p[0] >= 0x80 {
				continue
			}
			if rng.IntN(4) == 0 { // long words cross block edges
				p = strings.Repeat(p, 1+rng.IntN(40))
			}
			b.WriteString(p)
		}
		for _, tk := range []Tokenizer{{Lowercase: true}, {}} {
			checkBlocks(t, tk, b.String())
		}
	}
}

// FuzzBlockScanner checks the block scanner against the rune by rune scan
// on any text.
func FuzzBlockScanner(f *testing.F) {
	f.Add(strings.Repeat("The cat sat. On the MAT! ", 8))
	f.Add(strings.Repeat("a", 63) + "é" + strings.Repeat("b", 70))
	f.Add(strings.Repeat("x", 64) + ".\n" + strings.Repeat("Y", 64))
	f.Fuzz(func(t *testing.T, text string) {
		for _, tk := range []Tokenizer{{Lowercase: true}, {}} {
			checkBlocks(t, tk, text)
		}
	})
}
