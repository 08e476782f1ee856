//go:build unix && !linux

package e2e

// procCPU reports no CPU time: it reads /proc, which only Linux has.
func procCPU(pid int) (float64, bool) { return 0, false }
