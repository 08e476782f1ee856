//go:build amd64 && !purego

package simd

import "golang.org/x/sys/cpu"

// allKernels lists every kernel set this CPU can run, slowest first.
func allKernels() []kernels {
	ks := []kernels{goKernels}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernels)
	}
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernels)
	}
	return ks
}
