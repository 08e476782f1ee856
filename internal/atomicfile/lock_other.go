//go:build !unix || aix

package atomicfile

import (
	"errors"
	"os"
)

// haveLocks is false: removeStale does not look for temporary files.
const haveLocks = false

// lockTemp reports that this system has no advisory locks here: no
// temporary file is taken for a dead writer's.
func lockTemp(*os.File) error { return errors.ErrUnsupported }
