//go:build !unix

package amtrain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadMapping checks the read/write-back stand-in for mmap that the
// index uses where there is no mmap: what is written to the buffer reaches
// the file, and reading gives back the file's bytes.
func TestReadMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ix")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(64); err != nil {
		t.Fatal(err)
	}
	data, err := readMapping(f, 64)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, make([]byte, 64)) {
		t.Fatalf("a fresh 64-byte file reads as %v", data)
	}
	for i := range data {
		data[i] = byte(i)
	}
	if err := writeMapping(f, data); err != nil {
		t.Fatal(err)
	}
	back, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, data) {
		t.Fatalf("file holds %v after the write-back, want %v", back, data)
	}
	again, err := readMapping(f, 64)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("reading again: %v, %v", again, err)
	}
	if _, err := readMapping(f, 100); err != nil {
		t.Fatalf("a short file must read as far as it goes: %v", err)
	}
}
