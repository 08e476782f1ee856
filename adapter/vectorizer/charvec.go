package vectorizer

import (
	"hash/fnv"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/simd"
)

// charNormRows bounds how many base rows charVector's scale is measured on.
const charNormRows = 10000

// charVector writes to dst the character vector of word: the fallback for a
// word that AM gives no vector (a word of a script the model never saw, whose
// n-grams have no rows, or an unseen word under a context-only model). It is
// the sum of one pseudo-random vector per character unigram and bigram of the
// word (with "<" and ">" marking its ends), each seeded by the FNV-1a hash of
// the n-gram's bytes, scaled to the mean norm of the base rows. A run of Han,
// Kana or Hangul is one word to the tokenizer; its bigrams make texts that
// share characters close. The vector depends only on the word and the
// dimension, so every node gives the same one. It reports false for a word
// without runes.
func charVector(word string, scale float32, dst []float32) bool {
	clear(dst)
	if word == "" {
		return false
	}
	prev := '<'
	for _, r := range word {
		addGramVector(dst, string(r))
		addGramVector(dst, string(prev)+string(r))
		prev = r
	}
	addGramVector(dst, string(prev)+">")
	norm := math.Sqrt(float64(simd.Dot(dst, dst)))
	if norm == 0 || math.IsNaN(norm) {
		return false
	}
	simd.Scale(float32(float64(scale)/norm), dst)
	return true
}

// symbolVector writes to w.acc the unit character vector of the symbols
// (emoji, currency and other signs) of a text none of whose words yields a
// vector, under a model with a form: a text of emoji alone is found by the
// same emoji. A text with neither words nor symbols (punctuation, spaces,
// invalid UTF-8) is ErrNoWords.
func (v *Vectorizer) symbolVector(w *work) error {
	if !v.chars {
		return ErrNoWords
	}
	var sym []rune
	for _, s := range w.sentences {
		for _, r := range s {
			if r != utf8.RuneError && unicode.IsSymbol(r) && len(sym) < maxSymbols {
				sym = append(sym, r)
			}
		}
	}
	if !charVector(string(sym), v.charScale, w.acc) {
		return ErrNoWords
	}
	return normalizeSum(w.acc)
}

// maxSymbols bounds the symbols symbolVector reads of one text.
const maxSymbols = 256

// addGramVector adds the pseudo-random vector of the n-gram g to dst: values
// uniform in [-1, 1) drawn by splitmix64 seeded with g's FNV-1a hash.
func addGramVector(dst []float32, g string) {
	h := fnv.New64a()
	h.Write([]byte("t2vam-char\x00" + g))
	s := h.Sum64()
	for i := range dst {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		dst[i] += float32(int64(z>>11))/float32(1<<52) - 1
	}
}

// meanRowNorm is the mean L2 norm of the first non-zero base rows (1 when
// there are none): the scale of character vectors among base and AM vectors.
func (v *Vectorizer) meanRowNorm() float32 {
	var sum float64
	n := 0
	for i := 0; i < v.base.Len() && n < charNormRows; i++ {
		row := v.base.Row(int32(i))
		d := float64(simd.Dot(row, row))
		if d > 0 && !math.IsInf(d, 0) && !math.IsNaN(d) {
			sum += math.Sqrt(d)
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return float32(sum / float64(n))
}

// runeSet holds the non-ASCII runes the model has seen: those of its n-grams
// and base words. ASCII counts as seen.
type runeSet map[rune]struct{}

// newRuneSet collects the non-ASCII runes of the model's n-grams and base words.
func (v *Vectorizer) newRuneSet() runeSet {
	seen := runeSet{}
	add := func(s string) {
		for _, r := range s {
			if r >= 0x80 {
				seen[r] = struct{}{}
			}
		}
	}
	if voc := v.m.Vocab; voc != nil {
		for id := 1; id < voc.Len(); id++ {
			add(voc.Ngram(int32(id)))
		}
	}
	for _, w := range v.base.Words {
		add(w)
	}
	return seen
}

// unseenScript reports whether more than half the runes of word are runes the
// model never saw: its form means nothing to the model, and the word gets its
// character vector instead of AM's.
func (s runeSet) unseenScript(word string) bool {
	n, unseen := 0, 0
	for _, r := range word {
		n++
		if r >= 0x80 {
			if _, ok := s[r]; !ok {
				unseen++
			}
		}
	}
	return 2*unseen > n
}

// charWord reports whether word gets a character vector instead of AM: a
// word of a script the model's n-grams and words never hold.
func (v *Vectorizer) charWord(word string) bool { return v.chars && v.seen.unseenScript(word) }
