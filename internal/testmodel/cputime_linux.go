//go:build linux

package testmodel

import "golang.org/x/sys/unix"

// ThreadCPUTime returns the CPU time of the calling OS thread in nanoseconds
// and true (lock the goroutine to its thread first). Benchmarks use it so
// that their rates do not count time spent descheduled on a shared machine.
func ThreadCPUTime() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// ProcessCPUTime returns the CPU time of the whole process in nanoseconds and true.
func ProcessCPUTime() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
