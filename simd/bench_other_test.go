//go:build !(amd64 || arm64) || purego

package simd

// directDot returns no variants: this build has no assembly.
func directDot(x, y []float32) []variant { return nil }

// directGatherSum returns no variants: this build has no assembly.
func directGatherSum(dst, table []float32, ids func() []int32) []variant { return nil }

// builtKernels lists every kernel set of this build: the pure-Go one.
func builtKernels() []kernels { return []kernels{goKernels} }
