// Package shareddata finds the project's shared evaluation data for tests:
// the directory "shared" beside the repository root (the directory holding
// go.mod). Tests that need it call Dir, which skips the test with a clear
// message when the data is absent, as it is on a user's machine.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the repository root: the nearest directory at or above the
// working directory that holds go.mod. It skips the test when there is none.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("find repository root: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("repository root (go.mod) not found above the test directory")
		}
		dir = parent
	}
}

// Dir returns ../shared relative to the repository root, or skips the test
// when that directory is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	shared := filepath.Join(filepath.Dir(RepoRoot(tb)), "shared")
	if _, err := os.Stat(shared); err != nil {
		tb.Skipf("shared data directory %s is absent: this test needs ../shared beside the repository", shared)
	}
	return shared
}
