//go:build !(amd64 || arm64) || purego

package simd

// allKernels lists the pure-Go kernels: this build has no assembly.
func allKernels() []kernels { return []kernels{goKernels} }

// dotEntry calls the Dot kernel of impl, which here is always the go set's.
func dotEntry(a, b *float32, n int) float32 { return dotGoPtr(a, b, n) }

// axpyEntry calls the Axpy kernel of impl, which here is always the go set's.
func axpyEntry(alpha float32, x, y []float32) { axpyGo(alpha, x, y) }
