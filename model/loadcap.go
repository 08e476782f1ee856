package model

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
)

// ErrTooLargeToLoad reports a weights file whose declared size exceeds the
// memory the process may use: loading it could only end in running out of
// memory.
var ErrTooLargeToLoad = errors.New("larger than the memory this process may use")

// loadCap is the largest payload a weights file may declare: the machine's
// RAM, or the Go memory limit (GOMEMLIMIT) when that is lower.
func loadCap() uint64 {
	c := uint64(math.MaxUint64)
	if ram := physicalMemory(); ram > 0 {
		c = ram
	}
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < math.MaxInt64 {
		c = min(c, uint64(lim))
	}
	return c
}

// checkLoadSize refuses a declared payload of plen bytes over loadCap.
func checkLoadSize(plen uint64) error {
	if c := loadCap(); plen > c {
		return fmt.Errorf("the header announces %d payload bytes, %w (%d bytes)", plen, ErrTooLargeToLoad, c)
	}
	return nil
}
