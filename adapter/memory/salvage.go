package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
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

// salvage is the result of salvageRecords.
type salvage struct {
	end      int // offset after the last intact record
	records  int // records applied
	refused  int // intact records fn refused
	skipped  int64
	firstErr error
	firstAt  int
	// tornTail: the only damage is bytes at the end that hold no intact
	// record, as a crash in the middle of an append leaves them.
	tornTail bool
}

// salvageRecords applies every intact record of b (after a file header of the
// given format version). After bytes that hold no intact record it resumes at
// the next offset where one starts; a record fn refuses is counted and skipped.
func salvageRecords(b []byte, version byte, fn func(record) error) salvage {
	var sv salvage
	fail := func(at int, err error) {
		if sv.firstErr == nil {
			sv.firstErr, sv.firstAt = err, at
		}
	}
	off := 0
	for off < len(b) {
		p, size, err := nextRecord(b[off:])
		var r record
		if err == nil {
			r, err = decodeRecord(p, version)
		}
		if err != nil {
			fail(off, err)
			next := resync(b, off+1, version)
			if next < 0 {
				sv.skipped += int64(len(b) - off)
				// Nothing intact after the first damage, which is these bytes.
				sv.tornTail = sv.firstAt == off
				break
			}
			sv.skipped += int64(next - off)
			off = next
			continue
		}
		if err := fn(r); err != nil {
			fail(off, err)
			sv.refused++
		} else {
			sv.records++
		}
		off += size
		sv.end = off
	}
	return sv
}

// resync returns the first offset ≥ from where an intact, decodable record
// starts, or -1.
func resync(b []byte, from int, version byte) int {
	for j := from; j+recHeader < len(b); j++ {
		n := binary.LittleEndian.Uint32(b[j:])
		if n == 0 || n > maxPayload || uint64(len(b)-j-recHeader) < uint64(n) {
			continue
		}
		if t := b[j+recHeader]; t < recOffer || t > maxRecType {
			continue
		}
		payload := b[j+recHeader : j+recHeader+int(n)]
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[j+4:]) {
			continue
		}
		if _, err := decodeRecord(payload, version); err == nil {
			return j
		}
	}
	return -1
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
		if d.MovedTo != "" {
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
