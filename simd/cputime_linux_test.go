//go:build linux

package simd

import "golang.org/x/sys/unix"

// threadCPUTime returns the CPU time consumed by the calling OS thread in
// nanoseconds, and true. Benchmarks use it so that their GFLOP/s do not count
// time the thread spent descheduled on a machine shared with other jobs.
func threadCPUTime() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
