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
