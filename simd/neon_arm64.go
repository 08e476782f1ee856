//go:build arm64 && !purego

package simd

// neonKernels is the arm64 Advanced SIMD kernel set.
var neonKernels = kernels{
	name:        "neon",
	dot:         dotNEON,
	axpy:        axpyGo,
	scale:       scaleGo,
	add:         addGo,
	weightedSum: weightedSumGo,
	gatherSum:   gatherSumGo,
	gatherAxpy:  gatherAxpyGo,
	matVec:      matVecGo,
	matTVec:     matTVecGo,
	gram:        gramGo,
	rank1:       rank1Go,
	rank2:       rank2Go,
	pairAxpy:    pairAxpyGo,
}

// dotNEON is a placeholder until the assembly lands.
func dotNEON(a, b []float32) float32 { return dotGo(a, b) }
