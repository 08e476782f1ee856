package eval

import (
	"hash/fnv"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
)

// opaqueLetters spell opaque words: consonants, so that a made-up word
// never reads as an English one.
const opaqueLetters = "bcdfghjklmnpqrstvwxz"

// opaqueLen is the number of letters an opaque word takes after its "q".
const opaqueLen = 8

// opaqueWord returns the opaque word that stands for word: "q" and eight
// consonants drawn from a 64-bit FNV-1a hash of it, so that the same word
// always gives the same opaque word and two words almost never share one
// (20⁸ of them).
func opaqueWord(word string) string {
	h := fnv.New64a()
	h.Write([]byte(word))
	x := h.Sum64()
	var b strings.Builder
	b.Grow(1 + opaqueLen)
	b.WriteByte('q')
	for range opaqueLen {
		b.WriteByte(opaqueLetters[x%uint64(len(opaqueLetters))])
		x /= uint64(len(opaqueLetters))
	}
	return b.String()
}

// opaqueText returns text with every word that known rejects replaced by its
// opaque word (opaqueWord of the word as tok gives it, lowercased), the rest
// of the text as it is (tok's words are runs of letters and digits).
// The new words' spellings then say nothing of them, as product codes and
// codenames do: what a vector learns of them comes from their contexts.
func opaqueText(text string, tok model.Tokenizer, known func(string) bool) string {
	words, offs := tok.AppendTokenOffsets(nil, nil, text)
	var b strings.Builder
	last := 0
	for i, w := range words {
		if known(w) {
			continue
		}
		start, end := int(offs[2*i]), int(offs[2*i+1])
		b.WriteString(text[last:start])
		b.WriteString(opaqueWord(w))
		last = end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
