//go:build !unix

package amtrain

import "os"

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
