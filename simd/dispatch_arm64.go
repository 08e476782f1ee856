//go:build arm64 && !purego

package simd

// allKernels lists every kernel set this CPU can run, slowest first: every
// arm64 CPU has NEON (Advanced SIMD).
func allKernels() []kernels { return []kernels{goKernels, neonKernels} }
