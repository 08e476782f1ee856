//go:build !unix

package amtrain

import (
	"fmt"
	"io"
	"os"
)

// mapFile reads the first size bytes of f into memory: platforms without
// mmap (Windows) pay one read of the index instead of mapping it.
func mapFile(f *os.File, size int, _ bool) ([]byte, error) {
	return readMapping(f, size)
}

// unmapFile writes a writable mapping back to f; a read-only one needs
// nothing.
func unmapFile(f *os.File, data []byte, writable bool) error {
	if !writable {
		return nil
	}
	return writeMapping(f, data)
}

// cpuSeconds returns 0: the process CPU time is not read on this platform
// (the training report then gives no per-CPU-second rates).
func cpuSeconds() float64 { return 0 }

// readMapping reads the first size bytes of f into memory: the stand-in for
// a memory mapping on platforms without mmap (see platform_other.go).
func readMapping(f *os.File, size int) ([]byte, error) {
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, nil
}

// writeMapping writes a writable stand-in mapping back to the start of f.
func writeMapping(f *os.File, data []byte) error {
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return nil
}
