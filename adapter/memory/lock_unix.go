//go:build unix

package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockDir takes an exclusive advisory lock on dir/LOCK so that two processes
// never write the same memory; the returned function releases it.
func lockDir(dir string) (func() error, error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open context memory lock file: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("context memory %s is in use by another process (stop the server first, or open it read-only)", dir)
		}
		return nil, fmt.Errorf("lock context memory %s: %w", path, err)
	}
	return f.Close, nil
}
