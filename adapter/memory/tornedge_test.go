package memory

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestZeroTailAcrossWindowEdge: a tail of zero bytes (what a crash can
// leave after a file's size grew but before its data reached the disk) that
// starts inside one window and ends past it is a torn tail, as when the file
// is read whole.
func TestZeroTailAcrossWindowEdge(t *testing.T) {
	const reserve, size = 256, 512
	var b []byte
	for i := 0; len(b) < size-100; i++ {
		var start int
		b, start = beginRecord(b)
		b = appendKeep(b, fmt.Sprintf("w%d", i), "ctx")
		endRecord(b, start)
	}
	b = append(b, make([]byte, 200)...) // starts before size-recHeader, ends past size
	nop := func(record) error { return nil }
	whole, err := salvageStream(bytes.NewReader(b), int64(len(b)), fileVersion, nop, len(b)+1, reserve)
	if err != nil {
		t.Fatal(err)
	}
	win, err := salvageStream(bytes.NewReader(b), int64(len(b)), fileVersion, nop, size, reserve)
	if err != nil {
		t.Fatal(err)
	}
	if !whole.tornTail {
		t.Fatalf("read whole: %+v, want a torn tail", whole)
	}
	if win.tornTail != whole.tornTail || win.end != whole.end || win.firstAt != whole.firstAt {
		t.Errorf("through a %d-byte window: torn tail %v, end %d, first damage at %d; read whole: %v, %d, %d",
			size, win.tornTail, win.end, win.firstAt, whole.tornTail, whole.end, whole.firstAt)
	}
}

// TestOpenZeroTailAtBufferEdge: a log whose last records are followed
// by a few KiB of zero bytes (a crash after the file grew, before its data
// reached the disk) has a torn tail wherever it lies in the file: Open
// drops it, appends to the log and reports no damage, also when the zeros
// cross the edge of the buffer the log is read through.
func TestOpenZeroTailAtBufferEdge(t *testing.T) {
	const r = recHeader + maxPayload // the records of a window beyond one reserve
	dir := t.TempDir()
	b := fileHeader(kindLog)
	ctx := string(bytes.Repeat([]byte("c"), 1000))
	for i := 0; len(b)-headerSize < 2*r-3000; i++ {
		var start int
		b, start = beginRecord(b)
		b = appendKeep(b, fmt.Sprintf("w%d", i), fmt.Sprintf("%d %s", i, ctx))
		endRecord(b, start)
	}
	good := len(b)
	b = append(b, make([]byte, 8192)...) // crosses headerSize+2r
	if body := len(b) - headerSize; good-headerSize > 2*r-recHeader || body <= 2*r {
		t.Fatalf("zeros from %d to %d of the body, want them across %d", good-headerSize, body, 2*r)
	}
	path := filepath.Join(dir, "log-0000000000000001.amm")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	m := mustOpen(t, dir, quietOptions())
	st := m.Stats()
	m.Close()
	if len(st.Damaged) != 0 {
		t.Errorf("damage %+v, want the zeros dropped as a torn tail", st.Damaged)
	}
}
