package checkpoint

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// withSum sets the last four bytes of the checkpoint file b to the checksum
// of the others, as Write would.
func withSum(b []byte) []byte {
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	}
	return b
}

// readAll opens the checkpoint at path and reads what writeTest writes, the
// floats into a slice of n.
func readAll(path string, n int) error {
	var st testState
	r, err := Open(path, EmbeddingsMagic, &st)
	if err != nil {
		return err
	}
	r.U32()
	r.U64()
	r.Bytes(r.U64())
	r.FloatsInto(make([]float32, n), "the floats")
	r.Floats()
	return r.Close()
}

// FuzzOpen: whatever a checkpoint file holds, its checksum made to match or
// not, Open and the Reader return an error naming the file or what Write
// wrote, and never allocate more than the file's size over again.
func FuzzOpen(f *testing.F) {
	path := filepath.Join(f.TempDir(), "x.ckpt")
	writeTest(f, path, make([]float32, 10))
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, true)
	f.Add(good[:len(good)-5], true)
	f.Fuzz(func(t *testing.T, data []byte, fixSum bool) {
		if fixSum {
			data = withSum(data)
		}
		p := filepath.Join(t.TempDir(), "x.ckpt")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := readAll(p, 10)
		runtime.ReadMemStats(&after)
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("err = %v, want it to name %s", err, p)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20+4*uint64(len(data)) {
			t.Fatalf("a %d-byte file: %d bytes allocated", len(data), grew)
		}
		var st testState
		ReadHead(p, EmbeddingsMagic, &st)
	})
}

// A checkpoint whose state is longer than MaxStateBytes, which Write never
// writes, is refused before the state is read, whatever the file's size.
func TestOpenRefusesAStateOverTheBound(t *testing.T) {
	b := []byte(EmbeddingsMagic)
	b = binary.LittleEndian.AppendUint32(b, MaxStateBytes+1)
	b = append(b, make([]byte, MaxStateBytes+1)...)
	b = append(b, 0, 0, 0, 0)
	path := filepath.Join(t.TempDir(), "x.ckpt")
	if err := os.WriteFile(path, withSum(b), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Open(path, EmbeddingsMagic, &testState{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "more than") || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want the state refused as too long, naming %s", err, path)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("%d bytes allocated", grew)
	}
}
