package amtrain

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// The occurrence index file (little-endian, sections 8-byte aligned):
//
//	header (indexHeaderSize bytes): magic "T2VAMIX1", then uint64 fields:
//	  version, flags (bit 0: lowercase tokenizer), key (corpus key),
//	  nTokens, nTypes, nLines, tokensOff, offsetsOff, positionsOff, vocabOff, vocabLen,
//	  crc (CRC-32C of everything after the header, checked on every load)
//	tokens    [nTokens]int32: the token stream; lineSep before every line and
//	          after the last one, so a window scan stops at a line boundary
//	          without bounds checks
//	offsets   [nTypes+1]int64: CSR row starts into positions
//	positions [offsets[nTypes]]uint32: for each word type, the stream
//	          positions of its occurrences, ascending
//	vocab     nTypes × (uvarint length, bytes): the word types, id order
//	          (first occurrence in the corpus)
const (
	indexMagic      = "T2VAMIX1"
	indexVersion    = 3 // 3: a line over corpus.MaxUnitBytes is cut into units
	indexHeaderSize = 128
	// lineSep is the reserved token id that separates lines in the stream.
	lineSep int32 = -1
)

// Index is the occurrence index of a corpus: its token stream as int32 ids
// (memory-mapped from a file), with, for every word type, the list of its
// positions (CSR arrays), so that sampling k contexts of a word costs O(k)
// window scans and never rescans the corpus.
//
// Every word type of the corpus has an id, so no token is lost and context
// windows count true corpus positions; whether a word has a base embedding is
// decided later (see sampler). An Index is safe for concurrent readers.
type Index struct {
	// Words are the corpus word types, by id.
	Words     []string
	ids       map[string]int32
	tokens    []int32
	offsets   []int64
	positions []uint32
	nLines    int64
	data      []byte // the mapping; nil after Close
}

// Len is the number of word types.
func (x *Index) Len() int { return len(x.Words) }

// ID returns the id of word, if it occurs in the corpus.
func (x *Index) ID(word string) (int32, bool) {
	id, ok := x.ids[word]
	return id, ok
}

// Count is the number of occurrences of word type id in the corpus.
func (x *Index) Count(id int32) int64 { return x.offsets[id+1] - x.offsets[id] }

// Positions returns the stream positions of the occurrences of id (read-only).
func (x *Index) Positions(id int32) []uint32 {
	return x.positions[x.offsets[id]:x.offsets[id+1]]
}

// Tokens returns the number of word tokens in the corpus (line separators excluded).
func (x *Index) Tokens() int64 { return x.offsets[len(x.Words)] }

// Lines returns the number of lines in the corpus.
func (x *Index) Lines() int64 { return x.nLines }

// Close unmaps the index. It must not be used afterwards.
func (x *Index) Close() error {
	if x.data == nil {
		return nil
	}
	err := unmapFile(nil, x.data, false)
	x.data = nil
	x.tokens, x.offsets, x.positions = nil, nil, nil
	if err != nil {
		return fmt.Errorf("unmap index: %w", err)
	}
	return nil
}

// corpusKey identifies a corpus for the index cache: the index format version,
// the tokenizer settings and every file's absolute path, size and modification
// time. Editing, replacing or adding a file changes the key.
func corpusKey(files []string, tok model.Tokenizer) (uint64, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "v%d tokenizer=%+v\n", indexVersion, tok)
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return 0, fmt.Errorf("corpus: %w", err)
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return 0, fmt.Errorf("corpus: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", abs, st.Size(), st.ModTime().UnixNano())
	}
	return h.Sum64(), nil
}

// indexPath returns the cache file name of the index of files in dir.
func indexPath(dir string, key uint64) string {
	return filepath.Join(dir, fmt.Sprintf("amindex-%016x.idx", key))
}

// OpenIndex returns the occurrence index of the corpus (files or directories,
// read with package corpus: one unit per line, a line over
// corpus.MaxUnitBytes in several), from the cache in dir when one
// matches the corpus and tokenizer, else it builds one there (atomically:
// temporary file, then rename). Building stops when ctx is cancelled.
func OpenIndex(ctx context.Context, paths []string, tok model.Tokenizer, dir string, log *slog.Logger) (*Index, error) {
	files, err := corpus.Files(paths)
	if err != nil {
		return nil, err
	}
	key, err := corpusKey(files, tok)
	if err != nil {
		return nil, err
	}
	path := indexPath(dir, key)
	if x, err := loadIndex(path, key); err == nil {
		log.Info("occurrence index loaded from cache", "file", path, "tokens", x.Tokens(), "types", x.Len())
		return x, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		log.Warn("occurrence index cache unusable; rebuilding", "file", path, "err", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index cache dir: %w", err)
	}
	if err := buildIndex(ctx, files, tok, path, key); err != nil {
		return nil, err
	}
	x, err := loadIndex(path, key)
	if err != nil {
		return nil, err
	}
	log.Info("occurrence index built", "file", path, "tokens", x.Tokens(), "types", x.Len(), "lines", x.Lines())
	return x, nil
}

type indexHeader struct {
	version, flags, key                 uint64
	nTokens, nTypes, nLines             uint64
	tokensOff, offsetsOff, positionsOff uint64
	vocabOff, vocabLen                  uint64
	crc                                 uint64
}

func (h *indexHeader) fields() []*uint64 {
	return []*uint64{&h.version, &h.flags, &h.key, &h.nTokens, &h.nTypes, &h.nLines,
		&h.tokensOff, &h.offsetsOff, &h.positionsOff, &h.vocabOff, &h.vocabLen, &h.crc}
}

func (h *indexHeader) encode() []byte {
	b := make([]byte, indexHeaderSize)
	copy(b, indexMagic)
	for i, f := range h.fields() {
		binary.LittleEndian.PutUint64(b[8+8*i:], *f)
	}
	return b
}

func (h *indexHeader) decode(b []byte) error {
	if len(b) < indexHeaderSize || string(b[:8]) != indexMagic {
		return errors.New("not an occurrence index file (bad magic)")
	}
	for i, f := range h.fields() {
		*f = binary.LittleEndian.Uint64(b[8+8*i:])
	}
	if h.version != indexVersion {
		return fmt.Errorf("index format version %d, want %d", h.version, indexVersion)
	}
	return nil
}

func align8(n uint64) uint64 { return (n + 7) &^ 7 }

// buildIndex tokenizes the corpus once, streaming the token ids to the file,
// then fills the position lists through a writable mapping of the same file,
// appends the vocabulary and the header, and renames the finished file to path
// (atomicfile).
func buildIndex(ctx context.Context, files []string, tok model.Tokenizer, path string, key uint64) error {
	if !littleEndian() {
		return errors.New("occurrence index: only little-endian machines are supported")
	}
	err := atomicfile.WriteRaw(path, atomicfile.Readable, func(tmp *os.File) error {
		if _, err := tmp.Write(make([]byte, indexHeaderSize)); err != nil {
			return err
		}
		s := &tokenStream{w: bufio.NewWriterSize(tmp, 1<<20), ids: make(map[string]int32)}
		if err := s.write(ctx, files, tok); err != nil {
			return err
		}
		h := s.header(key, tok)
		if err := fillPositions(tmp, &h, s.counts); err != nil {
			return err
		}
		if err := writeVocab(tmp, s.w, &h, s.words); err != nil {
			return err
		}
		return writeHeader(tmp, &h)
	})
	if err != nil {
		return fmt.Errorf("occurrence index: %w", err)
	}
	return nil
}

// tokenStream writes the token ids of the corpus (each line followed by
// lineSep) and collects the vocabulary on the way.
type tokenStream struct {
	w       *bufio.Writer
	ids     map[string]int32
	words   []string
	counts  []int64
	nTokens uint64
	nLines  uint64
	buf     [4]byte
}

// write streams every unit of files, led by a separator, and flushes.
func (s *tokenStream) write(ctx context.Context, files []string, tok model.Tokenizer) error {
	if err := s.put(lineSep); err != nil {
		return err
	}
	if err := corpus.ForEachUnit(ctx, files, corpus.Options{Tokenizer: tok}, s.add); err != nil {
		return err
	}
	return s.w.Flush()
}

// put writes one token id.
func (s *tokenStream) put(id int32) error {
	binary.LittleEndian.PutUint32(s.buf[:], uint32(id))
	s.nTokens++
	_, err := s.w.Write(s.buf[:])
	return err
}

// add writes the tokens of u, numbering new words, then a separator.
func (s *tokenStream) add(u corpus.Unit) error {
	for _, t := range u.Tokens {
		id, ok := s.ids[t]
		if !ok {
			if len(s.words) == math.MaxInt32 {
				return fmt.Errorf("%s:%d: more than 2^31 word types", u.File, u.Line)
			}
			id = int32(len(s.words))
			t = strings.Clone(t) // u.Tokens alias the reader's buffer
			s.ids[t] = id
			s.words = append(s.words, t)
			s.counts = append(s.counts, 0)
		}
		s.counts[id]++
		if err := s.put(id); err != nil {
			return err
		}
	}
	s.nLines++
	if s.nTokens >= math.MaxUint32 {
		return fmt.Errorf("%s:%d: corpus too large for the index (2^32 tokens)", u.File, u.Line)
	}
	return s.put(lineSep)
}

// header lays out the index file for the streamed tokens: token ids, then
// the offsets and positions of each word, then the vocabulary.
func (s *tokenStream) header(key uint64, tok model.Tokenizer) indexHeader {
	h := indexHeader{version: indexVersion, key: key, nTokens: s.nTokens, nTypes: uint64(len(s.words)), nLines: s.nLines}
	if tok.Lowercase {
		h.flags = 1
	}
	var total uint64
	for _, c := range s.counts {
		total += uint64(c)
	}
	h.tokensOff = indexHeaderSize
	h.offsetsOff = align8(h.tokensOff + 4*s.nTokens)
	h.positionsOff = h.offsetsOff + 8*(h.nTypes+1)
	h.vocabOff = align8(h.positionsOff + 4*total)
	return h
}

// fillPositions grows tmp to the vocabulary offset and, through a writable
// mapping, writes each word's offset and the positions of its occurrences.
func fillPositions(tmp *os.File, h *indexHeader, counts []int64) error {
	if err := tmp.Truncate(int64(h.vocabOff)); err != nil {
		return err
	}
	data, err := mapFile(tmp, int(h.vocabOff), true)
	if err != nil {
		return fmt.Errorf("mmap: %w", err)
	}
	tokens := int32s(data, h.tokensOff, h.nTokens)
	offsets := int64s(data, h.offsetsOff, h.nTypes+1)
	var acc int64
	for i, c := range counts {
		offsets[i] = acc
		acc += c
	}
	offsets[len(counts)] = acc
	positions := uint32s(data, h.positionsOff, uint64(acc))
	next := make([]int64, len(counts))
	copy(next, offsets[:len(counts)])
	for p, t := range tokens {
		if t >= 0 {
			positions[next[t]] = uint32(p)
			next[t]++
		}
	}
	if err := unmapFile(tmp, data, true); err != nil {
		return fmt.Errorf("munmap: %w", err)
	}
	return nil
}

// writeVocab appends the words (uvarint length, bytes) at the vocabulary
// offset through w and records their length in h.
func writeVocab(tmp *os.File, w *bufio.Writer, h *indexHeader, words []string) error {
	if _, err := tmp.Seek(int64(h.vocabOff), io.SeekStart); err != nil {
		return err
	}
	w.Reset(tmp)
	var vb [binary.MaxVarintLen64]byte
	for _, word := range words {
		n := binary.PutUvarint(vb[:], uint64(len(word)))
		w.Write(vb[:n])
		w.WriteString(word)
		h.vocabLen += uint64(n + len(word))
	}
	return w.Flush()
}

// writeHeader writes the header with the checksum of the body at the start
// of tmp.
func writeHeader(tmp *os.File, h *indexHeader) (err error) {
	if h.crc, err = fileCRC(tmp, indexHeaderSize); err != nil {
		return err
	}
	_, err = tmp.WriteAt(h.encode(), 0)
	return err
}

// loadIndex maps an index file and checks it against key. Every part of
// the file is checked before it is used (checkLayout, checkBody), so a
// damaged or crafted file is an error, never a crash or an allocation its
// size does not bound; only a regular file is read (model.OpenRegular: a
// FIFO in its place does not block).
func loadIndex(path string, key uint64) (*Index, error) {
	f, st, err := model.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, indexHeaderSize)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("index %s: truncated header: %w", path, err)
	}
	var h indexHeader
	if err := h.decode(head); err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	if h.key != key {
		return nil, fmt.Errorf("index %s: built for another corpus or tokenizer", path)
	}
	if err := h.checkLayout(uint64(st.Size())); err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	if !littleEndian() {
		return nil, errors.New("occurrence index: only little-endian machines are supported")
	}
	data, err := mapFile(f, int(st.Size()), false)
	if err != nil {
		return nil, fmt.Errorf("index %s: mmap: %w", path, err)
	}
	x, err := mapIndex(data, &h)
	if err != nil {
		_ = unmapFile(f, data, false)
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return x, nil
}

// checkLayout checks that the sections h declares lie where buildIndex puts
// them, one after the other in a file of size bytes, before any is read: the
// counts they follow from are in range (ids are int32 and positions uint32),
// so no offset overflows.
func (h *indexHeader) checkLayout(size uint64) error {
	switch {
	case h.flags&^1 != 0:
		return fmt.Errorf("corrupt header (flags %#x)", h.flags)
	case h.nTokens == 0 || h.nTokens > math.MaxUint32 || h.nLines >= h.nTokens:
		return fmt.Errorf("corrupt header (%d tokens, %d lines)", h.nTokens, h.nLines)
	case h.nTypes > math.MaxInt32:
		return fmt.Errorf("corrupt header (%d word types, at most 2^31-1)", h.nTypes)
	case h.tokensOff != indexHeaderSize || h.offsetsOff != align8(h.tokensOff+4*h.nTokens) ||
		h.positionsOff != h.offsetsOff+8*(h.nTypes+1):
		return errors.New("corrupt header (sections out of place)")
	case h.vocabOff < h.positionsOff || h.vocabOff > size || h.vocabLen != size-h.vocabOff:
		return fmt.Errorf("size %d does not match its header", size)
	}
	return nil
}

// mapIndex checks the body of the mapped index file data, whose header h
// passed checkLayout, and returns the index over it.
func mapIndex(data []byte, h *indexHeader) (*Index, error) {
	if uint64(crc32.Checksum(data[indexHeaderSize:], castagnoli)) != h.crc {
		return nil, errors.New("checksum mismatch (corrupt file)")
	}
	x := &Index{nLines: int64(h.nLines)}
	x.tokens = int32s(data, h.tokensOff, h.nTokens)
	x.offsets = int64s(data, h.offsetsOff, h.nTypes+1)
	total := uint64(x.offsets[h.nTypes])
	if total > h.nTokens || h.vocabOff != align8(h.positionsOff+4*total) {
		return nil, errors.New("corrupt (positions out of place)")
	}
	x.positions = uint32s(data, h.positionsOff, total)
	err := x.checkBody()
	if err != nil {
		return nil, err
	}
	if x.Words, x.ids, err = readVocab(data[h.vocabOff:], h.nTypes); err != nil {
		return nil, err
	}
	x.data = data
	return x, nil
}

// checkBody checks what the sampler relies on: the stream starts and ends
// with a line separator and has nLines+1 of them, every other token is a
// word type's id, the offsets rise from 0 to the number of words, and each
// word's position list rises, inside the stream, through the positions of
// its tokens (compared through a hash of each list: two sequential passes,
// no random access to the lists).
func (x *Index) checkBody() error {
	n := len(x.tokens)
	if x.tokens[0] != lineSep || x.tokens[n-1] != lineSep {
		return errors.New("corrupt (the token stream does not begin and end with a line break)")
	}
	nTypes := len(x.offsets) - 1
	for id := range nTypes {
		if x.offsets[0] != 0 || x.offsets[id+1] < x.offsets[id] {
			return errors.New("corrupt (offsets)")
		}
	}
	sums := make([]uint64, nTypes) // bounded by the file, as the offsets
	var seps int64
	for p, t := range x.tokens {
		if t == lineSep {
			seps++
			continue
		}
		if t < 0 || int(t) >= nTypes {
			return fmt.Errorf("corrupt (token %d is id %d of %d word types)", p, t, nTypes)
		}
		sums[t] = sums[t]*positionsHash + uint64(p)
	}
	if seps != x.nLines+1 || int64(n)-seps != x.offsets[nTypes] {
		return fmt.Errorf("corrupt (%d line breaks and %d words, the header says %d lines and %d words)",
			seps, int64(n)-seps, x.nLines, x.offsets[nTypes])
	}
	for id := range nTypes {
		var sum uint64
		prev := uint32(0)
		for _, p := range x.positions[x.offsets[id]:x.offsets[id+1]] {
			if p <= prev || int(p) >= n-1 {
				return fmt.Errorf("corrupt (a position of word type %d is out of order or past the stream)", id)
			}
			sum, prev = sum*positionsHash+uint64(p), p
		}
		if sum != sums[id] {
			return fmt.Errorf("corrupt (the positions of word type %d are not those of its tokens)", id)
		}
	}
	return nil
}

// positionsHash is the multiplier of the hash checkBody compares each
// position list with (an odd 64-bit constant, SplitMix64's).
const positionsHash = 0xBF58476D1CE4E5B9

// readVocab reads the n words of the vocabulary section b, which they must
// fill, each once and each one the tokenizer writes (not empty, no white
// space or NUL; any length: a run of letters may pass model.MaxWordBytes),
// and returns them with their ids.
func readVocab(b []byte, n uint64) ([]string, map[string]int32, error) {
	words := make([]string, 0, n) // n ≤ len(offsets): bounded by the file
	ids := make(map[string]int32, n)
	for uint64(len(words)) < n {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, nil, errors.New("corrupt vocabulary")
		}
		word := string(b[k : k+int(l)])
		if word == "" {
			return nil, nil, fmt.Errorf("corrupt vocabulary (word type %d: empty word)", len(words))
		}
		if strings.ContainsAny(word, " \t\n\r\x00") {
			return nil, nil, fmt.Errorf("corrupt vocabulary (word type %d contains white space or NUL)", len(words))
		}
		if _, dup := ids[word]; dup {
			return nil, nil, fmt.Errorf("corrupt vocabulary (word type %d, %q, repeats an earlier one)", len(words), word)
		}
		ids[word] = int32(len(words))
		words = append(words, word)
		b = b[k+int(l):]
	}
	if len(b) > 0 {
		return nil, nil, fmt.Errorf("corrupt vocabulary (%d bytes after the last word)", len(b))
	}
	return words, ids, nil
}

// fileCRC returns the CRC-32C of f from offset on.
func fileCRC(f *os.File, offset int64) (uint64, error) {
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, err
	}
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return 0, err
	}
	return uint64(h.Sum32()), nil
}

func littleEndian() bool {
	v := uint16(1)
	return *(*byte)(unsafe.Pointer(&v)) == 1
}

func int32s(b []byte, off, n uint64) []int32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[off])), n)
}

func int64s(b []byte, off, n uint64) []int64 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&b[off])), n)
}

func uint32s(b []byte, off, n uint64) []uint32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[off])), n)
}
