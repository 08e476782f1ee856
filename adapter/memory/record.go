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
//	recKeep (5):     word | context                                        (logs)
//	recForget (6):   word                                                  (logs)
//	recWord3 (8):    word | k (uvarint) | k × context                      (snapshots)
//	recDocFreq3 (9): passages | passage hash (uvarints; 0 = none) | (word | df (uvarint))* to the end
//	recSeen (7):     passage hash (uvarint)* to the end                    (snapshots)
//	recEnd3 (10):    words | contexts | passages | df words | passage hashes (uvarints; last of a snapshot)
//
// where strings are a uvarint length followed by the bytes. Records are absolute
// or set membership (they never increment state), so replaying a record twice
// is harmless: recKeep puts a context into its word's bottom-k, recForget
// removes a word evicted for the budget, a recDocFreq sets the passage count
// and the document frequency of each word it names and marks its passage hash
// counted (in a log: the words of one counted passage; a large passage, or a
// snapshot's table, spans several records, each carrying the passage count and
// hash). A snapshot lists its words least recently changed first and its
// passage hashes oldest first, so a load restores the eviction orders.
//
// Each type has one layout whatever the header's version, so a header whose
// version byte is damaged does not change how records read; a file whose
// header names an older version but holds version 3 records is damaged.
//
// Older versions, read and converted on load (the next snapshot is written in
// version 3, and an older log is never appended to: Open starts a new generation):
//
//	version 2: recOffer (1) word | seen | slot+1 (uvarints; 0 = not kept) | context,
//	           recWord (2) word | seen | k | k × context, recDocFreq (4) as
//	           recDocFreq3 without the passage hash, recEnd (3) as recEnd3
//	           without the hash count;
//	version 1: as 2 without recDocFreq, recEnd of words | contexts only.
//
// A kept recOffer and every context of an old recWord are put into the bottom-k
// as a recKeep is: a converted word keeps the k smallest-hash contexts among
// those its old snapshot and logs hold. Old passages carry no hash, so a resent
// passage counted before the conversion counts once more.
const (
	fileMagic   = "T2VAMMEM"
	fileVersion = 3
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
	// Version 3's types. A decoded recWord3, recDocFreq3 or recEnd3 has
	// the type recWord, recDocFreq or recEnd (and record.v3 set).
	recKeep     byte = 5
	recForget   byte = 6
	recSeen     byte = 7
	recWord3    byte = 8
	recDocFreq3 byte = 9
	recEnd3     byte = 10
	// maxRecType is the largest record type.
	maxRecType = recEnd3

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
	hash     uint64   // recDocFreq (version 3)
	hashes   []uint64 // recSeen; recEnd: their number in hashes[0] (version 3)
	v3       bool     // a type of version 3
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

func appendKeep(dst []byte, word, context string) []byte {
	dst = append(dst, recKeep)
	dst = appendString(dst, word)
	return appendString(dst, context)
}

func appendForget(dst []byte, word string) []byte {
	return appendString(append(dst, recForget), word)
}

func appendWordState(dst []byte, word string, contexts []string) []byte {
	dst = append(dst, recWord3)
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, uint64(len(contexts)))
	for _, c := range contexts {
		dst = appendString(dst, c)
	}
	return dst
}

// appendEnd appends an end record.
func appendEnd(dst []byte, words, contexts, passages, dfWords, hashes uint64) []byte {
	dst = append(dst, recEnd3)
	dst = binary.AppendUvarint(dst, words)
	dst = binary.AppendUvarint(dst, contexts)
	dst = binary.AppendUvarint(dst, passages)
	dst = binary.AppendUvarint(dst, dfWords)
	return binary.AppendUvarint(dst, hashes)
}

// appendSeen appends recSeen records of at most about docFreqChunk bytes
// holding hashes.
func appendSeen(dst []byte, hashes []uint64) []byte {
	for len(hashes) > 0 {
		n := min(len(hashes), docFreqChunk/binary.MaxVarintLen64)
		var start int
		dst, start = beginRecord(dst)
		dst = append(dst, recSeen)
		for _, h := range hashes[:n] {
			dst = binary.AppendUvarint(dst, h)
		}
		endRecord(dst, start)
		hashes = hashes[n:]
	}
	return dst
}

// docFreqWriter appends recDocFreq records of at most about docFreqChunk
// bytes, each carrying the passage count and the passage hash.
type docFreqWriter struct {
	passages uint64
	hash     uint64 // 0: none (a snapshot's table)
	start    int    // offset of the open record, -1: none
	records  int
}

// add appends (word, df), opening a record first when none is open.
func (w *docFreqWriter) add(dst []byte, word string, df uint64) []byte {
	if w.start < 0 {
		dst = w.open(dst)
	}
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, df)
	if len(dst)-w.start > docFreqChunk {
		dst = w.end(dst)
	}
	return dst
}

// open opens a record: its type, passage count and passage hash.
func (w *docFreqWriter) open(dst []byte) []byte {
	dst, w.start = beginRecord(dst)
	dst = append(dst, recDocFreq3)
	dst = binary.AppendUvarint(dst, w.passages)
	dst = binary.AppendUvarint(dst, w.hash)
	w.records++
	return dst
}

// finish closes the open record and returns dst and the number of records
// written; with none, it writes one of no word, which carries the passage
// count alone.
func (w *docFreqWriter) finish(dst []byte) ([]byte, int) {
	if w.records == 0 {
		dst = w.open(dst)
	}
	return w.end(dst), w.records
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
	r := record{typ: p[0], v3: p[0] >= recKeep}
	switch r.typ {
	case recWord3:
		r.typ = recWord
	case recDocFreq3:
		r.typ, version = recDocFreq, 3
	case recEnd3:
		r.typ, version = recEnd, 3
	case recWord, recDocFreq, recEnd:
		version = min(version, 2)
	}
	switch r.typ {
	case recKeep:
		r.word = d.str()
		r.contexts = []string{d.str()}
	case recForget:
		r.word = d.str()
	case recSeen:
		for len(d.b) > 0 && d.err == nil {
			r.hashes = append(r.hashes, d.uvarint())
		}
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
		if err := decodeWord(&d, &r); err != nil {
			return record{}, err
		}
	case recEnd:
		if err := decodeEnd(&d, &r, version); err != nil {
			return record{}, err
		}
	case recDocFreq:
		if err := decodeDocFreq(&d, &r, version); err != nil {
			return record{}, err
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
	if (r.typ == recOffer || r.typ == recWord || r.typ == recKeep || r.typ == recForget) && r.word == "" {
		return record{}, fmt.Errorf("%w: empty word", errCorrupt)
	}
	return r, nil
}

// decodeWord decodes the fields of a word record: the word, the times it was
// seen (before version 3) and its contexts.
func decodeWord(d *decoder, r *record) error {
	r.word = d.str()
	if !r.v3 {
		r.seen = d.uvarint()
	}
	k := d.uvarint()
	if d.err == nil && k > uint64(len(d.b)) { // every context takes at least one byte
		return fmt.Errorf("%w: %d contexts in %d bytes", errCorrupt, k, len(d.b))
	}
	for i := uint64(0); i < k && d.err == nil; i++ {
		r.contexts = append(r.contexts, d.str())
	}
	return nil
}

// decodeEnd decodes the totals of an end record of the given format version.
func decodeEnd(d *decoder, r *record, version byte) error {
	r.words = d.uvarint()
	r.nctx = d.uvarint()
	if version >= 2 {
		r.passages = d.uvarint()
		r.dfWords = d.uvarint()
	}
	if version >= 3 {
		r.hashes = []uint64{d.uvarint()}
	}
	if r.passages > maxPassages {
		return fmt.Errorf("%w: passage count %d out of range", errCorrupt, r.passages)
	}
	return nil
}

// decodeDocFreq decodes a document-frequency record of the given version.
func decodeDocFreq(d *decoder, r *record, version byte) error {
	if version < 2 {
		return fmt.Errorf("%w: document frequencies in a version %d file", errCorrupt, version)
	}
	r.passages = d.uvarint()
	if r.passages > maxPassages {
		return fmt.Errorf("%w: passage count %d out of range", errCorrupt, r.passages)
	}
	if version >= 3 {
		r.hash = d.uvarint()
	}
	for len(d.b) > 0 && d.err == nil {
		w := d.str()
		df := d.uvarint()
		if d.err == nil && (w == "" || df == 0 || df > r.passages) {
			return fmt.Errorf("%w: document frequency %d of word %q with %d passages", errCorrupt, df, w, r.passages)
		}
		r.dfs = append(r.dfs, wordDF{w, df})
	}
	return nil
}
