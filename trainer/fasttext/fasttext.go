// Package fasttext reads the binary model files (.bin) of fastText 0.9.x
// (Bojanowski et al. 2017) and computes their word vectors exactly as
// fastText does: the mean of a word's own input row (for words in the
// dictionary) and the rows of its hashed character n-grams. The evaluations
// use it as the anchor fastText's subword vectors set for rare and unseen
// words, and `import-fasttext` to build AM on a fastText model's vectors
// (Subwords); serving never needs fastText.
//
// Only the header and the dictionary are held in memory; input-matrix rows
// are read from the file on demand (a d = 100 model with fastText's default
// 2 M buckets has an 800 MB matrix).
package fasttext

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/text2vec-am/text2vec-am/model"
)

// eos is the dictionary word fastText reads for each end of line.
const eos = "</s>"

// The file signature of fastText's FastText::signModel.
const (
	fileMagic  = 793712314
	maxVersion = 12
	minVersion = 11
	// maxWordBytes bounds one dictionary word (fastText has no limit; real
	// tokens are far shorter).
	maxWordBytes = 1 << 16
	// maxNgramLen bounds maxn.
	maxNgramLen = 64
)

// ErrFormat marks a file that is not a fastText model this package reads.
var ErrFormat = errors.New("not a readable fastText .bin model")

// Model is an opened fastText model: its settings, dictionary and a reader
// over the input matrix. It is safe for concurrent use once opened.
type Model struct {
	// Dim is the dimension of the vectors.
	Dim int
	// MinN and MaxN are the character n-gram lengths fastText takes (MaxN 0:
	// no subwords, for a model trained with -maxn 0 or -minn above -maxn;
	// MinN 1 for -minn 0).
	MinN, MaxN int
	// Bucket is the number of hash buckets of the n-grams.
	Bucket int
	// Words are the dictionary words in fastText's order and Counts their
	// corpus counts (the "</s>" end-of-line token included).
	Words  []string
	Counts []int64

	index    map[string]int32
	rows     int64 // rows of the input matrix
	pruneIdx map[int32]int32
	pruned   bool
	r        io.ReaderAt
	off      int64 // offset of the input matrix's first value
	closer   io.Closer
}

// Open reads the header and dictionary of the fastText model at path; rows
// of its input matrix are read on demand until Close. Only a regular file
// is read (model.OpenRegular: a FIFO or a device is refused without
// blocking).
func Open(path string) (*Model, error) {
	f, st, err := model.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("fasttext: %w", err)
	}
	m, err := Read(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("fasttext %s: %w", path, err)
	}
	m.closer = f
	return m, nil
}

// Close closes the file Open opened.
func (m *Model) Close() error {
	if m.closer == nil {
		return nil
	}
	return m.closer.Close()
}

// Read parses a fastText model of size bytes from r; input-matrix rows are
// read from r on demand, so r must stay readable while the model is used.
func Read(r io.ReaderAt, size int64) (*Model, error) {
	cr := &countingReader{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<16)}
	m := &Model{r: r}
	if err := m.readHeader(cr); err != nil {
		return nil, err
	}
	if err := m.readDictionary(cr, size); err != nil {
		return nil, err
	}
	var quant uint8
	cr.read(&quant, "quantization flag")
	var rows, cols int64
	cr.read(&rows, "input matrix rows")
	cr.read(&cols, "input matrix columns")
	if cr.err != nil {
		return nil, cr.err
	}
	if quant != 0 {
		return nil, fmt.Errorf("%w: quantized model (.ftz); use the .bin", ErrFormat)
	}
	want := int64(len(m.Words)) + int64(m.Bucket)
	if m.pruned {
		want = int64(len(m.Words)) + int64(len(m.pruneIdx))
	}
	if rows != want || cols != int64(m.Dim) {
		return nil, fmt.Errorf("%w: input matrix is %d × %d, the header implies %d × %d", ErrFormat, rows, cols, want, m.Dim)
	}
	m.rows, m.off = rows, cr.n
	if end := m.off + rows*cols*4; end > size || end < m.off {
		return nil, fmt.Errorf("%w: truncated: the input matrix needs %d bytes up to offset %d, the file has %d", ErrFormat, rows*cols*4, end, size)
	}
	return m, nil
}

// readHeader reads the signature and fastText's Args::save.
func (m *Model) readHeader(cr *countingReader) error {
	var sig [2]int32
	cr.read(&sig, "signature")
	if cr.err != nil {
		return cr.err
	}
	if sig[0] != fileMagic {
		return fmt.Errorf("%w: bad magic number %d", ErrFormat, sig[0])
	}
	if sig[1] < minVersion || sig[1] > maxVersion {
		return fmt.Errorf("%w: file format version %d (want %d…%d)", ErrFormat, sig[1], minVersion, maxVersion)
	}
	// dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate, then t.
	var a [12]int32
	var t float64
	cr.read(&a, "arguments")
	cr.read(&t, "arguments")
	if cr.err != nil {
		return cr.err
	}
	m.Dim, m.Bucket, m.MinN, m.MaxN = int(a[0]), int(a[8]), int(a[9]), int(a[10])
	if m.Dim < 1 || m.Dim > model.MaxDim {
		return fmt.Errorf("%w: dimension %d out of range 1…%d", ErrFormat, m.Dim, model.MaxDim)
	}
	if m.Bucket < 0 || m.MinN < 0 || m.MaxN < 0 || m.MaxN > maxNgramLen {
		return fmt.Errorf("%w: bucket %d, minn %d, maxn %d out of range", ErrFormat, m.Bucket, m.MinN, m.MaxN)
	}
	const supervised = 3 // model_name::sup
	if sig[1] == 11 && a[7] == supervised {
		m.MaxN = 0 // as FastText::loadModel does for old supervised models
	}
	// The lengths fastText's computeSubwords takes: 1 up from minn 0, none
	// when minn is above maxn.
	if m.MaxN > 0 {
		m.MinN = max(m.MinN, 1)
	}
	if m.MinN > m.MaxN {
		m.MinN, m.MaxN = 0, 0
	}
	return nil
}

// readDictionary reads fastText's Dictionary::save.
func (m *Model) readDictionary(cr *countingReader, fileSize int64) error {
	var size, nwords, nlabels int32
	var ntokens, pruneSize int64
	cr.read(&size, "dictionary size")
	cr.read(&nwords, "dictionary size")
	cr.read(&nlabels, "dictionary size")
	cr.read(&ntokens, "dictionary size")
	cr.read(&pruneSize, "dictionary size")
	if cr.err != nil {
		return cr.err
	}
	// Every entry takes at least 10 bytes (NUL, count, type).
	if size < 0 || nwords < 0 || nlabels < 0 || int64(nwords)+int64(nlabels) != int64(size) || int64(size)*10 > fileSize {
		return fmt.Errorf("%w: dictionary of %d entries (%d words, %d labels) in a %d-byte file", ErrFormat, size, nwords, nlabels, fileSize)
	}
	if pruneSize > int64(fileSize)/8 {
		return fmt.Errorf("%w: %d pruned n-gram ids in a %d-byte file", ErrFormat, pruneSize, fileSize)
	}
	m.Words = make([]string, 0, nwords)
	m.Counts = make([]int64, 0, nwords)
	m.index = make(map[string]int32, nwords)
	for i := int32(0); i < size; i++ {
		w, err := cr.cstring()
		if err != nil {
			return fmt.Errorf("dictionary entry %d: %w", i, err)
		}
		var count int64
		var typ int8
		cr.read(&count, "dictionary entry")
		cr.read(&typ, "dictionary entry")
		if cr.err != nil {
			return fmt.Errorf("dictionary entry %d: %w", i, cr.err)
		}
		if i >= nwords {
			continue // labels: the last nlabels entries
		}
		if typ != 0 {
			return fmt.Errorf("%w: dictionary entry %d (%q) has type %d where a word (0) is expected", ErrFormat, i, w, typ)
		}
		m.index[w] = i
		m.Words = append(m.Words, w)
		m.Counts = append(m.Counts, count)
	}
	if pruneSize >= 0 {
		m.pruned = true
		m.pruneIdx = make(map[int32]int32, pruneSize)
		for i := int64(0); i < pruneSize; i++ {
			var kv [2]int32
			cr.read(&kv, "pruned n-gram index")
			m.pruneIdx[kv[0]] = kv[1]
		}
	}
	return cr.err
}

// countingReader reads little-endian values, remembering the first error and
// the offset reached.
type countingReader struct {
	r   *bufio.Reader
	n   int64
	err error
}

func (c *countingReader) read(v any, what string) {
	if c.err != nil {
		return
	}
	if err := binary.Read(c.r, binary.LittleEndian, v); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.ErrUnexpectedEOF
		}
		c.err = fmt.Errorf("%w: %s at offset %d: %w", ErrFormat, what, c.n, err)
		return
	}
	c.n += int64(binary.Size(v))
}

// cstring reads a NUL-terminated word.
func (c *countingReader) cstring() (string, error) {
	if c.err != nil {
		return "", c.err
	}
	var b []byte
	for {
		x, err := c.r.ReadByte()
		if err != nil {
			c.err = fmt.Errorf("%w: word at offset %d: %w", ErrFormat, c.n, io.ErrUnexpectedEOF)
			return "", c.err
		}
		c.n++
		if x == 0 {
			return string(b), nil
		}
		if len(b) == maxWordBytes {
			c.err = fmt.Errorf("%w: word at offset %d longer than %d bytes", ErrFormat, c.n, maxWordBytes)
			return "", c.err
		}
		b = append(b, x)
	}
}

// Hash is fastText's FNV-1a variant (Dictionary::hash): every byte is
// sign-extended before the xor, so bytes ≥ 0x80 differ from standard FNV-1a.
func Hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(int32(int8(s[i])))
		h *= 16777619
	}
	return h
}

// ID returns the dictionary index of word.
func (m *Model) ID(word string) (int32, bool) {
	id, ok := m.index[word]
	return id, ok
}

// AppendSubwordRows appends the input-matrix rows of word's character
// n-grams to dst, as Dictionary::computeSubwords does: n-grams of "<word>"
// of minn…maxn UTF-8 characters (the lone "<" and ">" never), each hashed
// into a bucket. The word's own row is not included.
func (m *Model) AppendSubwordRows(dst []int32, word string) []int32 {
	if m.MaxN == 0 || m.Bucket == 0 || word == eos {
		return dst
	}
	w := "<" + word + ">"
	for i := 0; i < len(w); i++ {
		if w[i]&0xC0 == 0x80 {
			continue
		}
		for j, n := i, 1; j < len(w) && n <= m.MaxN; n++ {
			j++
			for j < len(w) && w[j]&0xC0 == 0x80 {
				j++
			}
			if n >= m.MinN && !(n == 1 && (i == 0 || j == len(w))) {
				if r, ok := m.NgramRow(w[i:j]); ok {
					dst = append(dst, r)
				}
			}
		}
	}
	return dst
}

// NgramRow returns the input-matrix row of the character n-gram g, in
// fastText's form ('<' and '>' mark the word's ends): the row of its hash
// bucket. It reports false for a model without n-grams and for a bucket that
// a pruned model dropped.
func (m *Model) NgramRow(g string) (int32, bool) {
	if m.Bucket == 0 {
		return 0, false
	}
	h := int32(Hash(g) % uint32(m.Bucket))
	if m.pruned {
		p, ok := m.pruneIdx[h]
		if !ok {
			return 0, false
		}
		h = p
	}
	return int32(len(m.Words)) + h, true
}

// WordVector writes fastText's vector of word to dst (len Dim), as
// `fasttext print-word-vectors` computes it: the mean of the word's own row
// (when it is in the dictionary) and its n-gram rows. It reports false, and
// leaves dst zero, when the word has neither.
func (m *Model) WordVector(dst []float32, word string) (bool, error) {
	rows := m.AppendSubwordRows(nil, word)
	if id, ok := m.index[word]; ok {
		rows = append([]int32{id}, rows...)
	}
	return m.meanRows(dst, rows)
}

// FormVector writes the mean of word's n-gram rows to dst (len Dim): its
// vector from the surface form alone, as fastText gives a word it has never
// seen. It reports false, and leaves dst zero, when the word has no n-gram.
func (m *Model) FormVector(dst []float32, word string) (bool, error) {
	return m.meanRows(dst, m.AppendSubwordRows(nil, word))
}

func (m *Model) meanRows(dst []float32, rows []int32) (bool, error) {
	if len(dst) != m.Dim {
		return false, fmt.Errorf("fasttext: vector of length %d for dimension %d", len(dst), m.Dim)
	}
	clear(dst)
	if len(rows) == 0 {
		return false, nil
	}
	buf := make([]byte, 4*m.Dim)
	for _, r := range rows {
		if int64(r) >= m.rows || r < 0 {
			return false, fmt.Errorf("fasttext: row %d outside the input matrix (%d rows)", r, m.rows)
		}
		if _, err := m.r.ReadAt(buf, m.off+int64(r)*int64(len(buf))); err != nil {
			return false, fmt.Errorf("fasttext: read row %d: %w", r, err)
		}
		for k := range dst {
			dst[k] += math.Float32frombits(binary.LittleEndian.Uint32(buf[4*k:]))
		}
	}
	inv := 1 / float32(len(rows))
	for k := range dst {
		dst[k] *= inv
	}
	return true, nil
}

// Embeddings returns the word vectors of the dictionary words (WordVector of
// each; "</s>" left out) with their counts, in fastText's order, plus the
// words of extra that are not in the dictionary with their FormVector and
// count extraCount (words without any n-gram are left out).
func (m *Model) Embeddings(extra []string, extraCount int64) (*model.Embeddings, error) {
	var words []string
	var counts []int64
	seen := make(map[string]bool, len(m.Words)+len(extra))
	for i, w := range m.Words {
		if w == eos {
			continue
		}
		words, counts = append(words, w), append(counts, m.Counts[i])
		seen[w] = true
	}
	vecs := make([]float32, 0, (len(words)+len(extra))*m.Dim)
	v := make([]float32, m.Dim)
	for _, w := range words {
		if _, err := m.WordVector(v, w); err != nil {
			return nil, err
		}
		vecs = append(vecs, v...)
	}
	for _, w := range extra {
		if seen[w] {
			continue
		}
		seen[w] = true
		ok, err := m.FormVector(v, w)
		if err != nil {
			return nil, err
		}
		if ok {
			words, counts = append(words, w), append(counts, extraCount)
			vecs = append(vecs, v...)
		}
	}
	e, err := model.NewEmbeddings(m.Dim, words, vecs, counts)
	if err != nil {
		return nil, fmt.Errorf("fasttext: %w", err)
	}
	return e, nil
}
