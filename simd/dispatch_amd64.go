//go:build amd64 && !purego

package simd

import "golang.org/x/sys/cpu"

// allKernels lists every kernel set this CPU can run, slowest first.
func allKernels() []kernels {
	ks := []kernels{goKernels}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernels)
	}
	// The AVX-512 set also runs AVX2+FMA kernels (short unaligned Axpy,
	// gathers of half-line rows), so it needs both as well.
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx512Kernels)
	}
	return ks
}

// Ids of the assembly kernel sets (kernels.id).
const (
	setAVX2   setID = 1
	setAVX512 setID = 2
)

// dotEntry calls the Dot kernel of impl (dispatch_amd64.s): it jumps to the
// kernel that impl.id names, so that Dot costs one direct call of it instead
// of a call through impl.dot, which reaches an assembly kernel through its
// ABI wrapper (one more call, and the arguments stored twice).
//
//go:noescape
func dotEntry(a, b *float32, n int) float32

// axpyEntry calls the Axpy kernel of impl (dispatch_amd64.s), as dotEntry
// does Dot's.
//
//go:noescape
func axpyEntry(alpha float32, x, y []float32)
