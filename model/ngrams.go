package model

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Boundary is the symbol that pads a word on both sides before its character
// n-grams are taken (the reference implementation's "<S>"). It is a single
// symbol, like every character of the word; NUL cannot occur in a token.
const Boundary = "\x00"

// UnknownNgram is the id of every n-gram missing from the vocabulary, and of a
// word too short to have any n-gram.
const UnknownNgram int32 = 0

// NgramConfig sets which character n-grams make up a word's surface form.
type NgramConfig struct {
	// MinN and MaxN bound the n-gram length in symbols (the boundary symbol
	// counts as one).
	MinN, MaxN int
	// MinCount is how many times an n-gram must occur in the training words
	// (each word type counted once) to get its own embedding.
	MinCount int
	// Style selects the padding and how n-grams missing from the
	// vocabulary count (NgramReference or NgramFastText).
	Style NgramStyle
}

// NgramStyle is how a word is cut into character n-grams.
type NgramStyle uint8

const (
	// NgramReference is form-context-model's: the word padded with Boundary
	// on both sides; an n-gram missing from the vocabulary maps to the
	// trained UNK row (UnknownNgram).
	NgramReference NgramStyle = iota
	// NgramFastText is fastText's: the word padded with '<' and '>', the
	// padded word itself included when it is short enough, single boundary
	// symbols never; n-grams missing from the vocabulary are left out (a word
	// with no known n-gram gets UnknownNgram), so the form embedding of a word
	// is fastText's vector of an out-of-vocabulary word.
	NgramFastText
)

// String returns "reference" or "fasttext".
func (s NgramStyle) String() string {
	switch s {
	case NgramReference:
		return "reference"
	case NgramFastText:
		return "fasttext"
	}
	return fmt.Sprintf("NgramStyle(%d)", uint8(s))
}

// DefaultNgramConfig returns the reference implementation's settings:
// n = 3…5, minimum count 4.
func DefaultNgramConfig() NgramConfig { return NgramConfig{MinN: 3, MaxN: 5, MinCount: 4} }

// FastTextConfigOf returns the fastText-style configuration that a table of
// n-grams in fastText's form implies ('<' and '>' mark the word's ends, as
// `train-embeddings --ngrams-out` writes them): MinN and MaxN are the
// shortest and longest n-gram in symbols, MinCount 1.
func FastTextConfigOf(ngrams []string) (NgramConfig, error) {
	if len(ngrams) == 0 {
		return NgramConfig{}, errors.New("no n-grams")
	}
	lo, hi, marked := 1<<30, 0, 0
	for _, g := range ngrams {
		n := utf8.RuneCountInString(g)
		lo, hi = min(lo, n), max(hi, n)
		if strings.HasPrefix(g, "<") || strings.HasSuffix(g, ">") {
			marked++
		}
	}
	// About a third of a real table marks a word's end (the words of a
	// vocabulary mark none): a word vectors file given as n-grams fails here.
	if marked*20 < len(ngrams) {
		return NgramConfig{}, fmt.Errorf("only %d of %d n-grams mark a word's start '<' or end '>': not an n-gram table in fastText's form (word vectors?)", marked, len(ngrams))
	}
	cfg := NgramConfig{MinN: lo, MaxN: hi, MinCount: 1, Style: NgramFastText}
	return cfg, cfg.Validate()
}

// NgramRank is what orders the rows of an n-gram table in fastText's form:
// Words is the number of vocabulary words holding the n-gram (an n-gram
// twice in a word counts twice), Tokens the sum of those words' counts.
type NgramRank struct {
	Words, Tokens int64
}

// SortNgramTable sorts the n-grams of a table in the order
// `train-embeddings --ngrams-out` writes them and `train --ngram-max` cuts
// them: by decreasing Words, then decreasing Tokens of rank, then by the
// n-gram's bytes.
func SortNgramTable(ngrams []string, rank func(ngram string) NgramRank) {
	slices.SortFunc(ngrams, func(a, b string) int {
		ra, rb := rank(a), rank(b)
		if c := cmp.Compare(rb.Words, ra.Words); c != 0 {
			return c
		}
		if c := cmp.Compare(rb.Tokens, ra.Tokens); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// Validate reports a configuration the model cannot use.
func (c NgramConfig) Validate() error {
	if c.MinN < 1 || c.MaxN < c.MinN || c.MaxN > 32 {
		return fmt.Errorf("n-gram lengths %d..%d: want 1 ≤ min ≤ max ≤ 32", c.MinN, c.MaxN)
	}
	if c.MinCount < 1 {
		return fmt.Errorf("n-gram minimum count %d: want ≥ 1", c.MinCount)
	}
	if c.Style > NgramFastText {
		return fmt.Errorf("unknown n-gram style %d", c.Style)
	}
	return nil
}

// NgramVocab maps character n-grams to rows of the n-gram embedding table.
// Id 0 (UnknownNgram) stands for every n-gram not in the vocabulary; ids
// 1…Len()-1 are the n-grams in order of decreasing training count (ties in
// order of first occurrence), as the reference's Counter.most_common(). It is
// read-only after construction and safe for concurrent use.
type NgramVocab struct {
	cfg    NgramConfig
	ngrams []string // ngrams[0] = "" stands for UNK
	index  map[string]int32
}

// BuildNgramVocab collects the n-grams of words (each distinct word counted
// once, each occurrence of an n-gram within it counted) and keeps those that
// occur at least cfg.MinCount times. The reference passes every word of its
// vocabulary (counts) file. cfg must be valid (see Validate); it panics
// otherwise.
func BuildNgramVocab(words []string, cfg NgramConfig) *NgramVocab {
	if err := cfg.Validate(); err != nil {
		panic("model.BuildNgramVocab: " + err.Error())
	}
	counts := make(map[string]int)
	var order []string
	seen := make(map[string]struct{}, len(words))
	var sc ngramScratch
	for _, w := range words {
		if _, dup := seen[w]; dup {
			continue
		}
		seen[w] = struct{}{}
		cfg.forEach(&sc, w, func(g []byte) {
			if c, ok := counts[string(g)]; ok {
				counts[string(g)] = c + 1
				return
			}
			s := string(g)
			counts[s] = 1
			order = append(order, s)
		})
	}
	kept := make([]string, 0, len(order))
	for _, g := range order {
		if counts[g] >= cfg.MinCount {
			kept = append(kept, g)
		}
	}
	slices.SortStableFunc(kept, func(a, b string) int { return counts[b] - counts[a] })
	v, err := newNgramVocab(cfg, kept)
	if err != nil {
		panic("model.BuildNgramVocab: " + err.Error()) // cannot happen: n-grams are distinct
	}
	return v
}

// NewNgramVocab returns a vocabulary whose ids 1… are ngrams, in order (id 0
// is UnknownNgram): for a table of n-grams learned elsewhere, such as the
// subword vectors of train-embeddings. The n-grams must be distinct and
// non-empty.
func NewNgramVocab(cfg NgramConfig, ngrams []string) (*NgramVocab, error) {
	return newNgramVocab(cfg, ngrams)
}

// newNgramVocab builds a vocabulary whose ids 1… are ngrams, in order.
func newNgramVocab(cfg NgramConfig, ngrams []string) (*NgramVocab, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	v := &NgramVocab{cfg: cfg, ngrams: make([]string, 1, len(ngrams)+1), index: make(map[string]int32, len(ngrams))}
	for i, g := range ngrams {
		if g == "" {
			return nil, fmt.Errorf("n-gram %d is empty", i+1)
		}
		if _, dup := v.index[g]; dup {
			return nil, fmt.Errorf("duplicate n-gram %q", g)
		}
		v.index[g] = int32(i + 1)
		v.ngrams = append(v.ngrams, g)
	}
	return v, nil
}

// Len returns the number of rows of the n-gram table, UNK included.
func (v *NgramVocab) Len() int { return len(v.ngrams) }

// Config returns the settings the vocabulary was built with.
func (v *NgramVocab) Config() NgramConfig { return v.cfg }

// Ngram returns the n-gram of id ("" for UnknownNgram), with Boundary marking
// the word's ends.
func (v *NgramVocab) Ngram(id int32) string { return v.ngrams[id] }

// Count returns the number of character n-grams of word, known or not: the
// ids AppendIDs gives in the reference style, n-grams missing from the
// vocabulary included.
func (v *NgramVocab) Count(word string) int {
	var pstack [256]byte
	var ostack [257]int32
	bow, eow := v.cfg.boundaries()
	_, offs := padWord(pstack[:0], ostack[:0], word, bow, eow)
	nsym := len(offs) - 1
	fast := v.cfg.Style == NgramFastText
	n := 0
	for i := 0; i < nsym; i++ {
		for k := v.cfg.MinN; k <= v.cfg.MaxN && i+k <= nsym; k++ {
			if !(k == 1 && fast && (i == 0 || i == nsym-1)) {
				n++
			}
		}
	}
	return n
}

// AppendIDs appends the ids of word's n-grams to dst, in order of start
// position, then length, repeated n-grams repeated. In the reference style an
// n-gram not in the vocabulary gives UnknownNgram; in the fastText style it
// is left out. A word without any (known) n-gram gives the single id
// UnknownNgram. It does not allocate beyond growing dst (for words of up to
// 254 bytes).
func (v *NgramVocab) AppendIDs(dst []int32, word string) []int32 {
	var pstack [256]byte
	var ostack [257]int32
	bow, eow := v.cfg.boundaries()
	padded, offs := padWord(pstack[:0], ostack[:0], word, bow, eow)
	nsym := len(offs) - 1
	n0 := len(dst)
	fast := v.cfg.Style == NgramFastText
	for i := 0; i < nsym; i++ {
		for n := v.cfg.MinN; n <= v.cfg.MaxN && i+n <= nsym; n++ {
			if n == 1 && fast && (i == 0 || i == nsym-1) {
				continue
			}
			id, ok := v.index[string(padded[offs[i]:offs[i+n]])]
			if !ok {
				if fast {
					continue
				}
				id = UnknownNgram
			}
			dst = append(dst, id)
		}
	}
	if len(dst) == n0 {
		dst = append(dst, UnknownNgram)
	}
	return dst
}

// boundaries returns the symbols padding a word on the left and the right.
func (c NgramConfig) boundaries() (bow, eow string) {
	if c.Style == NgramFastText {
		return "<", ">"
	}
	return Boundary, Boundary
}

// AppendNgrams appends the character n-grams of word under cfg to dst, in the
// order of AppendIDs (fastText's order in the fastText style).
func (c NgramConfig) AppendNgrams(dst []string, word string) []string {
	var sc ngramScratch
	c.forEach(&sc, word, func(g []byte) { dst = append(dst, string(g)) })
	return dst
}

// ngramScratch holds the padded word and its symbol offsets.
type ngramScratch struct {
	padded []byte
	offs   []int32
}

// forEach calls fn with every n-gram of word (valid only during the call),
// in the order of AppendIDs.
func (c NgramConfig) forEach(sc *ngramScratch, word string, fn func(g []byte)) {
	bow, eow := c.boundaries()
	sc.padded, sc.offs = padWord(sc.padded[:0], sc.offs[:0], word, bow, eow)
	padded, offs := sc.padded, sc.offs
	nsym := len(offs) - 1
	for i := 0; i < nsym; i++ {
		for n := c.MinN; n <= c.MaxN && i+n <= nsym; n++ {
			// fastText never takes a boundary symbol alone as a 1-gram.
			if n == 1 && c.Style == NgramFastText && (i == 0 || i == nsym-1) {
				continue
			}
			fn(padded[offs[i]:offs[i+n]])
		}
	}
}

// padWord appends bow+word+eow to padded and the byte offset of every symbol
// (bow, eow, and each rune of word; an invalid UTF-8 byte is one symbol),
// plus the end offset, to offs: symbol k is padded[offs[k]:offs[k+1]].
func padWord(padded []byte, offs []int32, word, bow, eow string) ([]byte, []int32) {
	padded = append(padded, bow...)
	padded = append(padded, word...)
	padded = append(padded, eow...)
	offs = append(offs, 0)
	end := len(padded) - len(eow)
	for p := len(bow); p < end; {
		offs = append(offs, int32(p))
		_, size := utf8.DecodeRune(padded[p:end])
		p += size
	}
	offs = append(offs, int32(end), int32(len(padded)))
	return padded, offs
}

// FastTextHash is the hash fastText gives a word or an n-gram (32-bit FNV-1a
// over the bytes, each byte sign-extended first as fastText's int8_t cast
// does); an n-gram's row is nwords + FastTextHash(g) % bucket.
func FastTextHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(int32(int8(s[i])))
		h *= 16777619
	}
	return h
}
