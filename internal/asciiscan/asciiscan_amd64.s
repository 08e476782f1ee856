//go:build !purego

#include "textflag.h"

// Each byte is classified by two table lookups, one by its low nibble and
// one by its high nibble, ANDed: bits 0-2 mark letters and digits (0x41-0x4F
// and 0x61-0x6F; 0x50-0x5A and 0x70-0x7A; 0x30-0x39), bits 3-4 upper-case
// letters (0x41-0x4F; 0x50-0x5A), bits 5-7 the bytes that may end a sentence
// ('\n' and '\r'; '!' and '.'; '?'). Non-ASCII bytes have a high nibble of
// 8 or more, whose table entry is 0.

DATA loNibble<>+0(SB)/8, $0x1f1f1f1f1f1f5f16
DATA loNibble<>+8(SB)/8, $0x89492909093b1f1f
DATA loNibble<>+16(SB)/8, $0x1f1f1f1f1f1f5f16
DATA loNibble<>+24(SB)/8, $0x89492909093b1f1f
GLOBL loNibble<>(SB), RODATA|NOPTR, $32

DATA hiNibble<>+0(SB)/8, $0x0201120984400020
DATA hiNibble<>+8(SB)/8, $0x0000000000000000
DATA hiNibble<>+16(SB)/8, $0x0201120984400020
DATA hiNibble<>+24(SB)/8, $0x0000000000000000
GLOBL hiNibble<>(SB), RODATA|NOPTR, $32

DATA nibbleMask<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nibbleMask<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nibbleMask<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nibbleMask<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL nibbleMask<>(SB), RODATA|NOPTR, $32

DATA wordBits<>+0(SB)/8, $0x0707070707070707
DATA wordBits<>+8(SB)/8, $0x0707070707070707
DATA wordBits<>+16(SB)/8, $0x0707070707070707
DATA wordBits<>+24(SB)/8, $0x0707070707070707
GLOBL wordBits<>(SB), RODATA|NOPTR, $32

DATA upBits<>+0(SB)/8, $0x1818181818181818
DATA upBits<>+8(SB)/8, $0x1818181818181818
DATA upBits<>+16(SB)/8, $0x1818181818181818
DATA upBits<>+24(SB)/8, $0x1818181818181818
GLOBL upBits<>(SB), RODATA|NOPTR, $32

DATA sentBits<>+0(SB)/8, $0xe0e0e0e0e0e0e0e0
DATA sentBits<>+8(SB)/8, $0xe0e0e0e0e0e0e0e0
DATA sentBits<>+16(SB)/8, $0xe0e0e0e0e0e0e0e0
DATA sentBits<>+24(SB)/8, $0xe0e0e0e0e0e0e0e0
GLOBL sentBits<>(SB), RODATA|NOPTR, $32

// CLASSIFY classifies the 32 bytes at off(SI): the non-ASCII bytes to
// NA, and the bytes that are NOT word, upper and sentence bytes to NW, NU, NS.
#define CLASSIFY(off, NA, NW, NU, NS) \
	VMOVDQU   off(SI), Y0  \
	VPMOVMSKB Y0, NA       \
	VPSRLW    $4, Y0, Y1   \
	VPAND     Y12, Y1, Y1  \
	VPAND     Y12, Y0, Y2  \
	VPSHUFB   Y2, Y14, Y2  \
	VPSHUFB   Y1, Y13, Y1  \
	VPAND     Y1, Y2, Y3   \
	VPAND     Y11, Y3, Y4  \
	VPCMPEQB  Y8, Y4, Y4   \
	VPMOVMSKB Y4, NW       \
	VPAND     Y10, Y3, Y5  \
	VPCMPEQB  Y8, Y5, Y5   \
	VPMOVMSKB Y5, NU       \
	VPAND     Y9, Y3, Y6   \
	VPCMPEQB  Y8, Y6, Y6   \
	VPMOVMSKB Y6, NS

// func blockAVX2(p *byte) (word, up, sent uint64, ascii bool)
TEXT ·blockAVX2(SB), NOSPLIT, $0-33
	MOVQ    p+0(FP), SI
	VMOVDQU loNibble<>(SB), Y14
	VMOVDQU hiNibble<>(SB), Y13
	VMOVDQU nibbleMask<>(SB), Y12
	VMOVDQU wordBits<>(SB), Y11
	VMOVDQU upBits<>(SB), Y10
	VMOVDQU sentBits<>(SB), Y9
	VPXOR   Y8, Y8, Y8
	CLASSIFY(0, AX, R8, R9, R10)
	CLASSIFY(32, BX, R11, R12, R13)
	VZEROUPPER
	SHLQ    $32, BX
	ORQ     BX, AX
	SHLQ    $32, R11
	ORQ     R11, R8
	NOTQ    R8
	SHLQ    $32, R12
	ORQ     R12, R9
	NOTQ    R9
	SHLQ    $32, R13
	ORQ     R13, R10
	NOTQ    R10
	MOVQ    R8, word+8(FP)
	MOVQ    R9, up+16(FP)
	MOVQ    R10, sent+24(FP)
	TESTQ   AX, AX
	SETEQ   ascii+32(FP)
	RET
