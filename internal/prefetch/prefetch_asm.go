//go:build (amd64 || arm64) && !purego

package prefetch

import "unsafe"

// rows is Rows in assembly (PREFETCHT0 / PRFM PLDL1KEEP, a 64-byte line
// each); len(ids) ≥ 1 and size ≥ 1.
//
//go:noescape
func rows(base unsafe.Pointer, stride, size uintptr, ids []int32)
