package model

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
)

// ErrOneValue reports embeddings without a header whose first line holds a
// word and a single value: a counts file, most likely, and one dimension
// would hold no meaning anyway.
var ErrOneValue = errors.New("not embeddings: one value per word")

// LoadEmbeddings reads an embeddings file: word2vec text with or without its
// "rows dim" header line (GloVe's headerless text too), word2vec binary, or a
// gzip of any of them (detected by magic bytes).
func LoadEmbeddings(path string) (*Embeddings, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("load embeddings: %w", err)
	}
	defer f.Close()
	return ReadEmbeddings(io.NewSectionReader(f, 0, st.Size()), path)
}

// ReadEmbeddings reads embeddings from r in any format LoadEmbeddings accepts;
// name (usually the file name) prefixes every error message, with the line or
// record where the problem is.
//
// Format detection: gzip by its magic bytes; a first line of exactly two
// integers is a word2vec header "rows dim", otherwise the file is headerless
// text and the dimension is the number of values on the first line, at least
// two (a word and one value is refused with ErrOneValue: a counts file). After a
// header the body is binary when the bytes following the first word are not
// all characters of decimal numbers. (So a binary file whose first values'
// bytes all happen to be such characters, as real vectors' never are, is read
// as text and fails with the text parser's error.) Text values are parsed in
// parallel. When r tells the bytes it holds (a Len or a Size method, as
// *bytes.Reader's and *io.SectionReader's), no more rows than they can hold
// are reserved whatever a header claims.
func ReadEmbeddings(r io.Reader, name string) (*Embeddings, error) {
	size := int64(-1) // unknown
	switch s := r.(type) {
	case interface{ Len() int }:
		size = int64(s.Len())
	case interface{ Size() int64 }:
		size = s.Size()
	}
	zr, closeZ, err := MaybeGunzip(r, 256<<10)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, gz := zr.(*gunzipReader); gz {
		size = -1 // what it expands to is not known
	}
	e, err := readEmbeddings(zr, name, size)
	if cerr := closeZ(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", name, cerr)
	}
	return e, err
}

func readEmbeddings(r io.Reader, name string, size int64) (*Embeddings, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	first, err := readLine(br, maxTextLine)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:1: %w", name, err)
	}
	if len(bytes.TrimSpace(first)) == 0 && errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	fields := bytes.Fields(first)
	rows, dim, isHeader := parseHeader(fields)
	if isHeader {
		if dim < 1 || dim > MaxDim {
			return nil, fmt.Errorf("%s:1: header declares dimension %d (allowed 1..%d)", name, dim, MaxDim)
		}
		if rows < 0 {
			return nil, fmt.Errorf("%s:1: header declares %d rows", name, rows)
		}
		if looksBinary(br, dim) {
			return readBinaryBody(br, name, rows, dim, size)
		}
		return readTextBody(br, name, nil, 2, rows, dim)
	}
	if len(fields) < 2 {
		return nil, fmt.Errorf("%s:1: a word and at least one value expected, got %d fields", name, len(fields))
	}
	if len(fields) == 2 {
		return nil, fmt.Errorf("%s:1: %w: %q is a word and one number, as in a counts file (\"word count\" lines)",
			name, ErrOneValue, first)
	}
	dim = len(fields) - 1
	if dim > MaxDim {
		return nil, fmt.Errorf("%s:1: %d values (dimension limit %d)", name, dim, MaxDim)
	}
	return readTextBody(br, name, first, 1, -1, dim)
}

// readLine returns the next line without its line break; the slice is only
// valid until the next read. A line of more than max bytes is an error, read
// no further: a file without line breaks (or a gzip of one, which can expand
// a thousandfold) is never held whole.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	tooLong := fmt.Errorf("line longer than %d bytes", max)
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		buf := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = br.ReadSlice('\n')
			if len(buf)+len(line) > max+2 { // its line break not counted
				return nil, tooLong
			}
			if len(buf)+len(line) > cap(buf) { // double: append grows a large slice by a quarter
				buf = append(make([]byte, 0, min(2*cap(buf)+len(line), max+2)), buf...)
			}
			buf = append(buf, line...)
		}
		line = buf
	}
	if len(line) > max+2 {
		return nil, tooLong
	}
	return bytes.TrimRight(line, "\r\n"), err
}

// maxTextLine bounds a line of text embeddings (cutTextChunks) and the
// first line of any embeddings file; maxCountsLine a line of a counts file,
// a word and a number.
const (
	maxTextLine   = 64 << 20
	maxCountsLine = 1 << 20
)

// parseHeader reports whether fields are a word2vec header "rows dim".
func parseHeader(fields [][]byte) (rows, dim int, ok bool) {
	if len(fields) != 2 {
		return 0, 0, false
	}
	r, err1 := strconv.Atoi(string(fields[0]))
	d, err2 := strconv.Atoi(string(fields[1]))
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return r, d, true
}

// looksBinary peeks at the first record after a header. A text record's
// first line holds, after the word, only characters of decimal numbers: dim
// of them, or at least 8 bytes of them (so that a text file with a wrong
// number of values still gets the text parser's precise error).
func looksBinary(br *bufio.Reader, dim int) bool {
	peek, _ := br.Peek(br.Size())
	peek = bytes.TrimLeft(peek, "\n\r")
	line := peek
	if nl := bytes.IndexByte(peek, '\n'); nl >= 0 {
		line = peek[:nl]
	}
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return false // a word without values: let the text parser report it
	}
	seg := bytes.TrimRight(line[sp+1:], "\r")
	for _, c := range seg {
		switch {
		case '0' <= c && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E', c == ' ', c == '\t',
			c == 'n', c == 'a', c == 'i', c == 'f', c == 'N', c == 'A', c == 'I', c == 'F':
		default:
			return true
		}
	}
	return !(countFields(seg) == dim || len(seg) >= 8)
}

// textChunk is a run of whole lines handed to a parsing worker.
type textChunk struct {
	seq       int
	firstLine int
	data      []byte

	words []string
	lines []int32 // line of each word
	vecs  []float32
	err   error
	line  int // line of err
}

// readTextBody parses word2vec text lines of dimension dim. pending, when
// non-nil, is the already-read first line (line number lineNo). wantRows < 0
// means unknown (no header). One goroutine cuts the stream into chunks of
// whole lines, GOMAXPROCS workers parse them, and the chunks are joined in
// order.
func readTextBody(br *bufio.Reader, name string, pending []byte, lineNo, wantRows, dim int) (*Embeddings, error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan *textChunk, workers)
	done := make(chan *textChunk, workers)
	pool := make(chunkPool, workers+2)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parseTextChunks(jobs, done, pool, dim)
		}()
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		readErr <- cutTextChunks(br, name, pending, lineNo, pool, jobs)
	}()
	go func() { wg.Wait(); close(done) }()

	var results []*textChunk
	for c := range done {
		results = append(results, c)
	}
	if err := <-readErr; err != nil {
		return nil, err
	}
	return joinTextChunks(results, name, wantRows, dim)
}

// chunkPool holds the buffers of parsed chunks for reuse.
type chunkPool chan []byte

// get returns an empty buffer of capacity at least n.
func (p chunkPool) get(n int) []byte {
	select {
	case b := <-p:
		if cap(b) >= n {
			return b[:0]
		}
	default:
	}
	return make([]byte, 0, n)
}

// put hands b back; it is dropped when the pool is full.
func (p chunkPool) put(b []byte) {
	select {
	case p <- b[:0]:
	default:
	}
}

// parseTextChunks parses the chunks from jobs until it is closed, recycles
// their buffers and sends them to done.
func parseTextChunks(jobs <-chan *textChunk, done chan<- *textChunk, pool chunkPool, dim int) {
	for c := range jobs {
		parseTextChunk(c, dim)
		pool.put(c.data)
		c.data = nil
		done <- c
	}
}

// cutTextChunks reads br to its end and sends it to jobs as numbered chunks
// of whole lines; line is the number of the first line (pending, when
// non-nil). Chunks start small (small inputs stay cheap) and double up to
// 4 MiB; a line longer than 64 MiB is an error.
func cutTextChunks(br *bufio.Reader, name string, pending []byte, line int, pool chunkPool, jobs chan<- *textChunk) error {
	chunkBytes := 64 << 10
	seq := 0
	var carry []byte
	if pending != nil {
		carry = append(append(carry, pending...), '\n')
	}
	for {
		buf := append(pool.get(chunkBytes+len(carry)), carry...)
		n, err := io.ReadFull(br, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("%s: read: %w", name, err)
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 { // one line longer than a chunk: keep reading
				carry = buf
				if len(carry) > maxTextLine {
					return fmt.Errorf("%s:%d: line longer than %d bytes", name, line, maxTextLine)
				}
				continue
			}
		}
		c := &textChunk{seq: seq, firstLine: line, data: buf[:cut]}
		line += bytes.Count(c.data, []byte{'\n'})
		carry = append([]byte(nil), buf[cut:]...)
		jobs <- c
		seq++
		chunkBytes = min(2*chunkBytes, 4<<20)
		if eof {
			return nil
		}
	}
}

// joinTextChunks puts the parsed chunks in order, reports the first parse
// error, checks the row count against the header (wantRows >= 0) and builds
// the embeddings.
func joinTextChunks(results []*textChunk, name string, wantRows, dim int) (*Embeddings, error) {
	slices.SortFunc(results, func(a, b *textChunk) int { return a.seq - b.seq })
	total := 0
	for _, c := range results {
		if c.err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, c.line, c.err)
		}
		total += len(c.words)
	}
	if wantRows >= 0 && total != wantRows {
		return nil, fmt.Errorf("%s:1: header declares %d words but the body has %d", name, wantRows, total)
	}
	words, vecs := concatTextChunks(results, total, dim)
	return newEmbeddingsIndexed(dim, words, vecs, func(i int) string {
		// Report the line of entry i.
		for _, c := range results {
			if i < len(c.words) {
				return fmt.Sprintf("%s:%d", name, c.lines[i])
			}
			i -= len(c.words)
		}
		return name
	})
}

// concatTextChunks joins the words and vectors of the ordered chunks, which
// hold total words of dimension dim. The vectors are copied in parallel: the
// copy (and the page faults of the fresh array) is a fair share of the
// loading time.
func concatTextChunks(results []*textChunk, total, dim int) ([]string, []float32) {
	words := make([]string, 0, total)
	vecs := make([]float32, total*dim)
	var cw sync.WaitGroup
	next := 0
	for _, c := range results {
		words = append(words, c.words...)
		cw.Add(1)
		go func(dst, src []float32) {
			defer cw.Done()
			copy(dst, src)
		}(vecs[next:next+len(c.vecs)], c.vecs)
		next += len(c.vecs)
	}
	cw.Wait()
	return words, vecs
}

// parseTextChunk parses the lines of c into words and vectors.
func parseTextChunk(c *textChunk, dim int) {
	// A word with dim values takes at least 2·dim+1 bytes, so blank lines
	// reserve nothing.
	n := min(bytes.Count(c.data, []byte{'\n'})+1, len(c.data)/(2*dim+1)+1)
	c.words = make([]string, 0, n)
	c.vecs = make([]float32, 0, n*dim)
	line := c.firstLine
	for rest := c.data; len(rest) > 0; line++ {
		nl := bytes.IndexByte(rest, '\n')
		var l []byte
		if nl < 0 {
			l, rest = rest, nil
		} else {
			l, rest = rest[:nl], rest[nl+1:]
		}
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		i := skipSpace(l, 0)
		if i == len(l) {
			continue // blank line
		}
		j := skipWord(l, i)
		word := l[i:j]
		if len(word) > MaxWordBytes || bytes.ContainsAny(word, "\r\x00") {
			c.err, c.line = ValidWord(string(word)), line
			return
		}
		base := len(c.vecs)
		k := 0
		for p := skipSpace(l, j); p < len(l); p = skipSpace(l, p) {
			if k == dim {
				cnt := k + countFields(l[p:])
				c.err, c.line = fmt.Errorf("word %q: %d values, want %d", word, cnt, dim), line
				return
			}
			x, q, ok := parseFloatPrefix(l, p)
			if !ok {
				c.err, c.line = fmt.Errorf("word %q: value %d %q is not a number", word, k+1, l[p:q]), line
				return
			}
			if !finite32(x) {
				c.err, c.line = fmt.Errorf("word %q: value %d is %s (NaN or infinite)", word, k+1, l[p:q]), line
				return
			}
			c.vecs = append(c.vecs, x)
			k++
			p = q
		}
		if k != dim {
			c.err, c.line = fmt.Errorf("word %q: %d values, want %d", word, k, dim), line
			c.vecs = c.vecs[:base]
			return
		}
		c.words = append(c.words, string(word))
		c.lines = append(c.lines, int32(line))
	}
}

func skipSpace(l []byte, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

func skipWord(l []byte, i int) int {
	for i < len(l) && l[i] != ' ' && l[i] != '\t' {
		i++
	}
	return i
}

func countFields(l []byte) int {
	n := 0
	for i := skipSpace(l, 0); i < len(l); i = skipSpace(l, i) {
		i = skipWord(l, i)
		n++
	}
	return n
}

// newEmbeddingsIndexed builds the index, reporting a duplicate word with the
// place (file:line or record) of its second occurrence from where.
func newEmbeddingsIndexed(dim int, words []string, vecs []float32, where func(i int) string) (*Embeddings, error) {
	e := &Embeddings{Dim: dim, Words: words, Vectors: vecs, index: newVocabIndex(words)}
	for i, w := range words {
		if j, dup := e.index.insert(int32(i)); dup {
			return nil, fmt.Errorf("%s: duplicate word %q (first at %s)", where(i), w, where(int(j)))
		}
	}
	return e, nil
}

// binaryReserve bounds the vector values readBinaryBody reserves before
// reading them (128 MiB of float32).
const binaryReserve = 1 << 25

// readBinaryBody parses word2vec binary records: the word, a space, dim
// little-endian float32 values, and an optional line break; the file holds
// size bytes (-1: unknown).
func readBinaryBody(br *bufio.Reader, name string, rows, dim int, size int64) (*Embeddings, error) {
	// The header's row count is a claim, not yet backed by data: reserve
	// at most binaryReserve values up front, and no more rows than size
	// bytes can hold (a record takes at least 4·dim+2), and let append
	// grow past them.
	hint := min(rows, 1<<20, binaryReserve/dim)
	if size >= 0 {
		hint = int(min(int64(hint), size/int64(4*dim+2)))
	}
	words := make([]string, 0, hint)
	vecs := make([]float32, 0, hint*dim)
	rec := make([]byte, 4*dim)
	for i := 0; i < rows; i++ {
		// Skip line breaks left by the previous record.
		for {
			c, err := br.ReadByte()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil, fmt.Errorf("%s: record %d: file ends after %d of the %d words the header declares", name, i+1, i, rows)
				}
				return nil, fmt.Errorf("%s: record %d: %w", name, i+1, err)
			}
			if c != '\n' && c != '\r' {
				_ = br.UnreadByte()
				break
			}
		}
		wb, err := br.ReadSlice(' ')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, fmt.Errorf("%s: record %d: word longer than %d bytes", name, i+1, br.Size())
			}
			return nil, fmt.Errorf("%s: record %d: truncated word (%v)", name, i+1, err)
		}
		wb = wb[:len(wb)-1]
		word := string(wb)
		if err := ValidWord(word); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, i+1, err)
		}
		if n, err := io.ReadFull(br, rec); err != nil {
			return nil, fmt.Errorf("%s: record %d (word %q): truncated: %d of %d vector bytes", name, i+1, word, n, len(rec))
		}
		for k := range dim {
			x := math.Float32frombits(binary.LittleEndian.Uint32(rec[4*k:]))
			if !finite32(x) {
				return nil, fmt.Errorf("%s: record %d (word %q): value %d is %v", name, i+1, word, k+1, x)
			}
			vecs = append(vecs, x)
		}
		words = append(words, word)
	}
	// Only line breaks may follow the last record.
	for {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		if c != '\n' && c != '\r' {
			return nil, fmt.Errorf("%s: data after the %d records the header declares", name, rows)
		}
	}
	return newEmbeddingsIndexed(dim, words, vecs, func(i int) string { return fmt.Sprintf("%s: record %d", name, i+1) })
}

// WriteEmbeddingsText writes e in word2vec text format with a "rows dim"
// header; values use the shortest representation that reads back exactly.
func WriteEmbeddingsText(w io.Writer, e *Embeddings) error {
	return writeWordLines(w, fmt.Sprintf("%d %d\n", e.Len(), e.Dim), e.Words, "write embeddings", func(buf []byte, i int) []byte {
		for _, x := range e.Row(int32(i)) {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, float64(x), 'g', -1, 32)
		}
		return buf
	})
}

// WriteEmbeddingsBinary writes e in word2vec binary format: a "rows dim"
// header line, then per word the word, a space, Dim little-endian float32
// values and a line break.
func WriteEmbeddingsBinary(w io.Writer, e *Embeddings) error {
	return writeWordLines(w, fmt.Sprintf("%d %d\n", e.Len(), e.Dim), e.Words, "write embeddings", func(buf []byte, i int) []byte {
		buf = append(buf, ' ')
		return appendFloats(buf, e.Row(int32(i)))
	})
}

// writeWordLines writes header and, per word, the word, the bytes appendRest
// appends for it and a line break. Words must be valid (ValidWord).
func writeWordLines(w io.Writer, header string, words []string, what string, appendRest func(buf []byte, i int) []byte) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(header)
	var buf []byte
	for i, word := range words {
		if err := ValidWord(word); err != nil {
			return fmt.Errorf("%s: entry %d: %w", what, i, err)
		}
		buf = append(buf[:0], word...)
		buf = appendRest(buf, i)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// SaveEmbeddings writes e to path (text, or binary when binary is set), gzip
// compressed when path ends in ".gz". The file is replaced atomically
// (atomicfile), mode 0644 (atomicfile.Readable).
func SaveEmbeddings(path string, e *Embeddings, binary bool) error {
	return atomicfile.Write(path, atomicfile.Readable, func(w *bufio.Writer) error {
		if strings.HasSuffix(path, ".gz") {
			zw := gzip.NewWriter(w)
			var err error
			if binary {
				err = WriteEmbeddingsBinary(zw, e)
			} else {
				err = WriteEmbeddingsText(zw, e)
			}
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
			return err
		}
		if binary {
			return WriteEmbeddingsBinary(w, e)
		}
		return WriteEmbeddingsText(w, e)
	})
}

// LoadCounts reads "word count" lines (white-space separated, blank lines
// skipped, gzip detected by magic bytes) into a map. Errors name the file and
// line: wrong number of fields, a count that is not a non-negative integer, a
// duplicate word.
func LoadCounts(path string) (map[string]int64, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("load counts: %w", err)
	}
	defer f.Close()
	return ReadCounts(f, path)
}

// ReadCounts reads "word count" lines from r; name prefixes errors.
func ReadCounts(r io.Reader, name string) (map[string]int64, error) {
	zr, closeZ, err := MaybeGunzip(r, 256<<10)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer closeZ()
	br := bufio.NewReaderSize(zr, 1<<20)
	counts := make(map[string]int64)
	firstLine := make(map[string]int)
	for line := 1; ; line++ {
		l, err := readLine(br, maxCountsLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if f := bytes.Fields(l); len(f) > 0 {
			if len(f) != 2 {
				return nil, fmt.Errorf("%s:%d: %d fields, want \"word count\"", name, line, len(f))
			}
			c, perr := strconv.ParseInt(string(f[1]), 10, 64)
			if perr != nil || c < 0 {
				return nil, fmt.Errorf("%s:%d: count %q is not a non-negative integer", name, line, f[1])
			}
			w := string(f[0])
			if prev, dup := firstLine[w]; dup {
				return nil, fmt.Errorf("%s:%d: duplicate word %q (first on line %d)", name, line, w, prev)
			}
			firstLine[w] = line
			counts[w] = c
		}
		if errors.Is(err, io.EOF) {
			return counts, nil
		}
	}
}

// WriteCounts writes "word count" lines.
func WriteCounts(w io.Writer, words []string, counts []int64) error {
	if len(words) != len(counts) {
		return fmt.Errorf("write counts: %d words but %d counts", len(words), len(counts))
	}
	return writeWordLines(w, "", words, "write counts", func(buf []byte, i int) []byte {
		buf = append(buf, ' ')
		return strconv.AppendInt(buf, counts[i], 10)
	})
}
