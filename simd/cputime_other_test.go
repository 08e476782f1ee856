//go:build !linux

package simd

// threadCPUTime is not available here; benchmarks fall back to wall time.
func threadCPUTime() (int64, bool) { return 0, false }
