package model

import (
	"errors"
	"fmt"
	"hash/crc64"
	"strings"
)

// Limits checked before anything is allocated from a size read from a file.
const (
	// MaxDim is the largest embedding dimension any file may declare.
	MaxDim = 1 << 14
	// MaxWordBytes is the longest word (in bytes) any file may hold.
	MaxWordBytes = 1 << 12
)

// Embeddings is a vocabulary with row-major float32 vectors and optional
// corpus counts. Create it with NewEmbeddings or a loader; do not modify Words
// after creation (the index would go stale). Vectors may be modified in place.
type Embeddings struct {
	// Dim is the length of every vector.
	Dim int
	// Words holds the vocabulary; row i of Vectors belongs to Words[i].
	Words []string
	// Vectors holds len(Words)·Dim values, row-major.
	Vectors []float32
	// Counts is nil, or holds the corpus frequency of each word.
	Counts []int64

	index *vocabIndex
}

// ValidWord returns a non-nil error when w cannot be a vocabulary entry: it
// must be non-empty, at most MaxWordBytes long and free of the separators of
// the word2vec formats (space, tab, line breaks, NUL). NewEmbeddings checks
// every word with it; a reader of words can check each where it reads it.
func ValidWord(w string) error {
	if w == "" {
		return errors.New("empty word")
	}
	if len(w) > MaxWordBytes {
		return fmt.Errorf("word of %d bytes (limit %d)", len(w), MaxWordBytes)
	}
	if strings.ContainsAny(w, " \t\n\r\x00") {
		return fmt.Errorf("word %q contains white space or NUL", w)
	}
	return nil
}

// NewEmbeddings checks and wraps a vocabulary: dim ≥ 1, len(vectors) =
// len(words)·dim, counts nil or one per word (non-negative), words valid and
// distinct, vectors finite. The slices are used, not copied.
func NewEmbeddings(dim int, words []string, vectors []float32, counts []int64) (*Embeddings, error) {
	if dim < 1 || dim > MaxDim {
		return nil, fmt.Errorf("new embeddings: dimension %d out of range 1..%d", dim, MaxDim)
	}
	if len(vectors) != len(words)*dim {
		return nil, fmt.Errorf("new embeddings: %d values for %d words of dimension %d, want %d", len(vectors), len(words), dim, len(words)*dim)
	}
	if counts != nil && len(counts) != len(words) {
		return nil, fmt.Errorf("new embeddings: %d counts for %d words", len(counts), len(words))
	}
	if len(words) > 1<<31-1 {
		return nil, fmt.Errorf("new embeddings: %d words exceed the int32 id range", len(words))
	}
	e := &Embeddings{Dim: dim, Words: words, Vectors: vectors, Counts: counts, index: newVocabIndex(words)}
	for i, w := range words {
		if err := ValidWord(w); err != nil {
			return nil, fmt.Errorf("new embeddings: word %d: %w", i, err)
		}
		if j, dup := e.index.insert(int32(i)); dup {
			return nil, fmt.Errorf("new embeddings: duplicate word %q (entries %d and %d)", w, j, i)
		}
		if counts != nil && counts[i] < 0 {
			return nil, fmt.Errorf("new embeddings: word %q has negative count %d", w, counts[i])
		}
	}
	for i, x := range vectors {
		if !finite32(x) {
			return nil, fmt.Errorf("new embeddings: word %q: value %d is %v", words[i/dim], i%dim, x)
		}
	}
	return e, nil
}

// Len returns the number of words.
func (e *Embeddings) Len() int { return len(e.Words) }

// ID returns the row of word, and whether it is in the vocabulary.
func (e *Embeddings) ID(word string) (int32, bool) {
	return e.index.lookup(word)
}

// Row returns the vector of id (a sub-slice of Vectors, not a copy).
func (e *Embeddings) Row(id int32) []float32 {
	i := int(id) * e.Dim
	return e.Vectors[i : i+e.Dim : i+e.Dim]
}

// Count returns the corpus count of id, 0 when the embeddings have no counts.
func (e *Embeddings) Count(id int32) int64 {
	if e.Counts == nil {
		return 0
	}
	return e.Counts[id]
}

// AttachCounts sets Counts from a word → count map; words missing from the
// map get 0.
func (e *Embeddings) AttachCounts(counts map[string]int64) {
	c := make([]int64, len(e.Words))
	for i, w := range e.Words {
		c[i] = counts[w]
	}
	e.Counts = c
}

// VocabularyFingerprint returns a CRC-64 (ECMA) of the dimension, the words
// and their counts, in 16 hexadecimal digits: two embeddings with the same
// fingerprint have the same vocabulary and counts (their vectors may differ).
func (e *Embeddings) VocabularyFingerprint() string {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	fmt.Fprintf(h, "%d %d\n", e.Dim, len(e.Words))
	for i, w := range e.Words {
		var c int64
		if e.Counts != nil {
			c = e.Counts[i]
		}
		fmt.Fprintf(h, "%s %d\n", w, c)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
