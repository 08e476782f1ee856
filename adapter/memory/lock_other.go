//go:build !unix

package memory

// lockDir is a no-op where flock is not available.
func lockDir(dir string) (func() error, error) {
	return func() error { return nil }, nil
}
