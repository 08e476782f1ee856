package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Damage describes one damaged memory file and what was read from it.
type Damage struct {
	// File is the file's name in the memory directory.
	File string `json:"file"`
	// Problem says what is wrong first (a bad header, a record that does not check).
	Problem string `json:"problem"`
	// Salvaged counts the intact records read from the file; Refused the
	// intact records whose content was refused (counted, not applied).
	Salvaged int `json:"salvaged_records"`
	Refused  int `json:"refused_records"`
	// SkippedBytes counts the bytes that hold no intact record.
	SkippedBytes int64 `json:"skipped_bytes"`
	// MovedTo names the file the damaged one was moved to (a writable memory,
	// once a snapshot holds everything salvaged); "" while it stays in place.
	MovedTo string `json:"moved_to,omitempty"`
}

// damagedSuffix is appended to the name of a damaged file moved aside; Open
// never reads such a file again, and nothing deletes it.
const damagedSuffix = ".damaged"

// salvage is the result of salvageStream.
type salvage struct {
	end      int64 // offset after the last intact record
	records  int   // records applied
	refused  int   // intact records fn refused
	skipped  int64
	firstErr error
	firstAt  int64
	// tornTail: the only damage is bytes at the end that hold no intact
	// record, as a crash in the middle of an append leaves them.
	tornTail bool
	// runAt is where the bytes holding no intact record that the last scan
	// ended in began, while the next scan goes on from inside them (inRun).
	runAt int64
	inRun bool
	// hashed counts the bytes checksummed to find intact records after damage,
	// decoded the payload bytes of candidates whose checksum held but which
	// did not decode.
	hashed, decoded int64
}

// readBuffer is the size of the buffer a memory file is read through: twice
// the largest record, so that each record, and each candidate record after
// damage, is whole in it at least once. It is all the RAM reading a file
// takes, whatever the file's size.
const readBuffer = 2 * (recHeader + maxPayload)

// salvageStream applies every intact record of the n bytes r holds (after a
// file header of the given format version), read through a buffer of size
// bytes in which a record takes at most reserve (readBuffer and
// recHeader+maxPayload; tests give less, for records they keep smaller).
// After bytes that hold no intact record it resumes at the next offset where
// one starts; a record fn refuses is counted and skipped. Only an error
// reading r is returned; a stream shorter than n ends where it ends.
func salvageStream(r io.Reader, n int64, version byte, fn func(record) error, size, reserve int) (salvage, error) {
	var sv salvage
	buf := make([]byte, min(n, int64(max(size, 2*reserve))))
	lr := io.LimitReader(r, n)
	have, base := 0, int64(0) // bytes in buf; the offset of buf[0]
	for {
		k, err := io.ReadFull(lr, buf[have:])
		have += k
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return sv, err
		}
		final := err != nil || base+int64(have) == n
		done := sv.scan(buf[:have], base, final, reserve, version, fn)
		if final {
			return sv, nil
		}
		have = copy(buf, buf[done:have])
		base += int64(done)
	}
}

// scan applies the records of b, the bytes of the stream from offset base
// on, and returns how many of b's bytes it is done with: all of them when b
// ends the stream (final). Otherwise it stops at a record that does not end
// in b, and after damage it looks for an intact record only where reserve
// bytes follow, so that every record is read whole; the next call, with b
// refilled, goes on from there. As b holds at least two reserves, each call
// is done with at least one.
func (sv *salvage) scan(b []byte, base int64, final bool, reserve int, version byte, fn func(record) error) int {
	limit := len(b) // candidate offsets after damage stay below it
	if !final {
		limit -= reserve
	}
	var w *crcWindow // made at the first damage, shared by every resync after it
	defer func() {
		if w != nil {
			sv.hashed, sv.decoded = sv.hashed+w.hashed, sv.decoded+w.decoded
		}
	}()
	off := 0
	inRun, runFrom := sv.inRun, sv.runAt // b starts inside bad bytes the last scan ended in
	sv.inRun, sv.runAt = false, 0
	for off < len(b) {
		if !final && unfinished(b[off:], reserve) {
			return off
		}
		p, size, err := nextRecord(b[off:])
		var r record
		if err == nil {
			r, err = decodeRecord(p, version)
		}
		if err != nil {
			if sv.firstErr == nil {
				sv.firstErr, sv.firstAt = err, base+int64(off)
			}
			if w == nil {
				w = newCRCWindow(b, off)
			}
			runAt := base + int64(off)
			if inRun && off == 0 {
				runAt = runFrom
			}
			next := resync(w, off+1, limit, version)
			switch {
			case next < 0 && !final:
				next = max(limit, off+1) // the next call looks on from there
				sv.skipped += int64(next - off)
				sv.runAt, sv.inRun = runAt, true
				return next
			case next < 0:
				sv.skipped += int64(len(b) - off)
				// Nothing intact after the first damage, which is these bytes
				// (begun in an earlier window, maybe): a torn tail, unless
				// longer than one record can be (no append leaves that much).
				sv.tornTail = sv.firstAt == runAt && base+int64(len(b))-runAt <= recHeader+maxPayload
				return len(b)
			}
			sv.skipped += int64(next - off)
			off = next
			continue
		}
		if err := fn(r); err != nil {
			if sv.firstErr == nil {
				sv.firstErr, sv.firstAt = err, base+int64(off)
			}
			sv.refused++
		} else {
			sv.records++
		}
		off += size
		sv.end = base + int64(off)
	}
	return off
}

// unfinished reports whether b, the rest of a buffer that does not end the
// stream, holds less than the record it starts with: less than a record
// header, or less than the payload its header gives (if that is in range and
// fits in reserve).
func unfinished(b []byte, reserve int) bool {
	if len(b) < recHeader {
		return true
	}
	n := binary.LittleEndian.Uint32(b)
	return n >= 1 && n <= maxPayload && recHeader+int(n) <= reserve && len(b) < recHeader+int(n)
}

// resync returns the first offset in [from, limit) where an intact, decodable
// record starts, or -1. The checksum of each candidate comes from w in constant
// time, and the candidates that pass it but do not decode are given at most
// decodeBudget bytes of decoding per byte of the buffer, so the work is linear
// in the file's size, whatever its bytes.
func resync(w *crcWindow, from, limit int, version byte) int {
	b := w.b
	for j := from; j < limit && j+recHeader < len(b); j++ {
		n := binary.LittleEndian.Uint32(b[j:])
		if n == 0 || n > maxPayload || uint64(len(b)-j-recHeader) < uint64(n) {
			continue
		}
		if t := b[j+recHeader]; t < recOffer || t > maxRecType {
			continue
		}
		start, end := j+recHeader, j+recHeader+int(n)
		if w.checksum(start, end) != binary.LittleEndian.Uint32(b[j+4:]) {
			continue
		}
		if _, err := decodeRecord(b[start:end], version); err == nil {
			return j
		}
		// A candidate whose checksum holds but which does not decode costs
		// its payload; past decodeBudget such bytes per byte of the buffer
		// (only a file made to, with a valid checksum at many offsets, gets
		// there) the rest counts as damage.
		if w.decoded += int64(n); w.decoded > decodeBudget*int64(len(b)) {
			return -1
		}
	}
	return -1
}

// decodeBudget bounds the payload bytes resync decodes in candidates that
// fail, per byte of the file.
const decodeBudget = 4

// crcBlock is the stretch of bytes between two prefix checksums of a crcWindow.
const crcBlock = 64

// crcWindow gives the CRC-32C of any stretch b[a:c] (a ≥ from) from the
// checksums of b's prefixes: with P(k) the checksum of b[from:k], CRC is linear,
// so the checksum of b[a:c] is P(c) xor P(a) shifted through c−a zero bytes.
// It keeps P at every crcBlock bytes (computed once, as far as asked) and the
// P of the last start asked for (resync asks for increasing starts).
type crcWindow struct {
	b      []byte
	from   int
	blocks []uint32 // blocks[i] = P(from + i×crcBlock)
	at     int      // the last start asked for
	atCRC  uint32   // P(at)
	hashed int64    // bytes checksummed
	// decoded counts the payload bytes of candidates that passed their
	// checksum and failed to decode (decodeBudget).
	decoded int64
}

func newCRCWindow(b []byte, from int) *crcWindow {
	return &crcWindow{b: b, from: from, blocks: []uint32{0}, at: from}
}

// prefix returns P(k), from the nearest block at or before k.
func (w *crcWindow) prefix(k int) uint32 {
	i := (k - w.from) / crcBlock
	for len(w.blocks) <= i {
		s := w.from + (len(w.blocks)-1)*crcBlock
		w.blocks = append(w.blocks, crc32.Update(w.blocks[len(w.blocks)-1], castagnoli, w.b[s:s+crcBlock]))
		w.hashed += crcBlock
	}
	s := w.from + i*crcBlock
	w.hashed += int64(k - s)
	return crc32.Update(w.blocks[i], castagnoli, w.b[s:k])
}

// checksum returns the CRC-32C of b[start:end] (from ≤ start ≤ end ≤ len(b)).
func (w *crcWindow) checksum(start, end int) uint32 {
	if start < w.at || start-w.at > crcBlock {
		w.atCRC = w.prefix(start)
	} else {
		w.atCRC = crc32.Update(w.atCRC, castagnoli, w.b[w.at:start])
		w.hashed += int64(start - w.at)
	}
	w.at = start
	return w.prefix(end) ^ multmodp(xPow8n(end-start), w.atCRC)
}

// castagnoliPoly is the CRC-32C polynomial, bit-reversed as hash/crc32 uses it.
const castagnoliPoly = 0x82f63b78

// multmodp returns a×b modulo the CRC-32C polynomial, both bit-reversed
// polynomials (bit 31 is x⁰).
func multmodp(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		b = b>>1 ^ (-(b & 1) & castagnoliPoly)
	}
	return p
}

// xPowTables holds x^(8i) (low) and x^(8×1024×i) (high) modulo the polynomial,
// for every i a payload of maxPayload bytes needs.
var xPowTables = sync.OnceValue(func() (t struct{ low, high []uint32 }) {
	t.low = make([]uint32, 1024)
	t.low[0] = 1 << 31      // x⁰
	const x8 = 1 << 31 >> 8 // x⁸
	for i := 1; i < len(t.low); i++ {
		t.low[i] = multmodp(t.low[i-1], x8)
	}
	x8k := multmodp(t.low[len(t.low)-1], x8) // x^(8×1024)
	t.high = make([]uint32, maxPayload/1024+1)
	t.high[0] = 1 << 31
	for i := 1; i < len(t.high); i++ {
		t.high[i] = multmodp(t.high[i-1], x8k)
	}
	return t
})

// xPow8n returns x^(8n) modulo the polynomial: a checksum multiplied by it is
// shifted through n zero bytes. 0 ≤ n ≤ maxPayload.
func xPow8n(n int) uint32 {
	t := xPowTables()
	return multmodp(t.low[n%1024], t.high[n/1024])
}

// headerVersion checks the header of a file of the given kind: the format
// version to decode its records with, and nil; or, for a damaged header or a
// version this build does not know, the current version (to salvage what
// still decodes) and what is wrong.
func headerVersion(b []byte, kind byte) (byte, error) {
	ver, err := checkHeader(b, kind)
	if err != nil {
		return fileVersion, err
	}
	return ver, nil
}

// noteDamage records and logs a damaged file.
func (m *Memory) noteDamage(path string, problem error, sv salvage) {
	d := Damage{File: filepath.Base(path), Problem: problem.Error(), Salvaged: sv.records, Refused: sv.refused, SkippedBytes: sv.skipped}
	m.damage = append(m.damage, d)
	m.log.Error("context memory file is damaged: every intact record was read; it is moved aside once a snapshot holds them",
		"file", path, "problem", d.Problem, "salvaged_records", d.Salvaged, "refused_records", d.Refused, "skipped_bytes", d.SkippedBytes)
}

// moveAside renames the damaged files (kept in place until now) to
// name.damaged; a file too short to hold a header holds nothing and is removed.
// Called once a snapshot holds everything salvaged.
func (m *Memory) moveAside() {
	for i := range m.damage {
		d := &m.damage[i]
		if d.MovedTo != "" || d.File == modelFile { // a writer's claim replaces the model record
			continue
		}
		path := filepath.Join(m.dir, d.File)
		st, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil && st.Mode().IsRegular() && st.Size() < headerSize {
			if err := os.Remove(path); err != nil {
				m.log.Warn("remove torn context memory file", "file", path, "err", err)
			}
			m.mu.Lock()
			d.MovedTo = "(removed: shorter than a header, nothing to read)"
			m.mu.Unlock()
			continue
		}
		to := path + damagedSuffix
		for k := 1; ; k++ {
			if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
				break
			}
			to = fmt.Sprintf("%s%s.%d", path, damagedSuffix, k)
		}
		if err := os.Rename(path, to); err != nil {
			m.log.Error("move damaged context memory file aside", "file", path, "err", err)
			continue
		}
		m.mu.Lock()
		d.MovedTo = filepath.Base(to)
		m.mu.Unlock()
		m.log.Warn("damaged context memory file moved aside", "file", path, "to", to)
	}
	if err := syncDir(m.dir); err != nil {
		m.log.Warn("fsync context memory directory", "err", err)
	}
}
