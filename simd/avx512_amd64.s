//go:build amd64 && !purego

#include "textflag.h"

// maskTab[r] (r = 0..64) holds four 16-bit lane masks selecting the first r
// float32 lanes of four consecutive ZMM registers: entry r, word j has
// min(16, max(0, r-16j)) low bits set.
DATA maskTab<>+0(SB)/8, $0x0000000000000000
DATA maskTab<>+8(SB)/8, $0x0000000000000001
DATA maskTab<>+16(SB)/8, $0x0000000000000003
DATA maskTab<>+24(SB)/8, $0x0000000000000007
DATA maskTab<>+32(SB)/8, $0x000000000000000f
DATA maskTab<>+40(SB)/8, $0x000000000000001f
DATA maskTab<>+48(SB)/8, $0x000000000000003f
DATA maskTab<>+56(SB)/8, $0x000000000000007f
DATA maskTab<>+64(SB)/8, $0x00000000000000ff
DATA maskTab<>+72(SB)/8, $0x00000000000001ff
DATA maskTab<>+80(SB)/8, $0x00000000000003ff
DATA maskTab<>+88(SB)/8, $0x00000000000007ff
DATA maskTab<>+96(SB)/8, $0x0000000000000fff
DATA maskTab<>+104(SB)/8, $0x0000000000001fff
DATA maskTab<>+112(SB)/8, $0x0000000000003fff
DATA maskTab<>+120(SB)/8, $0x0000000000007fff
DATA maskTab<>+128(SB)/8, $0x000000000000ffff
DATA maskTab<>+136(SB)/8, $0x000000000001ffff
DATA maskTab<>+144(SB)/8, $0x000000000003ffff
DATA maskTab<>+152(SB)/8, $0x000000000007ffff
DATA maskTab<>+160(SB)/8, $0x00000000000fffff
DATA maskTab<>+168(SB)/8, $0x00000000001fffff
DATA maskTab<>+176(SB)/8, $0x00000000003fffff
DATA maskTab<>+184(SB)/8, $0x00000000007fffff
DATA maskTab<>+192(SB)/8, $0x0000000000ffffff
DATA maskTab<>+200(SB)/8, $0x0000000001ffffff
DATA maskTab<>+208(SB)/8, $0x0000000003ffffff
DATA maskTab<>+216(SB)/8, $0x0000000007ffffff
DATA maskTab<>+224(SB)/8, $0x000000000fffffff
DATA maskTab<>+232(SB)/8, $0x000000001fffffff
DATA maskTab<>+240(SB)/8, $0x000000003fffffff
DATA maskTab<>+248(SB)/8, $0x000000007fffffff
DATA maskTab<>+256(SB)/8, $0x00000000ffffffff
DATA maskTab<>+264(SB)/8, $0x00000001ffffffff
DATA maskTab<>+272(SB)/8, $0x00000003ffffffff
DATA maskTab<>+280(SB)/8, $0x00000007ffffffff
DATA maskTab<>+288(SB)/8, $0x0000000fffffffff
DATA maskTab<>+296(SB)/8, $0x0000001fffffffff
DATA maskTab<>+304(SB)/8, $0x0000003fffffffff
DATA maskTab<>+312(SB)/8, $0x0000007fffffffff
DATA maskTab<>+320(SB)/8, $0x000000ffffffffff
DATA maskTab<>+328(SB)/8, $0x000001ffffffffff
DATA maskTab<>+336(SB)/8, $0x000003ffffffffff
DATA maskTab<>+344(SB)/8, $0x000007ffffffffff
DATA maskTab<>+352(SB)/8, $0x00000fffffffffff
DATA maskTab<>+360(SB)/8, $0x00001fffffffffff
DATA maskTab<>+368(SB)/8, $0x00003fffffffffff
DATA maskTab<>+376(SB)/8, $0x00007fffffffffff
DATA maskTab<>+384(SB)/8, $0x0000ffffffffffff
DATA maskTab<>+392(SB)/8, $0x0001ffffffffffff
DATA maskTab<>+400(SB)/8, $0x0003ffffffffffff
DATA maskTab<>+408(SB)/8, $0x0007ffffffffffff
DATA maskTab<>+416(SB)/8, $0x000fffffffffffff
DATA maskTab<>+424(SB)/8, $0x001fffffffffffff
DATA maskTab<>+432(SB)/8, $0x003fffffffffffff
DATA maskTab<>+440(SB)/8, $0x007fffffffffffff
DATA maskTab<>+448(SB)/8, $0x00ffffffffffffff
DATA maskTab<>+456(SB)/8, $0x01ffffffffffffff
DATA maskTab<>+464(SB)/8, $0x03ffffffffffffff
DATA maskTab<>+472(SB)/8, $0x07ffffffffffffff
DATA maskTab<>+480(SB)/8, $0x0fffffffffffffff
DATA maskTab<>+488(SB)/8, $0x1fffffffffffffff
DATA maskTab<>+496(SB)/8, $0x3fffffffffffffff
DATA maskTab<>+504(SB)/8, $0x7fffffffffffffff
DATA maskTab<>+512(SB)/8, $0xffffffffffffffff
GLOBL maskTab<>(SB), RODATA|NOPTR, $520

// LOADMASKS loads the four lane masks for r (0..64, in register reg) into
// K1-K4, using tmp for the table address.
#define LOADMASKS(reg, tmp) \
	LEAQ  maskTab<>(SB), tmp \
	KMOVW (tmp)(reg*8), K1 \
	KMOVW 2(tmp)(reg*8), K2 \
	KMOVW 4(tmp)(reg*8), K3 \
	KMOVW 6(tmp)(reg*8), K4

// TAILMASK sets K1 to the lanes of the last n mod 16 elements (clobbers AX, DX).
#define TAILMASK(n) \
	MOVQ  n, AX              \
	ANDQ  $15, AX            \
	LEAQ  maskTab<>(SB), DX  \
	KMOVW (DX)(AX*8), K1

// SHORTUNALIGNED(p, n, f) jumps to f, the AVX2 kernel with the same
// arguments, when p is not 64-byte aligned and n < 192: there the masked head
// step costs more than the wider vector gains (measured on Zen 5 at
// d = 100; even at d = 200).
#define SHORTUNALIGNED(p, n, f) \
	CMPQ  n, $192 \
	JAE   4(PC)   \
	TESTQ $63, p  \
	JZ    2(PC)   \
	JMP   f

// HEADMASK(p, n) sets AX to the elements before p's next 64-byte boundary,
// at most n (0 when p is aligned), and K1 to a mask of that many lanes: the
// kernels that store a stream peel that head with one masked step, so that
// their full-width stores never split a cache line (on AMD Zen 5 a split
// 64-byte store costs more than the wider vector gains).
#define HEADMASK(p, n) \
	MOVQ    p, AX               \
	NEGQ    AX                  \
	ANDQ    $63, AX             \
	SHRQ    $2, AX              \
	CMPQ    AX, n               \
	CMOVQGT n, AX               \
	LEAQ    maskTab<>(SB), DX   \
	KMOVW   (DX)(AX*8), K1

// AXPY64, AXPY16 and AXPYTAIL compute y += Z0·x on 64, 16 and the K1-masked
// tail of elements, y at DI and x at SI (clobber Z4-Z7).
#define AXPY64 \
	VMOVUPS     (DI), Z4         \
	VMOVUPS     64(DI), Z5       \
	VMOVUPS     128(DI), Z6      \
	VMOVUPS     192(DI), Z7      \
	VFMADD231PS (SI), Z0, Z4     \
	VFMADD231PS 64(SI), Z0, Z5   \
	VFMADD231PS 128(SI), Z0, Z6  \
	VFMADD231PS 192(SI), Z0, Z7  \
	VMOVUPS     Z4, (DI)         \
	VMOVUPS     Z5, 64(DI)       \
	VMOVUPS     Z6, 128(DI)      \
	VMOVUPS     Z7, 192(DI)

#define AXPY16 \
	VMOVUPS     (DI), Z4      \
	VFMADD231PS (SI), Z0, Z4  \
	VMOVUPS     Z4, (DI)

#define AXPYTAIL \
	VMOVUPS.Z   (DI), K1, Z4      \
	VFMADD231PS (SI), Z0, K1, Z4  \
	VMOVUPS     Z4, K1, (DI)

// HSUM reduces the 16 lanes of Z0 into the low lane of X0 with
// shuffles instead of horizontal adds (clobbers Z1).
#define HSUM \
	VEXTRACTF64X4 $1, Z0, Y1 \
	VADDPS        Y1, Y0, Y0 \
	VEXTRACTF128  $1, Y0, X1 \
	VADDPS        X1, X0, X0 \
	VMOVHLPS      X0, X1, X1 \
	VADDPS        X1, X0, X0 \
	VMOVSHDUP     X0, X1     \
	VADDSS        X1, X0, X0

// func dotAVX512(a, b *float32, n int) float32
TEXT ·dotAVX512(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   n+16(FP), CX
	TAILMASK(CX)
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ   CX, $64
	JB     dot16

dot64:
	VMOVUPS     (SI), Z4
	VMOVUPS     64(SI), Z5
	VMOVUPS     128(SI), Z6
	VMOVUPS     192(SI), Z7
	VFMADD231PS (DI), Z4, Z0
	VFMADD231PS 64(DI), Z5, Z1
	VFMADD231PS 128(DI), Z6, Z2
	VFMADD231PS 192(DI), Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         dot64
	VADDPS      Z2, Z0, Z0
	VADDPS      Z3, Z1, Z1

dot16:
	CMPQ        CX, $16
	JB          dottail
	VMOVUPS     (SI), Z4
	VFMADD231PS (DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JB          dottail
	VMOVUPS     (SI), Z5
	VFMADD231PS (DI), Z5, Z1
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	CMPQ        CX, $16
	JB          dottail
	VMOVUPS     (SI), Z4
	VFMADD231PS (DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX

dottail:
	TESTQ       CX, CX
	JZ          dotdone
	VMOVUPS.Z   (SI), K1, Z4
	VFMADD231PS (DI), Z4, K1, Z1

dotdone:
	VADDPS Z1, Z0, Z0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func axpyAVX512(alpha float32, x, y []float32)
TEXT ·axpyAVX512(SB), NOSPLIT, $0-56
	MOVQ         y_base+32(FP), DI
	MOVQ         x_len+16(FP), CX
	SHORTUNALIGNED(DI, CX, ·axpyAVX2(SB))
	VBROADCASTSS alpha+0(FP), Z0
	MOVQ         x_base+8(FP), SI
	HEADMASK(DI, CX)
	TESTQ        AX, AX
	JZ           axpybody
	AXPYTAIL
	LEAQ         (SI)(AX*4), SI
	LEAQ         (DI)(AX*4), DI
	SUBQ         AX, CX

axpybody:
	TAILMASK(CX)
	CMPQ         CX, $64
	JB           axpy16

axpy64:
	AXPY64
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         axpy64

axpy16:
	CMPQ        CX, $16
	JB          axpytail
	AXPY16
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         axpy16

axpytail:
	TESTQ       CX, CX
	JZ          axpydone
	AXPYTAIL

axpydone:
	VZEROUPPER
	RET

// func scaleAVX512(alpha float32, x []float32)
TEXT ·scaleAVX512(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Z0
	MOVQ         x_base+8(FP), DI
	MOVQ         x_len+16(FP), CX
	CMPQ         CX, $64
	JB           scale16

scale64:
	VMULPS  (DI), Z0, Z4
	VMULPS  64(DI), Z0, Z5
	VMULPS  128(DI), Z0, Z6
	VMULPS  192(DI), Z0, Z7
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	VMOVUPS Z6, 128(DI)
	VMOVUPS Z7, 192(DI)
	ADDQ    $256, DI
	SUBQ    $64, CX
	CMPQ    CX, $64
	JAE     scale64

scale16:
	CMPQ    CX, $16
	JB      scaletail
	VMULPS  (DI), Z0, Z4
	VMOVUPS Z4, (DI)
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     scale16

scaletail:
	TESTQ     CX, CX
	JZ        scaledone
	LEAQ      maskTab<>(SB), AX
	KMOVW     (AX)(CX*8), K1
	VMULPS.Z  (DI), Z0, K1, Z4
	VMOVUPS   Z4, K1, (DI)

scaledone:
	VZEROUPPER
	RET

// func addAVX512(dst, x []float32)
TEXT ·addAVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ dst_len+8(FP), CX
	CMPQ CX, $64
	JB   add16

add64:
	VMOVUPS (DI), Z4
	VMOVUPS 64(DI), Z5
	VMOVUPS 128(DI), Z6
	VMOVUPS 192(DI), Z7
	VADDPS  (SI), Z4, Z4
	VADDPS  64(SI), Z5, Z5
	VADDPS  128(SI), Z6, Z6
	VADDPS  192(SI), Z7, Z7
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	VMOVUPS Z6, 128(DI)
	VMOVUPS Z7, 192(DI)
	ADDQ    $256, SI
	ADDQ    $256, DI
	SUBQ    $64, CX
	CMPQ    CX, $64
	JAE     add64

add16:
	CMPQ    CX, $16
	JB      addtail
	VMOVUPS (DI), Z4
	VADDPS  (SI), Z4, Z4
	VMOVUPS Z4, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     add16

addtail:
	TESTQ     CX, CX
	JZ        adddone
	LEAQ      maskTab<>(SB), AX
	KMOVW     (AX)(CX*8), K1
	VMOVUPS.Z (DI), K1, Z4
	VADDPS    (SI), Z4, K1, Z4
	VMOVUPS   Z4, K1, (DI)

adddone:
	VZEROUPPER
	RET

// ZERO8 clears the eight accumulators Z0-Z7.
#define ZERO8 \
	VXORPS Z0, Z0, Z0 \
	VXORPS Z1, Z1, Z1 \
	VXORPS Z2, Z2, Z2 \
	VXORPS Z3, Z3, Z3 \
	VXORPS Z4, Z4, Z4 \
	VXORPS Z5, Z5, Z5 \
	VXORPS Z6, Z6, Z6 \
	VXORPS Z7, Z7, Z7

// STORE8 folds Z4-Z7 into Z0-Z3 and stores the masked block at (ptr).
#define STORE8(ptr) \
	VADDPS  Z4, Z0, Z0 \
	VADDPS  Z5, Z1, Z1 \
	VADDPS  Z6, Z2, Z2 \
	VADDPS  Z7, Z3, Z3 \
	VMOVUPS Z0, K1, (ptr) \
	VMOVUPS Z1, K2, 64(ptr) \
	VMOVUPS Z2, K3, 128(ptr) \
	VMOVUPS Z3, K4, 192(ptr)

// func weightedSumAVX512(dst, w, x []float32)
//
// dst is processed in blocks of 64 columns (the last one masked); each block
// accumulates all m rows in registers, two rows at a time into Z0-Z3 and
// Z4-Z7, and is stored once.
TEXT ·weightedSumAVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX   // d
	MOVQ w_base+24(FP), R8
	MOVQ w_len+32(FP), R9    // m
	MOVQ x_base+48(FP), SI
	MOVQ DX, R12
	SHLQ $2, R12             // row stride in bytes
	XORQ BX, BX              // column of this block

wsblock:
	CMPQ BX, DX
	JAE  wsdone
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $64
	JBE  wsmask
	MOVQ $64, AX

wsmask:
	LOADMASKS(AX, CX)
	ZERO8
	LEAQ (SI)(BX*4), R10     // row 0 of this block
	MOVQ R8, R11             // w
	MOVQ R9, CX              // rows left

wspair:
	CMPQ         CX, $2
	JB           wsodd
	VBROADCASTSS (R11), Z8
	VBROADCASTSS 4(R11), Z9
	LEAQ         (R10)(R12*1), R13
	VFMADD231PS  (R10), Z8, K1, Z0
	VFMADD231PS  64(R10), Z8, K2, Z1
	VFMADD231PS  128(R10), Z8, K3, Z2
	VFMADD231PS  192(R10), Z8, K4, Z3
	VFMADD231PS  (R13), Z9, K1, Z4
	VFMADD231PS  64(R13), Z9, K2, Z5
	VFMADD231PS  128(R13), Z9, K3, Z6
	VFMADD231PS  192(R13), Z9, K4, Z7
	LEAQ         (R13)(R12*1), R10
	ADDQ         $8, R11
	SUBQ         $2, CX
	JMP          wspair

wsodd:
	TESTQ        CX, CX
	JZ           wsstore
	VBROADCASTSS (R11), Z8
	VFMADD231PS  (R10), Z8, K1, Z0
	VFMADD231PS  64(R10), Z8, K2, Z1
	VFMADD231PS  128(R10), Z8, K3, Z2
	VFMADD231PS  192(R10), Z8, K4, Z3

wsstore:
	LEAQ (DI)(BX*4), R13
	STORE8(R13)
	ADDQ $64, BX
	JMP  wsblock

wsdone:
	VZEROUPPER
	RET

// func gatherSumAVX512(dst, table []float32, ids []int32)
//
// As weightedSumAVX512 with unit weights and rows table[ids[k]·d:].
TEXT ·gatherSumAVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX   // d
	MOVQ table_base+24(FP), SI
	MOVQ ids_base+48(FP), R8
	MOVQ ids_len+56(FP), R9  // number of rows
	MOVQ DX, R12
	SHLQ $2, R12             // row stride in bytes
	XORQ BX, BX              // column of this block

gsblock:
	CMPQ BX, DX
	JAE  gsdone
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $64
	JBE  gsmask
	MOVQ $64, AX

gsmask:
	LOADMASKS(AX, CX)
	ZERO8
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
	VADDPS  (AX), Z0, K1, Z0
	VADDPS  64(AX), Z1, K2, Z1
	VADDPS  128(AX), Z2, K3, Z2
	VADDPS  192(AX), Z3, K4, Z3
	VADDPS  (R13), Z4, K1, Z4
	VADDPS  64(R13), Z5, K2, Z5
	VADDPS  128(R13), Z6, K3, Z6
	VADDPS  192(R13), Z7, K4, Z7
	ADDQ    $8, R11
	SUBQ    $2, CX
	JMP     gspair

gsodd:
	TESTQ   CX, CX
	JZ      gsstore
	MOVLQSX (R11), AX
	IMULQ   R12, AX
	ADDQ    R10, AX
	VADDPS  (AX), Z0, K1, Z0
	VADDPS  64(AX), Z1, K2, Z1
	VADDPS  128(AX), Z2, K3, Z2
	VADDPS  192(AX), Z3, K4, Z3

gsstore:
	LEAQ (DI)(BX*4), R13
	STORE8(R13)
	ADDQ $64, BX
	JMP  gsblock

gsdone:
	VZEROUPPER
	RET

// func dotRows4AVX512(a *float32, stride int, x *float32, n int, dst *float32)
//
// dst[k] = Σ_j a[k·stride+j]·x[j] for k = 0..3 and j < n: four dot products
// sharing the loads of x, with two accumulators per row.
TEXT ·dotRows4AVX512(SB), NOSPLIT, $0-40
	MOVQ   a+0(FP), R8
	MOVQ   stride+8(FP), R12
	SHLQ   $2, R12
	LEAQ   (R8)(R12*1), R9
	LEAQ   (R9)(R12*1), R10
	LEAQ   (R10)(R12*1), R11
	MOVQ   x+16(FP), SI
	MOVQ   n+24(FP), CX
	ZERO8
	CMPQ   CX, $32
	JB     dr16

dr32:
	VMOVUPS     (SI), Z8
	VMOVUPS     64(SI), Z9
	VFMADD231PS (R8), Z8, Z0
	VFMADD231PS (R9), Z8, Z1
	VFMADD231PS (R10), Z8, Z2
	VFMADD231PS (R11), Z8, Z3
	VFMADD231PS 64(R8), Z9, Z4
	VFMADD231PS 64(R9), Z9, Z5
	VFMADD231PS 64(R10), Z9, Z6
	VFMADD231PS 64(R11), Z9, Z7
	ADDQ        $128, SI
	ADDQ        $128, R8
	ADDQ        $128, R9
	ADDQ        $128, R10
	ADDQ        $128, R11
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         dr32

dr16:
	CMPQ        CX, $16
	JB          drtail
	VMOVUPS     (SI), Z8
	VFMADD231PS (R8), Z8, Z0
	VFMADD231PS (R9), Z8, Z1
	VFMADD231PS (R10), Z8, Z2
	VFMADD231PS (R11), Z8, Z3
	ADDQ        $64, SI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, R11
	SUBQ        $16, CX

drtail:
	TESTQ       CX, CX
	JZ          drsum
	LEAQ        maskTab<>(SB), AX
	KMOVW       (AX)(CX*8), K1
	VMOVUPS.Z   (SI), K1, Z8
	VFMADD231PS (R8), Z8, K1, Z4
	VFMADD231PS (R9), Z8, K1, Z5
	VFMADD231PS (R10), Z8, K1, Z6
	VFMADD231PS (R11), Z8, K1, Z7

drsum:
	VADDPS        Z4, Z0, Z0
	VADDPS        Z5, Z1, Z1
	VADDPS        Z6, Z2, Z2
	VADDPS        Z7, Z3, Z3
	VEXTRACTF64X4 $1, Z0, Y4
	VEXTRACTF64X4 $1, Z1, Y5
	VEXTRACTF64X4 $1, Z2, Y6
	VEXTRACTF64X4 $1, Z3, Y7
	VADDPS        Y4, Y0, Y0
	VADDPS        Y5, Y1, Y1
	VADDPS        Y6, Y2, Y2
	VADDPS        Y7, Y3, Y3
	VEXTRACTF128  $1, Y0, X4
	VEXTRACTF128  $1, Y1, X5
	VEXTRACTF128  $1, Y2, X6
	VEXTRACTF128  $1, Y3, X7
	VADDPS        X4, X0, X0
	VADDPS        X5, X1, X1
	VADDPS        X6, X2, X2
	VADDPS        X7, X3, X3
	VHADDPS       X1, X0, X0
	VHADDPS       X3, X2, X2
	VHADDPS       X2, X0, X0
	MOVQ          dst+32(FP), DI
	VMOVUPS       X0, (DI)
	VZEROUPPER
	RET

// FOLD reduces the 512-bit accumulator z to a 128-bit partial sum in its low
// lane group using 512-bit adds only (so no AVX-512VL), with temporary t.
#define FOLD(z, ty, tx, tz) \
	VEXTRACTF64X4 $1, z, ty \
	VADDPS        tz, z, z  \
	VEXTRACTF32X4 $1, z, tx \
	VADDPS        tz, z, z

// HADD4 stores the four sums of the folded accumulators x0..x3 at (ptr).
#define HADD4(x0, x1, x2, x3, ptr) \
	VHADDPS x1, x0, x0 \
	VHADDPS x3, x2, x2 \
	VHADDPS x2, x0, x0 \
	VMOVUPS x0, (ptr)

// GRAMSTEP multiplies the loaded rows Z16-Z19 (a) with Z20-Z23 (b) into the
// 16 accumulators Z0-Z15 (Z(4r+c) += a_r·b_c).
#define GRAMSTEP \
	VFMADD231PS Z20, Z16, Z0  \
	VFMADD231PS Z21, Z16, Z1  \
	VFMADD231PS Z22, Z16, Z2  \
	VFMADD231PS Z23, Z16, Z3  \
	VFMADD231PS Z20, Z17, Z4  \
	VFMADD231PS Z21, Z17, Z5  \
	VFMADD231PS Z22, Z17, Z6  \
	VFMADD231PS Z23, Z17, Z7  \
	VFMADD231PS Z20, Z18, Z8  \
	VFMADD231PS Z21, Z18, Z9  \
	VFMADD231PS Z22, Z18, Z10 \
	VFMADD231PS Z23, Z18, Z11 \
	VFMADD231PS Z20, Z19, Z12 \
	VFMADD231PS Z21, Z19, Z13 \
	VFMADD231PS Z22, Z19, Z14 \
	VFMADD231PS Z23, Z19, Z15

// func dot4x4AVX512(a, b *float32, stride, n int, dst *float32, dstStride int)
//
// dst[r·dstStride+c] = Σ_{j<n} a[r·stride+j]·b[c·stride+j] for r, c = 0..3:
// a 4×4 block of X·Yᵀ with every loaded vector used four times.
TEXT ·dot4x4AVX512(SB), NOSPLIT, $0-48
	MOVQ   a+0(FP), R8
	MOVQ   b+8(FP), SI
	MOVQ   stride+16(FP), R12
	SHLQ   $2, R12
	LEAQ   (R8)(R12*1), R9
	LEAQ   (R9)(R12*1), R10
	LEAQ   (R10)(R12*1), R11
	LEAQ   (SI)(R12*1), DI
	LEAQ   (DI)(R12*1), BX
	LEAQ   (BX)(R12*1), DX
	MOVQ   n+24(FP), CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	VXORPS Z14, Z14, Z14
	VXORPS Z15, Z15, Z15
	XORQ   AX, AX            // byte offset
	CMPQ   CX, $16
	JB     g4tail

g4loop:
	VMOVUPS (R8)(AX*1), Z16
	VMOVUPS (R9)(AX*1), Z17
	VMOVUPS (R10)(AX*1), Z18
	VMOVUPS (R11)(AX*1), Z19
	VMOVUPS (SI)(AX*1), Z20
	VMOVUPS (DI)(AX*1), Z21
	VMOVUPS (BX)(AX*1), Z22
	VMOVUPS (DX)(AX*1), Z23
	GRAMSTEP
	ADDQ    $64, AX
	SUBQ    $16, CX
	CMPQ    CX, $16
	JAE     g4loop

g4tail:
	TESTQ     CX, CX
	JZ        g4sum
	LEAQ      maskTab<>(SB), R13
	KMOVW     (R13)(CX*8), K1
	VMOVUPS.Z (R8)(AX*1), K1, Z16
	VMOVUPS.Z (R9)(AX*1), K1, Z17
	VMOVUPS.Z (R10)(AX*1), K1, Z18
	VMOVUPS.Z (R11)(AX*1), K1, Z19
	VMOVUPS.Z (SI)(AX*1), K1, Z20
	VMOVUPS.Z (DI)(AX*1), K1, Z21
	VMOVUPS.Z (BX)(AX*1), K1, Z22
	VMOVUPS.Z (DX)(AX*1), K1, Z23
	GRAMSTEP

g4sum:
	FOLD(Z0, Y16, X16, Z16)
	FOLD(Z1, Y17, X17, Z17)
	FOLD(Z2, Y18, X18, Z18)
	FOLD(Z3, Y19, X19, Z19)
	FOLD(Z4, Y20, X20, Z20)
	FOLD(Z5, Y21, X21, Z21)
	FOLD(Z6, Y22, X22, Z22)
	FOLD(Z7, Y23, X23, Z23)
	FOLD(Z8, Y24, X24, Z24)
	FOLD(Z9, Y25, X25, Z25)
	FOLD(Z10, Y26, X26, Z26)
	FOLD(Z11, Y27, X27, Z27)
	FOLD(Z12, Y28, X28, Z28)
	FOLD(Z13, Y29, X29, Z29)
	FOLD(Z14, Y30, X30, Z30)
	FOLD(Z15, Y31, X31, Z31)
	MOVQ      dst+32(FP), DI
	MOVQ      dstStride+40(FP), R12
	SHLQ      $2, R12
	HADD4(X0, X1, X2, X3, DI)
	ADDQ      R12, DI
	HADD4(X4, X5, X6, X7, DI)
	ADDQ      R12, DI
	HADD4(X8, X9, X10, X11, DI)
	ADDQ      R12, DI
	HADD4(X12, X13, X14, X15, DI)
	VZEROUPPER
	RET

// func rank1AVX512(a []float32, rows, cols int, alpha float32, x, y []float32)
//
// A[r,:] += (alpha·x[r])·y for every row, as one loop nest: an Axpy per row
// without a call per row. The tail mask of a row is computed once.
TEXT ·rank1AVX512(SB), NOSPLIT, $0-96
	MOVQ         a_base+0(FP), DI
	MOVQ         rows+24(FP), R8
	MOVQ         cols+32(FP), R9
	VBROADCASTSS alpha+40(FP), Z1
	MOVQ         x_base+48(FP), R10
	MOVQ         y_base+72(FP), R11
	TAILMASK(R9)
	TESTQ        R8, R8
	JZ           r1done

r1row:
	VMULSS       (R10), X1, X0
	VBROADCASTSS X0, Z0          // alpha·x[r]
	MOVQ         R11, SI
	MOVQ         R9, CX
	CMPQ         CX, $64
	JB           r1c16

r1c64:
	AXPY64
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         r1c64

r1c16:
	CMPQ        CX, $16
	JB          r1tail
	AXPY16
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         r1c16

r1tail:
	TESTQ       CX, CX
	JZ          r1next
	AXPYTAIL
	LEAQ        (DI)(CX*4), DI

r1next:
	ADDQ $4, R10
	DECQ R8
	JNZ  r1row

r1done:
	VZEROUPPER
	RET

// func rank2AVX512(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32)
//
// A[r,:] += (alpha·x1[r])·y1 + (alpha·x2[r])·y2: both updates in one pass
// over A.
TEXT ·rank2AVX512(SB), NOSPLIT, $0-144
	MOVQ         a_base+0(FP), DI
	MOVQ         rows+24(FP), R8
	MOVQ         cols+32(FP), R9
	VBROADCASTSS alpha+40(FP), Z1
	MOVQ         x1_base+48(FP), R10
	MOVQ         y1_base+72(FP), R11
	MOVQ         x2_base+96(FP), R12
	MOVQ         y2_base+120(FP), R13
	TAILMASK(R9)
	TESTQ        R8, R8
	JZ           r2done

r2row:
	VMULSS       (R10), X1, X0
	VBROADCASTSS X0, Z0          // alpha·x1[r]
	VMULSS       (R12), X1, X2
	VBROADCASTSS X2, Z2          // alpha·x2[r]
	MOVQ         R11, SI
	MOVQ         R13, BX
	MOVQ         R9, CX
	CMPQ         CX, $64
	JB           r2c16

r2c64:
	VMOVUPS     (DI), Z4
	VMOVUPS     64(DI), Z5
	VMOVUPS     128(DI), Z6
	VMOVUPS     192(DI), Z7
	VFMADD231PS (SI), Z0, Z4
	VFMADD231PS 64(SI), Z0, Z5
	VFMADD231PS 128(SI), Z0, Z6
	VFMADD231PS 192(SI), Z0, Z7
	VFMADD231PS (BX), Z2, Z4
	VFMADD231PS 64(BX), Z2, Z5
	VFMADD231PS 128(BX), Z2, Z6
	VFMADD231PS 192(BX), Z2, Z7
	VMOVUPS     Z4, (DI)
	VMOVUPS     Z5, 64(DI)
	VMOVUPS     Z6, 128(DI)
	VMOVUPS     Z7, 192(DI)
	ADDQ        $256, SI
	ADDQ        $256, BX
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         r2c64

r2c16:
	CMPQ        CX, $16
	JB          r2tail
	VMOVUPS     (DI), Z4
	VFMADD231PS (SI), Z0, Z4
	VFMADD231PS (BX), Z2, Z4
	VMOVUPS     Z4, (DI)
	ADDQ        $64, SI
	ADDQ        $64, BX
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         r2c16

r2tail:
	TESTQ       CX, CX
	JZ          r2next
	VMOVUPS.Z   (DI), K1, Z4
	VFMADD231PS (SI), Z0, K1, Z4
	VFMADD231PS (BX), Z2, K1, Z4
	VMOVUPS     Z4, K1, (DI)
	LEAQ        (DI)(CX*4), DI

r2next:
	ADDQ $4, R10
	ADDQ $4, R12
	DECQ R8
	JNZ  r2row

r2done:
	VZEROUPPER
	RET

// PAIRSTEP updates one 16-lane group at byte offset off: acc += alpha·b and
// b += alpha·a, with the old b (Z0 holds alpha).
#define PAIRSTEP(off, zb, zc) \
	VMOVUPS     off(DI), zb      \
	VMOVUPS     off(R8), zc      \
	VFMADD231PS zb, Z0, zc       \
	VFMADD231PS off(SI), Z0, zb  \
	VMOVUPS     zc, off(R8)      \
	VMOVUPS     zb, off(DI)

// PAIRTAIL is PAIRSTEP on the K1-masked lanes.
#define PAIRTAIL \
	VMOVUPS.Z   (DI), K1, Z4        \
	VMOVUPS.Z   (R8), K1, Z8        \
	VFMADD231PS Z4, Z0, Z8          \
	VFMADD231PS (SI), Z0, K1, Z4    \
	VMOVUPS     Z8, K1, (R8)        \
	VMOVUPS     Z4, K1, (DI)

// func pairAxpyAVX512(alpha float32, a, b, acc []float32)
TEXT ·pairAxpyAVX512(SB), NOSPLIT, $0-80
	MOVQ         b_base+32(FP), DI
	MOVQ         a_len+16(FP), CX
	SHORTUNALIGNED(DI, CX, ·pairAxpyAVX2(SB))
	VBROADCASTSS alpha+0(FP), Z0
	MOVQ         a_base+8(FP), SI
	MOVQ         acc_base+56(FP), R8
	HEADMASK(DI, CX)
	TESTQ        AX, AX
	JZ           pairbody
	PAIRTAIL
	LEAQ         (SI)(AX*4), SI
	LEAQ         (DI)(AX*4), DI
	LEAQ         (R8)(AX*4), R8
	SUBQ         AX, CX

pairbody:
	TAILMASK(CX)
	CMPQ         CX, $64
	JB           pair16

pair64:
	PAIRSTEP(0, Z4, Z8)
	PAIRSTEP(64, Z5, Z9)
	PAIRSTEP(128, Z6, Z10)
	PAIRSTEP(192, Z7, Z11)
	ADDQ $256, SI
	ADDQ $256, DI
	ADDQ $256, R8
	SUBQ $64, CX
	CMPQ CX, $64
	JAE  pair64

pair16:
	CMPQ CX, $16
	JB   pairtail
	PAIRSTEP(0, Z4, Z8)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	SUBQ $16, CX
	JMP  pair16

pairtail:
	TESTQ       CX, CX
	JZ          pairdone
	PAIRTAIL

pairdone:
	VZEROUPPER
	RET

// func gatherAxpyAVX512(dst, table []float32, ids []int32, w []float32)
//
// dst += Σ_k w[k]·table[ids[k]·d:]: as gatherSumAVX512 with weights,
// starting from dst. R9 is the end of ids; R11 and CX walk ids and w.
TEXT ·gatherAxpyAVX512(SB), NOSPLIT, $0-96
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
	CMPQ BX, DX
	JAE  gadone
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $64
	JBE  gamask
	MOVQ $64, AX

gamask:
	LOADMASKS(AX, CX)
	LEAQ      (DI)(BX*4), R13
	VMOVUPS.Z (R13), K1, Z0
	VMOVUPS.Z 64(R13), K2, Z1
	VMOVUPS.Z 128(R13), K3, Z2
	VMOVUPS.Z 192(R13), K4, Z3
	VXORPS    Z4, Z4, Z4
	VXORPS    Z5, Z5, Z5
	VXORPS    Z6, Z6, Z6
	VXORPS    Z7, Z7, Z7
	LEAQ      (SI)(BX*4), R10 // table at this block's column
	MOVQ      R8, R11         // ids
	MOVQ      R14, CX         // w

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
	VBROADCASTSS (CX), Z8
	VBROADCASTSS 4(CX), Z9
	VFMADD231PS  (AX), Z8, K1, Z0
	VFMADD231PS  64(AX), Z8, K2, Z1
	VFMADD231PS  128(AX), Z8, K3, Z2
	VFMADD231PS  192(AX), Z8, K4, Z3
	VFMADD231PS  (R13), Z9, K1, Z4
	VFMADD231PS  64(R13), Z9, K2, Z5
	VFMADD231PS  128(R13), Z9, K3, Z6
	VFMADD231PS  192(R13), Z9, K4, Z7
	ADDQ         $8, R11
	ADDQ         $8, CX
	JMP          gapair

gaodd:
	CMPQ         R11, R9
	JAE          gastore
	MOVLQSX      (R11), AX
	IMULQ        R12, AX
	ADDQ         R10, AX
	VBROADCASTSS (CX), Z8
	VFMADD231PS  (AX), Z8, K1, Z0
	VFMADD231PS  64(AX), Z8, K2, Z1
	VFMADD231PS  128(AX), Z8, K3, Z2
	VFMADD231PS  192(AX), Z8, K4, Z3

gastore:
	LEAQ (DI)(BX*4), R13
	STORE8(R13)
	ADDQ $64, BX
	JMP  gablock

gadone:
	VZEROUPPER
	RET
