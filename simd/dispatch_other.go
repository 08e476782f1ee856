//go:build !(amd64 || arm64) || purego

package simd

// allKernels lists the pure-Go kernels: this build has no assembly.
func allKernels() []kernels { return []kernels{goKernels} }
