//go:build amd64 && !purego

package simd

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestGathersAgreeAcrossSets checks that the AVX2 and AVX-512 gather kernels
// give the same bits at every d up to 320: each adds the rows in the same
// order, column by column, so the AVX-512 set may hand half-line rows
// (halfLineRows) to the AVX2 kernels without changing any vector.
func TestGathersAgreeAcrossSets(t *testing.T) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("needs AVX-512F, AVX2 and FMA")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for d := 1; d <= 320; d++ {
		const rows, n = 50, 37
		table, w := randVec(r, rows*d), randVec(r, n)
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32(r.IntN(rows))
		}
		a := randVec(r, d)
		b := append([]float32(nil), a...)
		gatherAxpyAVX2(a, table, ids, w)
		gatherAxpyAVX512(b, table, ids, w)
		assertSameBits(t, "GatherAxpy", d, a, b)
		gatherSumAVX2(a, table, ids)
		gatherSumAVX512(b, table, ids)
		assertSameBits(t, "GatherSum", d, a, b)
	}
}

func assertSameBits(t *testing.T, fn string, d int, a, b []float32) {
	t.Helper()
	for k := range a {
		if a[k] != b[k] {
			t.Fatalf("%s, d = %d: element %d is %v with AVX2 and %v with AVX-512", fn, d, k, a[k], b[k])
		}
	}
}
