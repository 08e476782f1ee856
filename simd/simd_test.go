package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// testLengths are the vector lengths every kernel is checked at: around the
// 4-, 16- and 32-wide block boundaries and at the model's dimensions.
var testLengths = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 63, 64, 65, 100, 255, 300, 400, 1000}

// matDims are the row counts used for the matrix kernels (m ≤ 64 matters most).
var matDims = []int{0, 1, 2, 3, 7, 16, 17, 33, 64, 65}

// relTol is the allowed error relative to Σ|terms|: float32 rounding over up
// to 1000 terms stays far below it, a wrong index or a dropped term does not.
const relTol = 1e-5

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// closeTo reports whether got is within relTol·mag (plus a tiny absolute
// slack for an exact zero) of the float64 reference want.
func closeTo(got float32, want, mag float64) bool {
	return math.Abs(float64(got)-want) <= relTol*mag+1e-30
}

// forEachImpl runs f as a subtest for every kernel set usable on this CPU
// and every mix of them that an override composes (testSets).
func forEachImpl(t *testing.T, f func(t *testing.T, k kernels)) {
	t.Helper()
	for _, k := range testSets() {
		t.Run(k.label, func(t *testing.T) { f(t, k.kernels) })
	}
}

// dotOf calls k's Dot kernel on a and b (of equal length).
func dotOf(k kernels, a, b []float32) float32 {
	return k.dot(unsafe.SliceData(a), unsafe.SliceData(b), len(a))
}

// refDot is Σ a[i]·b[i] and Σ|a[i]·b[i]| in float64.
func refDot(a, b []float32) (sum, mag float64) {
	for i := range a {
		p := float64(a[i]) * float64(b[i])
		sum += p
		mag += math.Abs(p)
	}
	return sum, mag
}

// TestImplementationsListed checks that the kernels this CPU runs, set by
// set, are among those the tests run.
func TestImplementationsListed(t *testing.T) {
	var names []string
	found := false
	for _, k := range testSets() {
		names = append(names, k.label)
		found = found || k.sets == implSets
	}
	if !found {
		t.Fatalf("the dispatched kernels %s are not among the tested ones %v", SetsString(), names)
	}
	t.Logf("dispatched: %s, tested: %s", SetsString(), strings.Join(names, ", "))
}

func TestDot(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range testLengths {
			a, b := randVec(r, n), randVec(r, n)
			want, mag := refDot(a, b)
			if got := dotOf(k, a, b); !closeTo(got, want, mag) {
				t.Errorf("n=%d: dot = %g, want %g", n, got, want)
			}
			// Sub-slices at an odd offset exercise unaligned loads.
			if n > 1 {
				want, mag = refDot(a[1:], b[:n-1])
				if got := dotOf(k, a[1:], b[:n-1]); !closeTo(got, want, mag) {
					t.Errorf("n=%d offset 1: dot = %g, want %g", n-1, got, want)
				}
			}
		}
	})
}

// checkVec compares got with the float64 reference want, element by element,
// with per-element magnitudes mag.
// TestDotLengthsOffsets checks Dot of every kernel set at every length up
// to 300 with both vectors starting at each of the 8 float offsets of a
// 32-byte block, so that every tail path (8-lane steps, the 4-lane step,
// one to three scalar steps, the masked lanes) meets every alignment.
func TestDotLengthsOffsets(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(41, 42))
		a, b := randVec(r, 300+8), randVec(r, 300+8)
		for n := 0; n <= 300; n++ {
			for off := range 8 {
				x, y := a[off:off+n], b[8-off:8-off+n]
				want, mag := refDot(x, y)
				if got := dotOf(k, x, y); !closeTo(got, want, mag) {
					t.Fatalf("n=%d offset %d: dot = %g, want %g", n, off, got, want)
				}
			}
		}
	})
}

func checkVec(t *testing.T, what string, got []float32, want, mag []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if !closeTo(got[i], want[i], mag[i]) {
			if bad < 3 {
				t.Errorf("%s: [%d] = %g, want %g", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d wrong elements in all", what, bad)
	}
}

func TestAxpyScaleAdd(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, n := range testLengths {
			x, y := randVec(r, n), randVec(r, n)
			alpha := float32(r.NormFloat64())
			want, mag := make([]float64, n), make([]float64, n)
			for i := range want {
				want[i] = float64(y[i]) + float64(alpha)*float64(x[i])
				mag[i] = math.Abs(float64(y[i])) + math.Abs(float64(alpha)*float64(x[i]))
			}
			got := append([]float32(nil), y...)
			k.axpy(alpha, x, got)
			checkVec(t, fmt.Sprintf("axpy n=%d", n), got, want, mag)

			for i := range want {
				want[i] = float64(alpha) * float64(x[i])
				mag[i] = math.Abs(want[i])
			}
			got = append(got[:0], x...)
			k.scale(alpha, got)
			checkVec(t, fmt.Sprintf("scale n=%d", n), got, want, mag)

			for i := range want {
				want[i] = float64(y[i]) + float64(x[i])
				mag[i] = math.Abs(float64(y[i])) + math.Abs(float64(x[i]))
			}
			got = append(got[:0], y...)
			k.add(got, x)
			checkVec(t, fmt.Sprintf("add n=%d", n), got, want, mag)
		}
	})
}

func TestWeightedSum(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, m := range matDims {
			for _, d := range testLengths {
				w, x := randVec(r, m), randVec(r, m*d)
				want, mag := make([]float64, d), make([]float64, d)
				for i := range m {
					for j := range d {
						p := float64(w[i]) * float64(x[i*d+j])
						want[j] += p
						mag[j] += math.Abs(p)
					}
				}
				got := randVec(r, d) // garbage that must be overwritten
				k.weightedSum(got, w, x)
				checkVec(t, fmt.Sprintf("m=%d d=%d", m, d), got, want, mag)
			}
		}
	})
}

func TestGatherSum(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(7, 8))
		const nrows = 97
		for _, nids := range []int{0, 1, 2, 3, 5, 8, 50, 64} {
			for _, d := range testLengths {
				table := randVec(r, nrows*d)
				ids := make([]int32, nids)
				for i := range ids {
					ids[i] = int32(r.IntN(nrows))
				}
				if nids > 2 {
					ids[1] = ids[0] // repeats are allowed
				}
				want, mag := make([]float64, d), make([]float64, d)
				for _, id := range ids {
					for j := range d {
						v := float64(table[int(id)*d+j])
						want[j] += v
						mag[j] += math.Abs(v)
					}
				}
				got := randVec(r, d)
				k.gatherSum(got, table, ids)
				checkVec(t, fmt.Sprintf("ids=%d d=%d", nids, d), got, want, mag)
			}
		}
	})
}

func TestGatherAxpy(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(25, 26))
		const nrows = 97
		for _, nids := range []int{0, 1, 2, 3, 5, 8, 50, 64} {
			for _, d := range testLengths {
				table := randVec(r, nrows*d)
				ids, w := make([]int32, nids), randVec(r, nids)
				for i := range ids {
					ids[i] = int32(r.IntN(nrows))
				}
				if nids > 2 {
					ids[1] = ids[0] // repeats are allowed
				}
				got := randVec(r, d) // the sum is added to it
				want, mag := make([]float64, d), make([]float64, d)
				for j := range d {
					want[j], mag[j] = float64(got[j]), math.Abs(float64(got[j]))
				}
				for i, id := range ids {
					for j := range d {
						p := float64(w[i]) * float64(table[int(id)*d+j])
						want[j] += p
						mag[j] += math.Abs(p)
					}
				}
				k.gatherAxpy(got, table, ids, w)
				checkVec(t, fmt.Sprintf("ids=%d d=%d", nids, d), got, want, mag)
			}
		}
	})
}

func TestMatVecAndTranspose(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, rows := range matDims {
			for _, cols := range testLengths {
				a := randVec(r, rows*cols)
				x := randVec(r, cols)
				want, mag := make([]float64, rows), make([]float64, rows)
				for i := range rows {
					want[i], mag[i] = refDot(a[i*cols:(i+1)*cols], x)
				}
				got := randVec(r, rows)
				k.matVec(got, a, rows, cols, x)
				checkVec(t, fmt.Sprintf("matVec %d×%d", rows, cols), got, want, mag)

				xt := randVec(r, rows)
				want, mag = make([]float64, cols), make([]float64, cols)
				for i := range rows {
					for j := range cols {
						p := float64(a[i*cols+j]) * float64(xt[i])
						want[j] += p
						mag[j] += math.Abs(p)
					}
				}
				got = randVec(r, cols)
				k.matTVec(got, a, rows, cols, xt)
				checkVec(t, fmt.Sprintf("matTVec %d×%d", rows, cols), got, want, mag)
			}
		}
	})
}

func TestGram(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, m := range matDims {
			for _, d := range testLengths {
				x := randVec(r, m*d)
				want, mag := make([]float64, m*m), make([]float64, m*m)
				for i := range m {
					for j := range m {
						want[i*m+j], mag[i*m+j] = refDot(x[i*d:(i+1)*d], x[j*d:(j+1)*d])
					}
				}
				got := randVec(r, m*m)
				k.gram(got, x, m, d)
				checkVec(t, fmt.Sprintf("gram %d×%d", m, d), got, want, mag)
			}
		}
	})
}

func TestRank1(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, rows := range matDims {
			for _, cols := range testLengths {
				a := randVec(r, rows*cols)
				x, y := randVec(r, rows), randVec(r, cols)
				alpha := float32(r.NormFloat64())
				want, mag := make([]float64, rows*cols), make([]float64, rows*cols)
				for i := range rows {
					for j := range cols {
						p := float64(alpha) * float64(x[i]) * float64(y[j])
						want[i*cols+j] = float64(a[i*cols+j]) + p
						mag[i*cols+j] = math.Abs(float64(a[i*cols+j])) + math.Abs(p)
					}
				}
				k.rank1(a, rows, cols, alpha, x, y)
				checkVec(t, fmt.Sprintf("rank1 %d×%d", rows, cols), a, want, mag)
			}
		}
	})
}

// TestExported checks that the exported functions reach the dispatched
// kernels with the right arguments.
func TestExported(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const d = 300
	a, b := randVec(r, d), randVec(r, d)
	want, mag := refDot(a, b)
	if got := Dot(a, b); !closeTo(got, want, mag) {
		t.Errorf("Dot = %g, want %g", got, want)
	}
	y := append([]float32(nil), b...)
	Axpy(2, a, y)
	Scale(0.5, y)
	Add(y, a) // y = b/2 + 2a
	for i := range y {
		if w := b[i]/2 + 2*a[i]; math.Abs(float64(y[i]-w)) > 1e-5*(math.Abs(float64(w))+1) {
			t.Fatalf("Axpy/Scale/Add [%d] = %g, want %g", i, y[i], w)
		}
	}
	x := randVec(r, 3*d)
	ws := make([]float32, d)
	WeightedSum(ws, []float32{1, 0, 2}, x)
	gs := make([]float32, d)
	GatherSum(gs, x, []int32{0, 2, 2})
	for i := range ws {
		if math.Abs(float64(ws[i]-gs[i])) > 1e-5*(math.Abs(float64(ws[i]))+1) {
			t.Fatalf("WeightedSum and GatherSum disagree at %d: %g vs %g", i, ws[i], gs[i])
		}
	}
	g := make([]float32, 9)
	Gram(g, x, 3, d)
	mv := make([]float32, 3)
	MatVec(mv, x, 3, d, x[:d])
	for i := range 3 {
		if g[i*3] != g[i] || math.Abs(float64(mv[i]-g[i])) > 1e-4*math.Abs(float64(g[0])) {
			t.Fatalf("Gram column 0 %v and MatVec %v disagree", g, mv)
		}
	}
	mt := make([]float32, d)
	MatTVec(mt, x, 3, d, []float32{1, 0, 2})
	for i := range mt {
		if math.Abs(float64(mt[i]-ws[i])) > 1e-5*(math.Abs(float64(ws[i]))+1) {
			t.Fatalf("MatTVec and WeightedSum disagree at %d: %g vs %g", i, mt[i], ws[i])
		}
	}
	m := make([]float32, 2*3)
	Rank1(m, 2, 3, 2, []float32{1, 2}, []float32{1, 2, 3})
	for i, w := range []float32{2, 4, 6, 4, 8, 12} {
		if m[i] != w {
			t.Fatalf("Rank1 = %v, want [2 4 6 4 8 12]", m)
		}
	}
}

// mustPanic checks that f panics with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want one containing %q", want)
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
			t.Fatalf("panic %q, want one containing %q", msg, want)
		}
	}()
	f()
}

func TestShapePanics(t *testing.T) {
	v2, v3, v6 := make([]float32, 2), make([]float32, 3), make([]float32, 6)
	mustPanic(t, "simd.Dot: b has length 3, want 2", func() { Dot(v2, v3) })
	mustPanic(t, "simd.Axpy: y has length 3, want 2", func() { Axpy(1, v2, v3) })
	mustPanic(t, "simd.Add: x has length 3, want 2", func() { Add(v2, v3) })
	mustPanic(t, "simd.WeightedSum: x has length 3, want 4", func() { WeightedSum(v2, v2, v3) })
	mustPanic(t, "simd.GatherSum: table length 3 is not a multiple of d = 2", func() { GatherSum(v2, v3, nil) })
	mustPanic(t, "simd.GatherSum: id 3 out of range [0, 3)", func() { GatherSum(v2, v6, []int32{0, 3}) })
	mustPanic(t, "simd.GatherSum: id -1 out of range", func() { GatherSum(v2, v6, []int32{-1}) })
	mustPanic(t, "simd.GatherAxpy: w has length 1, want 2", func() { GatherAxpy(v2, v6, []int32{0, 1}, v2[:1]) })
	mustPanic(t, "simd.GatherAxpy: id 3 out of range [0, 3)", func() { GatherAxpy(v2, v6, []int32{3}, v2[:1]) })
	mustPanic(t, "simd.MatVec: a has length 6, want 4", func() { MatVec(v2, v6, 2, 2, v2) })
	mustPanic(t, "simd.MatVec: x has length 2, want 3", func() { MatVec(v2, v6, 2, 3, v2) })
	mustPanic(t, "simd.MatVec: dst has length 3, want 2", func() { MatVec(v3, v6, 2, 3, v3) })
	mustPanic(t, "simd.MatVec: negative dimension", func() { MatVec(v2, v6, -2, -3, v3) })
	mustPanic(t, "simd.MatTVec: x has length 3, want 2", func() { MatTVec(v3, v6, 2, 3, v3) })
	mustPanic(t, "simd.MatTVec: dst has length 2, want 3", func() { MatTVec(v2, v6, 2, 3, v2) })
	mustPanic(t, "simd.Gram: x has length 6, want 4", func() { Gram(make([]float32, 4), v6, 2, 2) })
	mustPanic(t, "simd.Gram: dst has length 6, want 4", func() { Gram(v6, v6, 2, 3) })
	mustPanic(t, "simd.Rank1: x has length 3, want 2", func() { Rank1(v6, 2, 3, 1, v3, v3) })
	mustPanic(t, "simd.Rank1: y has length 2, want 3", func() { Rank1(v6, 2, 3, 1, v2, v2) })
	mustPanic(t, "simd.PairAxpy: b has length 3, want 2", func() { PairAxpy(1, v2, v3, v2) })
	mustPanic(t, "simd.PairAxpy: acc has length 3, want 2", func() { PairAxpy(1, v2, v2, v3) })
	mustPanic(t, "simd.Rank2: x2 has length 3, want 2", func() { Rank2(v6, 2, 3, 1, v2, v3, v3, v3) })
	mustPanic(t, "simd.Rank2: y1 has length 2, want 3", func() { Rank2(v6, 2, 3, 1, v2, v2, v2, v3) })
}

// bytesToFloats turns fuzz bytes into finite float32 values in [-8, 8).
func bytesToFloats(data []byte) []float32 {
	v := make([]float32, len(data)/2)
	for i := range v {
		v[i] = float32(int16(uint16(data[2*i])|uint16(data[2*i+1])<<8)) / 4096
	}
	return v
}

func FuzzDot(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint16(2))
	f.Add(make([]byte, 130), uint16(33))
	f.Fuzz(func(t *testing.T, data []byte, off uint16) {
		v := bytesToFloats(data)
		n := len(v) / 2
		a, b := v[:n], v[n:2*n]
		if o := int(off) % (n + 1); o > 0 { // unaligned sub-slices too
			a, b = a[o:], b[:n-o]
		}
		want, mag := refDot(a, b)
		for _, k := range allKernels() {
			if got := dotOf(k, a, b); !closeTo(got, want, mag) {
				t.Fatalf("%s: dot of %d = %g, want %g", k.name, len(a), got, want)
			}
		}
	})
}

func FuzzWeightedSum(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint8(2))
	f.Add(make([]byte, 200), uint8(33))
	f.Fuzz(func(t *testing.T, data []byte, dim uint8) {
		v := bytesToFloats(data)
		d := int(dim)
		if d == 0 || d > len(v) {
			return
		}
		m := len(v) / (d + 1)
		if m > 64 {
			m = 64
		}
		w, x := v[:m], v[m:m+m*d]
		want, mag := make([]float64, d), make([]float64, d)
		for i := range m {
			for j := range d {
				p := float64(w[i]) * float64(x[i*d+j])
				want[j] += p
				mag[j] += math.Abs(p)
			}
		}
		for _, k := range allKernels() {
			got := make([]float32, d)
			k.weightedSum(got, w, x)
			for j := range got {
				if !closeTo(got[j], want[j], mag[j]) {
					t.Fatalf("%s: m=%d d=%d [%d] = %g, want %g", k.name, m, d, j, got[j], want[j])
				}
			}
		}
	})
}

func TestNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	const m, d = 8, 300
	a, b, x, w := randVec(r, d), randVec(r, d), randVec(r, m*d), randVec(r, m)
	dst, mv, g := make([]float32, d), make([]float32, m), make([]float32, m*m)
	ids := []int32{1, 7, 7}
	allocs := testing.AllocsPerRun(20, func() {
		sink = Dot(a, b)
		Axpy(1e-3, a, b)
		Scale(1, b)
		Add(b, a)
		WeightedSum(dst, w, x)
		GatherSum(dst, x, ids)
		GatherAxpy(dst, x, ids, w[:len(ids)])
		MatVec(mv, x, m, d, a)
		MatTVec(dst, x, m, d, w)
		Gram(g, x, m, d)
		Rank1(x, m, d, 1e-3, w, a)
		Rank2(x, m, d, 1e-3, w, a, w, b)
		PairAxpy(1e-3, a, b, dst)
	})
	if allocs != 0 {
		t.Fatalf("kernels allocate %.1f times per round, want 0", allocs)
	}
}

func TestRank2(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, rows := range matDims {
			for _, cols := range testLengths {
				a := randVec(r, rows*cols)
				x1, y1, x2, y2 := randVec(r, rows), randVec(r, cols), randVec(r, rows), randVec(r, cols)
				alpha := float32(r.NormFloat64())
				want, mag := make([]float64, rows*cols), make([]float64, rows*cols)
				for i := range rows {
					for j := range cols {
						p1 := float64(alpha) * float64(x1[i]) * float64(y1[j])
						p2 := float64(alpha) * float64(x2[i]) * float64(y2[j])
						want[i*cols+j] = float64(a[i*cols+j]) + p1 + p2
						mag[i*cols+j] = math.Abs(float64(a[i*cols+j])) + math.Abs(p1) + math.Abs(p2)
					}
				}
				k.rank2(a, rows, cols, alpha, x1, y1, x2, y2)
				checkVec(t, fmt.Sprintf("rank2 %d×%d", rows, cols), a, want, mag)
			}
		}
	})
}

func TestPairAxpy(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(23, 24))
		for _, n := range testLengths {
			a, b, acc := randVec(r, n), randVec(r, n), randVec(r, n)
			alpha := float32(r.NormFloat64())
			wantB, magB := make([]float64, n), make([]float64, n)
			wantAcc, magAcc := make([]float64, n), make([]float64, n)
			for i := range n {
				pb := float64(alpha) * float64(b[i])
				wantAcc[i] = float64(acc[i]) + pb
				magAcc[i] = math.Abs(float64(acc[i])) + math.Abs(pb)
				pa := float64(alpha) * float64(a[i])
				wantB[i] = float64(b[i]) + pa
				magB[i] = math.Abs(float64(b[i])) + math.Abs(pa)
			}
			k.pairAxpy(alpha, a, b, acc)
			checkVec(t, fmt.Sprintf("pairAxpy acc n=%d", n), acc, wantAcc, magAcc)
			checkVec(t, fmt.Sprintf("pairAxpy b n=%d", n), b, wantB, magB)
		}
	})
}

// Gram overwrites dst (m×m, row-major) with X·Xᵀ, where X is the row-major
// m×d matrix x. Both triangles of dst are written. It panics unless
// len(x) = m·d and len(dst) = m·m. dst must not overlap x.
func Gram(dst, x []float32, m, d int) {
	checkDims("Gram", m, d)
	checkLen("Gram", "x", len(x), m*d)
	checkLen("Gram", "dst", len(dst), m*m)
	impl.gram(dst, x, m, d)
}

// TestAxpyOffsets runs Axpy and PairAxpy of every kernel set on sub-slices
// starting at each of the 16 float offsets of a 64-byte line (the AVX-512
// kernels peel a head to align their stores there), checking the result
// against the float64 reference and that nothing around the sub-slice is
// written.
func TestAxpyOffsets(t *testing.T) {
	forEachImpl(t, func(t *testing.T, k kernels) {
		r := rand.New(rand.NewPCG(31, 32))
		for _, n := range []int{0, 1, 5, 15, 16, 17, 31, 63, 64, 65, 100, 200, 300} {
			for off := range 16 {
				a, b, acc := randVec(r, n+32), randVec(r, n+32), randVec(r, n+32)
				a0, b0, acc0 := slices.Clone(a), slices.Clone(b), slices.Clone(acc)
				alpha := float32(r.NormFloat64())
				k.axpy(alpha, a[off:off+n], acc[off:off+n])
				k.pairAxpy(alpha, a[off:off+n], b[off:off+n], acc[off:off+n])
				for i := range acc {
					wantB, wantAcc := float64(b0[i]), float64(acc0[i])
					if i < off || i >= off+n {
						if acc[i] != acc0[i] || b[i] != b0[i] {
							t.Fatalf("n=%d offset %d: element %d outside the slices was written", n, off, i)
						}
						continue
					}
					wantAcc += float64(alpha) * float64(a0[i]) // axpy, then pairAxpy
					wantAcc = float64(float32(wantAcc)) + float64(alpha)*wantB
					wantB += float64(alpha) * float64(a0[i])
					if !closeTo(acc[i], wantAcc, 4*(math.Abs(wantAcc)+math.Abs(float64(alpha)*float64(a0[i]))+math.Abs(float64(alpha)*wantB))) ||
						!closeTo(b[i], wantB, 2*(math.Abs(wantB)+math.Abs(float64(alpha)*float64(a0[i])))) {
						t.Fatalf("n=%d offset %d, element %d: acc %g b %g, want %g %g", n, off, i, acc[i], b[i], wantAcc, wantB)
					}
				}
			}
		}
	})
}
