package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
)

// TestLoadersRefuseNonRegularFiles: /dev/zero would be read until memory runs
// out and a FIFO would block open; every loader refuses both, and a
// directory, at once.
func TestLoadersRefuseNonRegularFiles(t *testing.T) {
	loadFile := func(p string) error { _, err := LoadFile(p); return err }
	testfiles.RefusesNonRegular(t, "LoadFile", loadFile, func(f testfiles.File, err error) {
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "it is a ") ||
			strings.Contains(err.Error(), "---") {
			t.Errorf("LoadFile(%s): %v, want ErrNotRegular naming the kind of file", f.Path, err)
		}
	})
	for _, l := range []struct {
		name string
		load func(string) error
	}{
		{"LoadEmbeddings", func(p string) error { _, err := LoadEmbeddings(p); return err }},
		{"LoadCounts", func(p string) error { _, err := LoadCounts(p); return err }},
	} {
		testfiles.RefusesNonRegular(t, l.name, l.load, func(f testfiles.File, err error) {
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s(%s): %v, want ErrNotRegular", l.name, f.Path, err)
			}
		})
	}
}

// TestLoadBoundedByHeader: a header announcing a huge payload over a short
// stream is refused as truncated, without allocating what it announces.
func TestLoadBoundedByHeader(t *testing.T) {
	h := make([]byte, headerLen)
	copy(h, weightsMagic)
	binary.LittleEndian.PutUint32(h[8:], weightsVersion)
	binary.LittleEndian.PutUint64(h[12:], 1<<39)
	_, err := Load(bytes.NewReader(append(h, make([]byte, 100)...)), "lying header")
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("lying header: %v", err)
	}
	path := filepath.Join(t.TempDir(), "lying.am")
	os.WriteFile(path, append(h, make([]byte, 100)...), 0o600)
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("lying header file: %v", err)
	}
}
