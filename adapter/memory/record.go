package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// On-disk format. Every file (log or snapshot) starts with a 16-byte header:
//
//	"T2VAMMEM" | version (1 byte) | kind ('L' log, 'S' snapshot) | 6 zero bytes
//
// followed by records:
//
//	payload length n (uint32 LE, 1 ≤ n ≤ maxPayload) | CRC-32C of payload (uint32 LE) | payload
//
// A payload starts with its type byte:
//
//	recOffer:    word | seen (uvarint) | slot+1 (uvarint; 0 = offer not kept) | context
//	recWord:     word | seen (uvarint) | k (uvarint) | k × context        (snapshots only)
//	recDocFreq:  passages (uvarint) | (word | df (uvarint))* to the end    (version 2)
//	recEnd:      words | contexts | passages | df words (uvarints)         (last record of a snapshot)
//
// where strings are a uvarint length followed by the bytes. Records are absolute
// (they set state, they do not increment it), so replaying a record twice is harmless:
// a recDocFreq sets the passage count and the document frequency of each word it
// names (in a log: the words of one counted passage; a large passage, or a
// snapshot's table, spans several records, each carrying the passage count).
//
// Version 1 files (before document frequencies) have no recDocFreq and a recEnd
// of words | contexts only. This build reads versions 1 and 2 and writes 2; a
// writable memory never appends to a version 1 log (Open starts a new generation).
const (
	fileMagic   = "T2VAMMEM"
	fileVersion = 2
	// minFileVersion is the oldest format this build reads.
	minFileVersion = 1
	kindLog        = 'L'
	kindSnapshot   = 'S'
	headerSize     = 16
	recHeader      = 8
	// maxPayload bounds a record; anything larger is corruption.
	maxPayload = 4 << 20

	recOffer byte = 1
	recWord  byte = 2
	recEnd   byte = 3
	// recDocFreq sets the passage count and document frequencies (version 2).
	recDocFreq byte = 4

	// docFreqChunk bounds the payload of one recDocFreq record.
	docFreqChunk = 64 << 10
	// maxPassages bounds a passage count read from a file (it is an int64 in
	// RAM; anything near that is corruption).
	maxPassages = 1 << 62
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCorrupt marks a record that does not decode.
var errCorrupt = errors.New("corrupt record")

func fileHeader(kind byte) []byte {
	h := make([]byte, headerSize)
	copy(h, fileMagic)
	h[8] = fileVersion
	h[9] = kind
	return h
}

// checkHeader reports whether b starts with a valid header of the given kind
// and returns the file's format version.
func checkHeader(b []byte, kind byte) (version byte, err error) {
	if len(b) < headerSize {
		return 0, fmt.Errorf("%w: header is %d bytes, want %d", errCorrupt, len(b), headerSize)
	}
	if string(b[:8]) != fileMagic {
		return 0, fmt.Errorf("%w: bad magic %q", errCorrupt, b[:8])
	}
	if b[8] < minFileVersion || b[8] > fileVersion {
		return 0, fmt.Errorf("unsupported memory file version %d (this build reads %d to %d)", b[8], minFileVersion, fileVersion)
	}
	if b[9] != kind {
		return 0, fmt.Errorf("%w: file kind %q, want %q", errCorrupt, b[9], kind)
	}
	return b[8], nil
}

// beginRecord appends room for a record header to dst; encode the payload after
// it and call endRecord with the offset beginRecord returned.
func beginRecord(dst []byte) ([]byte, int) {
	return append(dst, 0, 0, 0, 0, 0, 0, 0, 0), len(dst)
}

// endRecord fills in the header of the record that starts at start.
func endRecord(b []byte, start int) {
	payload := b[start+recHeader:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, castagnoli))
}

// nextRecord returns the payload of the record at the start of b and the record's
// total size. It returns an error when b holds no complete, intact record.
func nextRecord(b []byte) (payload []byte, size int, err error) {
	if len(b) < recHeader {
		return nil, 0, fmt.Errorf("%w: %d bytes left, a record header needs %d", errCorrupt, len(b), recHeader)
	}
	n := binary.LittleEndian.Uint32(b)
	if n == 0 || n > maxPayload {
		return nil, 0, fmt.Errorf("%w: payload length %d out of range", errCorrupt, n)
	}
	if uint64(len(b)-recHeader) < uint64(n) {
		return nil, 0, fmt.Errorf("%w: payload of %d bytes but only %d left", errCorrupt, n, len(b)-recHeader)
	}
	payload = b[recHeader : recHeader+int(n)]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, 0, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	return payload, recHeader + int(n), nil
}

// record is a decoded payload.
type record struct {
	typ      byte
	word     string
	seen     uint64
	slot     int // recOffer: -1 = not kept
	contexts []string
	words    uint64   // recEnd
	nctx     uint64   // recEnd
	passages uint64   // recDocFreq, recEnd (version 2)
	dfWords  uint64   // recEnd (version 2)
	dfs      []wordDF // recDocFreq
}

// wordDF is one document frequency of a recDocFreq record.
type wordDF struct {
	word string
	df   uint64
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendOffer(dst []byte, word string, seen uint64, slot int, context string) []byte {
	dst = append(dst, recOffer)
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, seen)
	dst = binary.AppendUvarint(dst, uint64(slot+1))
	if slot >= 0 {
		dst = appendString(dst, context)
	}
	return dst
}

func appendWordState(dst []byte, word string, seen uint64, contexts []string) []byte {
	dst = append(dst, recWord)
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, seen)
	dst = binary.AppendUvarint(dst, uint64(len(contexts)))
	for _, c := range contexts {
		dst = appendString(dst, c)
	}
	return dst
}

// appendEnd appends a version 2 end record.
func appendEnd(dst []byte, words, contexts, passages, dfWords uint64) []byte {
	dst = append(dst, recEnd)
	dst = binary.AppendUvarint(dst, words)
	dst = binary.AppendUvarint(dst, contexts)
	dst = binary.AppendUvarint(dst, passages)
	return binary.AppendUvarint(dst, dfWords)
}

// docFreqWriter appends recDocFreq records of at most about docFreqChunk
// bytes, each carrying the passage count.
type docFreqWriter struct {
	passages uint64
	start    int // offset of the open record, -1: none
	records  int
}

// add appends (word, df), opening a record first when none is open.
func (w *docFreqWriter) add(dst []byte, word string, df uint64) []byte {
	if w.start < 0 {
		dst, w.start = beginRecord(dst)
		dst = append(dst, recDocFreq)
		dst = binary.AppendUvarint(dst, w.passages)
		w.records++
	}
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, df)
	if len(dst)-w.start > docFreqChunk {
		dst = w.end(dst)
	}
	return dst
}

// end closes the open record, if any.
func (w *docFreqWriter) end(dst []byte) []byte {
	if w.start >= 0 {
		endRecord(dst, w.start)
		w.start = -1
	}
	return dst
}

// decoder reads the fields of one payload.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad varint", errCorrupt)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("%w: string of %d bytes but %d left", errCorrupt, n, len(d.b))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// decodeRecord decodes a payload of a file of the given format version; the
// strings it returns are copies.
func decodeRecord(p []byte, version byte) (record, error) {
	if len(p) == 0 {
		return record{}, fmt.Errorf("%w: empty payload", errCorrupt)
	}
	d := decoder{b: p[1:]}
	r := record{typ: p[0]}
	switch r.typ {
	case recOffer:
		r.word = d.str()
		r.seen = d.uvarint()
		slot := d.uvarint()
		if slot > maxPayload {
			return record{}, fmt.Errorf("%w: slot %d out of range", errCorrupt, slot)
		}
		r.slot = int(slot) - 1
		if r.slot >= 0 {
			r.contexts = []string{d.str()}
		}
	case recWord:
		r.word = d.str()
		r.seen = d.uvarint()
		k := d.uvarint()
		if d.err == nil && k > uint64(len(d.b)) { // every context takes at least one byte
			return record{}, fmt.Errorf("%w: %d contexts in %d bytes", errCorrupt, k, len(d.b))
		}
		for i := uint64(0); i < k && d.err == nil; i++ {
			r.contexts = append(r.contexts, d.str())
		}
	case recEnd:
		r.words = d.uvarint()
		r.nctx = d.uvarint()
		if version >= 2 {
			r.passages = d.uvarint()
			r.dfWords = d.uvarint()
		}
		if r.passages > maxPassages {
			return record{}, fmt.Errorf("%w: passage count %d out of range", errCorrupt, r.passages)
		}
	case recDocFreq:
		if version < 2 {
			return record{}, fmt.Errorf("%w: document frequencies in a version %d file", errCorrupt, version)
		}
		r.passages = d.uvarint()
		if r.passages > maxPassages {
			return record{}, fmt.Errorf("%w: passage count %d out of range", errCorrupt, r.passages)
		}
		for len(d.b) > 0 && d.err == nil {
			w := d.str()
			df := d.uvarint()
			if d.err == nil && (w == "" || df == 0 || df > r.passages) {
				return record{}, fmt.Errorf("%w: document frequency %d of word %q with %d passages", errCorrupt, df, w, r.passages)
			}
			r.dfs = append(r.dfs, wordDF{w, df})
		}
	default:
		return record{}, fmt.Errorf("%w: unknown record type %d", errCorrupt, r.typ)
	}
	if d.err != nil {
		return record{}, d.err
	}
	if len(d.b) != 0 {
		return record{}, fmt.Errorf("%w: %d trailing bytes in record type %d", errCorrupt, len(d.b), r.typ)
	}
	if (r.typ == recOffer || r.typ == recWord) && r.word == "" {
		return record{}, fmt.Errorf("%w: empty word", errCorrupt)
	}
	return r, nil
}
