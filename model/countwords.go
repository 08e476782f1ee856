package model

import "unicode/utf8"

// CountWords returns the number of words AppendTokens finds in text, counting
// no further than limit+1, so that checking a text against a limit of words
// stops early. It builds no word and allocates nothing.
func (t Tokenizer) CountWords(text string, limit int) int {
	n, inWord := 0, false
	for i := 0; i < len(text); {
		c, size := text[i], 1
		var word bool
		if c < utf8.RuneSelf {
			word = asciiClass[c] != 0
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			word = size > 1 && IsWordRune(r) // size 1: an invalid byte, a separator
		}
		if word && !inWord {
			if n++; n > limit {
				return n
			}
		}
		inWord = word
		i += size
	}
	return n
}
