//go:build amd64 && !purego

package simd

import "github.com/viterin/vek/vek32"

// The AVX2+FMA kernel set: vek32's AVX2 kernels on the largest prefix whose
// length is a multiple of 32 (vek finishes other lengths with a slow scalar
// loop), our unrolled Go for the tail of at most 31 elements, and a small
// assembly Axpy, which vek lacks.

// axpyAVX2 computes y += alpha·x on len(x) rounded down to a multiple of 32.
//
//go:noescape
func axpyAVX2(alpha float32, x, y []float32)

// avx2Kernels is the AVX2+FMA kernel set.
var avx2Kernels = kernels{
	name:        "avx2",
	dot:         dotAVX2,
	axpy:        axpyAVX2Tail,
	scale:       scaleAVX2,
	add:         addAVX2,
	weightedSum: weightedSumAVX2,
	gatherSum:   gatherSumAVX2,
	matVec:      matVecAVX2,
	matTVec:     matTVecAVX2,
	gram:        gramAVX2,
	rank1:       rank1AVX2,
	rank2:       rank2AVX2,
	pairAxpy:    pairAxpyAVX2,
}

// block32 is n rounded down to a multiple of 32.
func block32(n int) int { return n &^ 31 }

func dotAVX2(a, b []float32) float32 {
	n := block32(len(a))
	if n == 0 {
		return dotGo(a, b)
	}
	return vek32.Dot(a[:n], b[:n]) + dotGo(a[n:], b[n:len(a)])
}

func axpyAVX2Tail(alpha float32, x, y []float32) {
	n := block32(len(x))
	axpyAVX2(alpha, x[:n], y[:n])
	axpyGo(alpha, x[n:], y[n:len(x)])
}

func scaleAVX2(alpha float32, x []float32) {
	n := block32(len(x))
	if n > 0 {
		vek32.MulNumber_Inplace(x[:n], alpha)
	}
	scaleGo(alpha, x[n:])
}

func addAVX2(dst, x []float32) {
	n := block32(len(dst))
	if n > 0 {
		vek32.Add_Inplace(dst[:n], x[:n])
	}
	addGo(dst[n:], x[n:len(dst)])
}

func weightedSumAVX2(dst, w, x []float32) {
	d := len(dst)
	clear(dst)
	for i, wi := range w {
		axpyAVX2Tail(wi, x[i*d:(i+1)*d], dst)
	}
}

func gatherSumAVX2(dst, table []float32, ids []int32) {
	d := len(dst)
	clear(dst)
	for _, id := range ids {
		o := int(id) * d
		addAVX2(dst, table[o:o+d])
	}
}

func matVecAVX2(dst, a []float32, rows, cols int, x []float32) {
	for r := range rows {
		dst[r] = dotAVX2(a[r*cols:(r+1)*cols], x)
	}
}

func matTVecAVX2(dst, a []float32, rows, cols int, x []float32) {
	weightedSumAVX2(dst, x, a)
}

func gramAVX2(dst, x []float32, m, d int) {
	for i := range m {
		xi := x[i*d : (i+1)*d]
		for j := 0; j <= i; j++ {
			dst[i*m+j] = dotAVX2(xi, x[j*d:(j+1)*d])
		}
	}
	mirrorLower(dst, m)
}

func rank1AVX2(a []float32, rows, cols int, alpha float32, x, y []float32) {
	for r := range rows {
		axpyAVX2Tail(alpha*x[r], y, a[r*cols:(r+1)*cols])
	}
}

func rank2AVX2(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32) {
	for r := range rows {
		row := a[r*cols : (r+1)*cols]
		axpyAVX2Tail(alpha*x1[r], y1, row)
		axpyAVX2Tail(alpha*x2[r], y2, row)
	}
}

func pairAxpyAVX2(alpha float32, a, b, acc []float32) {
	axpyAVX2Tail(alpha, b, acc)
	axpyAVX2Tail(alpha, a, b)
}
