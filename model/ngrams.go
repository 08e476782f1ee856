package model

import (
	"fmt"
	"slices"
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
}

// DefaultNgramConfig returns the reference implementation's settings:
// n = 3…5, minimum count 4.
func DefaultNgramConfig() NgramConfig { return NgramConfig{MinN: 3, MaxN: 5, MinCount: 4} }

// Validate reports a configuration the model cannot use.
func (c NgramConfig) Validate() error {
	if c.MinN < 1 || c.MaxN < c.MinN || c.MaxN > 32 {
		return fmt.Errorf("n-gram lengths %d..%d: want 1 ≤ min ≤ max ≤ 32", c.MinN, c.MaxN)
	}
	if c.MinCount < 1 {
		return fmt.Errorf("n-gram minimum count %d: want ≥ 1", c.MinCount)
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
	var padded []byte
	var offs []int32
	for _, w := range words {
		if _, dup := seen[w]; dup {
			continue
		}
		seen[w] = struct{}{}
		padded, offs = padWord(padded[:0], offs[:0], w)
		nsym := len(offs) - 1
		for i := 0; i < nsym; i++ {
			for n := cfg.MinN; n <= cfg.MaxN && i+n <= nsym; n++ {
				g := padded[offs[i]:offs[i+n]]
				if c, ok := counts[string(g)]; ok {
					counts[string(g)] = c + 1
					continue
				}
				s := string(g)
				counts[s] = 1
				order = append(order, s)
			}
		}
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

// AppendIDs appends the ids of word's n-grams to dst, UnknownNgram for those
// not in the vocabulary, repeated n-grams repeated; a word too short for any
// n-gram gives the single id UnknownNgram. The order is the reference's: by
// start position, then by length. It does not allocate beyond growing dst
// (for words of up to 254 bytes).
func (v *NgramVocab) AppendIDs(dst []int32, word string) []int32 {
	var pstack [256]byte
	var ostack [257]int32
	padded, offs := padWord(pstack[:0], ostack[:0], word)
	nsym := len(offs) - 1
	n0 := len(dst)
	for i := 0; i < nsym; i++ {
		for n := v.cfg.MinN; n <= v.cfg.MaxN && i+n <= nsym; n++ {
			id, ok := v.index[string(padded[offs[i]:offs[i+n]])]
			if !ok {
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

// padWord appends Boundary+word+Boundary to padded and the byte offset of
// every symbol (a rune; an invalid UTF-8 byte is one symbol), plus the end
// offset, to offs: symbol k is padded[offs[k]:offs[k+1]].
func padWord(padded []byte, offs []int32, word string) ([]byte, []int32) {
	padded = append(padded, Boundary...)
	padded = append(padded, word...)
	padded = append(padded, Boundary...)
	offs = append(offs, 0)
	for p := len(Boundary); p < len(padded)-len(Boundary); {
		offs = append(offs, int32(p))
		_, size := utf8.DecodeRune(padded[p : len(padded)-len(Boundary)])
		p += size
	}
	offs = append(offs, int32(len(padded)-len(Boundary)), int32(len(padded)))
	return padded, offs
}
