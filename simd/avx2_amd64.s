//go:build amd64 && !purego

#include "textflag.h"

// The AVX2+FMA kernel set. Lengths that are not a multiple of 8 end with one
// VMASKMOVPS load (and store) of the first r < 8 lanes, which does not touch
// memory past the end of the slice (dotAVX2 ends with 4-lane steps instead).
// Eight-lane steps are unrolled by four with independent accumulators to hide
// the FMA latency.

// tailMask holds eight all-ones lanes followed by eight zero lanes: the 32
// bytes at offset 4·(8-r) select the first r lanes (r = 0..8).
DATA tailMask<>+0(SB)/8, $0xffffffffffffffff
DATA tailMask<>+8(SB)/8, $0xffffffffffffffff
DATA tailMask<>+16(SB)/8, $0xffffffffffffffff
DATA tailMask<>+24(SB)/8, $0xffffffffffffffff
DATA tailMask<>+32(SB)/8, $0x0000000000000000
DATA tailMask<>+40(SB)/8, $0x0000000000000000
DATA tailMask<>+48(SB)/8, $0x0000000000000000
DATA tailMask<>+56(SB)/8, $0x0000000000000000
GLOBL tailMask<>(SB), RODATA|NOPTR, $64

// MASK loads into ymm (or the first four lanes into an xmm) the lane mask of
// the first r lanes, r (0..8) in register reg; clobbers tmp and reg.
#define MASK(reg, tmp, ymm) \
	LEAQ    tailMask<>+32(SB), tmp \
	NEGQ    reg                    \
	VMOVUPS (tmp)(reg*4), ymm

// HSUM8 reduces the eight lanes of Y0 into the low lane of X0 (clobbers X1).
#define HSUM8 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS       X1, X0, X0 \
	VMOVHLPS     X0, X1, X1 \
	VADDPS       X1, X0, X0 \
	VMOVSHDUP    X0, X1     \
	VADDSS       X1, X0, X0

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ   CX, $32
	JB     dot8

dot32:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         dot32

dot8:
	CMPQ        CX, $8
	JB          dottail
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	CMPQ        CX, $8
	JB          dottail
	VMOVUPS     (SI), Y5
	VFMADD231PS (DI), Y5, Y1
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	CMPQ        CX, $8
	JB          dottail
	VMOVUPS     (SI), Y6
	VFMADD231PS (DI), Y6, Y2
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX

// The last r < 8 elements: a 4-lane step if r >= 4, then one masked 4-lane
// step for the remaining r mod 4, into X9 (the 128-bit forms clear its upper
// lanes). On Zen 5 this is 1-2 cycles faster than one 8-lane VMASKMOVPS step
// for most r.
dottail:
	VXORPS      X9, X9, X9
	CMPQ        CX, $4
	JB          dot1
	VMOVUPS     (SI), X4
	VFMADD231PS (DI), X4, X9
	ADDQ        $16, SI
	ADDQ        $16, DI
	SUBQ        $4, CX

dot1:
	TESTQ       CX, CX
	JZ          dotdone
	MASK(CX, AX, X8)
	VMASKMOVPS  (SI), X8, X5
	VMASKMOVPS  (DI), X8, X6
	VFMADD231PS X6, X5, X9

dotdone:
	VADDPS Y9, Y3, Y3
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM8
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func axpyAVX2(alpha float32, x, y []float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-56
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ         x_base+8(FP), SI
	MOVQ         y_base+32(FP), DI
	MOVQ         x_len+16(FP), CX
	CMPQ         CX, $32
	JB           axpy8

axpy32:
	VMOVUPS     (DI), Y4
	VMOVUPS     32(DI), Y5
	VMOVUPS     64(DI), Y6
	VMOVUPS     96(DI), Y7
	VFMADD231PS (SI), Y0, Y4
	VFMADD231PS 32(SI), Y0, Y5
	VFMADD231PS 64(SI), Y0, Y6
	VFMADD231PS 96(SI), Y0, Y7
	VMOVUPS     Y4, (DI)
	VMOVUPS     Y5, 32(DI)
	VMOVUPS     Y6, 64(DI)
	VMOVUPS     Y7, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         axpy32

axpy8:
	CMPQ        CX, $8
	JB          axpytail
	VMOVUPS     (DI), Y4
	VFMADD231PS (SI), Y0, Y4
	VMOVUPS     Y4, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         axpy8

axpytail:
	TESTQ       CX, CX
	JZ          axpydone
	MASK(CX, AX, Y8)
	VMASKMOVPS  (DI), Y8, Y4
	VMASKMOVPS  (SI), Y8, Y5
	VFMADD231PS Y5, Y0, Y4
	VMASKMOVPS  Y4, Y8, (DI)

axpydone:
	VZEROUPPER
	RET

// func axpy2AVX2(a1 float32, x1 []float32, a2 float32, x2, y []float32)
//
// y += a1·x1 + a2·x2 in one pass over y (a row of Rank2).
TEXT ·axpy2AVX2(SB), NOSPLIT, $0-88
	VBROADCASTSS a1+0(FP), Y0
	MOVQ         x1_base+8(FP), SI
	VBROADCASTSS a2+32(FP), Y1
	MOVQ         x2_base+40(FP), BX
	MOVQ         y_base+64(FP), DI
	MOVQ         x1_len+16(FP), CX
	CMPQ         CX, $16
	JB           ax2_8

ax2_16:
	VMOVUPS     (DI), Y4
	VMOVUPS     32(DI), Y5
	VFMADD231PS (SI), Y0, Y4
	VFMADD231PS 32(SI), Y0, Y5
	VFMADD231PS (BX), Y1, Y4
	VFMADD231PS 32(BX), Y1, Y5
	VMOVUPS     Y4, (DI)
	VMOVUPS     Y5, 32(DI)
	ADDQ        $64, SI
	ADDQ        $64, BX
	ADDQ        $64, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JAE         ax2_16

ax2_8:
	CMPQ        CX, $8
	JB          ax2tail
	VMOVUPS     (DI), Y4
	VFMADD231PS (SI), Y0, Y4
	VFMADD231PS (BX), Y1, Y4
	VMOVUPS     Y4, (DI)
	ADDQ        $32, SI
	ADDQ        $32, BX
	ADDQ        $32, DI
	SUBQ        $8, CX

ax2tail:
	TESTQ       CX, CX
	JZ          ax2done
	MASK(CX, AX, Y8)
	VMASKMOVPS  (DI), Y8, Y4
	VMASKMOVPS  (SI), Y8, Y5
	VMASKMOVPS  (BX), Y8, Y6
	VFMADD231PS Y5, Y0, Y4
	VFMADD231PS Y6, Y1, Y4
	VMASKMOVPS  Y4, Y8, (DI)

ax2done:
	VZEROUPPER
	RET

// func scaleAVX2(alpha float32, x []float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ         x_base+8(FP), DI
	MOVQ         x_len+16(FP), CX
	CMPQ         CX, $32
	JB           scale8

scale32:
	VMULPS  (DI), Y0, Y4
	VMULPS  32(DI), Y0, Y5
	VMULPS  64(DI), Y0, Y6
	VMULPS  96(DI), Y0, Y7
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	VMOVUPS Y6, 64(DI)
	VMOVUPS Y7, 96(DI)
	ADDQ    $128, DI
	SUBQ    $32, CX
	CMPQ    CX, $32
	JAE     scale32

scale8:
	CMPQ    CX, $8
	JB      scaletail
	VMULPS  (DI), Y0, Y4
	VMOVUPS Y4, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     scale8

scaletail:
	TESTQ      CX, CX
	JZ         scaledone
	MASK(CX, AX, Y8)
	VMASKMOVPS (DI), Y8, Y4
	VMULPS     Y4, Y0, Y4
	VMASKMOVPS Y4, Y8, (DI)

scaledone:
	VZEROUPPER
	RET

// func addAVX2(dst, x []float32)
TEXT ·addAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ dst_len+8(FP), CX
	CMPQ CX, $32
	JB   add8

add32:
	VMOVUPS (DI), Y4
	VMOVUPS 32(DI), Y5
	VMOVUPS 64(DI), Y6
	VMOVUPS 96(DI), Y7
	VADDPS  (SI), Y4, Y4
	VADDPS  32(SI), Y5, Y5
	VADDPS  64(SI), Y6, Y6
	VADDPS  96(SI), Y7, Y7
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	VMOVUPS Y6, 64(DI)
	VMOVUPS Y7, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	CMPQ    CX, $32
	JAE     add32

add8:
	CMPQ    CX, $8
	JB      addtail
	VMOVUPS (DI), Y4
	VADDPS  (SI), Y4, Y4
	VMOVUPS Y4, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     add8

addtail:
	TESTQ      CX, CX
	JZ         adddone
	MASK(CX, AX, Y8)
	VMASKMOVPS (DI), Y8, Y4
	VMASKMOVPS (SI), Y8, Y5
	VADDPS     Y5, Y4, Y4
	VMASKMOVPS Y4, Y8, (DI)

adddone:
	VZEROUPPER
	RET

// PAIR8 updates eight lanes at byte offset off: acc += Y0·b, b += Y0·a
// (the acc update uses the old b).
#define PAIR8(off, yb, yc) \
	VMOVUPS     off(DI), yb      \
	VMOVUPS     off(R8), yc      \
	VFMADD231PS yb, Y0, yc       \
	VFMADD231PS off(SI), Y0, yb  \
	VMOVUPS     yc, off(R8)      \
	VMOVUPS     yb, off(DI)

// func pairAxpyAVX2(alpha float32, a, b, acc []float32)
TEXT ·pairAxpyAVX2(SB), NOSPLIT, $0-80
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ         a_base+8(FP), SI
	MOVQ         b_base+32(FP), DI
	MOVQ         acc_base+56(FP), R8
	MOVQ         a_len+16(FP), CX
	CMPQ         CX, $32
	JB           pair8

pair32:
	PAIR8(0, Y4, Y8)
	PAIR8(32, Y5, Y9)
	PAIR8(64, Y6, Y10)
	PAIR8(96, Y7, Y11)
	ADDQ $128, SI
	ADDQ $128, DI
	ADDQ $128, R8
	SUBQ $32, CX
	CMPQ CX, $32
	JAE  pair32

pair8:
	CMPQ CX, $8
	JB   pairtail
	PAIR8(0, Y4, Y8)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	SUBQ $8, CX
	JMP  pair8

pairtail:
	TESTQ       CX, CX
	JZ          pairdone
	MASK(CX, AX, Y15)
	VMASKMOVPS  (DI), Y15, Y4
	VMASKMOVPS  (R8), Y15, Y8
	VMASKMOVPS  (SI), Y15, Y5
	VFMADD231PS Y4, Y0, Y8
	VFMADD231PS Y5, Y0, Y4
	VMASKMOVPS  Y8, Y15, (R8)
	VMASKMOVPS  Y4, Y15, (DI)

pairdone:
	VZEROUPPER
	RET

// ZERO8Y clears the accumulators Y0-Y7.
#define ZERO8Y \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7

// FOLD8Y folds Y4-Y7 into Y0-Y3.
#define FOLD8Y \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y7, Y3, Y3

// FOLD4Y adds Y1-Y3 into Y0.
#define FOLD4Y \
	VADDPS Y1, Y0, Y0 \
	VADDPS Y3, Y2, Y2 \
	VADDPS Y2, Y0, Y0

// NARROWMASK loads into Y15 the lanes of the 8-column chunk at column BX
// of d = DX columns (all eight unless it is the last, partial one); clobbers
// AX, CX.
#define NARROWMASK \
	MOVQ DX, AX       \
	SUBQ BX, AX       \
	CMPQ AX, $8       \
	JBE  2(PC)        \
	MOVQ $8, AX       \
	MASK(AX, CX, Y15)

// func weightedSumAVX2(dst, w, x []float32)
//
// dst is computed in blocks of 32 columns, each accumulating all m rows in
// registers (two rows at a time into Y0-Y3 and Y4-Y7) and stored once; the
// columns left over go in chunks of 8 (the last one masked), four rows at a
// time into Y0-Y3.
TEXT ·weightedSumAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX   // d
	MOVQ w_base+24(FP), R8
	MOVQ w_len+32(FP), R9    // m
	MOVQ x_base+48(FP), SI
	MOVQ DX, R12
	SHLQ $2, R12             // row stride in bytes
	XORQ BX, BX              // column of this block

wsblock:
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $32
	JB   wsnarrow
	ZERO8Y
	LEAQ (SI)(BX*4), R10     // row 0 of this block
	MOVQ R8, R11             // w
	MOVQ R9, CX              // rows left

wspair:
	CMPQ         CX, $2
	JB           wsodd
	VBROADCASTSS (R11), Y8
	VBROADCASTSS 4(R11), Y9
	LEAQ         (R10)(R12*1), R13
	VFMADD231PS  (R10), Y8, Y0
	VFMADD231PS  32(R10), Y8, Y1
	VFMADD231PS  64(R10), Y8, Y2
	VFMADD231PS  96(R10), Y8, Y3
	VFMADD231PS  (R13), Y9, Y4
	VFMADD231PS  32(R13), Y9, Y5
	VFMADD231PS  64(R13), Y9, Y6
	VFMADD231PS  96(R13), Y9, Y7
	LEAQ         (R13)(R12*1), R10
	ADDQ         $8, R11
	SUBQ         $2, CX
	JMP          wspair

wsodd:
	TESTQ        CX, CX
	JZ           wsstore
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (R10), Y8, Y0
	VFMADD231PS  32(R10), Y8, Y1
	VFMADD231PS  64(R10), Y8, Y2
	VFMADD231PS  96(R10), Y8, Y3

wsstore:
	FOLD8Y
	LEAQ    (DI)(BX*4), R13
	VMOVUPS Y0, (R13)
	VMOVUPS Y1, 32(R13)
	VMOVUPS Y2, 64(R13)
	VMOVUPS Y3, 96(R13)
	ADDQ    $32, BX
	JMP     wsblock

wsnarrow:
	CMPQ BX, DX
	JAE  wsdone
	NARROWMASK
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ   (SI)(BX*4), R10
	MOVQ   R8, R11
	MOVQ   R9, CX

wsn4:
	CMPQ         CX, $4
	JB           wsn1
	VBROADCASTSS (R11), Y8
	VBROADCASTSS 4(R11), Y9
	VBROADCASTSS 8(R11), Y10
	VBROADCASTSS 12(R11), Y11
	VMASKMOVPS   (R10), Y15, Y4
	ADDQ         R12, R10
	VMASKMOVPS   (R10), Y15, Y5
	ADDQ         R12, R10
	VMASKMOVPS   (R10), Y15, Y6
	ADDQ         R12, R10
	VMASKMOVPS   (R10), Y15, Y7
	ADDQ         R12, R10
	VFMADD231PS  Y4, Y8, Y0
	VFMADD231PS  Y5, Y9, Y1
	VFMADD231PS  Y6, Y10, Y2
	VFMADD231PS  Y7, Y11, Y3
	ADDQ         $16, R11
	SUBQ         $4, CX
	JMP          wsn4

wsn1:
	TESTQ        CX, CX
	JZ           wsnstore
	VBROADCASTSS (R11), Y8
	VMASKMOVPS   (R10), Y15, Y4
	VFMADD231PS  Y4, Y8, Y0
	ADDQ         R12, R10
	ADDQ         $4, R11
	DECQ         CX
	JMP          wsn1

wsnstore:
	FOLD4Y
	VMASKMOVPS Y0, Y15, (DI)(BX*4)
	ADDQ       $8, BX
	JMP        wsnarrow

wsdone:
	VZEROUPPER
	RET

// func gatherSumAVX2(dst, table []float32, ids []int32)
//
// As weightedSumAVX2 with unit weights and rows table[ids[k]·d:].
TEXT ·gatherSumAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX   // d
	MOVQ table_base+24(FP), SI
	MOVQ ids_base+48(FP), R8
	MOVQ ids_len+56(FP), R9  // number of rows
	MOVQ DX, R12
	SHLQ $2, R12             // row stride in bytes
	XORQ BX, BX              // column of this block

gsblock:
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $32
	JB   gsnarrow
	ZERO8Y
	LEAQ (SI)(BX*4), R10     // table at this block's column
	MOVQ R8, R11             // ids
	MOVQ R9, CX              // rows left

gspair:
	CMPQ    CX, $2
	JB      gsodd
	MOVLQSX (R11), AX
	MOVLQSX 4(R11), R13
	IMULQ   R12, AX
	IMULQ   R12, R13
	ADDQ    R10, AX
	ADDQ    R10, R13
	VADDPS  (AX), Y0, Y0
	VADDPS  32(AX), Y1, Y1
	VADDPS  64(AX), Y2, Y2
	VADDPS  96(AX), Y3, Y3
	VADDPS  (R13), Y4, Y4
	VADDPS  32(R13), Y5, Y5
	VADDPS  64(R13), Y6, Y6
	VADDPS  96(R13), Y7, Y7
	ADDQ    $8, R11
	SUBQ    $2, CX
	JMP     gspair

gsodd:
	TESTQ   CX, CX
	JZ      gsstore
	MOVLQSX (R11), AX
	IMULQ   R12, AX
	ADDQ    R10, AX
	VADDPS  (AX), Y0, Y0
	VADDPS  32(AX), Y1, Y1
	VADDPS  64(AX), Y2, Y2
	VADDPS  96(AX), Y3, Y3

gsstore:
	FOLD8Y
	LEAQ    (DI)(BX*4), R13
	VMOVUPS Y0, (R13)
	VMOVUPS Y1, 32(R13)
	VMOVUPS Y2, 64(R13)
	VMOVUPS Y3, 96(R13)
	ADDQ    $32, BX
	JMP     gsblock

gsnarrow:
	CMPQ BX, DX
	JAE  gsdone
	NARROWMASK
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	LEAQ   (SI)(BX*4), R10
	MOVQ   R8, R11
	MOVQ   R9, CX

gsn2:
	CMPQ       CX, $2
	JB         gsn1
	MOVLQSX    (R11), AX
	MOVLQSX    4(R11), R13
	IMULQ      R12, AX
	IMULQ      R12, R13
	VMASKMOVPS (R10)(AX*1), Y15, Y4
	VMASKMOVPS (R10)(R13*1), Y15, Y5
	VADDPS     Y4, Y0, Y0
	VADDPS     Y5, Y1, Y1
	ADDQ       $8, R11
	SUBQ       $2, CX
	JMP        gsn2

gsn1:
	TESTQ      CX, CX
	JZ         gsnstore
	MOVLQSX    (R11), AX
	IMULQ      R12, AX
	VMASKMOVPS (R10)(AX*1), Y15, Y4
	VADDPS     Y4, Y0, Y0

gsnstore:
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y15, (DI)(BX*4)
	ADDQ       $8, BX
	JMP        gsnarrow

gsdone:
	VZEROUPPER
	RET

// func gatherAxpyAVX2(dst, table []float32, ids []int32, w []float32)
//
// dst += Σ_k w[k]·table[ids[k]·d:]: as gatherSumAVX2 with weights, starting
// from dst instead of zero. R9 is the end of ids, R11 and CX walk ids and w.
TEXT ·gatherAxpyAVX2(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX   // d
	MOVQ table_base+24(FP), SI
	MOVQ ids_base+48(FP), R8
	MOVQ ids_len+56(FP), R9
	LEAQ (R8)(R9*4), R9      // end of ids
	MOVQ w_base+72(FP), R14
	MOVQ DX, R12
	SHLQ $2, R12             // row stride in bytes
	XORQ BX, BX              // column of this block

gablock:
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $32
	JB   ganarrow
	LEAQ    (DI)(BX*4), R13
	VMOVUPS (R13), Y0
	VMOVUPS 32(R13), Y1
	VMOVUPS 64(R13), Y2
	VMOVUPS 96(R13), Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	VXORPS  Y6, Y6, Y6
	VXORPS  Y7, Y7, Y7
	LEAQ    (SI)(BX*4), R10  // table at this block's column
	MOVQ    R8, R11          // ids
	MOVQ    R14, CX          // w

gapair:
	LEAQ         8(R11), AX
	CMPQ         AX, R9
	JA           gaodd
	MOVLQSX      (R11), AX
	MOVLQSX      4(R11), R13
	IMULQ        R12, AX
	IMULQ        R12, R13
	ADDQ         R10, AX
	ADDQ         R10, R13
	VBROADCASTSS (CX), Y8
	VBROADCASTSS 4(CX), Y9
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3
	VFMADD231PS  (R13), Y9, Y4
	VFMADD231PS  32(R13), Y9, Y5
	VFMADD231PS  64(R13), Y9, Y6
	VFMADD231PS  96(R13), Y9, Y7
	ADDQ         $8, R11
	ADDQ         $8, CX
	JMP          gapair

gaodd:
	CMPQ         R11, R9
	JAE          gastore
	MOVLQSX      (R11), AX
	IMULQ        R12, AX
	ADDQ         R10, AX
	VBROADCASTSS (CX), Y8
	VFMADD231PS  (AX), Y8, Y0
	VFMADD231PS  32(AX), Y8, Y1
	VFMADD231PS  64(AX), Y8, Y2
	VFMADD231PS  96(AX), Y8, Y3

gastore:
	FOLD8Y
	LEAQ    (DI)(BX*4), R13
	VMOVUPS Y0, (R13)
	VMOVUPS Y1, 32(R13)
	VMOVUPS Y2, 64(R13)
	VMOVUPS Y3, 96(R13)
	ADDQ    $32, BX
	JMP     gablock

ganarrow:
	CMPQ       BX, DX
	JAE        gadone
	NARROWMASK
	VMASKMOVPS (DI)(BX*4), Y15, Y0
	VXORPS     Y1, Y1, Y1
	LEAQ       (SI)(BX*4), R10
	MOVQ       R8, R11
	MOVQ       R14, CX

gan2:
	LEAQ         8(R11), AX
	CMPQ         AX, R9
	JA           gan1
	MOVLQSX      (R11), AX
	MOVLQSX      4(R11), R13
	IMULQ        R12, AX
	IMULQ        R12, R13
	VBROADCASTSS (CX), Y8
	VBROADCASTSS 4(CX), Y9
	VMASKMOVPS   (R10)(AX*1), Y15, Y4
	VMASKMOVPS   (R10)(R13*1), Y15, Y5
	VFMADD231PS  Y4, Y8, Y0
	VFMADD231PS  Y5, Y9, Y1
	ADDQ         $8, R11
	ADDQ         $8, CX
	JMP          gan2

gan1:
	CMPQ         R11, R9
	JAE          ganstore
	MOVLQSX      (R11), AX
	IMULQ        R12, AX
	VBROADCASTSS (CX), Y8
	VMASKMOVPS   (R10)(AX*1), Y15, Y4
	VFMADD231PS  Y4, Y8, Y0

ganstore:
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y15, (DI)(BX*4)
	ADDQ       $8, BX
	JMP        ganarrow

gadone:
	VZEROUPPER
	RET

// REDUCE4 stores at (ptr) the four sums of the eight lanes of Y0-Y3
// (clobbers Y4-Y7).
#define REDUCE4(ptr) \
	VEXTRACTF128 $1, Y0, X4 \
	VEXTRACTF128 $1, Y1, X5 \
	VEXTRACTF128 $1, Y2, X6 \
	VEXTRACTF128 $1, Y3, X7 \
	VADDPS       X4, X0, X0 \
	VADDPS       X5, X1, X1 \
	VADDPS       X6, X2, X2 \
	VADDPS       X7, X3, X3 \
	VHADDPS      X1, X0, X0 \
	VHADDPS      X3, X2, X2 \
	VHADDPS      X2, X0, X0 \
	VMOVUPS      X0, (ptr)

// func dotRows4AVX2(a *float32, stride int, x *float32, n int, dst *float32)
//
// dst[k] = Σ_{j<n} a[k·stride+j]·x[j] for k = 0..3: four dot products
// sharing the loads of x, two accumulators per row (Y0-Y3, Y4-Y7).
TEXT ·dotRows4AVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), R8
	MOVQ stride+8(FP), R12
	SHLQ $2, R12
	LEAQ (R8)(R12*1), R9
	LEAQ (R9)(R12*1), R10
	LEAQ (R10)(R12*1), R11
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	ZERO8Y
	CMPQ CX, $16
	JB   dr8

dr16:
	VMOVUPS     (SI), Y8
	VMOVUPS     32(SI), Y9
	VFMADD231PS (R8), Y8, Y0
	VFMADD231PS (R9), Y8, Y1
	VFMADD231PS (R10), Y8, Y2
	VFMADD231PS (R11), Y8, Y3
	VFMADD231PS 32(R8), Y9, Y4
	VFMADD231PS 32(R9), Y9, Y5
	VFMADD231PS 32(R10), Y9, Y6
	VFMADD231PS 32(R11), Y9, Y7
	ADDQ        $64, SI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, R11
	SUBQ        $16, CX
	CMPQ        CX, $16
	JAE         dr16

dr8:
	CMPQ        CX, $8
	JB          drtail
	VMOVUPS     (SI), Y8
	VFMADD231PS (R8), Y8, Y0
	VFMADD231PS (R9), Y8, Y1
	VFMADD231PS (R10), Y8, Y2
	VFMADD231PS (R11), Y8, Y3
	ADDQ        $32, SI
	ADDQ        $32, R8
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, R11
	SUBQ        $8, CX

drtail:
	TESTQ       CX, CX
	JZ          drsum
	MASK(CX, AX, Y15)
	VMASKMOVPS  (SI), Y15, Y8
	VMASKMOVPS  (R8), Y15, Y10
	VMASKMOVPS  (R9), Y15, Y11
	VMASKMOVPS  (R10), Y15, Y12
	VMASKMOVPS  (R11), Y15, Y13
	VFMADD231PS Y10, Y8, Y4
	VFMADD231PS Y11, Y8, Y5
	VFMADD231PS Y12, Y8, Y6
	VFMADD231PS Y13, Y8, Y7

drsum:
	FOLD8Y
	MOVQ dst+32(FP), DI
	REDUCE4(DI)
	VZEROUPPER
	RET

// func dot4x2AVX2(a, b *float32, stride, n int, dst *float32, dstStride int)
//
// dst[r·dstStride+c] = Σ_{j<n} a[r·stride+j]·b[c·stride+j] for r = 0..3 and
// c = 0..1: a 4×2 block of X·Yᵀ in eight accumulators, each loaded row
// feeding two (a) or four (b) FMAs.
TEXT ·dot4x2AVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), R8
	MOVQ b+8(FP), SI
	MOVQ stride+16(FP), R12
	SHLQ $2, R12
	LEAQ (R8)(R12*1), R9
	LEAQ (R9)(R12*1), R10
	LEAQ (R10)(R12*1), R11
	LEAQ (SI)(R12*1), DI
	MOVQ n+24(FP), CX
	ZERO8Y
	XORQ BX, BX              // byte offset
	CMPQ CX, $8
	JB   g2tail

g2loop:
	VMOVUPS     (SI)(BX*1), Y8
	VMOVUPS     (DI)(BX*1), Y9
	VMOVUPS     (R8)(BX*1), Y10
	VMOVUPS     (R9)(BX*1), Y11
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VMOVUPS     (R10)(BX*1), Y12
	VMOVUPS     (R11)(BX*1), Y13
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ        $32, BX
	SUBQ        $8, CX
	CMPQ        CX, $8
	JAE         g2loop

g2tail:
	TESTQ       CX, CX
	JZ          g2sum
	MASK(CX, AX, Y15)
	VMASKMOVPS  (SI)(BX*1), Y15, Y8
	VMASKMOVPS  (DI)(BX*1), Y15, Y9
	VMASKMOVPS  (R8)(BX*1), Y15, Y10
	VMASKMOVPS  (R9)(BX*1), Y15, Y11
	VMASKMOVPS  (R10)(BX*1), Y15, Y12
	VMASKMOVPS  (R11)(BX*1), Y15, Y13
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7

g2sum:
	// Y0..Y7 = (r0c0, r0c1, r1c0, r1c1, r2c0, r2c1, r3c0, r3c1).
	VEXTRACTF128 $1, Y0, X8
	VEXTRACTF128 $1, Y1, X9
	VEXTRACTF128 $1, Y2, X10
	VEXTRACTF128 $1, Y3, X11
	VEXTRACTF128 $1, Y4, X12
	VEXTRACTF128 $1, Y5, X13
	VEXTRACTF128 $1, Y6, X14
	VEXTRACTF128 $1, Y7, X15
	VADDPS       X8, X0, X0
	VADDPS       X9, X1, X1
	VADDPS       X10, X2, X2
	VADDPS       X11, X3, X3
	VADDPS       X12, X4, X4
	VADDPS       X13, X5, X5
	VADDPS       X14, X6, X6
	VADDPS       X15, X7, X7
	VHADDPS      X1, X0, X0      // r0c0 r0c0 r0c1 r0c1 (pairs)
	VHADDPS      X3, X2, X2
	VHADDPS      X2, X0, X0      // r0c0 r0c1 r1c0 r1c1
	VHADDPS      X5, X4, X4
	VHADDPS      X7, X6, X6
	VHADDPS      X6, X4, X4      // r2c0 r2c1 r3c0 r3c1
	MOVQ         dst+32(FP), DI
	MOVQ         dstStride+40(FP), R12
	SHLQ         $2, R12
	VMOVLPS      X0, (DI)
	VMOVHPS      X0, (DI)(R12*1)
	LEAQ         (DI)(R12*2), DI
	VMOVLPS      X4, (DI)
	VMOVHPS      X4, (DI)(R12*1)
	VZEROUPPER
	RET
