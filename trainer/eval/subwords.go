package eval

import (
	"flag"
	"fmt"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// subwordFlags are the flags naming our subword model's two files.
type subwordFlags struct{ words, ngrams string }

func (f *subwordFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.words, "subwords", "", "our subword model: the word vectors `FILE` of train-embeddings --maxn N (--out); with --subword-ngrams")
	fs.StringVar(&f.ngrams, "subword-ngrams", "", "the n-gram vectors `FILE` trained with --subwords (train-embeddings --ngrams-out): a word's form is the mean of its n-grams' vectors")
}

// given reports whether either flag was set.
func (f subwordFlags) given() bool { return f.words != "" || f.ngrams != "" }

// load reads the model, or reports a usage error when only one file is given.
func (f subwordFlags) load() (*Subwords, error) {
	if (f.words == "") != (f.ngrams == "") {
		return nil, cli.UsageError("--subwords and --subword-ngrams go together")
	}
	return LoadSubwords(f.words, f.ngrams)
}

// Subwords is a subword model trained by `train-embeddings --maxn N`: its
// word vectors (--out) and its n-gram vectors (--ngrams-out), read the way
// the evaluations read a fastText model. A word's form vector is the mean of
// the vectors of its n-grams found in the table: fastText's vector of a word
// it never saw, except that an n-gram no vocabulary word has is left out
// (fastText would read the hash bucket it falls into).
type Subwords struct {
	Words, Ngrams *model.Embeddings
	// Config is how words are cut into n-grams, implied by the table.
	Config model.NgramConfig
}

// LoadSubwords reads the word vectors at words and the n-gram vectors at
// ngrams (both word2vec text or binary), which must have one dimension.
func LoadSubwords(words, ngrams string) (*Subwords, error) {
	w, err := model.LoadEmbeddings(words)
	if err != nil {
		return nil, err
	}
	g, err := model.LoadEmbeddings(ngrams)
	if err != nil {
		return nil, err
	}
	if w.Dim != g.Dim {
		return nil, fmt.Errorf("subwords: %s has dimension %d, %s %d", words, w.Dim, ngrams, g.Dim)
	}
	cfg, err := model.FastTextConfigOf(g.Words)
	if err != nil {
		return nil, fmt.Errorf("subwords: n-grams %s: %w", ngrams, err)
	}
	return &Subwords{Words: w, Ngrams: g, Config: cfg}, nil
}

// ID returns the id of word in the word vectors.
func (s *Subwords) ID(word string) (int32, bool) { return s.Words.ID(word) }

// WordVector writes word's own vector to dst (len Words.Dim), or its form
// vector when it has none; it reports false, dst zero, when it has neither.
func (s *Subwords) WordVector(dst []float32, word string) (bool, error) {
	if len(dst) != s.Words.Dim {
		return false, fmt.Errorf("subwords: vector of length %d for dimension %d", len(dst), s.Words.Dim)
	}
	if id, ok := s.Words.ID(word); ok {
		copy(dst, s.Words.Row(id))
		return true, nil
	}
	return s.FormVector(dst, word)
}

// FormVector writes the mean of the vectors of word's n-grams found in the
// table to dst (len Words.Dim); it reports false, dst zero, when none is.
func (s *Subwords) FormVector(dst []float32, word string) (bool, error) {
	n, err := s.formVector(dst, word)
	return n > 0, err
}

// formVector is FormVector that returns the number of n-grams averaged.
func (s *Subwords) formVector(dst []float32, word string) (int, error) {
	if len(dst) != s.Ngrams.Dim {
		return 0, fmt.Errorf("subwords: vector of length %d for dimension %d", len(dst), s.Ngrams.Dim)
	}
	clear(dst)
	n := 0
	for _, g := range s.Config.AppendNgrams(nil, word) {
		id, ok := s.Ngrams.ID(g)
		if !ok {
			continue
		}
		for k, x := range s.Ngrams.Row(id) {
			dst[k] += x
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	inv := 1 / float32(n)
	for k := range dst {
		dst[k] *= inv
	}
	return n, nil
}

// Embeddings returns the model's word vectors as embeddings for the words of
// texts, as FastTextEmbeddings does for a fastText model: every vocabulary
// word with its own vector and its count in counts (0 when absent), and
// every other word of texts (tokenized with tok) that has a form vector,
// with that vector and count 1 (the SIF weight of a word seen once). It also
// returns how many words came from their form alone.
func (s *Subwords) Embeddings(counts map[string]int64, texts []string, tok model.Tokenizer) (*model.Embeddings, int, error) {
	dim := s.Words.Dim
	n := s.Words.Len()
	words := append(make([]string, 0, n), s.Words.Words...)
	vecs := append(make([]float32, 0, n*dim), s.Words.Vectors...)
	cs := make([]int64, n)
	for i, w := range words {
		cs[i] = counts[w]
	}
	v := make([]float32, dim)
	for _, w := range unknownWords(texts, tok, s.Words.ID) {
		ok, err := s.FormVector(v, w)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			words, cs, vecs = append(words, w), append(cs, 1), append(vecs, v...)
		}
	}
	e, err := model.NewEmbeddings(dim, words, vecs, cs)
	if err != nil {
		return nil, 0, fmt.Errorf("subwords: %w", err)
	}
	return e, len(words) - n, nil
}
