//go:build linux

package simd

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guarded returns n float32 values (random) that end exactly where an
// inaccessible page begins, so a kernel that reads or writes one element
// past the end crashes the test instead of passing silently.
func guarded(t *testing.T, r *rand.Rand, n int) []float32 {
	t.Helper()
	page := unix.Getpagesize()
	size := (n*4+page-1)/page*page + page
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatalf("mmap %d bytes: %v", size, err)
	}
	t.Cleanup(func() { _ = unix.Munmap(mem) })
	if err := unix.Mprotect(mem[size-page:], unix.PROT_NONE); err != nil {
		t.Fatalf("mprotect guard page: %v", err)
	}
	end := size - page
	v := unsafe.Slice((*float32)(unsafe.Pointer(&mem[end-n*4])), n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestGuardPages runs every kernel of every kernel set on inputs that end at
// a guard page, at every test length, and compares with the pure-Go kernels.
func TestGuardPages(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	forEachImpl(t, func(t *testing.T, k kernels) {
		for _, n := range testLengths {
			a, b := guarded(t, r, n), guarded(t, r, n)
			want, mag := refDot(a, b)
			if got := dotOf(k, a, b); !closeTo(got, want, mag) {
				t.Errorf("dot n=%d: %g, want %g", n, got, want)
			}
			c := guarded(t, r, n)
			k.pairAxpy(0.5, a, b, c)
			k.axpy(0.5, a, b)
			k.scale(0.5, b)
			k.add(b, a)

			for _, m := range []int{4, 5} { // even and odd row counts
				guardMatrixKernels(t, r, k, m, n, a)
			}
		}
	})
}

// TestDotGuardAllLengths runs Dot of every kernel set at every length up to
// 300 on vectors that end at a guard page, so that no tail step reads past
// the end of a slice.
func TestDotGuardAllLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	ga, gb := guarded(t, r, 300), guarded(t, r, 300)
	forEachImpl(t, func(t *testing.T, k kernels) {
		for n := 0; n <= 300; n++ {
			a, b := ga[300-n:], gb[300-n:]
			want, mag := refDot(a, b)
			if got := dotOf(k, a, b); !closeTo(got, want, mag) {
				t.Errorf("n=%d: dot = %g, want %g", n, got, want)
			}
		}
	})
}

// guardMatrixKernels runs the matrix kernels of k on an m×n matrix and
// vectors that all end at guard pages.
func guardMatrixKernels(t *testing.T, r *rand.Rand, k kernels, m, n int, a []float32) {
	t.Helper()
	x, w := guarded(t, r, m*n), guarded(t, r, m)
	dst, ref := guarded(t, r, n), make([]float32, n)
	k.weightedSum(dst, w, x)
	goKernels.weightedSum(ref, w, x)
	checkNear(t, "weightedSum", n, dst, ref)

	ids := []int32{int32(m - 1), 0, int32(m - 1)}
	k.gatherSum(dst, x, ids)
	goKernels.gatherSum(ref, x, ids)
	checkNear(t, "gatherSum", n, dst, ref)

	k.gatherAxpy(dst, x, ids, w[:len(ids)])
	goKernels.gatherAxpy(ref, x, ids, w[:len(ids)])
	checkNear(t, "gatherAxpy", n, dst, ref)

	k.matTVec(dst, x, m, n, w)
	goKernels.matTVec(ref, x, m, n, w)
	checkNear(t, "matTVec", n, dst, ref)

	mv, mvRef := guarded(t, r, m), make([]float32, m)
	k.matVec(mv, x, m, n, a)
	goKernels.matVec(mvRef, x, m, n, a)
	checkNear(t, "matVec", n, mv, mvRef)

	g, gRef := guarded(t, r, m*m), make([]float32, m*m)
	k.gram(g, x, m, n)
	goKernels.gram(gRef, x, m, n)
	checkNear(t, "gram", n, g, gRef)

	xRef := append([]float32(nil), x...)
	k.rank1(x, m, n, 0.25, w, a)
	goKernels.rank1(xRef, m, n, 0.25, w, a)
	checkNear(t, "rank1", n, x, xRef)

	k.rank2(x, m, n, 0.25, w, a, w, a)
	goKernels.rank2(xRef, m, n, 0.25, w, a, w, a)
	checkNear(t, "rank2", n, x, xRef)
}

// checkNear compares a kernel's output with the pure-Go kernel's.
func checkNear(t *testing.T, what string, n int, got, want []float32) {
	t.Helper()
	for i := range got {
		if d, tol := math.Abs(float64(got[i]-want[i])), 1e-4*(math.Abs(float64(want[i]))+1); d > tol {
			t.Errorf("%s n=%d: [%d] = %g, pure Go gives %g", what, n, i, got[i], want[i])
			return
		}
	}
}
