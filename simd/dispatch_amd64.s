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

// func axpyEntry(alpha float32, x, y []float32)
//
// Jumps to the Axpy kernel of the set in use (impl.id). For the AVX-512
// set it first makes the AVX-512 kernel's own choice (SHORTUNALIGNED in
// avx512_amd64.s: below 192 elements with y not 64-byte aligned the AVX2
// kernel is faster on Zen 5), so that that case costs one jump, not two.
TEXT ·axpyEntry(SB), NOSPLIT, $0-56
	MOVBLZX ·impl+kernels_id(SB), AX
	CMPQ    AX, $const_setAVX512
	JNE     notavx512
	CMPQ    x_len+16(FP), $192
	JAE     avx512
	MOVQ    y_base+32(FP), DX
	TESTQ   $63, DX
	JNZ     avx2

avx512:
	JMP ·axpyAVX512(SB)

notavx512:
	CMPQ AX, $const_setAVX2
	JNE  notavx2

avx2:
	JMP ·axpyAVX2(SB)

notavx2:
	JMP ·axpyGo(SB)
