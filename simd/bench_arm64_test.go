//go:build arm64 && !purego

package simd

// directDot returns a variant calling the NEON Dot directly, without the
// exported function's dispatch.
func directDot(x, y []float32) []variant {
	return []variant{{"direct-neon", func() { sink = dotNEON(&x[0], &y[0], len(x)) }}}
}

// directGatherSum returns no variants: the NEON set has one GatherSum
// kernel, which "ours-neon" already calls.
func directGatherSum(dst, table []float32, ids func() []int32) []variant { return nil }

// builtKernels lists every kernel set of this build, slowest first.
func builtKernels() []kernels { return []kernels{goKernels, neonKernels} }
