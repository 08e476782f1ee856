// Package simd provides the float32 vector and small-matrix kernels that the
// Attentive Mimicking model runs on: dot products, scaled sums, gathered row
// sums, matrix–vector products, Gram matrices, rank-1 and rank-2 updates, and
// the fused update of skip-gram training (PairAxpy).
//
// The kernels are chosen once at program start from the CPU features
// reported by golang.org/x/sys/cpu: hand-written AVX-512 assembly where the
// CPU has AVX-512F, hand-written AVX2+FMA assembly where it has AVX2 and FMA,
// NEON assembly on arm64, unrolled pure Go otherwise. A fixed table keyed by
// CPU vendor, family, model and AMX (overrides, from the benchmarks of this
// package run on those CPUs) names the kernels that run faster from a
// narrower set on a given design, such as the AVX2 Dot, Axpy, WeightedSum,
// MatVec and MatTVec on AMD Zen 4, the AVX2 MatVec on AMD Zen 5, the AVX2
// WeightedSum and MatTVec on a server Xeon with AMX seen as family 6 model
// 167, and those two with Rank1 on Intel family 6 model 207; the choice is
// deterministic, never timed at start-up. Building with the purego tag
// forces the pure-Go kernels on every architecture; the environment
// variable T2V_SIMD (avx512, avx2, neon or go), read once at start, forces
// one set for every kernel. Sets and SetsString report the choice.
// Whichever set runs, results agree within each kernel's rounding (the sets
// sum in different orders).
//
// All slices are plain row-major float32 data with explicit dimensions, as in
// gonum. Mismatched lengths are programming errors and panic with a message
// naming the function and the lengths involved. No kernel allocates.
package simd

import (
	"fmt"
	"unsafe"
)

// checkLen panics when two lengths that must agree do not.
func checkLen(fn, what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("simd.%s: %s has length %d, want %d", fn, what, got, want))
	}
}

// lenError is the panic value of a length mismatch in the smallest
// kernels. Panicking with a small value rather than calling a formatting
// function keeps them within the compiler's inlining budget, so that a call
// to Axpy or Add costs one call of the chosen kernel.
type lenError struct {
	arg       lenArg
	got, want int
}

// lenArg names a function and its argument whose length is wrong.
type lenArg uint8

const (
	axpyY lenArg = iota
	addX
)

var lenArgNames = [...][2]string{
	axpyY: {"Axpy", "y"},
	addX:  {"Add", "x"},
}

func (e lenError) Error() string {
	n := lenArgNames[e.arg]
	return fmt.Sprintf("simd.%s: %s has length %d, want %d", n[0], n[1], e.got, e.want)
}

// dotLenError is the panic value of Dot's length mismatch: len(a), len(b).
// An array rather than a lenError keeps Dot, which passes three arguments
// to its kernel, within the inlining budget.
type dotLenError [2]int

func (e dotLenError) Error() string {
	return fmt.Sprintf("simd.Dot: b has length %d, want %d", e[1], e[0])
}

// pairLenError is the panic value of PairAxpy's length mismatches.
type pairLenError struct{ a, b, acc int }

func (e pairLenError) Error() string {
	if e.b != e.a {
		return fmt.Sprintf("simd.PairAxpy: b has length %d, want %d", e.b, e.a)
	}
	return fmt.Sprintf("simd.PairAxpy: acc has length %d, want %d", e.acc, e.a)
}

// checkDims panics when a matrix dimension is negative.
func checkDims(fn string, rows, cols int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("simd.%s: negative dimension %d×%d", fn, rows, cols))
	}
}

// Dot returns Σ a[i]·b[i]. It panics if len(a) != len(b).
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(dotLenError{len(a), len(b)})
	}
	return dotEntry(unsafe.SliceData(a), unsafe.SliceData(b), len(a))
}

// Axpy computes y += alpha·x. It panics if len(x) != len(y).
func Axpy(alpha float32, x, y []float32) {
	if len(x) != len(y) {
		panic(lenError{axpyY, len(y), len(x)})
	}
	axpyEntry(alpha, x, y)
}

// Scale computes x *= alpha in place.
func Scale(alpha float32, x []float32) {
	impl.scale(alpha, x)
}

// Add computes dst += x. It panics if len(dst) != len(x).
func Add(dst, x []float32) {
	if len(dst) != len(x) {
		panic(lenError{addX, len(x), len(dst)})
	}
	impl.add(dst, x)
}

// WeightedSum overwrites dst with Σ_i w[i]·x[i·d:(i+1)·d], where d = len(dst)
// and m = len(w) rows of x are used. It panics if len(x) != m·d. With m = 0
// dst is set to zero. dst must not overlap w or x.
func WeightedSum(dst, w, x []float32) {
	checkLen("WeightedSum", "x", len(x), len(w)*len(dst))
	impl.weightedSum(dst, w, x)
}

// GatherSum overwrites dst with Σ_k table[ids[k]·d:(ids[k]+1)·d], where
// d = len(dst): the sum of the table rows named by ids (the same id may occur
// several times). It panics if len(table) is not a multiple of d or an id is
// out of range. With no ids dst is set to zero. dst must not overlap table.
func GatherSum(dst, table []float32, ids []int32) {
	if len(dst) == 0 {
		return
	}
	checkIDs("GatherSum", len(dst), table, ids)
	impl.gatherSum(dst, table, ids)
}

// GatherAxpy adds to dst the weighted sum Σ_k w[k]·table[ids[k]·d:(ids[k]+1)·d],
// where d = len(dst): the rows named by ids, each scaled by its weight, in
// one pass over dst (the same id may occur several times). It is the
// weighted bag-of-words sum of the vectorizer. It panics if len(w) !=
// len(ids), len(table) is not a multiple of d or an id is out of range.
// dst must not overlap table or w.
func GatherAxpy(dst, table []float32, ids []int32, w []float32) {
	checkLen("GatherAxpy", "w", len(w), len(ids))
	if len(dst) == 0 {
		return
	}
	checkIDs("GatherAxpy", len(dst), table, ids)
	impl.gatherAxpy(dst, table, ids, w)
}

// checkIDs panics unless table holds whole rows of d values and every id
// names one of them.
func checkIDs(fn string, d int, table []float32, ids []int32) {
	if len(table)%d != 0 {
		panic(fmt.Sprintf("simd.%s: table length %d is not a multiple of d = %d", fn, len(table), d))
	}
	n := len(table) / d
	for _, id := range ids {
		if id < 0 || int(id) >= n {
			panic(fmt.Sprintf("simd.%s: id %d out of range [0, %d)", fn, id, n))
		}
	}
}

// MatVec overwrites dst with A·x, where A is the row-major rows×cols matrix a.
// It panics unless len(a) = rows·cols, len(x) = cols and len(dst) = rows.
// dst must not overlap a or x.
func MatVec(dst, a []float32, rows, cols int, x []float32) {
	checkDims("MatVec", rows, cols)
	checkLen("MatVec", "a", len(a), rows*cols)
	checkLen("MatVec", "x", len(x), cols)
	checkLen("MatVec", "dst", len(dst), rows)
	impl.matVec(dst, a, rows, cols, x)
}

// MatTVec overwrites dst with Aᵀ·x, where A is the row-major rows×cols matrix
// a. It panics unless len(a) = rows·cols, len(x) = rows and len(dst) = cols.
// dst must not overlap a or x.
func MatTVec(dst, a []float32, rows, cols int, x []float32) {
	checkDims("MatTVec", rows, cols)
	checkLen("MatTVec", "a", len(a), rows*cols)
	checkLen("MatTVec", "x", len(x), rows)
	checkLen("MatTVec", "dst", len(dst), cols)
	impl.matTVec(dst, a, rows, cols, x)
}

// Rank1 computes A += alpha·x·yᵀ for the row-major rows×cols matrix a.
// It panics unless len(a) = rows·cols, len(x) = rows and len(y) = cols.
func Rank1(a []float32, rows, cols int, alpha float32, x, y []float32) {
	checkDims("Rank1", rows, cols)
	checkLen("Rank1", "a", len(a), rows*cols)
	checkLen("Rank1", "x", len(x), rows)
	checkLen("Rank1", "y", len(y), cols)
	impl.rank1(a, rows, cols, alpha, x, y)
}

// Rank2 computes A += alpha·(x1·y1ᵀ + x2·y2ᵀ) for the row-major rows×cols
// matrix a: two rank-1 updates in one pass over A, which then crosses the
// memory hierarchy once instead of twice. It panics unless len(a) = rows·cols,
// len(x1) = len(x2) = rows and len(y1) = len(y2) = cols.
func Rank2(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32) {
	checkDims("Rank2", rows, cols)
	checkLen("Rank2", "a", len(a), rows*cols)
	checkLen("Rank2", "x1", len(x1), rows)
	checkLen("Rank2", "y1", len(y1), cols)
	checkLen("Rank2", "x2", len(x2), rows)
	checkLen("Rank2", "y2", len(y2), cols)
	impl.rank2(a, rows, cols, alpha, x1, y1, x2, y2)
}

// PairAxpy computes acc += alpha·b and then b += alpha·a, reading each
// element of b once (the acc update uses b before its own update). It is the
// update of skip-gram with negative sampling, where a is the input vector,
// b the output vector and acc the input's gradient, fused into one pass.
// It panics unless len(a) = len(b) = len(acc). acc must not overlap a or b.
func PairAxpy(alpha float32, a, b, acc []float32) {
	if len(b) != len(a) || len(acc) != len(a) {
		panic(pairLenError{len(a), len(b), len(acc)})
	}
	impl.pairAxpy(alpha, a, b, acc)
}
