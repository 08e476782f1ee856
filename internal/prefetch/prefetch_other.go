//go:build !(amd64 || arm64) || purego

package prefetch

import "unsafe"

// rows does nothing where Go has no prefetch instruction to emit.
func rows(base unsafe.Pointer, stride, size uintptr, ids []int32) {}
