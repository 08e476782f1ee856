//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// lockTemp takes an exclusive advisory lock on f without waiting, held until
// f is closed or its process ends: a temporary file so locked is being
// written.
func lockTemp(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
