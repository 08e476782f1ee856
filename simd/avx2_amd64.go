//go:build amd64 && !purego

package simd

// Go declarations of the AVX2+FMA kernels in avx2_amd64.s. They require
// AVX2 and FMA and assume shapes already checked by the exported functions.

// dotAVX2 returns Σ_{i<n} a[i]·b[i].
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func axpyAVX2(alpha float32, x, y []float32)

// axpy2AVX2 computes y += a1·x1 + a2·x2 in one pass over y.
//
//go:noescape
func axpy2AVX2(a1 float32, x1 []float32, a2 float32, x2, y []float32)

//go:noescape
func scaleAVX2(alpha float32, x []float32)

//go:noescape
func addAVX2(dst, x []float32)

//go:noescape
func pairAxpyAVX2(alpha float32, a, b, acc []float32)

//go:noescape
func weightedSumAVX2(dst, w, x []float32)

//go:noescape
func gatherSumAVX2(dst, table []float32, ids []int32)

//go:noescape
func gatherAxpyAVX2(dst, table []float32, ids []int32, w []float32)

// dotRows4AVX2 sets dst[k] = Σ_{j<n} a[k·stride+j]·x[j] for k = 0..3.
//
//go:noescape
func dotRows4AVX2(a *float32, stride int, x *float32, n int, dst *float32)

// dot4x2AVX2 sets dst[r·dstStride+c] = Σ_{j<n} a[r·stride+j]·b[c·stride+j]
// for r = 0..3, c = 0..1.
//
//go:noescape
func dot4x2AVX2(a, b *float32, stride, n int, dst *float32, dstStride int)

// avx2Kernels is the AVX2+FMA kernel set.
var avx2Kernels = kernels{
	name:        "avx2",
	id:          setAVX2,
	dot:         dotAVX2,
	axpy:        axpyAVX2,
	scale:       scaleAVX2,
	add:         addAVX2,
	weightedSum: weightedSumAVX2,
	gatherSum:   gatherSumAVX2,
	gatherAxpy:  gatherAxpyAVX2,
	matVec:      matVecAVX2,
	matTVec:     matTVecAVX2,
	gram:        gramAVX2,
	rank1:       rank1AVX2,
	rank2:       rank2AVX2,
	pairAxpy:    pairAxpyAVX2,
}

// matVecAVX2 computes four rows per call of dotRows4AVX2.
func matVecAVX2(dst, a []float32, rows, cols int, x []float32) {
	if cols == 0 {
		clear(dst)
		return
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		dotRows4AVX2(&a[r*cols], cols, &x[0], cols, &dst[r])
	}
	for ; r < rows; r++ {
		dst[r] = dotAVX2(&a[r*cols], &x[0], cols)
	}
}

// matTVecAVX2 is Aᵀ·x = Σ_r x[r]·A[r,:], a weighted sum of the rows.
func matTVecAVX2(dst, a []float32, rows, cols int, x []float32) {
	weightedSumAVX2(dst, x, a)
}

// gramAVX2 fills the lower triangle in 4×2 blocks of dot4x2AVX2 (each 4-row
// band up to and including its diagonal 4×4 block; the rows left over when
// m is not a multiple of 4 use dotRows4AVX2 and dotAVX2) and mirrors it.
func gramAVX2(dst, x []float32, m, d int) {
	if d == 0 {
		clear(dst)
		return
	}
	m4 := m &^ 3
	for i := 0; i < m4; i += 4 {
		for j := 0; j < i+4; j += 2 {
			dot4x2AVX2(&x[i*d], &x[j*d], d, d, &dst[i*m+j], m)
		}
	}
	for i := m4; i < m; i++ {
		xi := x[i*d : (i+1)*d]
		j := 0
		for ; j+4 <= i+1; j += 4 {
			dotRows4AVX2(&x[j*d], d, &xi[0], d, &dst[i*m+j])
		}
		for ; j <= i; j++ {
			dst[i*m+j] = dotAVX2(&xi[0], &x[j*d], d)
		}
	}
	mirrorLower(dst, m)
}

// rank1AVX2 is one Axpy per row of A.
func rank1AVX2(a []float32, rows, cols int, alpha float32, x, y []float32) {
	for r := range rows {
		axpyAVX2(alpha*x[r], y, a[r*cols:(r+1)*cols])
	}
}

// rank2AVX2 updates each row of A with both terms in one pass.
func rank2AVX2(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32) {
	for r := range rows {
		axpy2AVX2(alpha*x1[r], y1, alpha*x2[r], y2, a[r*cols:(r+1)*cols])
	}
}
