package model

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenizer splits text into words: a word is a maximal run of runes for which
// unicode.IsLetter or unicode.IsDigit holds; every other rune (spaces,
// punctuation, symbols, combining marks, invalid UTF-8 bytes) separates words.
// With Lowercase set each word is mapped with unicode.ToLower. This is the rule
// the shared reference embeddings were trained with. The settings are stored in
// the weights file so that serving tokenizes exactly as training did.
type Tokenizer struct {
	// Lowercase maps every word to lower case (unicode.ToLower per rune).
	Lowercase bool
}

// DefaultTokenizer returns the tokenizer used everywhere by default: lowercase,
// split on every rune that is not a letter or a digit.
func DefaultTokenizer() Tokenizer { return Tokenizer{Lowercase: true} }

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// asciiClass classifies the ASCII bytes for AppendTokens: 0 separates
// words, asciiWord is a lower-case letter or a digit, asciiUpper an
// upper-case letter.
var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for b := range c {
		switch {
		case 'a' <= b && b <= 'z' || '0' <= b && b <= '9':
			c[b] = asciiWord
		case 'A' <= b && b <= 'Z':
			c[b] = asciiUpper
		}
	}
	return c
}()

const (
	asciiWord  = 1
	asciiUpper = 2
)

// AppendTokens appends the words of text to dst and returns the extended
// slice. Words are substrings of text (no allocation) unless lowercasing
// changes them. Invalid UTF-8 never panics: an invalid byte is a separator.
func (t Tokenizer) AppendTokens(dst []string, text string) []string {
	dst, _ = t.appendTokens(dst, nil, text)
	return dst
}

// AppendTokenOffsets is AppendTokens that also appends, for every word, its
// byte offsets in text (start, end) to offs: word i spans
// text[offs[2i]:offs[2i+1]] before lowercasing.
func (t Tokenizer) AppendTokenOffsets(dst []string, offs []int32, text string) ([]string, []int32) {
	if offs == nil {
		offs = make([]int32, 0, 16) // nil means "no offsets" to appendTokens
	}
	return t.appendTokens(dst, offs, text)
}

// appendTokens splits text into words; offsets are recorded unless offs is nil.
func (t Tokenizer) appendTokens(dst []string, offs []int32, text string) ([]string, []int32) {
	start := -1    // start of the current word, -1 outside a word
	upper := false // the current word contains a rune that lowercasing changes
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII: one table lookup
			cl := asciiClass[c]
			switch {
			case cl == 0:
				if start >= 0 {
					dst = t.appendWord(dst, text[start:i], upper)
					if offs != nil {
						offs = append(offs, int32(start), int32(i))
					}
					start = -1
				}
			case start < 0:
				start, upper = i, t.Lowercase && cl == asciiUpper
			default:
				upper = upper || t.Lowercase && cl == asciiUpper
			}
			i++
			if cl != 0 { // the rest of a run of lower-case letters and digits in a tight loop
				for i < len(text) && text[i] < utf8.RuneSelf && asciiClass[text[i]] == asciiWord {
					i++
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			r = -1 // invalid byte: a separator
		}
		if r >= 0 && isWordRune(r) {
			if start < 0 {
				start = i
				upper = false
			}
			if t.Lowercase && !upper {
				upper = unicode.ToLower(r) != r
			}
		} else if start >= 0 {
			dst = t.appendWord(dst, text[start:i], upper)
			if offs != nil {
				offs = append(offs, int32(start), int32(i))
			}
			start = -1
		}
		i += size
	}
	if start >= 0 {
		dst = t.appendWord(dst, text[start:], upper)
		if offs != nil {
			offs = append(offs, int32(start), int32(len(text)))
		}
	}
	return dst, offs
}

func (t Tokenizer) appendWord(dst []string, w string, upper bool) []string {
	if upper {
		w = strings.Map(unicode.ToLower, w)
	}
	return append(dst, w)
}

// sentenceByte marks the bytes AppendSentences may split at.
var sentenceByte = [256]bool{'\n': true, '\r': true, '.': true, '!': true, '?': true}

// AppendSentences appends the sentences of text to dst: raw spans (not
// tokenized, surrounding white space trimmed, empty spans dropped) split after
// '.', '!' or '?' followed by white space, and at every line break. Tokenize
// each with AppendTokens. Invalid UTF-8 never panics.
func (t Tokenizer) AppendSentences(dst []string, text string) []string {
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			dst = append(dst, s)
		}
	}
	for i := 0; i < len(text); i++ {
		for i < len(text) && !sentenceByte[text[i]] { // most bytes end no sentence
			i++
		}
		if i == len(text) {
			break
		}
		switch c := text[i]; c {
		case '\n', '\r':
			emit(i)
			start = i + 1
		case '.', '!', '?':
			if i+1 < len(text) {
				if n := text[i+1]; n == ' ' || n == '\t' || n == '\n' || n == '\r' || n == '\f' || n == '\v' {
					emit(i + 1)
					start = i + 1
				}
			}
		}
	}
	emit(len(text))
	return dst
}
