//go:build unix

package amtrain

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f into memory, read-only or, with
// writable, shared with the file (writes reach it by unmapFile).
func mapFile(f *os.File, size int, writable bool) ([]byte, error) {
	prot := syscall.PROT_READ
	if writable {
		prot |= syscall.PROT_WRITE
	}
	return syscall.Mmap(int(f.Fd()), 0, size, prot, syscall.MAP_SHARED)
}

// unmapFile releases a mapping of mapFile (f and writable as given to it).
func unmapFile(_ *os.File, data []byte, _ bool) error {
	return syscall.Munmap(data)
}

// cpuSeconds returns the user+system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
