package amtrain

import (
	"fmt"
	"io"
	"os"
)

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
