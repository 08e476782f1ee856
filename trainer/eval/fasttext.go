package eval

import (
	"fmt"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/fasttext"
)

// subwordModel is a model that gives every word a vector from its character
// n-grams: a fastText binary (*fasttext.Model) or our own (*Subwords).
type subwordModel interface {
	ID(word string) (int32, bool)
	WordVector(dst []float32, word string) (bool, error)
	FormVector(dst []float32, word string) (bool, error)
}

// ftSpace gives the vectors of a subword model (fastText's or ours) to the
// evaluations, cached per word. Lookups cannot return errors, so the first
// read error is kept in err and the lookup returns nil; check Err after
// using them.
type ftSpace struct {
	m     subwordModel
	dim   int
	words map[string][]float32
	forms map[string][]float32
	err   error
}

func newFTSpace(m subwordModel, dim int) *ftSpace {
	return &ftSpace{m: m, dim: dim, words: map[string][]float32{}, forms: map[string][]float32{}}
}

// Err returns the first error a lookup met.
func (s *ftSpace) Err() error { return s.err }

// lookup caches fn's vector of the lowercased word (nil: none).
func (s *ftSpace) lookup(cache map[string][]float32, w string, fn func([]float32, string) (bool, error)) []float32 {
	w = strings.ToLower(w)
	if v, ok := cache[w]; ok {
		return v
	}
	v := make([]float32, s.dim)
	ok, err := fn(v, w)
	if err != nil && s.err == nil {
		s.err = err
	}
	if !ok || err != nil {
		v = nil
	}
	cache[w] = v
	return v
}

// Word is fastText's vector of w (print-word-vectors: own row and n-grams;
// n-grams alone for a word outside its dictionary).
func (s *ftSpace) Word(w string) []float32 { return s.lookup(s.words, w, s.m.WordVector) }

// Form is the mean of w's n-gram rows: its vector from the form alone.
func (s *ftSpace) Form(w string) []float32 { return s.lookup(s.forms, w, s.m.FormVector) }

// InDict is Word for the words of fastText's dictionary, nil for others.
func (s *ftSpace) InDict(w string) []float32 {
	if _, ok := s.m.ID(strings.ToLower(w)); !ok {
		return nil
	}
	return s.Word(w)
}

// Additive is the additive baseline in fastText's space: the mean of the
// vectors of the context words in its dictionary, the words in stop left out.
func (s *ftSpace) Additive(stop map[string]bool) NonceFunc {
	return additive(s.dim, s.InDict, stop)
}

// subwordRareRows are the rare-pairs rows of a subword model named label
// ("fastText"), common words by the model's own vectors: its form-only
// vector of the rare word (n-grams; no context), ½ form + ½ additive − sw in
// its space, and its own vector of the rare word (trained on all the word's
// occurrences).
func subwordRareRows(s *ftSpace, label string, stop map[string]bool, rareWords []string, rp []RarePair) ([]rareRow, error) {
	form, own := map[string][]float32{}, map[string][]float32{}
	for _, w := range rareWords {
		if v := s.Form(w); v != nil {
			form[w] = v
		}
		if v := s.InDict(w); v != nil {
			own[w] = v
		}
	}
	for _, p := range rp {
		s.Word(p.Common)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	additive := s.Additive(stop)
	constant := func(v map[string][]float32) func(map[string][][]string) (map[string][]float32, error) {
		return func(map[string][][]string) (map[string][]float32, error) { return v, nil }
	}
	return []rareRow{
		{name: label + " form (n-grams only)", common: s.Word, constant: true, infer: constant(form)},
		{name: "½ " + label + " form + ½ " + label + " additive − sw", common: s.Word, infer: func(c map[string][][]string) (map[string][]float32, error) {
			out := make(map[string][]float32, len(rareWords))
			for _, w := range rareWords {
				if v := MixUnit(form[w], additive(c[w])); v != nil {
					out[w] = v
				}
			}
			return out, s.Err()
		}},
		{name: label + " own vector (all corpus occurrences)", common: s.Word, constant: true, infer: constant(own)},
	}, nil
}

// FastTextEmbeddings opens the fastText model at path and returns its word
// vectors as embeddings for the words of texts: every dictionary word with
// its vector and count, and every other word of texts (tokenized with tok)
// with its n-gram vector and count 1 (the SIF weight of a word seen once), as
// fastText vectorizes words it never saw.
func FastTextEmbeddings(path string, texts []string, tok model.Tokenizer) (*model.Embeddings, int, error) {
	m, err := fasttext.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer m.Close()
	extra := unknownWords(texts, tok, m.ID)
	e, err := m.Embeddings(extra, 1)
	if err != nil {
		return nil, 0, fmt.Errorf("fasttext %s: %w", path, err)
	}
	return e, len(extra), nil
}

// unknownWords returns the distinct words of texts (tokenized with tok), in
// order of first occurrence, that id does not know: the words a model's
// vectors are extended with from their form.
func unknownWords(texts []string, tok model.Tokenizer, id func(string) (int32, bool)) []string {
	var out []string
	seen := map[string]bool{}
	var toks []string
	for _, t := range texts {
		toks = tok.AppendTokens(toks[:0], t)
		for _, w := range toks {
			if _, ok := id(w); !ok && !seen[w] {
				seen[w] = true
				out = append(out, strings.Clone(w))
			}
		}
	}
	return out
}
