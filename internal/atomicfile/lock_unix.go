//go:build unix && !aix

package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// haveLocks is true: lockTemp marks a temporary file as being written.
const haveLocks = true

// lockTemp takes an exclusive advisory lock on f without waiting, held until
// f is closed or its process ends: a temporary file so locked is being
// written.
func lockTemp(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}
