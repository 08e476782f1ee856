//go:build arm64 && !purego

#include "textflag.h"

// The arm64 Advanced SIMD (NEON) kernels. The Go assembler has no
// floating-point vector add, so FADD and FADDP (vector, 4S) are encoded by
// hand: FADD4(m, n, d) sets Vd = Vn + Vm, FADDP4(m, n, d) sets Vd to the
// pairwise sums (n0+n1, n2+n3, m0+m1, m2+m3), FADDP2S(n, d) sets Sd = n0+n1.
#define FADD4(m, n, d) WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d))
#define FADDP4(m, n, d) WORD $(0x6E20D400 | ((m)<<16) | ((n)<<5) | (d))
#define FADDP2S(n, d) WORD $(0x7E30D800 | ((n)<<5) | (d))

#define ZERO4(a, b, c, d) \
	VEOR a.B16, a.B16, a.B16 \
	VEOR b.B16, b.B16, b.B16 \
	VEOR c.B16, c.B16, c.B16 \
	VEOR d.B16, d.B16, d.B16

// func dotNEON(a, b *float32, n int) float32
TEXT ·dotNEON(SB), NOSPLIT, $0-28
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)

dot32:
	CMP    $32, R2
	BLT    dot4
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R0), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1.P 64(R1), [V28.S4, V29.S4, V30.S4, V31.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V21.S4, V1.S4
	VFMLA  V18.S4, V22.S4, V2.S4
	VFMLA  V19.S4, V23.S4, V3.S4
	VFMLA  V24.S4, V28.S4, V4.S4
	VFMLA  V25.S4, V29.S4, V5.S4
	VFMLA  V26.S4, V30.S4, V6.S4
	VFMLA  V27.S4, V31.S4, V7.S4
	SUB    $32, R2
	B      dot32

dot4:
	CMP    $4, R2
	BLT    dotsum
	VLD1.P 16(R0), [V16.S4]
	VLD1.P 16(R1), [V20.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	SUB    $4, R2
	B      dot4

dotsum:
	FADD4(4, 0, 0)
	FADD4(5, 1, 1)
	FADD4(6, 2, 2)
	FADD4(7, 3, 3)
	FADD4(1, 0, 0)
	FADD4(3, 2, 2)
	FADD4(2, 0, 0)
	FADDP4(0, 0, 0)
	FADDP2S(0, 0)

dottail:
	CBZ   R2, dotdone
	FMOVS (R0), F1
	FMOVS (R1), F2
	FMULS F1, F2, F2
	FADDS F2, F0, F0
	ADD   $4, R0
	ADD   $4, R1
	SUB   $1, R2
	B     dottail

dotdone:
	FMOVS F0, ret+24(FP)
	RET

// func axpyNEON(alpha float32, x, y []float32)
TEXT ·axpyNEON(SB), NOSPLIT, $0-56
	FMOVS alpha+0(FP), F0
	VDUP  V0.S[0], V0.S4
	MOVD  x_base+8(FP), R0
	MOVD  y_base+32(FP), R1
	MOVD  x_len+16(FP), R2

axpy16:
	CMP    $16, R2
	BLT    axpy4
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1   (R1), [V20.S4, V21.S4, V22.S4, V23.S4]
	VFMLA  V16.S4, V0.S4, V20.S4
	VFMLA  V17.S4, V0.S4, V21.S4
	VFMLA  V18.S4, V0.S4, V22.S4
	VFMLA  V19.S4, V0.S4, V23.S4
	VST1.P [V20.S4, V21.S4, V22.S4, V23.S4], 64(R1)
	SUB    $16, R2
	B      axpy16

axpy4:
	CMP    $4, R2
	BLT    axpytail
	VLD1.P 16(R0), [V16.S4]
	VLD1   (R1), [V20.S4]
	VFMLA  V16.S4, V0.S4, V20.S4
	VST1.P [V20.S4], 16(R1)
	SUB    $4, R2
	B      axpy4

axpytail:
	CBZ   R2, axpydone
	FMOVS (R0), F1
	FMOVS (R1), F2
	FMULS F0, F1, F1
	FADDS F1, F2, F2
	FMOVS F2, (R1)
	ADD   $4, R0
	ADD   $4, R1
	SUB   $1, R2
	B     axpytail

axpydone:
	RET

// func weightedSum16NEON(dst, w *float32, m int, x *float32, d, cols int)
//
// dst[c] = Σ_{i<m} w[i]·x[i·d+c] for c < cols (a multiple of 16), in blocks
// of 16 columns: all m rows accumulate in registers, two rows at a time
// (V0-V3 and V4-V7), and each block is stored once.
TEXT ·weightedSum16NEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD w+8(FP), R1
	MOVD m+16(FP), R2
	MOVD x+24(FP), R3
	MOVD d+32(FP), R4
	MOVD cols+40(FP), R5
	LSL  $2, R4, R6          // row stride in bytes

wsblock:
	CBZ  R5, wsdone
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	MOVD R3, R8              // row 0 of this block
	MOVD R1, R9              // w
	MOVD R2, R10             // rows left

wspair:
	CMP     $2, R10
	BLT     wsodd
	VLD1R.P 4(R9), [V16.S4]
	VLD1R.P 4(R9), [V17.S4]
	VLD1    (R8), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD     R6, R8, R8
	VLD1    (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	ADD     R6, R8, R8
	VFMLA   V16.S4, V20.S4, V0.S4
	VFMLA   V16.S4, V21.S4, V1.S4
	VFMLA   V16.S4, V22.S4, V2.S4
	VFMLA   V16.S4, V23.S4, V3.S4
	VFMLA   V17.S4, V24.S4, V4.S4
	VFMLA   V17.S4, V25.S4, V5.S4
	VFMLA   V17.S4, V26.S4, V6.S4
	VFMLA   V17.S4, V27.S4, V7.S4
	SUB     $2, R10
	B       wspair

wsodd:
	CBZ   R10, wsstore
	VLD1R (R9), [V16.S4]
	VLD1  (R8), [V20.S4, V21.S4, V22.S4, V23.S4]
	VFMLA V16.S4, V20.S4, V0.S4
	VFMLA V16.S4, V21.S4, V1.S4
	VFMLA V16.S4, V22.S4, V2.S4
	VFMLA V16.S4, V23.S4, V3.S4

wsstore:
	FADD4(4, 0, 0)
	FADD4(5, 1, 1)
	FADD4(6, 2, 2)
	FADD4(7, 3, 3)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	ADD    $64, R3
	SUB    $16, R5
	B      wsblock

wsdone:
	RET

// func gatherSum16NEON(dst, table *float32, ids *int32, n, d, cols int)
//
// dst[c] = Σ_{k<n} table[ids[k]·d+c] for c < cols (a multiple of 16), as
// weightedSum16NEON with unit weights.
TEXT ·gatherSum16NEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD table+8(FP), R3
	MOVD ids+16(FP), R1
	MOVD n+24(FP), R2
	MOVD d+32(FP), R4
	MOVD cols+40(FP), R5
	LSL  $2, R4, R6          // row stride in bytes

gsblock:
	CBZ  R5, gsdone
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	MOVD R1, R9              // ids
	MOVD R2, R10             // rows left

gspair:
	CMP    $2, R10
	BLT    gsodd
	MOVW.P 4(R9), R11
	MOVW.P 4(R9), R12
	MUL    R6, R11, R11
	MUL    R6, R12, R12
	ADD    R3, R11, R11
	ADD    R3, R12, R12
	VLD1   (R11), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FADD4(20, 0, 0)
	FADD4(21, 1, 1)
	FADD4(22, 2, 2)
	FADD4(23, 3, 3)
	FADD4(24, 4, 4)
	FADD4(25, 5, 5)
	FADD4(26, 6, 6)
	FADD4(27, 7, 7)
	SUB    $2, R10
	B      gspair

gsodd:
	CBZ  R10, gsstore
	MOVW (R9), R11
	MUL  R6, R11, R11
	ADD  R3, R11, R11
	VLD1 (R11), [V20.S4, V21.S4, V22.S4, V23.S4]
	FADD4(20, 0, 0)
	FADD4(21, 1, 1)
	FADD4(22, 2, 2)
	FADD4(23, 3, 3)

gsstore:
	FADD4(4, 0, 0)
	FADD4(5, 1, 1)
	FADD4(6, 2, 2)
	FADD4(7, 3, 3)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	ADD    $64, R3
	SUB    $16, R5
	B      gsblock

gsdone:
	RET

// func dotRows4NEON(a *float32, stride int, x *float32, n int, dst *float32)
//
// dst[k] = Σ_{j<n} a[k·stride+j]·x[j] for k = 0..3 and n a multiple of 4:
// four dot products sharing the loads of x, four accumulators per row
// (row k in V4k-V4k+3).
TEXT ·dotRows4NEON(SB), NOSPLIT, $0-40
	MOVD a+0(FP), R0
	MOVD stride+8(FP), R4
	LSL  $2, R4, R4
	ADD  R4, R0, R1
	ADD  R4, R1, R2
	ADD  R4, R2, R3
	MOVD x+16(FP), R5
	MOVD n+24(FP), R6
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)

dr16:
	CMP    $16, R6
	BLT    dr4
	VLD1.P 64(R5), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R1), [V24.S4, V25.S4, V26.S4, V27.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V21.S4, V1.S4
	VFMLA  V18.S4, V22.S4, V2.S4
	VFMLA  V19.S4, V23.S4, V3.S4
	VFMLA  V16.S4, V24.S4, V4.S4
	VFMLA  V17.S4, V25.S4, V5.S4
	VFMLA  V18.S4, V26.S4, V6.S4
	VFMLA  V19.S4, V27.S4, V7.S4
	VLD1.P 64(R2), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R3), [V24.S4, V25.S4, V26.S4, V27.S4]
	VFMLA  V16.S4, V20.S4, V8.S4
	VFMLA  V17.S4, V21.S4, V9.S4
	VFMLA  V18.S4, V22.S4, V10.S4
	VFMLA  V19.S4, V23.S4, V11.S4
	VFMLA  V16.S4, V24.S4, V12.S4
	VFMLA  V17.S4, V25.S4, V13.S4
	VFMLA  V18.S4, V26.S4, V14.S4
	VFMLA  V19.S4, V27.S4, V15.S4
	SUB    $16, R6
	B      dr16

dr4:
	CMP    $4, R6
	BLT    drsum
	VLD1.P 16(R5), [V16.S4]
	VLD1.P 16(R0), [V20.S4]
	VLD1.P 16(R1), [V21.S4]
	VLD1.P 16(R2), [V22.S4]
	VLD1.P 16(R3), [V23.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V16.S4, V21.S4, V4.S4
	VFMLA  V16.S4, V22.S4, V8.S4
	VFMLA  V16.S4, V23.S4, V12.S4
	SUB    $4, R6
	B      dr4

drsum:
	FADD4(1, 0, 0)
	FADD4(3, 2, 2)
	FADD4(2, 0, 0)
	FADD4(5, 4, 4)
	FADD4(7, 6, 6)
	FADD4(6, 4, 4)
	FADD4(9, 8, 8)
	FADD4(11, 10, 10)
	FADD4(10, 8, 8)
	FADD4(13, 12, 12)
	FADD4(15, 14, 14)
	FADD4(14, 12, 12)
	FADDP4(4, 0, 0)          // r0 r0 r1 r1 (partial)
	FADDP4(12, 8, 8)         // r2 r2 r3 r3
	FADDP4(8, 0, 0)          // r0 r1 r2 r3
	MOVD dst+32(FP), R7
	VST1 [V0.S4], (R7)
	RET
