//go:build amd64 && !purego

#include "textflag.h"
#include "go_asm.h"

// func dotEntry(a, b *float32, n int) float32
//
// Jumps to the Dot kernel of the set in use (impl.id), which returns to
// Dot's caller: one call, no ABI wrapper, three argument words.
TEXT ·dotEntry(SB), NOSPLIT, $0-28
	MOVBLZX ·impl+kernels_id(SB), AX
	CMPQ    AX, $const_setAVX512
	JNE     notavx512
	JMP     ·dotAVX512(SB)

notavx512:
	CMPQ AX, $const_setAVX2
	JNE  notavx2
	JMP  ·dotAVX2(SB)

notavx2:
	JMP ·dotGoPtr(SB)
