//go:build !purego

#include "textflag.h"

// func rows(base unsafe.Pointer, stride, size uintptr, ids []int32)
TEXT ·rows(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), SI
	MOVQ stride+8(FP), DX
	MOVQ size+16(FP), R9
	DECQ R9                  // size-1: the last byte's offset
	MOVQ ids_base+24(FP), R8
	MOVQ ids_len+32(FP), CX

row:
	MOVLQSX (R8), AX
	TESTQ   AX, AX
	JS      next             // a negative id: skipped
	IMULQ   DX, AX
	ADDQ    SI, AX           // the row's first byte
	LEAQ    (AX)(R9*1), BX   // its last byte
	ANDQ    $-64, AX         // its first line

line:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, BX
	JBE        line

next:
	ADDQ $4, R8
	DECQ CX
	JNZ  row
	RET
