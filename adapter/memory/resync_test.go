package memory

import (
	"bytes"
	"os"
	"path/filepath"
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
