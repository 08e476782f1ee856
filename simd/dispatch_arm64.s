//go:build arm64 && !purego

#include "textflag.h"
#include "go_asm.h"

// func dotEntry(a, b *float32, n int) float32
//
// Jumps to the Dot kernel of the set in use (impl.id), which returns to
// Dot's caller: one call, no ABI wrapper, three argument words.
TEXT ·dotEntry(SB), NOSPLIT, $0-28
	MOVD  $·impl(SB), R0
	MOVBU kernels_id(R0), R0
	CMP   $const_setNEON, R0
	BNE   notneon
	JMP   ·dotNEON(SB)

notneon:
	JMP ·dotGoPtr(SB)

// func axpyEntry(alpha float32, x, y []float32)
//
// Jumps to the Axpy kernel of the set in use (impl.id).
TEXT ·axpyEntry(SB), NOSPLIT, $0-56
	MOVD  $·impl(SB), R0
	MOVBU kernels_id(R0), R0
	CMP   $const_setNEON, R0
	BNE   notneon
	JMP   ·axpyNEON(SB)

notneon:
	JMP ·axpyGo(SB)
