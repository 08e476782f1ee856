package simd

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/viterin/vek/vek32"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Benchmarks: every kernel side by side in one run against a plain Go loop,
// vek32 and gonum's blas32 (anchors measured in the same run), then ours
// through the exported function ("ours") and each kernel set directly
// ("ours-go", "ours-avx2", "ours-avx512", "ours-neon": through the set's
// function table, as the exported functions other than Dot call it).
// BenchmarkDot also calls the assembly kernels directly ("direct-…"), to
// measure what Dot's dispatch costs. Each reports the thread CPU time per call (cpu-ns/op) and
// GFLOP/s; docs/benchmarks.md turns those into fractions of the CPU's peak.
// T2V_SIMD=avx2 (or another set) makes "ours" use that set.
//
//	nice -n 10 go test -run '^$' -bench . -cpu 1 -count 5 ./simd/

// sink keeps benchmark results alive.
var sink float32

type variant struct {
	name string
	f    func()
}

// runVariants runs each variant as a sub-benchmark doing flops floating-point
// operations per call. Besides Go's wall-clock ns/op it reports cpu-ns/op,
// the CPU time of the benchmark's (locked) OS thread per call, which leaves
// out the time the thread waited for a core on a shared machine; GFLOP/s is
// computed from cpu-ns/op (from wall time where thread CPU time is not
// available).
func runVariants(b *testing.B, flops float64, vs []variant) {
	for _, v := range vs {
		b.Run(v.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0, ok := threadCPUTime()
			for b.Loop() {
				v.f()
			}
			c1, _ := threadCPUTime()
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if ok {
				ns = float64(c1-c0) / float64(b.N)
				b.ReportMetric(ns, "cpu-ns/op")
			}
			b.ReportMetric(flops/ns, "GFLOP/s")
		})
	}
}

// withPaths appends one variant per kernel set usable on this CPU.
func withPaths(vs []variant, f func(k kernels) func()) []variant {
	for _, k := range allKernels() {
		vs = append(vs, variant{"ours-" + k.name, f(k)})
	}
	return vs
}

func vec(v []float32) blas32.Vector { return blas32.Vector{N: len(v), Inc: 1, Data: v} }

func general(a []float32, rows, cols int) blas32.General {
	return blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: a}
}

func BenchmarkDot(b *testing.B) {
	for _, d := range []int{100, 200, 300} {
		b.Run(sizeName("d", d), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			x, y := randVec(r, d), randVec(r, d)
			vs := []variant{
				{"plain", func() {
					var s float32
					for i := range x {
						s += x[i] * y[i]
					}
					sink = s
				}},
				{"vek32", func() { sink = vek32.Dot(x, y) }},
				{"gonum", func() { sink = blas32.Dot(vec(x), vec(y)) }},
				{"ours", func() { sink = Dot(x, y) }},
			}
			vs = withPaths(vs, func(k kernels) func() {
				dot, px, py := k.dot, unsafe.SliceData(x), unsafe.SliceData(y)
				return func() { sink = dot(px, py, d) }
			})
			vs = append(vs, directDot(x, y)...)
			runVariants(b, 2*float64(d), vs)
		})
	}
}

func BenchmarkAxpy(b *testing.B) {
	for _, d := range []int{100, 300} {
		b.Run(sizeName("d", d), func(b *testing.B) {
			r := rand.New(rand.NewPCG(2, 2))
			x, y := randVec(r, d), randVec(r, d)
			const alpha = 1e-6 // keeps y bounded over many calls
			vs := []variant{
				{"plain", func() {
					for i := range x {
						y[i] += alpha * x[i]
					}
				}},
				{"gonum", func() { blas32.Axpy(alpha, vec(x), vec(y)) }},
				{"ours", func() { Axpy(alpha, x, y) }},
			}
			vs = withPaths(vs, func(k kernels) func() { return func() { k.axpy(alpha, x, y) } })
			runVariants(b, 2*float64(d), vs)
		})
	}
}

// BenchmarkPairAxpy measures the skip-gram update acc += g·b, b += g·a
// against the two Axpy calls it replaces.
func BenchmarkPairAxpy(b *testing.B) {
	for _, d := range []int{100, 300} {
		b.Run(sizeName("d", d), func(b *testing.B) {
			r := rand.New(rand.NewPCG(11, 11))
			x, y, acc := randVec(r, d), randVec(r, d), randVec(r, d)
			const alpha = 1e-6
			vs := []variant{
				{"plain", func() {
					for i := range x {
						acc[i] += alpha * y[i]
						y[i] += alpha * x[i]
					}
				}},
				{"gonum", func() {
					blas32.Axpy(alpha, vec(y), vec(acc))
					blas32.Axpy(alpha, vec(x), vec(y))
				}},
				{"axpyx2", func() {
					Axpy(alpha, y, acc)
					Axpy(alpha, x, y)
				}},
				{"ours", func() { PairAxpy(alpha, x, y, acc) }},
			}
			vs = withPaths(vs, func(k kernels) func() { return func() { k.pairAxpy(alpha, x, y, acc) } })
			runVariants(b, 4*float64(d), vs)
		})
	}
}

func BenchmarkWeightedSum(b *testing.B) {
	for _, d := range []int{200, 300} {
		b.Run(fmt.Sprintf("m=64,d=%d", d), func(b *testing.B) { benchWeightedSum(b, 64, d) })
	}
}

func benchWeightedSum(b *testing.B, m, d int) {
	r := rand.New(rand.NewPCG(3, 3))
	w, x, dst := randVec(r, m), randVec(r, m*d), make([]float32, d)
	vs := []variant{
		{"plain", func() {
			clear(dst)
			for i, wi := range w {
				row := x[i*d : (i+1)*d]
				for j := range dst {
					dst[j] += wi * row[j]
				}
			}
		}},
		// w (1×m) times X (m×d): vek's matrix product, sequential at m = 1.
		{"vek32", func() { vek32.MatMul_Into(dst, w, x, m) }},
		{"gonum", func() { blas32.Gemv(blas.Trans, 1, general(x, m, d), vec(w), 0, vec(dst)) }},
		{"ours", func() { WeightedSum(dst, w, x) }},
	}
	vs = withPaths(vs, func(k kernels) func() { return func() { k.weightedSum(dst, w, x) } })
	runVariants(b, float64(2*m*d), vs)
}

func BenchmarkGatherSum(b *testing.B) {
	const nids = 50
	// A 50,000-row table (60 MB, larger than L3) read at random rows, as the
	// context sums of inference read the base embeddings, and the default
	// model's 74,504 × 200 (rows of an odd number of half cache lines); 4096
	// id lists are cycled so successive calls touch different rows.
	for _, shape := range []struct{ rows, d int }{{2000, 300}, {50000, 300}, {74504, 200}} {
		rows, d := shape.rows, shape.d
		b.Run(fmt.Sprintf("%s,ids=50,d=%d", sizeName("rows", rows), d), func(b *testing.B) {
			r := rand.New(rand.NewPCG(4, 4))
			table := randVec(r, rows*d)
			lists := make([][]int32, 4096)
			for i := range lists {
				lists[i] = make([]int32, nids)
				for k := range lists[i] {
					lists[i][k] = int32(r.IntN(rows))
				}
			}
			dst := make([]float32, d)
			var next int
			ids := func() []int32 {
				next = (next + 1) % len(lists)
				return lists[next]
			}
			row := func(id int32) []float32 { return table[int(id)*d : (int(id)+1)*d] }
			vs := []variant{
				{"plain", func() {
					clear(dst)
					for _, id := range ids() {
						for j, v := range row(id) {
							dst[j] += v
						}
					}
				}},
				{"vek32", func() {
					clear(dst)
					for _, id := range ids() {
						vek32.Add_Inplace(dst, row(id))
					}
				}},
				{"gonum", func() {
					clear(dst)
					for _, id := range ids() {
						blas32.Axpy(1, vec(row(id)), vec(dst))
					}
				}},
				{"ours", func() { GatherSum(dst, table, ids()) }},
			}
			vs = withPaths(vs, func(k kernels) func() { return func() { k.gatherSum(dst, table, ids()) } })
			vs = append(vs, directGatherSum(dst, table, ids)...)
			runVariants(b, float64(nids*d), vs)
		})
	}
}

func BenchmarkMatVec(b *testing.B) {
	for _, n := range []int{200, 300} {
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) { benchMatVec(b, n) })
	}
}

func benchMatVec(b *testing.B, n int) {
	r := rand.New(rand.NewPCG(5, 5))
	a, x, dst := randVec(r, n*n), randVec(r, n), make([]float32, n)
	vs := []variant{
		{"plain", func() {
			for i := range dst {
				var s float32
				for j, aij := range a[i*n : (i+1)*n] {
					s += aij * x[j]
				}
				dst[i] = s
			}
		}},
		// A (n×n) times x as an n×1 matrix: sequential below 100,000 multiply-adds.
		{"vek32", func() { vek32.MatMul_Into(dst, a, x, n) }},
		{"gonum", func() { blas32.Gemv(blas.NoTrans, 1, general(a, n, n), vec(x), 0, vec(dst)) }},
		{"ours", func() { MatVec(dst, a, n, n, x) }},
	}
	vs = withPaths(vs, func(k kernels) func() { return func() { k.matVec(dst, a, n, n, x) } })
	runVariants(b, float64(2*n*n), vs)
}

func BenchmarkMatTVec(b *testing.B) {
	const n = 300
	r := rand.New(rand.NewPCG(6, 6))
	a, x, dst := randVec(r, n*n), randVec(r, n), make([]float32, n)
	vs := []variant{
		{"plain", func() {
			clear(dst)
			for i, xi := range x {
				for j, aij := range a[i*n : (i+1)*n] {
					dst[j] += xi * aij
				}
			}
		}},
		// xᵀ (1×n) times A (n×n).
		{"vek32", func() { vek32.MatMul_Into(dst, x, a, n) }},
		{"gonum", func() { blas32.Gemv(blas.Trans, 1, general(a, n, n), vec(x), 0, vec(dst)) }},
		{"ours", func() { MatTVec(dst, a, n, n, x) }},
	}
	vs = withPaths(vs, func(k kernels) func() { return func() { k.matTVec(dst, a, n, n, x) } })
	b.Run("300x300", func(b *testing.B) { runVariants(b, 2*n*n, vs) })
}

func BenchmarkGram(b *testing.B) {
	const m, d = 64, 300
	r := rand.New(rand.NewPCG(7, 7))
	x, dst := randVec(r, m*d), make([]float32, m*m)
	xt := make([]float32, d*m) // Xᵀ for vek32, transposed once outside the loop
	for i := range m {
		for j := range d {
			xt[j*m+i] = x[i*d+j]
		}
	}
	vs := []variant{
		{"plain", func() {
			for i := range m {
				for j := 0; j <= i; j++ {
					var s float32
					xi, xj := x[i*d:(i+1)*d], x[j*d:(j+1)*d]
					for k := range xi {
						s += xi[k] * xj[k]
					}
					dst[i*m+j], dst[j*m+i] = s, s
				}
			}
		}},
		// X·Xᵀ as a full matrix product (both triangles: twice the work).
		{"vek32", func() { vek32.MatMul_Into(dst, x, xt, d) }},
		{"gonum", func() {
			blas32.Syrk(blas.NoTrans, 1, general(x, m, d), 0,
				blas32.Symmetric{N: m, Stride: m, Data: dst, Uplo: blas.Lower})
		}},
		{"ours", func() { Gram(dst, x, m, d) }},
	}
	vs = withPaths(vs, func(k kernels) func() { return func() { k.gram(dst, x, m, d) } })
	// Useful work: one triangle with the diagonal, as Ssyrk.
	b.Run("64x300", func(b *testing.B) { runVariants(b, float64(m*(m+1)*d), vs) })
}

func BenchmarkRank1(b *testing.B) {
	const n = 300
	r := rand.New(rand.NewPCG(8, 8))
	a, x, y := randVec(r, n*n), randVec(r, n), randVec(r, n)
	const alpha = 1e-6
	vs := []variant{
		{"plain", func() {
			for i, xi := range x {
				row := a[i*n : (i+1)*n]
				for j, yj := range y {
					row[j] += alpha * xi * yj
				}
			}
		}},
		{"gonum", func() { blas32.Ger(alpha, vec(x), vec(y), general(a, n, n)) }},
		{"ours", func() { Rank1(a, n, n, alpha, x, y) }},
	}
	vs = withPaths(vs, func(k kernels) func() { return func() { k.rank1(a, n, n, alpha, x, y) } })
	b.Run("300x300", func(b *testing.B) { runVariants(b, 2*n*n, vs) })
}

func BenchmarkRank2(b *testing.B) {
	const n = 300
	r := rand.New(rand.NewPCG(10, 10))
	a, x1, y1, x2, y2 := randVec(r, n*n), randVec(r, n), randVec(r, n), randVec(r, n), randVec(r, n)
	const alpha = 1e-6
	vs := []variant{
		{"plain", func() {
			for i := range n {
				row := a[i*n : (i+1)*n]
				for j := range row {
					row[j] += alpha * (x1[i]*y1[j] + x2[i]*y2[j])
				}
			}
		}},
		{"gonum", func() {
			blas32.Ger(alpha, vec(x1), vec(y1), general(a, n, n))
			blas32.Ger(alpha, vec(x2), vec(y2), general(a, n, n))
		}},
		{"rank1x2", func() {
			Rank1(a, n, n, alpha, x1, y1)
			Rank1(a, n, n, alpha, x2, y2)
		}},
		{"ours", func() { Rank2(a, n, n, alpha, x1, y1, x2, y2) }},
	}
	vs = withPaths(vs, func(k kernels) func() { return func() { k.rank2(a, n, n, alpha, x1, y1, x2, y2) } })
	b.Run("300x300", func(b *testing.B) { runVariants(b, 4*n*n, vs) })
}

func sizeName(key string, n int) string { return key + "=" + strconv.Itoa(n) }

// BenchmarkDotLoop calls Dot and vek32.Dot in a plain loop, as a caller's
// loop calls them, without the call of runVariants' closure per call (which
// costs both the same, about 1.5 ns on the Zen 5 of docs/benchmarks.md).
func BenchmarkDotLoop(b *testing.B) {
	for _, d := range []int{100, 300} {
		r := rand.New(rand.NewPCG(1, 1))
		x, y := randVec(r, d), randVec(r, d)
		b.Run(sizeName("d", d)+"/vek32", func(b *testing.B) {
			runLoop(b, 2*float64(d), func(n int) (s float32) {
				for range n {
					s += vek32.Dot(x, y)
				}
				return s
			})
		})
		b.Run(sizeName("d", d)+"/ours", func(b *testing.B) {
			runLoop(b, 2*float64(d), func(n int) (s float32) {
				for range n {
					s += Dot(x, y)
				}
				return s
			})
		})
	}
}

// runLoop times loop(b.N), which makes b.N calls of flops floating-point
// operations each, and reports cpu-ns/op and GFLOP/s as runVariants does.
func runLoop(b *testing.B, flops float64, loop func(n int) float32) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0, ok := threadCPUTime()
	sink = loop(b.N)
	c1, _ := threadCPUTime()
	b.StopTimer()
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	if ok {
		ns = float64(c1-c0) / float64(b.N)
		b.ReportMetric(ns, "cpu-ns/op")
	}
	b.ReportMetric(flops/ns, "GFLOP/s")
}

// BenchmarkDotTail compares vek32.Dot with the avx2 kernel set's Dot at
// lengths with a long tail.
func BenchmarkDotTail(b *testing.B) {
	avx2, ok := kernelSet("avx2")
	if !ok {
		b.Skip("no AVX2+FMA kernel set on this CPU or build")
	}
	for _, d := range []int{31, 63, 127, 297, 299, 301, 303, 319} {
		r := rand.New(rand.NewPCG(9, 9))
		x, y := randVec(r, d), randVec(r, d)
		dot, px, py := avx2.dot, unsafe.SliceData(x), unsafe.SliceData(y)
		b.Run(sizeName("d", d), func(b *testing.B) {
			runVariants(b, 2*float64(d), []variant{
				{"vek32", func() { sink = vek32.Dot(x, y) }},
				{"ours-avx2", func() { sink = dot(px, py, d) }},
			})
		})
	}
}

// kernelSet returns the kernel set with the given name if this CPU and
// build can run it.
func kernelSet(name string) (kernels, bool) {
	for _, k := range allKernels() {
		if k.name == name {
			return k, true
		}
	}
	return kernels{}, false
}

// BenchmarkAxpyAlignment measures Axpy and PairAxpy of every kernel set on
// vectors starting on a 64-byte boundary (off=0) and 16 bytes past one
// (off=4, as rows of an n×100 matrix mostly are): split 64-byte stores made
// the AVX-512 kernels slower than the AVX2 ones on AMD Zen 5 before they
// learned to peel an unaligned head.
func BenchmarkAxpyAlignment(b *testing.B) {
	for _, d := range []int{100, 300, 1000} {
		for _, off := range []int{0, 4} {
			b.Run(fmt.Sprintf("d=%d,off=%d", d, off), func(b *testing.B) {
				r := rand.New(rand.NewPCG(5, 5))
				x, y, acc := alignedVec(r, d, off), alignedVec(r, d, off), alignedVec(r, d, off)
				const alpha = 1e-6
				var axpy, pair []variant
				for _, k := range allKernels() {
					axpy = append(axpy, variant{"axpy-" + k.name, func() { k.axpy(alpha, x, y) }})
					pair = append(pair, variant{"pair-" + k.name, func() { k.pairAxpy(alpha, x, y, acc) }})
				}
				runVariants(b, 2*float64(d), axpy)
				runVariants(b, 4*float64(d), pair)
			})
		}
	}
}

// alignedVec returns a random vector of length d starting off floats past a
// 64-byte boundary.
func alignedVec(r *rand.Rand, d, off int) []float32 {
	buf := randVec(r, d+off+16)
	skip := int((64-uintptr(unsafe.Pointer(&buf[0]))%64)%64) / 4
	return buf[skip+off : skip+off+d]
}
