// Package prefetch asks the CPU to start loading cache lines that a loop
// will read soon: software prefetches do not wait for their data, so a loop
// of them puts many cache misses in flight at once, where a loop of loads
// stalls once the core's reorder window is full of loads waiting for memory.
package prefetch

import "unsafe"

// Rows prefetches, into every cache level, the cache lines of the bytes
// [base + id·stride, base + id·stride + size) of each id in ids; a negative
// id is skipped. A prefetch never faults, so an address outside the table is
// harmless, but callers pass valid rows.
func Rows(base unsafe.Pointer, stride, size uintptr, ids []int32) {
	if len(ids) == 0 || size == 0 {
		return
	}
	rows(base, stride, size, ids)
}
