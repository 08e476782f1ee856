package simd

import "unsafe"

// dotGo is Dot in pure Go (dotGoPtr).
func dotGo(a, b []float32) float32 {
	return dotGoPtr(unsafe.SliceData(a), unsafe.SliceData(b), len(a))
}

// dotGoPtr is Σ_{i<n} a[i]·b[i] in unrolled pure Go with four independent
// accumulators: the go set's dot, which takes pointers like the assembly
// kernels.
func dotGoPtr(a, b *float32, n int) float32 {
	x, y := unsafe.Slice(a, n), unsafe.Slice(b, n)
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		xx, yy := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += xx[0] * yy[0]
		s1 += xx[1] * yy[1]
		s2 += xx[2] * yy[2]
		s3 += xx[3] * yy[3]
	}
	for ; i < n; i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyGo is Axpy in unrolled pure Go.
func axpyGo(alpha float32, x, y []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xx, yy := x[i:i+4:i+4], y[i:i+4:i+4]
		yy[0] += alpha * xx[0]
		yy[1] += alpha * xx[1]
		yy[2] += alpha * xx[2]
		yy[3] += alpha * xx[3]
	}
	for ; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

// scaleGo is Scale in unrolled pure Go.
func scaleGo(alpha float32, x []float32) {
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xx := x[i : i+4 : i+4]
		xx[0] *= alpha
		xx[1] *= alpha
		xx[2] *= alpha
		xx[3] *= alpha
	}
	for ; i < len(x); i++ {
		x[i] *= alpha
	}
}

// addGo is Add in unrolled pure Go.
func addGo(dst, x []float32) {
	x = x[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dd, xx := dst[i:i+4:i+4], x[i:i+4:i+4]
		dd[0] += xx[0]
		dd[1] += xx[1]
		dd[2] += xx[2]
		dd[3] += xx[3]
	}
	for ; i < len(dst); i++ {
		dst[i] += x[i]
	}
}

// zero sets every element of x to 0.
func zero(x []float32) {
	clear(x)
}

// weightedSumGo is WeightedSum in pure Go: row by row Axpy into dst.
func weightedSumGo(dst, w, x []float32) {
	d := len(dst)
	zero(dst)
	for i, wi := range w {
		axpyGo(wi, x[i*d:(i+1)*d], dst)
	}
}

// gatherSumGo is GatherSum in pure Go.
func gatherSumGo(dst, table []float32, ids []int32) {
	d := len(dst)
	zero(dst)
	for _, id := range ids {
		o := int(id) * d
		addGo(dst, table[o:o+d])
	}
}

// matVecGo is MatVec in pure Go: one dot product per row.
func matVecGo(dst, a []float32, rows, cols int, x []float32) {
	for r := range rows {
		dst[r] = dotGo(a[r*cols:(r+1)*cols], x)
	}
}

// matTVecGo is MatTVec in pure Go: one Axpy per row of A.
func matTVecGo(dst, a []float32, rows, cols int, x []float32) {
	zero(dst)
	for r := range rows {
		axpyGo(x[r], a[r*cols:(r+1)*cols], dst)
	}
}

// gramGo is Gram in pure Go: dot products of the lower triangle, mirrored.
func gramGo(dst, x []float32, m, d int) {
	for i := range m {
		xi := x[i*d : (i+1)*d]
		for j := 0; j <= i; j++ {
			dst[i*m+j] = dotGo(xi, x[j*d:(j+1)*d])
		}
	}
	mirrorLower(dst, m)
}

// rank1Go is Rank1 in pure Go: one Axpy per row of A.
func rank1Go(a []float32, rows, cols int, alpha float32, x, y []float32) {
	for r := range rows {
		axpyGo(alpha*x[r], y, a[r*cols:(r+1)*cols])
	}
}

// rank2Go is Rank2 in pure Go: two Axpys per row of A while the row is in cache.
func rank2Go(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32) {
	for r := range rows {
		row := a[r*cols : (r+1)*cols]
		axpyGo(alpha*x1[r], y1, row)
		axpyGo(alpha*x2[r], y2, row)
	}
}

// pairAxpyGo is PairAxpy in unrolled pure Go.
func pairAxpyGo(alpha float32, a, b, acc []float32) {
	b, acc = b[:len(a)], acc[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, bb, cc := a[i:i+4:i+4], b[i:i+4:i+4], acc[i:i+4:i+4]
		b0, b1, b2, b3 := bb[0], bb[1], bb[2], bb[3]
		cc[0] += alpha * b0
		cc[1] += alpha * b1
		cc[2] += alpha * b2
		cc[3] += alpha * b3
		bb[0] = b0 + alpha*aa[0]
		bb[1] = b1 + alpha*aa[1]
		bb[2] = b2 + alpha*aa[2]
		bb[3] = b3 + alpha*aa[3]
	}
	for ; i < len(a); i++ {
		bi := b[i]
		acc[i] += alpha * bi
		b[i] = bi + alpha*a[i]
	}
}

// mirrorLower copies the strict lower triangle of the m×m matrix g into its
// upper triangle.
func mirrorLower(g []float32, m int) {
	for i := range m {
		for j := range i {
			g[j*m+i] = g[i*m+j]
		}
	}
}

// gatherAxpyGo is GatherAxpy in pure Go: one Axpy per row.
func gatherAxpyGo(dst, table []float32, ids []int32, w []float32) {
	d := len(dst)
	for k, id := range ids {
		o := int(id) * d
		axpyGo(w[k], table[o:o+d], dst)
	}
}
