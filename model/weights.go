package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
)

// Storage is how a table of vectors is stored in the weights file.
type Storage uint8

const (
	// StorageFloat32 stores IEEE float32 values: exact.
	StorageFloat32 Storage = iota
	// StorageFloat16 stores IEEE float16 values (round to nearest even);
	// half the size, relative error ≤ 2⁻¹¹.
	StorageFloat16
	// StorageInt8 stores per row a float32 scale (max |x| / 127) and int8
	// values round(x / scale); a quarter of the size.
	StorageInt8
	// StorageInt4 stores per row a float32 scale and 4-bit values
	// round(x / scale) in −7…7, two to a byte; an eighth of the size. The
	// scale is the one of clip · max |x| / 7, clip ∈ {1, 0.95, …, 0.5}, with
	// the least squared error over the row (values beyond the clip saturate).
	StorageInt4
)

var storageNames = [...]string{"float32", "float16", "int8", "int4"}

// String returns "float32", "float16", "int8" or "int4".
func (s Storage) String() string {
	if int(s) < len(storageNames) {
		return storageNames[s]
	}
	return fmt.Sprintf("Storage(%d)", uint8(s))
}

// ParseStorage parses "float32", "float16", "int8" or "int4".
func ParseStorage(s string) (Storage, error) {
	for i, n := range storageNames {
		if s == n {
			return Storage(i), nil
		}
	}
	return 0, fmt.Errorf("unknown storage %q (want float32, float16, int8 or int4)", s)
}

// SaveOptions controls what the weights file holds and how.
type SaveOptions struct {
	// NgramStorage is the storage of the n-gram table.
	NgramStorage Storage
	// BaseStorage is the storage of the base vectors (with IncludeBase).
	BaseStorage Storage
	// IncludeBase makes a serving bundle: the base vocabulary, counts and
	// vectors go into the file.
	IncludeBase bool
}

// The weights file: see the package documentation for the layout.
const (
	weightsMagic = "T2VAM\r\n\x1a"
	// weightsVersion is written for reference-style n-grams (files stay
	// byte-identical to those of earlier releases); weightsVersionStyle adds
	// the n-gram style byte after MinCount and is written for any other style.
	weightsVersion      = 1
	weightsVersionStyle = 2
	// weightsVersionCount adds, after the style byte, the number of the
	// gate's count buckets (Config.CountBuckets); U then holds 2·Dim +
	// CountBuckets values. Written only for a model with count buckets.
	weightsVersionCount = 3
	// weightsVersionGate writes the count buckets byte (0 allowed) and then
	// a byte of gate inputs (gateAgreement, gateCoverage); U then holds
	// 2·Dim + CountBuckets values and one per input. Written only for a
	// model with such an input.
	weightsVersionGate = 4
	// weightsVersionSIF adds, after the gate inputs byte, the float32
	// Config.ContextSIF (0 allowed). Written only for a model with it.
	weightsVersionSIF = 5
	// gateAgreement and gateCoverage are the bits of Config.GateAgreement
	// and Config.GateCoverage in the gate inputs byte; U holds one value
	// more for each.
	gateAgreement = 1
	gateCoverage  = 2
	headerLen     = 8 + 4 + 8
	// maxNgramBytes bounds one n-gram's length in the file.
	maxNgramBytes = 32 * 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes the model in the weights file format.
func (m *Model) Save(w io.Writer, opts SaveOptions) error {
	buf, err := m.encode(opts)
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// SaveFile writes the model to path atomically (atomicfile: a temporary file
// beside it, synced, then renamed), mode 0644 (atomicfile.Readable).
func (m *Model) SaveFile(path string, opts SaveOptions) error {
	buf, err := m.encode(opts)
	if err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf, atomicfile.Readable)
}

func (m *Model) encode(opts SaveOptions) ([]byte, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if int(opts.NgramStorage) >= len(storageNames) || int(opts.BaseStorage) >= len(storageNames) {
		return nil, fmt.Errorf("unknown storage %v / %v", opts.NgramStorage, opts.BaseStorage)
	}
	if opts.IncludeBase && m.Base == nil {
		return nil, errors.New("a serving bundle needs base embeddings; none attached")
	}
	for _, p := range []struct {
		name string
		x    []float32
	}{{"n-gram table", m.Ngrams}, {"M", m.M}, {"A", m.A}, {"U", m.U}, {"B", []float32{m.B}}} {
		for i, v := range p.x {
			if !finite32(v) {
				return nil, fmt.Errorf("parameter %s[%d] is %v", p.name, i, v)
			}
		}
	}
	d := m.Dim
	size := headerLen + 64 + m.Vocab.Len()*(4+d*4) + (2*d*d+2*d+1)*4 + 4
	if opts.IncludeBase {
		size += m.Base.Len() * (8 + 4 + 4*d + 16)
	}
	b := make([]byte, headerLen, size)
	copy(b, weightsMagic)
	version := m.formatVersion()
	binary.LittleEndian.PutUint32(b[8:], version)
	le := binary.LittleEndian
	b = m.Config.append(b, version)
	b = le.AppendUint32(b, uint32(m.Vocab.Len()))
	for id := 1; id < m.Vocab.Len(); id++ {
		g := m.Vocab.ngrams[id]
		b = le.AppendUint16(b, uint16(len(g)))
		b = append(b, g...)
	}
	var err error
	if b, err = appendTable(b, m.Ngrams, d, opts.NgramStorage); err != nil {
		return nil, fmt.Errorf("n-gram table: %w", err)
	}
	for _, x := range [][]float32{m.M, m.A, m.U, {m.B}} {
		b = appendFloats(b, x)
	}
	b = append(b, boolByte(opts.IncludeBase))
	if opts.IncludeBase {
		e := m.Base
		b = le.AppendUint32(b, uint32(e.Len()))
		b = append(b, boolByte(e.Counts != nil))
		for i, w := range e.Words {
			if err := ValidWord(w); err != nil {
				return nil, fmt.Errorf("base word %d: %w", i, err)
			}
			b = le.AppendUint16(b, uint16(len(w)))
			b = append(b, w...)
		}
		for _, c := range e.Counts {
			b = le.AppendUint64(b, uint64(c))
		}
		if b, err = appendTable(b, e.Vectors, d, opts.BaseStorage); err != nil {
			return nil, fmt.Errorf("base vectors: %w", err)
		}
	}
	le.PutUint64(b[12:], uint64(len(b)-headerLen))
	b = le.AppendUint32(b, crc32.Checksum(b[headerLen:], castagnoli))
	return b, nil
}

// append appends the configuration as format version writes it (the
// payload's fields from the dimension to the gate's inputs).
func (c Config) append(b []byte, version uint32) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(c.Dim))
	b = append(b, byte(c.Mode), tokenizerSplitLetterDigit, boolByte(c.Tokenizer.Lowercase))
	b = le.AppendUint32(b, uint32(c.Ngram.MinN))
	b = le.AppendUint32(b, uint32(c.Ngram.MaxN))
	b = le.AppendUint32(b, uint32(c.Ngram.MinCount))
	if version >= weightsVersionStyle {
		b = append(b, byte(c.Ngram.Style))
	}
	if version >= weightsVersionCount {
		b = append(b, byte(c.CountBuckets))
	}
	if version >= weightsVersionGate {
		b = append(b, byte(boolInt(c.GateAgreement)*gateAgreement|boolInt(c.GateCoverage)*gateCoverage))
	}
	if version >= weightsVersionSIF {
		b = le.AppendUint32(b, math.Float32bits(c.ContextSIF))
	}
	return b
}

// formatVersion is the oldest format version that holds m: files of models
// that need no newer feature stay byte-identical to earlier releases'.
func (m *Model) formatVersion() uint32 {
	switch {
	case m.ContextSIF != 0:
		return weightsVersionSIF
	case m.GateAgreement || m.GateCoverage:
		return weightsVersionGate
	case m.CountBuckets > 0:
		return weightsVersionCount
	case m.Ngram.Style != NgramReference:
		return weightsVersionStyle
	}
	return weightsVersion
}

// tokenizerSplitLetterDigit identifies the tokenizer rule of Tokenizer (the
// only one so far).
const tokenizerSplitLetterDigit = 1

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendFloats(b []byte, x []float32) []byte {
	for _, v := range x {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// appendTable appends a storage byte and the rows of x (row length d).
func appendTable(b []byte, x []float32, d int, s Storage) ([]byte, error) {
	b = append(b, byte(s))
	switch s {
	case StorageFloat32:
		return appendFloats(b, x), nil
	case StorageFloat16:
		for i, v := range x {
			if math.Abs(float64(v)) > maxFloat16 {
				return nil, fmt.Errorf("row %d: value %v exceeds the float16 range", i/d, v)
			}
			b = binary.LittleEndian.AppendUint16(b, f32ToF16(v))
		}
		return b, nil
	case StorageInt4:
		for r := 0; r < len(x)/d; r++ {
			b = appendInt4Row(b, x[r*d:(r+1)*d])
		}
		return b, nil
	default: // StorageInt8
		for r := 0; r < len(x)/d; r++ {
			row := x[r*d : (r+1)*d]
			var mx float32
			for _, v := range row {
				mx = max(mx, float32(math.Abs(float64(v))))
			}
			scale := mx / 127
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scale))
			for _, v := range row {
				q := 0.0
				if scale > 0 {
					q = math.Round(float64(v / scale))
				}
				b = append(b, byte(int8(max(-127, min(127, q)))))
			}
		}
		return b, nil
	}
}

// decoder reads little-endian values from a byte slice, checking every length
// against what is left before allocating.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: %s", headerLen+d.off, fmt.Sprintf(format, args...))
	}
}

// take returns the next n bytes, or nil (and records an error) when fewer
// are left.
func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail("%s needs %d bytes, %d left", what, n, len(d.b)-d.off)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) u8(what string) uint8 {
	if p := d.take(1, what); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) u16(what string) uint16 {
	if p := d.take(2, what); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) u32(what string) uint32 {
	if p := d.take(4, what); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

// count reads a uint32 count and checks it against limit.
func (d *decoder) count(what string, lo, limit int) int {
	v := d.u32(what)
	if d.err == nil && (int64(v) < int64(lo) || int64(v) > int64(limit)) {
		d.fail("%s is %d, allowed %d..%d", what, v, lo, limit)
	}
	return int(v)
}

// countBuckets reads the gate's number of count buckets: 1..MaxCountBuckets
// in format version 3 (a model without them is written as an older
// version), 0..MaxCountBuckets from version 4 on.
func (d *decoder) countBuckets(version uint32) int {
	lo := 1
	if version >= weightsVersionGate {
		lo = 0
	}
	n := int(d.u8("count buckets"))
	if d.err == nil && (n < lo || n > MaxCountBuckets) {
		d.fail("count buckets %d, allowed %d..%d", n, lo, MaxCountBuckets)
	}
	return n
}

// floats reads n float32 values and rejects NaN and ±Inf.
func (d *decoder) floats(n int, what string) []float32 {
	if n > (len(d.b)-d.off)/4 {
		d.fail("%s needs %d values, %d bytes left", what, n, len(d.b)-d.off)
		return nil
	}
	p := d.take(4*n, what)
	if p == nil {
		return nil
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		if !finite32(x[i]) {
			d.fail("%s: value %d is %v", what, i, x[i])
			return nil
		}
	}
	return x
}

// table reads a storage byte and rows × dim values.
func (d *decoder) table(rows, dim int, what string) []float32 {
	s := Storage(d.u8(what + " storage"))
	if d.err != nil {
		return nil
	}
	left := len(d.b) - d.off
	var need int64
	switch s {
	case StorageFloat32:
		return d.floats(rows*dim, what)
	case StorageFloat16:
		need = int64(rows) * int64(dim) * 2
	case StorageInt8:
		need = int64(rows) * (4 + int64(dim))
	case StorageInt4:
		need = int64(rows) * (4 + int64(int4RowBytes(dim)))
	default:
		d.fail("%s: unknown storage %d", what, s)
		return nil
	}
	if need > int64(left) {
		d.fail("%s (%v) needs %d bytes, %d left", what, s, need, left)
		return nil
	}
	p := d.take(int(need), what)
	x := make([]float32, rows*dim)
	if s == StorageFloat16 {
		for i := range x {
			x[i] = f16ToF32(binary.LittleEndian.Uint16(p[2*i:]))
			if !finite32(x[i]) {
				d.fail("%s: value %d is %v", what, i, x[i])
				return nil
			}
		}
		return x
	}
	if s == StorageInt4 {
		if err := decodeInt4(p, dim, x); err != nil {
			d.fail("%s: %v", what, err)
			return nil
		}
		return x
	}
	for r := 0; r < rows; r++ {
		rec := p[r*(4+dim) : (r+1)*(4+dim)]
		scale := math.Float32frombits(binary.LittleEndian.Uint32(rec))
		if !finite32(scale) || scale < 0 {
			d.fail("%s: row %d has scale %v", what, r, scale)
			return nil
		}
		for k, q := range rec[4:] {
			x[r*dim+k] = float32(int8(q)) * scale
		}
	}
	return x
}

// Load reads a weights file from r; name (usually the file name) prefixes
// errors. Every size is checked against the data actually present before
// anything is allocated, and the checksum before anything is parsed. When r
// tells the bytes it holds (a Len method, as *bytes.Reader's), a header
// announcing more is refused before anything is allocated for it.
func Load(r io.Reader, name string) (*Model, error) {
	limit := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		limit = int64(l.Len())
	}
	data, err := readWeights(r, limit)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", name, err)
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", name, err)
	}
	return m, nil
}

// LoadFile reads a weights file.
//
// Only a regular file is read (a device or a FIFO is refused without
// blocking), and never more than the sizes its header declares.
func LoadFile(path string) (*Model, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	defer f.Close()
	data, err := readWeights(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return m, nil
}

// decode parses a whole weights file: the envelope, then the configuration,
// the n-gram vocabulary, the weight tables and the optional base embeddings.
func decode(data []byte) (*Model, error) {
	payload, version, err := openEnvelope(data)
	if err != nil {
		return nil, err
	}
	d := &decoder{b: payload}
	cfg, err := decodeConfig(d, version)
	if err != nil {
		return nil, err
	}
	ngrams, err := decodeNgramList(d)
	if err != nil {
		return nil, err
	}
	vocab, err := newNgramVocab(cfg.Ngram, ngrams)
	if err != nil {
		return nil, fmt.Errorf("n-gram vocabulary: %w", err)
	}
	m := &Model{Config: cfg, Vocab: vocab}
	if err := decodeTables(d, m, len(ngrams)+1); err != nil {
		return nil, err
	}
	if d.off != len(payload) {
		return nil, fmt.Errorf("%d unparsed bytes at the end of the payload", len(payload)-d.off)
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// openEnvelope checks the magic bytes, the format version, the payload
// length and the checksum, and returns the payload and the version.
func openEnvelope(data []byte) (payload []byte, version uint32, err error) {
	if len(data) < len(weightsMagic) || string(data[:len(weightsMagic)]) != weightsMagic {
		return nil, 0, errors.New("not a text2vec-am weights file (bad magic bytes)")
	}
	if len(data) < headerLen+4 {
		return nil, 0, fmt.Errorf("truncated: %d bytes, the header alone takes %d", len(data), headerLen+4)
	}
	le := binary.LittleEndian
	version = le.Uint32(data[8:])
	if version < weightsVersion || version > weightsVersionSIF {
		return nil, 0, fmt.Errorf("format version %d, this program reads versions %d to %d", version, weightsVersion, weightsVersionSIF)
	}
	plen := le.Uint64(data[12:])
	if have := uint64(len(data) - headerLen - 4); plen != have {
		if plen > have {
			return nil, 0, fmt.Errorf("truncated: the header announces %d payload bytes, the file holds %d", plen, have)
		}
		return nil, 0, fmt.Errorf("%d unexpected bytes after the payload", have-plen)
	}
	payload = data[headerLen : headerLen+int(plen)]
	if want, got := le.Uint32(data[headerLen+int(plen):]), crc32.Checksum(payload, castagnoli); want != got {
		return nil, 0, fmt.Errorf("checksum mismatch (stored %08x, computed %08x): the file is corrupted", want, got)
	}
	return payload, version, nil
}

// decodeConfig reads and validates the model configuration; the n-gram
// style is stored from format version weightsVersionStyle on.
func decodeConfig(d *decoder, version uint32) (Config, error) {
	var cfg Config
	cfg.Dim = d.count("dimension", 1, MaxDim)
	cfg.Mode = Mode(d.u8("mode"))
	if d.err == nil && !cfg.Mode.valid() {
		d.fail("unknown mode %d", cfg.Mode)
	}
	if tk := d.u8("tokenizer"); d.err == nil && tk != tokenizerSplitLetterDigit {
		d.fail("unknown tokenizer %d", tk)
	}
	lower := d.u8("tokenizer lowercase")
	cfg.Tokenizer.Lowercase = lower == 1
	if d.err == nil && lower > 1 {
		d.fail("tokenizer lowercase flag %d", lower)
	}
	cfg.Ngram.MinN = d.count("n-gram minimum length", 1, 32)
	cfg.Ngram.MaxN = d.count("n-gram maximum length", 1, 32)
	cfg.Ngram.MinCount = d.count("n-gram minimum count", 1, math.MaxInt32)
	if version >= weightsVersionStyle {
		cfg.Ngram.Style = NgramStyle(d.u8("n-gram style"))
		if d.err == nil && cfg.Ngram.Style > NgramFastText {
			d.fail("unknown n-gram style %d", cfg.Ngram.Style)
		}
	}
	if version >= weightsVersionCount {
		cfg.CountBuckets = d.countBuckets(version)
	}
	if version >= weightsVersionGate {
		in := d.u8("gate inputs")
		if d.err == nil && in&^(gateAgreement|gateCoverage) != 0 {
			d.fail("unknown gate inputs %#x", in)
		}
		cfg.GateAgreement = in&gateAgreement != 0
		cfg.GateCoverage = in&gateCoverage != 0
	}
	if version >= weightsVersionSIF {
		if a := d.floats(1, "context SIF weight"); a != nil {
			cfg.ContextSIF = a[0]
		}
	}
	if d.err != nil {
		return Config{}, d.err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// decodeNgramList reads the n-gram vocabulary size and the n-grams after the
// reserved row 0.
func decodeNgramList(d *decoder) ([]string, error) {
	// Each n-gram takes at least 3 bytes: this bounds the count by the data.
	nng := d.count("n-gram vocabulary size", 1, min(math.MaxInt32, (len(d.b)-d.off)/3+1))
	if d.err != nil {
		return nil, d.err
	}
	ngrams := make([]string, 0, nng-1)
	for i := 1; i < nng && d.err == nil; i++ {
		n := int(d.u16("n-gram length"))
		if d.err == nil && (n == 0 || n > maxNgramBytes) {
			d.fail("n-gram %d has length %d (allowed 1..%d)", i, n, maxNgramBytes)
		}
		ngrams = append(ngrams, string(d.take(n, "n-gram")))
	}
	if d.err != nil {
		return nil, d.err
	}
	return ngrams, nil
}

// decodeTables reads the weights of m (nng n-gram rows, M, A, U, B) and the
// optional base embeddings.
func decodeTables(d *decoder, m *Model, nng int) error {
	dim, plen := m.Dim, len(d.b)
	if int64(nng)*int64(int4RowBytes(dim)) > int64(plen) { // even int4 needs half a byte per value
		return fmt.Errorf("n-gram table of %d × %d cannot fit in %d bytes", nng, dim, plen)
	}
	m.Ngrams = d.table(nng, dim, "n-gram table")
	m.M = d.floats(dim*dim, "M")
	m.A = d.floats(dim*dim, "A")
	m.U = d.floats(m.Config.gateLen(), "U")
	if b := d.floats(1, "B"); b != nil {
		m.B = b[0]
	}
	hasBase := d.u8("base flag")
	if d.err == nil && hasBase > 1 {
		d.fail("base flag %d", hasBase)
	}
	if d.err != nil {
		return d.err
	}
	if hasBase == 1 {
		e, err := decodeBase(d, dim, plen)
		if err != nil {
			return err
		}
		if err := m.AttachBase(e); err != nil {
			return err
		}
	}
	return nil
}

func decodeBase(d *decoder, dim, plen int) (*Embeddings, error) {
	// Each word takes at least 3 bytes of name and a byte of vector.
	n := d.count("base vocabulary size", 0, (plen-d.off)/4)
	hasCounts := d.u8("base counts flag")
	if d.err == nil && hasCounts > 1 {
		d.fail("base counts flag %d", hasCounts)
	}
	if d.err != nil {
		return nil, d.err
	}
	words := make([]string, n)
	for i := range words {
		l := int(d.u16("base word length"))
		if d.err == nil && (l == 0 || l > MaxWordBytes) {
			d.fail("base word %d has length %d", i, l)
		}
		words[i] = string(d.take(l, "base word"))
		if d.err != nil {
			return nil, d.err
		}
	}
	var counts []int64
	if hasCounts == 1 {
		p := d.take(8*n, "base counts")
		if d.err != nil {
			return nil, d.err
		}
		counts = make([]int64, n)
		for i := range counts {
			counts[i] = int64(binary.LittleEndian.Uint64(p[8*i:]))
		}
	}
	if int64(n)*int64(int4RowBytes(dim)) > int64(len(d.b)-d.off) {
		return nil, fmt.Errorf("base table of %d × %d cannot fit in the %d bytes left", n, dim, len(d.b)-d.off)
	}
	vecs := d.table(n, dim, "base vectors")
	if d.err != nil {
		return nil, d.err
	}
	e, err := NewEmbeddings(dim, words, vecs, counts)
	if err != nil {
		return nil, fmt.Errorf("base embeddings: %w", err)
	}
	return e, nil
}
