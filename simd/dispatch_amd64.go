//go:build amd64 && !purego

package simd

import "golang.org/x/sys/cpu"

// useAVX512 selects the AVX-512 kernels; Dot and Axpy test it to call them
// directly rather than through the table. Read-only after init.
var useAVX512 = cpu.X86.HasAVX512F

// hasAVX2 reports whether the AVX2+FMA kernels can run (vek32 checks the
// same features for its own dispatch).
func hasAVX2() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// chooseKernels returns the fastest kernel set the CPU supports.
func chooseKernels() kernels {
	switch {
	case useAVX512:
		return avx512Kernels
	case hasAVX2():
		return avx2Kernels
	default:
		return goKernels
	}
}

// allKernels lists every kernel set usable on this machine, for tests.
func allKernels() []kernels {
	ks := []kernels{goKernels}
	if hasAVX2() {
		ks = append(ks, avx2Kernels)
	}
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernels)
	}
	return ks
}
