//go:build !linux

package testmodel

// ThreadCPUTime is not available here: it returns false.
func ThreadCPUTime() (int64, bool) { return 0, false }

// ProcessCPUTime is not available here: it returns false.
func ProcessCPUTime() (int64, bool) { return 0, false }
