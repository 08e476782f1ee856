//go:build arm64 && !purego

package simd

// allKernels lists every kernel set this CPU can run, slowest first: every
// arm64 CPU has NEON (Advanced SIMD).
func allKernels() []kernels { return []kernels{goKernels, neonKernels} }

// setNEON is the id of neonKernels (kernels.id).
const setNEON setID = 1

// dotEntry calls the Dot kernel of impl (dispatch_arm64.s): it jumps to
// dotNEON or dotGoPtr as impl.id says, so that Dot costs one direct call of
// the kernel instead of a call through impl.dot.
//
//go:noescape
func dotEntry(a, b *float32, n int) float32

// axpyEntry calls the Axpy kernel of impl (dispatch_arm64.s), as dotEntry
// does Dot's.
//
//go:noescape
func axpyEntry(alpha float32, x, y []float32)
