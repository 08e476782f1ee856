//go:build !amd64 || purego

package simd

// chooseKernels returns the pure-Go kernels: this build has no assembly.
func chooseKernels() kernels { return goKernels }

// allKernels lists every kernel set usable on this machine, for tests.
func allKernels() []kernels { return []kernels{goKernels} }

// useAVX512 is false: this build has no assembly.
const useAVX512 = false

// dotAVX512 is never called in this build (useAVX512 is false).
func dotAVX512(a, b []float32) float32 { return dotGo(a, b) }

// axpyAVX512 is never called in this build (useAVX512 is false).
func axpyAVX512(alpha float32, x, y []float32) { axpyGo(alpha, x, y) }

// pairAxpyAVX512 is never called in this build (useAVX512 is false).
func pairAxpyAVX512(alpha float32, a, b, acc []float32) { pairAxpyGo(alpha, a, b, acc) }
