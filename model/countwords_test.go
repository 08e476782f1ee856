package model

import (
	"math/rand/v2"
	"testing"
)

// TestCountWordsAgreesWithAppendTokens compares CountWords with the number of
// tokens on random texts of ASCII, letters of other scripts, digits,
// punctuation, combining marks and invalid bytes, and checks the early stop.
func TestCountWordsAgreesWithAppendTokens(t *testing.T) {
	parts := []string{"a", "Z", "7", " ", ".", "é", "Ω", "字", "\u0301", "\xff", "\xe2\x82", "-", "\n", "ß", "٣", "\U0001F600"}
	rng := rand.New(rand.NewPCG(5, 6))
	tok := DefaultTokenizer()
	for range 3000 {
		var b []byte
		for range rng.IntN(40) {
			b = append(b, parts[rng.IntN(len(parts))]...)
		}
		text := string(b)
		want := len(tok.AppendTokens(nil, text))
		if got := tok.CountWords(text, 1<<30); got != want {
			t.Fatalf("CountWords(%q) = %d, AppendTokens gives %d words", text, got, want)
		}
		if want > 2 {
			if got := tok.CountWords(text, 1); got != 2 {
				t.Fatalf("CountWords(%q, limit 1) = %d, want 2 (stop after the limit)", text, got)
			}
		}
	}
}
