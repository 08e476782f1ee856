package model

import (
	"strings"
	"testing"
)

// BenchmarkAppendTokenOffsets tokenizes a 50-word English passage with offsets.
func BenchmarkAppendTokenOffsets(b *testing.B) {
	text := strings.Repeat("The committee approved the budget for 2026 after a long debate, and members left early. ", 4)
	tok := DefaultTokenizer()
	var dst []string
	var offs []int32
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		dst, offs = tok.AppendTokenOffsets(dst[:0], offs[:0], text)
	}
}

// BenchmarkAppendSentences splits a 352-byte English passage into sentences.
func BenchmarkAppendSentences(b *testing.B) {
	text := strings.Repeat("The committee approved the budget for 2026 after a long debate, and members left early. ", 4)
	tok := DefaultTokenizer()
	var dst []string
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		dst = tok.AppendSentences(dst[:0], text)
	}
}

// BenchmarkSplitMostlyASCII splits passages whose every 64-byte block has a
// non-ASCII byte (curly quotes; umlauts), which the block scanner leaves to
// the rune-by-rune scan.
func BenchmarkSplitMostlyASCII(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"curly", strings.Repeat("The committee’s budget for 2026 was approved after a “long” debate; members didn’t stay. ", 4)},
		{"german", strings.Repeat("Der Ausschuss genehmigte den Haushalt für 2026 nach einer langen Debatte, und die Mitglieder gingen früh. ", 4)},
	} {
		b.Run(c.name, func(b *testing.B) {
			tok := DefaultTokenizer()
			var s Split
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				s = Split{Sentences: s.Sentences[:0], Tokens: s.Tokens[:0], Offsets: s.Offsets[:0], SentEnd: s.SentEnd[:0]}
				tok.AppendSplit(&s, c.text)
			}
		})
	}
}

// BenchmarkSplitPassage splits the same 352-byte passage into sentences and
// their words with offsets: in one pass (AppendSplit) and in two
// (AppendSentences, then AppendTokenOffsets on each sentence).
func BenchmarkSplitPassage(b *testing.B) {
	text := strings.Repeat("The committee approved the budget for 2026 after a long debate, and members left early. ", 4)
	tok := DefaultTokenizer()
	b.Run("one-pass", func(b *testing.B) {
		var s Split
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			s = Split{Sentences: s.Sentences[:0], Tokens: s.Tokens[:0], Offsets: s.Offsets[:0], SentEnd: s.SentEnd[:0]}
			tok.AppendSplit(&s, text)
		}
	})
	b.Run("two-pass", func(b *testing.B) {
		var s Split
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			s.Sentences = tok.AppendSentences(s.Sentences[:0], text)
			s.Tokens, s.Offsets, s.SentEnd = s.Tokens[:0], s.Offsets[:0], s.SentEnd[:0]
			for _, sent := range s.Sentences {
				s.Tokens, s.Offsets = tok.AppendTokenOffsets(s.Tokens, s.Offsets, sent)
				s.SentEnd = append(s.SentEnd, len(s.Tokens))
			}
		}
	})
}
