package memory

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestResyncChecksCRC: after damage, salvage resumes only at a record whose
// checksum holds. A tail of junk followed by a record that decodes but fails
// its checksum holds nothing intact: it is a torn tail (dropped), and Open
// reports no damaged file.
func TestResyncChecksCRC(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	remember(t, m, "word0", "the sentence of word0")
	remember(t, m, "word1", "the sentence of word1")
	m.abandon()
	p := logFile(t, dir)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	last := headerSize
	for off := headerSize; off < len(b); {
		_, size, err := nextRecord(b[off:])
		if err != nil {
			t.Fatal(err)
		}
		last, off = off, off+size
	}
	forged := bytes.Clone(b[last:])
	at := bytes.Index(forged, []byte("sentence"))
	forged[at] ^= 0x20 // still decodes, its checksum fails
	if _, err := decodeRecord(forged[recHeader:], fileVersion); err != nil {
		t.Fatalf("the forged record does not decode: %v", err)
	}
	tail := append([]byte{0xff, 0xff, 0xff, 0xff}, forged...)
	sv := salvageRecords(append(b[headerSize:], tail...), fileVersion, func(record) error { return nil })
	if !sv.tornTail || sv.records != 2 {
		t.Errorf("salvage %+v: want a torn tail after 2 records", sv)
	}
	os.WriteFile(p, append(b, tail...), 0o600)
	m = mustOpen(t, dir, quietOptions())
	defer m.Close()
	if d := m.Stats().Damaged; len(d) != 0 {
		t.Errorf("a torn tail reported as damage: %+v", d)
	}
	if st, err := os.Stat(p); err != nil || st.Size() != int64(len(b)) {
		t.Errorf("log after Open: %v, want the tail cut to %d bytes", err, len(b))
	}
}

// TestCRCWindow: the checksum of any stretch from the prefix checksums is
// the checksum of its bytes.
func TestCRCWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 3*maxPayload/2)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	from := 5
	w := newCRCWindow(b, from)
	start := from
	for range 300 {
		if rng.IntN(4) == 0 {
			start = from + rng.IntN(len(b)-from) // backwards too
		} else {
			start += rng.IntN(200)
		}
		start = min(start, len(b))
		n := rng.IntN(min(maxPayload, len(b)-start) + 1)
		if rng.IntN(4) == 0 {
			n = min(len(b)-start, maxPayload)
		}
		if got, want := w.checksum(start, start+n), crc32.Checksum(b[start:start+n], castagnoli); got != want {
			t.Fatalf("b[%d:%d]: %#x, want %#x", start, start+n, got, want)
		}
	}
}

// hostileLog returns a log header followed by size bytes of the 4-byte
// pattern 05 ff 3f 00: every fourth offset claims a payload of nearly
// maxPayload bytes of type recKeep, none of them intact.
func hostileLog(size int) []byte {
	b := fileHeader(kindLog)
	for len(b) < headerSize+size {
		b = append(b, 0x05, 0xff, 0x3f, 0x00)
	}
	return b[:headerSize+size]
}

// TestResyncLinear: bytes that claim long payloads at every fourth offset
// cost salvage a bounded number of checksummed bytes per byte of file (not
// a payload's length per candidate offset), and the salvage still finds the
// intact records after them.
func TestResyncLinear(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	remember(t, m, "after", "the sentence after the damage")
	m.abandon()
	good, err := os.ReadFile(logFile(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	junk := hostileLog(maxPayload + 1<<20)[headerSize:]
	b := append(slices.Clone(junk), good[headerSize:]...)
	sv := salvageRecords(b, fileVersion, func(record) error { return nil })
	if sv.records != 1 || sv.skipped != int64(len(junk)) || sv.tornTail {
		t.Errorf("salvage %+v: want the one record after %d bytes of damage", sv, len(junk))
	}
	if limit := 16 * int64(len(b)); sv.hashed > limit {
		t.Errorf("checksummed %d bytes over a file of %d, want at most %d", sv.hashed, len(b), limit)
	}
}

// TestLongJunkIsDamage: a log whose bytes after the header hold no intact
// record and are longer than one record can be is not a torn tail: it is
// reported as damage (moved aside once a snapshot holds the rest), not
// silently cut away, and reading it checksums a bounded number of bytes.
func TestLongJunkIsDamage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b := hostileLog(maxPayload + 1<<20)
	p := filepath.Join(dir, "log-0000000000000001.amm")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sv := salvageRecords(b[headerSize:], fileVersion, func(record) error { return nil })
	if sv.tornTail || sv.skipped != int64(len(b)-headerSize) {
		t.Errorf("salvage %+v: want damage over every byte, not a torn tail", sv)
	}
	o := quietOptions()
	o.ReadOnly = true
	m := mustOpen(t, dir, o)
	d := m.Stats().Damaged
	m.Close()
	if len(d) != 1 || d[0].File != filepath.Base(p) || d[0].SkippedBytes != int64(len(b)-headerSize) {
		t.Errorf("damage %+v: want the log, all its records' bytes skipped", d)
	}
	if st, err := os.Stat(p); err != nil || st.Size() != int64(len(b)) {
		t.Errorf("after a read-only Open: %v, %v; want the file unchanged", st, err)
	}
}

// forgedLog returns size bytes of candidates, one every 16 bytes, each
// claiming a recKeep record up to the end with a checksum that holds (made
// from the end back, each checksum over bytes already fixed) and a payload
// that does not decode.
func forgedLog(size int) []byte {
	b := make([]byte, size)
	for j := size - 16; j >= 0; j -= 16 {
		n := size - j - recHeader
		binary.LittleEndian.PutUint32(b[j:], uint32(n))
		b[j+recHeader] = recKeep
		for k := j + recHeader + 1; k < j+16; k++ {
			b[k] = 0xff // a word length no payload holds
		}
		binary.LittleEndian.PutUint32(b[j+4:], crc32.Checksum(b[j+recHeader:], castagnoli))
	}
	return b
}

// TestResyncForgedChecksums: candidates whose checksums hold but which do
// not decode cost salvage at most decodeBudget payload bytes per byte of
// file; past that the rest of the file is damage.
func TestResyncForgedChecksums(t *testing.T) {
	b := forgedLog(256 << 10)
	if _, err := decodeRecord(b[recHeader:], fileVersion); err == nil {
		t.Fatal("the forged payload decodes")
	}
	sv := salvageRecords(b, fileVersion, func(record) error { return nil })
	if sv.records != 0 || sv.skipped != int64(len(b)) {
		t.Errorf("salvage %+v: want every byte skipped", sv)
	}
	if limit := decodeBudget*int64(len(b)) + maxPayload; sv.decoded == 0 || sv.decoded > limit {
		t.Errorf("decoded %d payload bytes of candidates over a file of %d, want some and at most %d",
			sv.decoded, len(b), limit)
	}
}

// salvageRecords is salvageStream over the bytes of b, read as Open reads a
// file.
func salvageRecords(b []byte, version byte, fn func(record) error) salvage {
	sv, err := salvageStream(bytes.NewReader(b), int64(len(b)), version, fn, readBuffer, recHeader+maxPayload)
	if err != nil {
		panic(err) // a bytes.Reader does not fail
	}
	return sv
}
