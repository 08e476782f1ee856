package simd

// kernels is one implementation of every kernel. The exported functions
// check shapes and then call the table chosen at init (impl); tests call
// every table in allKernels directly. Kernels assume checked shapes.
type kernels struct {
	name        string
	dot         func(a, b []float32) float32
	axpy        func(alpha float32, x, y []float32)
	scale       func(alpha float32, x []float32)
	add         func(dst, x []float32)
	weightedSum func(dst, w, x []float32)
	gatherSum   func(dst, table []float32, ids []int32)
	matVec      func(dst, a []float32, rows, cols int, x []float32)
	matTVec     func(dst, a []float32, rows, cols int, x []float32)
	gram        func(dst, x []float32, m, d int)
	rank1       func(a []float32, rows, cols int, alpha float32, x, y []float32)
	rank2       func(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32)
	pairAxpy    func(alpha float32, a, b, acc []float32)
}

// goKernels is the portable pure-Go implementation.
var goKernels = kernels{
	name:        "go",
	dot:         dotGo,
	axpy:        axpyGo,
	scale:       scaleGo,
	add:         addGo,
	weightedSum: weightedSumGo,
	gatherSum:   gatherSumGo,
	matVec:      matVecGo,
	matTVec:     matTVecGo,
	gram:        gramGo,
	rank1:       rank1Go,
	rank2:       rank2Go,
	pairAxpy:    pairAxpyGo,
}

// impl is the table chosen at init from the CPU features; it is never
// written after package initialisation.
var impl = chooseKernels()

// Implementation returns the name of the kernel set chosen for this CPU:
// "avx512", "avx2" or "go".
func Implementation() string { return impl.name }
