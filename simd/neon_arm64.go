//go:build arm64 && !purego

package simd

// Go declarations of the NEON kernels in neon_arm64.s and the Go code that
// tiles them. Kernels without their own assembly (Scale, Add, PairAxpy,
// Rank2) use the unrolled Go ones.

// dotNEON returns Σ_{i<n} a[i]·b[i].
//
//go:noescape
func dotNEON(a, b *float32, n int) float32

//go:noescape
func axpyNEON(alpha float32, x, y []float32)

// weightedSum16NEON sets dst[c] = Σ_{i<m} w[i]·x[i·d+c] for c < cols, a
// multiple of 16; m ≥ 1.
//
//go:noescape
func weightedSum16NEON(dst, w *float32, m int, x *float32, d, cols int)

// gatherSum16NEON sets dst[c] = Σ_{k<n} table[ids[k]·d+c] for c < cols, a
// multiple of 16; n ≥ 1.
//
//go:noescape
func gatherSum16NEON(dst, table *float32, ids *int32, n, d, cols int)

// dotRows4NEON sets dst[k] = Σ_{j<n} a[k·stride+j]·x[j] for k = 0..3, n a
// multiple of 4.
//
//go:noescape
func dotRows4NEON(a *float32, stride int, x *float32, n int, dst *float32)

// neonKernels is the arm64 Advanced SIMD kernel set.
var neonKernels = kernels{
	name:        "neon",
	id:          setNEON,
	dot:         dotNEON,
	axpy:        axpyNEON,
	scale:       scaleGo,
	add:         addGo,
	weightedSum: weightedSumNEON,
	gatherSum:   gatherSumNEON,
	gatherAxpy:  gatherAxpyNEON,
	matVec:      matVecNEON,
	matTVec:     matTVecNEON,
	gram:        gramNEON,
	rank1:       rank1NEON,
	rank2:       rank2Go,
	pairAxpy:    pairAxpyGo,
}

// weightedSumNEON runs the 16-column blocks in assembly and the last
// d mod 16 columns in Go.
func weightedSumNEON(dst, w, x []float32) {
	d, m := len(dst), len(w)
	c16 := d &^ 15
	if m == 0 {
		clear(dst)
		return
	}
	if c16 > 0 {
		weightedSum16NEON(&dst[0], &w[0], m, &x[0], d, c16)
	}
	for c := c16; c < d; c++ {
		var s float32
		for i, wi := range w {
			s += wi * x[i*d+c]
		}
		dst[c] = s
	}
}

// gatherSumNEON runs the 16-column blocks in assembly and the last d mod 16
// columns in Go.
func gatherSumNEON(dst, table []float32, ids []int32) {
	d := len(dst)
	c16 := d &^ 15
	if len(ids) == 0 {
		clear(dst)
		return
	}
	if c16 > 0 {
		gatherSum16NEON(&dst[0], &table[0], &ids[0], len(ids), d, c16)
	}
	for c := c16; c < d; c++ {
		var s float32
		for _, id := range ids {
			s += table[int(id)*d+c]
		}
		dst[c] = s
	}
}

// gatherAxpyNEON is one NEON Axpy per row.
func gatherAxpyNEON(dst, table []float32, ids []int32, w []float32) {
	d := len(dst)
	for k, id := range ids {
		o := int(id) * d
		axpyNEON(w[k], table[o:o+d], dst)
	}
}

// rows4NEON sets dst[k] = a[k·stride:k·stride+n]·x for k = 0..3, with
// n = len(x) ≥ 1: the multiple of 4 in assembly, the rest in Go.
func rows4NEON(dst []float32, a []float32, stride int, x []float32) {
	n := len(x)
	n4 := n &^ 3
	if n4 > 0 {
		dotRows4NEON(&a[0], stride, &x[0], n4, &dst[0])
	} else {
		clear(dst[:4])
	}
	for j := n4; j < n; j++ {
		for k := range 4 {
			dst[k] += a[k*stride+j] * x[j]
		}
	}
}

// matVecNEON computes four rows at a time.
func matVecNEON(dst, a []float32, rows, cols int, x []float32) {
	if cols == 0 {
		clear(dst)
		return
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		rows4NEON(dst[r:r+4], a[r*cols:], cols, x)
	}
	for ; r < rows; r++ {
		dst[r] = dotNEON(&a[r*cols], &x[0], cols)
	}
}

// matTVecNEON is Aᵀ·x = Σ_r x[r]·A[r,:], a weighted sum of the rows.
func matTVecNEON(dst, a []float32, rows, cols int, x []float32) {
	weightedSumNEON(dst, x, a)
}

// gramNEON fills each row of the lower triangle four entries at a time
// (the entries past the diagonal that this writes are overwritten by the
// mirror) and mirrors it.
func gramNEON(dst, x []float32, m, d int) {
	if d == 0 {
		clear(dst)
		return
	}
	for i := range m {
		xi := x[i*d : (i+1)*d]
		j := 0
		for ; j <= i && j+4 <= m; j += 4 {
			rows4NEON(dst[i*m+j:i*m+j+4], x[j*d:], d, xi)
		}
		for ; j <= i; j++ {
			dst[i*m+j] = dotNEON(&xi[0], &x[j*d], d)
		}
	}
	mirrorLower(dst, m)
}

// rank1NEON is one NEON Axpy per row of A.
func rank1NEON(a []float32, rows, cols int, alpha float32, x, y []float32) {
	for r := range rows {
		axpyNEON(alpha*x[r], y, a[r*cols:(r+1)*cols])
	}
}
