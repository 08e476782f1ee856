//go:build !purego

#include "textflag.h"

// func rows(base unsafe.Pointer, stride, size uintptr, ids []int32)
TEXT ·rows(SB), NOSPLIT, $0-48
	MOVD base+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD size+16(FP), R2
	SUB  $1, R2, R2         // size-1: the last byte's offset
	MOVD ids_base+24(FP), R3
	MOVD ids_len+32(FP), R4

row:
	MOVW (R3), R5           // the id, sign-extended
	TBNZ $63, R5, next      // a negative id: skipped
	MUL  R1, R5, R6
	ADD  R0, R6, R6         // the row's first byte
	ADD  R2, R6, R7         // its last byte
	AND  $~63, R6, R6       // its first line

line:
	PRFM (R6), PLDL1KEEP
	ADD  $64, R6, R6
	CMP  R7, R6
	BLS  line

next:
	ADD  $4, R3, R3
	SUBS $1, R4, R4
	BNE  row
	RET
