//go:build amd64 && !purego

package simd

// directDot returns variants calling each assembly Dot this CPU runs
// directly, without the exported function's dispatch.
func directDot(x, y []float32) []variant {
	var vs []variant
	for _, k := range allKernels() {
		switch k.name {
		case "avx2":
			vs = append(vs, variant{"direct-avx2", func() { sink = dotAVX2(&x[0], &y[0], len(x)) }})
		case "avx512":
			vs = append(vs, variant{"direct-avx512", func() { sink = dotAVX512(&x[0], &y[0], len(x)) }})
		}
	}
	return vs
}

// directGatherSum returns a variant calling the AVX-512 GatherSum kernel
// directly where this CPU runs it, bypassing the AVX-512 set's choice of the
// AVX2 kernel for half-line rows (halfLineRows), so that the two kernels can
// be compared at any d ("ours-avx2" already calls the AVX2 kernel).
func directGatherSum(dst, table []float32, ids func() []int32) []variant {
	for _, k := range allKernels() {
		if k.name == "avx512" {
			return []variant{{"direct-avx512", func() { gatherSumAVX512(dst, table, ids()) }}}
		}
	}
	return nil
}

// builtKernels lists every kernel set of this build, whether or not this
// CPU runs it, slowest first.
func builtKernels() []kernels { return []kernels{goKernels, avx2Kernels, avx512Kernels} }
