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
