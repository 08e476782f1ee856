//go:build amd64 && !purego

package simd

// Go declarations of the AVX-512 kernels in avx512_amd64.s. They require
// AVX-512F and assume shapes already checked by the exported functions.

// dotAVX512 returns Σ_{i<n} a[i]·b[i].
//
//go:noescape
func dotAVX512(a, b *float32, n int) float32

//go:noescape
func axpyAVX512(alpha float32, x, y []float32)

//go:noescape
func scaleAVX512(alpha float32, x []float32)

//go:noescape
func addAVX512(dst, x []float32)

//go:noescape
func weightedSumAVX512(dst, w, x []float32)

//go:noescape
func gatherSumAVX512(dst, table []float32, ids []int32)

//go:noescape
func gatherAxpyAVX512(dst, table []float32, ids []int32, w []float32)

// dotRows4AVX512 sets dst[k] = Σ_{j<n} a[k·stride+j]·x[j] for k = 0..3.
//
//go:noescape
func dotRows4AVX512(a *float32, stride int, x *float32, n int, dst *float32)

// dot4x4AVX512 sets dst[r·dstStride+c] = Σ_{j<n} a[r·stride+j]·b[c·stride+j]
// for r, c = 0..3.
//
//go:noescape
func dot4x4AVX512(a, b *float32, stride, n int, dst *float32, dstStride int)

// rank1AVX512 computes A += alpha·x·yᵀ for the row-major rows×cols a.
//
//go:noescape
func rank1AVX512(a []float32, rows, cols int, alpha float32, x, y []float32)

// rank2AVX512 computes A += alpha·(x1·y1ᵀ + x2·y2ᵀ).
//
//go:noescape
func rank2AVX512(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32)

// pairAxpyAVX512 computes acc += alpha·b and b += alpha·a in one pass.
//
//go:noescape
func pairAxpyAVX512(alpha float32, a, b, acc []float32)

// avx512Kernels is the AVX-512F kernel set.
var avx512Kernels = kernels{
	name:        "avx512",
	id:          setAVX512,
	dot:         dotAVX512,
	axpy:        axpyAVX512,
	scale:       scaleAVX512,
	add:         addAVX512,
	weightedSum: weightedSumAVX512,
	gatherSum:   gatherSumRowsAVX512,
	gatherAxpy:  gatherAxpyRowsAVX512,
	matVec:      matVecAVX512,
	matTVec:     matTVecAVX512,
	gram:        gramAVX512,
	rank1:       rank1AVX512,
	rank2:       rank2AVX512,
	pairAxpy:    pairAxpyAVX512,
}

// halfLineRows reports whether rows of d float32s are an odd number of
// half cache lines long (d ≡ 8 mod 16, as the default model's 200): then
// every other row of a table starts 32 bytes into a 64-byte line, so each
// 64-byte load of such a row spans two lines, while 32-byte loads never do.
// The gathers of the AVX-512 set use the AVX2 kernels for these rows, which
// docs/benchmarks.md: measured 14–18 % faster on an Intel Xeon at
// d = 200 (on AMD Zen 5 only the vectorizer's anchor was compared, one run
// per set, the same way); at d = 256 and 300 the AVX-512 kernels win or tie.
func halfLineRows(d int) bool { return d%16 == 8 }

// gatherSumRowsAVX512 is the AVX-512 set's GatherSum: gatherSumAVX512, or
// gatherSumAVX2 for half-line rows (halfLineRows).
func gatherSumRowsAVX512(dst, table []float32, ids []int32) {
	if halfLineRows(len(dst)) {
		gatherSumAVX2(dst, table, ids)
		return
	}
	gatherSumAVX512(dst, table, ids)
}

// gatherAxpyRowsAVX512 is the AVX-512 set's GatherAxpy: gatherAxpyAVX512, or
// gatherAxpyAVX2 for half-line rows (halfLineRows).
func gatherAxpyRowsAVX512(dst, table []float32, ids []int32, w []float32) {
	if halfLineRows(len(dst)) {
		gatherAxpyAVX2(dst, table, ids, w)
		return
	}
	gatherAxpyAVX512(dst, table, ids, w)
}

// matVecAVX512 computes four rows per call of dotRows4AVX512.
func matVecAVX512(dst, a []float32, rows, cols int, x []float32) {
	if cols == 0 {
		clear(dst)
		return
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		dotRows4AVX512(&a[r*cols], cols, &x[0], cols, &dst[r])
	}
	for ; r < rows; r++ {
		dst[r] = dotAVX512(&a[r*cols], &x[0], cols)
	}
}

// matTVecAVX512 is Aᵀ·x = Σ_r x[r]·A[r,:], a weighted sum of the rows.
func matTVecAVX512(dst, a []float32, rows, cols int, x []float32) {
	weightedSumAVX512(dst, x, a)
}

// gramAVX512 fills the lower triangle in 4×4 blocks of dot4x4AVX512 (the
// rows left over when m is not a multiple of 4 use dotRows4AVX512 and
// dotAVX512) and mirrors it.
func gramAVX512(dst, x []float32, m, d int) {
	if d == 0 {
		clear(dst)
		return
	}
	m4 := m &^ 3
	for i := 0; i < m4; i += 4 {
		for j := 0; j <= i; j += 4 {
			dot4x4AVX512(&x[i*d], &x[j*d], d, d, &dst[i*m+j], m)
		}
	}
	for i := m4; i < m; i++ {
		xi := x[i*d : (i+1)*d]
		j := 0
		for ; j+4 <= i+1; j += 4 {
			dotRows4AVX512(&x[j*d], d, &xi[0], d, &dst[i*m+j])
		}
		for ; j <= i; j++ {
			dst[i*m+j] = dotAVX512(&xi[0], &x[j*d], d)
		}
	}
	mirrorLower(dst, m)
}
