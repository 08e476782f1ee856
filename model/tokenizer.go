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

// asciiClass classifies the bytes for AppendTokens: asciiWord is a
// lower-case ASCII letter or digit, asciiUpper an upper-case ASCII letter, 0
// any other byte (an ASCII separator, or a byte of a multi-byte rune, which
// is decoded instead). 256 entries, so that indexing by a byte needs no
// bounds check.
var asciiClass = func() (c [256]uint8) {
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
	dst, _ = t.appendTokens(dst, nil, text, nil)
	return dst
}

// AppendTokenOffsets is AppendTokens that also appends, for every word, its
// byte offsets in text (start, end) to offs: word i spans
// text[offs[2i]:offs[2i+1]] before lowercasing.
func (t Tokenizer) AppendTokenOffsets(dst []string, offs []int32, text string) ([]string, []int32) {
	if offs == nil {
		offs = make([]int32, 0, 16) // nil means "no offsets" to appendTokens
	}
	return t.appendTokens(dst, offs, text, nil)
}

// Split is a text split into sentences and their words by AppendSplit.
type Split struct {
	// Sentences are the sentences, as AppendSentences returns them.
	Sentences []string
	// Tokens are the words of every sentence, in order, as AppendTokens
	// returns them for each sentence.
	Tokens []string
	// Offsets holds two values per word: word i spans the bytes
	// [Offsets[2i], Offsets[2i+1]) of its sentence before lowercasing.
	Offsets []int32
	// SentEnd holds, for each sentence, len(Tokens) after its words.
	SentEnd []int
	// Vocab, when not nil, looks every word up as soon as it is read (so
	// that the lookups' cache misses overlap the reading of the words after
	// it): IDs gets its row, -1 for a word not in the vocabulary.
	Vocab *Embeddings
	// IDs holds the row of every word of Tokens when Vocab is set.
	IDs []int32
}

// AppendSplit appends the sentences of text and their words to s in one pass
// over its bytes: the same sentences as AppendSentences, and the same words
// and offsets as AppendTokenOffsets on each sentence. Offsets must hold two
// values per word of Tokens (both empty at first, say).
func (t Tokenizer) AppendSplit(s *Split, text string) {
	sp := splitter{sents: s.Sentences, ends: s.SentEnd, firstOff: len(s.Offsets), ids: s.IDs}
	if s.Vocab != nil {
		sp.vocab = s.Vocab.index
	}
	offs := s.Offsets
	if offs == nil {
		offs = make([]int32, 0, 16) // nil means "no offsets" to appendTokens
	}
	s.Tokens, offs = t.appendTokens(s.Tokens, offs, text, &sp)
	sp.emit(text, len(text), len(s.Tokens), offs)
	s.Sentences, s.SentEnd, s.Offsets, s.IDs = sp.sents, sp.ends, offs, sp.ids
}

// splitter splits sentences while appendTokens reads the words.
type splitter struct {
	sents    []string
	ends     []int
	start    int // the first byte of the current sentence (before trimming)
	firstOff int // the offsets of its words start here, relative to text
	vocab    *vocabIndex
	ids      []int32 // the row of every word read, when vocab is not nil
}

// word looks the word just read up (the splitter has a vocabulary).
func (sp *splitter) word(w string) {
	id, ok := sp.vocab.lookup(w)
	if !ok {
		id = -1
	}
	sp.ids = append(sp.ids, id)
}

// boundary handles the byte text[i], which may end a sentence (sentenceByte),
// after the word before it is closed; ntok is the number of words so far.
func (sp *splitter) boundary(text string, i, ntok int, offs []int32) {
	if end, ok := sentenceBreak(text, i); ok {
		sp.emit(text, end, ntok, offs)
		sp.start = i + 1
	}
}

// emit ends the sentence text[sp.start:end] (trimmed; dropped when empty,
// and then it holds no word) and makes its words' offsets relative to it.
func (sp *splitter) emit(text string, end, ntok int, offs []int32) {
	from, to := sp.start, end // strings.TrimSpace, keeping the start: ASCII first
	for from < to && asciiSpace[text[from]] {
		from++
	}
	for to > from && asciiSpace[text[to-1]] {
		to--
	}
	if from < to && (text[from] >= utf8.RuneSelf || text[to-1] >= utf8.RuneSelf) {
		rest := strings.TrimLeftFunc(text[from:to], unicode.IsSpace)
		from = to - len(rest)
		to = from + len(strings.TrimRightFunc(rest, unicode.IsSpace))
	}
	if from == to {
		return
	}
	sent := text[from:to]
	for k := sp.firstOff; k < len(offs); k++ {
		offs[k] -= int32(from)
	}
	sp.firstOff = len(offs)
	sp.sents = append(sp.sents, sent)
	sp.ends = append(sp.ends, ntok)
}

// appendTokens splits text into words; offsets are recorded unless offs is
// nil; sentences are split too unless sp is nil.
func (t Tokenizer) appendTokens(dst []string, offs []int32, text string, sp *splitter) ([]string, []int32) {
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
					if sp != nil && sp.vocab != nil {
						sp.word(dst[len(dst)-1])
					}
					if offs != nil {
						offs = append(offs, int32(start), int32(i))
					}
					start = -1
				}
				if sp != nil && sentenceByte[c] {
					sp.boundary(text, i, len(dst), offs)
				}
			case start < 0:
				start, upper = i, t.Lowercase && cl == asciiUpper
			default:
				upper = upper || t.Lowercase && cl == asciiUpper
			}
			i++
			if cl != 0 { // the rest of a run of lower-case letters and digits in a tight loop
				for i < len(text) && asciiClass[text[i]] == asciiWord {
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
			if sp != nil && sp.vocab != nil {
				sp.word(dst[len(dst)-1])
			}
			if offs != nil {
				offs = append(offs, int32(start), int32(i))
			}
			start = -1
		}
		i += size
	}
	if start >= 0 {
		dst = t.appendWord(dst, text[start:], upper)
		if sp != nil && sp.vocab != nil {
			sp.word(dst[len(dst)-1])
		}
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

// asciiSpace marks the ASCII bytes unicode.IsSpace holds for.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

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
		if end, ok := sentenceBreak(text, i); ok {
			emit(end)
			start = i + 1
		}
	}
	emit(len(text))
	return dst
}

// sentenceBreak reports whether the byte text[i] (a sentenceByte) ends a
// sentence, and the end of that sentence: before a line break, after '.',
// '!' or '?' followed by ASCII white space. The next sentence starts at i+1.
func sentenceBreak(text string, i int) (end int, ok bool) {
	switch text[i] {
	case '\n', '\r':
		return i, true
	case '.', '!', '?':
		if i+1 < len(text) && asciiSpace[text[i+1]] {
			return i + 1, true
		}
	}
	return 0, false
}
