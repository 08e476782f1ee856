package model

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/internal/asciiscan"
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

// IsWordRune reports whether r belongs to a word: a letter or a digit (the
// tokenizer's rule); every other rune separates words.
func IsWordRune(r rune) bool {
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
	st := tokState{t: t, dst: dst, start: -1}
	st.scan(text)
	return st.dst
}

// AppendTokenOffsets is AppendTokens that also appends, for every word, its
// byte offsets in text (start, end) to offs: word i spans
// text[offs[2i]:offs[2i+1]] before lowercasing.
func (t Tokenizer) AppendTokenOffsets(dst []string, offs []int32, text string) ([]string, []int32) {
	if offs == nil {
		offs = make([]int32, 0, 16) // nil means "no offsets" to scan
	}
	st := tokState{t: t, dst: dst, offs: offs, start: -1}
	st.scan(text)
	return st.dst, st.offs
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
	// Vocab, when not nil, looks every word up once the text is split, in
	// batches whose cache misses overlap: IDs gets its row, -1 for a word
	// not in the vocabulary.
	Vocab *Embeddings
	// IDs holds the row of every word of Tokens when Vocab is set.
	IDs []int32
}

// AppendSplit appends the sentences of text and their words to s in one pass
// over its bytes: the same sentences as AppendSentences, and the same words
// and offsets as AppendTokenOffsets on each sentence. Offsets must hold two
// values per word of Tokens (both empty at first, say).
func (t Tokenizer) AppendSplit(s *Split, text string) {
	st := tokState{t: t, dst: s.Tokens, offs: s.Offsets, split: true, start: -1,
		sp: splitter{sents: s.Sentences, ends: s.SentEnd, firstOff: len(s.Offsets)}}
	if st.offs == nil {
		st.offs = make([]int32, 0, 16) // nil means "no offsets" to scan
	}
	n0 := len(s.Tokens)
	st.scan(text)
	st.sp.emit(text, len(text), len(st.dst), st.offs)
	s.Tokens, s.Sentences, s.SentEnd, s.Offsets = st.dst, st.sp.sents, st.sp.ends, st.offs
	if s.Vocab != nil {
		s.IDs = s.Vocab.index.appendIDs(s.IDs, s.Tokens[n0:], text)
	}
}

// splitter splits sentences while scan reads the words.
type splitter struct {
	sents    []string
	ends     []int
	start    int // the first byte of the current sentence (before trimming)
	firstOff int // the offsets of its words start here, relative to text
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

// scan appends the words of text to st.dst; their offsets to st.offs unless
// it is nil; and splits sentences too with st.split. With a fast block
// classifier (asciiscan.Fast: AVX2) it scans by blocks; without one,
// classifying a block costs more than scanning its bytes, and it goes rune by
// rune.
func (st *tokState) scan(text string) {
	if asciiscan.Fast() {
		st.scanBlocks(text)
	} else {
		st.runes(text, 0, len(text))
	}
	if st.start >= 0 {
		st.closeWord(text, len(text))
	}
}

// scanBlocks is scan by blocks: blocks of 64 bytes (the last one shorter)
// that are all ASCII go through the block scanner (tokblock.go), the others
// rune by rune. It leaves the last word open.
func (st *tokState) scanBlocks(text string) {
	for i := 0; i < len(text); {
		if w, up, sent, ok := asciiscan.Block(text[i:]); ok {
			st.block(text, i, w, up, sent)
			i += blockSize
			continue
		}
		i = st.runes(text, i, min(i+blockSize, len(text)))
	}
}

// tokState is the tokenizer's state while it scans a text. The splitter is
// held by value, so that the state stays on the stack.
type tokState struct {
	t     Tokenizer
	dst   []string
	offs  []int32
	split bool // split sentences with sp
	sp    splitter
	start int  // start of the current word, -1 outside a word
	upper bool // the current word contains a rune that lowercasing changes
}

// closeWord ends the current word at end.
func (st *tokState) closeWord(text string, end int) {
	st.dst = st.t.appendWord(st.dst, text[st.start:end], st.upper)
	if st.offs != nil {
		st.offs = append(st.offs, int32(st.start), int32(end))
	}
	st.start = -1
}

// runes scans text from i, rune by rune, until it reaches limit (a rune
// starting before limit is scanned whole); it returns where it stopped. A
// run of lower-case ASCII letters and digits goes in a tight loop: most
// blocks with a non-ASCII byte (a curly quote, an umlaut) are mostly ASCII.
func (st *tokState) runes(text string, i, limit int) int {
	for i < limit {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII: one table lookup
			cl := asciiClass[c]
			switch {
			case cl == 0:
				if st.start >= 0 {
					st.closeWord(text, i)
				}
				if st.split && sentenceByte[c] {
					st.sp.boundary(text, i, len(st.dst), st.offs)
				}
			case st.start < 0:
				st.start, st.upper = i, st.t.Lowercase && cl == asciiUpper
			default:
				st.upper = st.upper || st.t.Lowercase && cl == asciiUpper
			}
			i++
			if cl != 0 { // the rest of a run of lower-case letters and digits in a tight loop
				for i < limit && asciiClass[text[i]] == asciiWord {
					i++
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			r = -1 // invalid byte: a separator
		}
		if r >= 0 && IsWordRune(r) {
			if st.start < 0 {
				st.start, st.upper = i, false
			}
			if st.t.Lowercase && !st.upper {
				st.upper = unicode.ToLower(r) != r
			}
		} else if st.start >= 0 {
			st.closeWord(text, i)
		}
		i += size
	}
	return i
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
