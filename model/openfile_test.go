package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadersRefuseNonRegularFiles: /dev/zero would be read until memory runs
// out and a FIFO would block open; every loader refuses both at once.
func TestLoadersRefuseNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	paths := []string{fifo, t.TempDir()}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := LoadFile(p); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "it is a ") ||
				strings.Contains(err.Error(), "---") {
				t.Errorf("LoadFile(%s): %v, want ErrNotRegular naming the kind of file", p, err)
			}
			if _, err := LoadEmbeddings(p); !errors.Is(err, ErrNotRegular) {
				t.Errorf("LoadEmbeddings(%s): %v, want ErrNotRegular", p, err)
			}
			if _, err := LoadCounts(p); !errors.Is(err, ErrNotRegular) {
				t.Errorf("LoadCounts(%s): %v, want ErrNotRegular", p, err)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: a loader blocked", p)
		}
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
