//go:build !purego

#include "textflag.h"

// permute16AVX512 is permuteMonty on 16 states of width 16 at once, held
// in registers: Z0-Z15 hold element i of the 16 states, Z16 p, Z17
// -p^-1 mod 2^32, K3 the even dwords; Z18-Z25 are temporaries, Z26-Z31
// the field operations' own (their inputs are never Z26-Z31).

// ADDM sets r to a + b mod p (a, b below p).
#define ADDM(a, b, r) \
	VPADDD  a, b, r     \
	VPSUBD  Z16, r, Z31 \
	VPMINUD r, Z31, r

// DOUBLEM sets r to 2a mod p.
#define DOUBLEM(a, r) \
	VPSLLD  $1, a, r    \
	VPSUBD  Z16, r, Z31 \
	VPMINUD r, Z31, r

// MULM sets r to the Montgomery product a·b·2^-32 mod p, by 64-bit
// products of the even and the odd dwords (Plonky3's AVX-512 packing).
#define MULM(a, b, r) \
	VPSRLQ    $32, a, Z26   \
	VPSRLQ    $32, b, Z27   \
	VPMULUDQ  a, b, Z28     \
	VPMULUDQ  Z26, Z27, Z29 \
	VPMULUDQ  Z28, Z17, Z30 \
	VPMULUDQ  Z29, Z17, Z31 \
	VPMULUDQ  Z30, Z16, Z30 \
	VPMULUDQ  Z31, Z16, Z31 \
	VPADDQ    Z28, Z30, Z28 \
	VPADDQ    Z29, Z31, Z29 \
	VMOVSHDUP Z28, K3, Z29  \
	VPSUBD    Z16, Z29, Z31 \
	VPMINUD   Z29, Z31, r

// SQRM is MULM(a, a, r).
#define SQRM(a, r) \
	VPSRLQ    $32, a, Z26   \
	VPMULUDQ  a, a, Z28     \
	VPMULUDQ  Z26, Z26, Z29 \
	VPMULUDQ  Z28, Z17, Z30 \
	VPMULUDQ  Z29, Z17, Z31 \
	VPMULUDQ  Z30, Z16, Z30 \
	VPMULUDQ  Z31, Z16, Z31 \
	VPADDQ    Z28, Z30, Z28 \
	VPADDQ    Z29, Z31, Z29 \
	VMOVSHDUP Z28, K3, Z29  \
	VPSUBD    Z16, Z29, Z31 \
	VPMINUD   Z29, Z31, r

// MULC is MULM(a, c, r) for c a constant broadcast to every dword, whose
// odd dwords need no shift.
#define MULC(a, c, r) \
	VPSRLQ    $32, a, Z26   \
	VPMULUDQ  a, c, Z28     \
	VPMULUDQ  Z26, c, Z29   \
	VPMULUDQ  Z28, Z17, Z30 \
	VPMULUDQ  Z29, Z17, Z31 \
	VPMULUDQ  Z30, Z16, Z30 \
	VPMULUDQ  Z31, Z16, Z31 \
	VPADDQ    Z28, Z30, Z28 \
	VPADDQ    Z29, Z31, Z29 \
	VMOVSHDUP Z28, K3, Z29  \
	VPSUBD    Z16, Z29, Z31 \
	VPMINUD   Z29, Z31, r

#define SBOX3(x) \
	SQRM(x, Z21) \
	MULM(Z21, x, x)

#define SBOX7(x) \
	SQRM(x, Z21)      \
	MULM(Z21, x, Z22) \
	SQRM(Z21, Z23)    \
	MULM(Z22, Z23, x)

// M4 is Plonky3's MDSMat4 on one group of four, by its additions.
#define M4(x0, x1, x2, x3) \
	ADDM(x0, x1, Z18)   \
	ADDM(x2, x3, Z19)   \
	ADDM(Z18, Z19, Z20) \
	ADDM(Z20, x1, Z21)  \
	ADDM(Z20, x3, Z22)  \
	DOUBLEM(x0, Z23)    \
	DOUBLEM(x2, Z24)    \
	ADDM(Z22, Z23, x3)  \
	ADDM(Z21, Z24, x1)  \
	ADDM(Z21, Z18, x0)  \
	ADDM(Z22, Z19, x2)

// MDS is mdsLightAdd: M4 on each group, then each element plus the sum
// of the elements at its place in every group.
#define MDS \
	M4(Z0, Z1, Z2, Z3)     \
	M4(Z4, Z5, Z6, Z7)     \
	M4(Z8, Z9, Z10, Z11)   \
	M4(Z12, Z13, Z14, Z15) \
	ADDM(Z0, Z4, Z18)      \
	ADDM(Z8, Z12, Z19)     \
	ADDM(Z18, Z19, Z18)    \
	ADDM(Z1, Z5, Z19)      \
	ADDM(Z9, Z13, Z20)     \
	ADDM(Z19, Z20, Z19)    \
	ADDM(Z2, Z6, Z20)      \
	ADDM(Z10, Z14, Z21)    \
	ADDM(Z20, Z21, Z20)    \
	ADDM(Z3, Z7, Z21)      \
	ADDM(Z11, Z15, Z22)    \
	ADDM(Z21, Z22, Z21)    \
	ADDM(Z0, Z18, Z0)      \
	ADDM(Z4, Z18, Z4)      \
	ADDM(Z8, Z18, Z8)      \
	ADDM(Z12, Z18, Z12)    \
	ADDM(Z1, Z19, Z1)      \
	ADDM(Z5, Z19, Z5)      \
	ADDM(Z9, Z19, Z9)      \
	ADDM(Z13, Z19, Z13)    \
	ADDM(Z2, Z20, Z2)      \
	ADDM(Z6, Z20, Z6)      \
	ADDM(Z10, Z20, Z10)    \
	ADDM(Z14, Z20, Z14)    \
	ADDM(Z3, Z21, Z3)      \
	ADDM(Z7, Z21, Z7)      \
	ADDM(Z11, Z21, Z11)    \
	ADDM(Z15, Z21, Z15)

// RC adds the 16 round constants at SI to the state.
#define RC \
	VPBROADCASTD 0(SI), Z18  \
	ADDM(Z0, Z18, Z0)        \
	VPBROADCASTD 4(SI), Z18  \
	ADDM(Z1, Z18, Z1)        \
	VPBROADCASTD 8(SI), Z18  \
	ADDM(Z2, Z18, Z2)        \
	VPBROADCASTD 12(SI), Z18 \
	ADDM(Z3, Z18, Z3)        \
	VPBROADCASTD 16(SI), Z18 \
	ADDM(Z4, Z18, Z4)        \
	VPBROADCASTD 20(SI), Z18 \
	ADDM(Z5, Z18, Z5)        \
	VPBROADCASTD 24(SI), Z18 \
	ADDM(Z6, Z18, Z6)        \
	VPBROADCASTD 28(SI), Z18 \
	ADDM(Z7, Z18, Z7)        \
	VPBROADCASTD 32(SI), Z18 \
	ADDM(Z8, Z18, Z8)        \
	VPBROADCASTD 36(SI), Z18 \
	ADDM(Z9, Z18, Z9)        \
	VPBROADCASTD 40(SI), Z18 \
	ADDM(Z10, Z18, Z10)      \
	VPBROADCASTD 44(SI), Z18 \
	ADDM(Z11, Z18, Z11)      \
	VPBROADCASTD 48(SI), Z18 \
	ADDM(Z12, Z18, Z12)      \
	VPBROADCASTD 52(SI), Z18 \
	ADDM(Z13, Z18, Z13)      \
	VPBROADCASTD 56(SI), Z18 \
	ADDM(Z14, Z18, Z14)      \
	VPBROADCASTD 60(SI), Z18 \
	ADDM(Z15, Z18, Z15)      \
	ADDQ         $64, SI

#define SBOX3ALL \
	SBOX3(Z0)  \
	SBOX3(Z1)  \
	SBOX3(Z2)  \
	SBOX3(Z3)  \
	SBOX3(Z4)  \
	SBOX3(Z5)  \
	SBOX3(Z6)  \
	SBOX3(Z7)  \
	SBOX3(Z8)  \
	SBOX3(Z9)  \
	SBOX3(Z10) \
	SBOX3(Z11) \
	SBOX3(Z12) \
	SBOX3(Z13) \
	SBOX3(Z14) \
	SBOX3(Z15)

#define SBOX7ALL \
	SBOX7(Z0)  \
	SBOX7(Z1)  \
	SBOX7(Z2)  \
	SBOX7(Z3)  \
	SBOX7(Z4)  \
	SBOX7(Z5)  \
	SBOX7(Z6)  \
	SBOX7(Z7)  \
	SBOX7(Z8)  \
	SBOX7(Z9)  \
	SBOX7(Z10) \
	SBOX7(Z11) \
	SBOX7(Z12) \
	SBOX7(Z13) \
	SBOX7(Z14) \
	SBOX7(Z15)

// SUBM sets r to a - b mod p.
#define SUBM(a, b, r) \
	VPSUBD  b, a, r     \
	VPADDD  Z16, r, Z31 \
	VPMINUD r, Z31, r

// NEG2EXP sets x to x·2^-n mod p for p = 2^31 - 2^e + 1 (KoalaBear's e
// is 24, BabyBear's 27) and n at most e, where 2^-n = 2^(e-n) - 2^(31-n):
// with x = hi·2^n + lo, hi + lo·2^(e-n) - lo·2^(31-n), in (-p, p), plus
// p where negative. m is 32-n, j e-n and k 31-n.
#define NEG2EXP(x, n, m, j, k) \
	VPSRLD  n, x, Z26     \
	VPSLLD  m, x, Z27     \
	VPSRLD  m, Z27, Z27   \
	VPSLLD  j, Z27, Z28   \
	VPADDD  Z26, Z28, Z28 \
	VPSLLD  k, Z27, Z27   \
	VPSUBD  Z27, Z28, Z28 \
	VPADDD  Z16, Z28, Z29 \
	VPMINUD Z28, Z29, x

// DIAG sets x to V[i]·x, V[i] at off(R10).
#define DIAG(x, off) \
	VPBROADCASTD off(R10), Z20 \
	MULC(x, Z20, x)

// func permute16AVX512(s, ext, internal *uint32, nInternal int, diag *uint32, p, mu, degree, diagKind uint64)
TEXT ·permute16AVX512(SB), NOSPLIT, $0-72
	MOVQ s+0(FP), DI
	MOVQ ext+8(FP), SI
	MOVQ internal+16(FP), R8
	MOVQ nInternal+24(FP), R9
	MOVQ diag+32(FP), R10
	MOVQ p+40(FP), AX
	MOVQ mu+48(FP), BX
	MOVQ degree+56(FP), R11
	MOVQ diagKind+64(FP), R12
	VPBROADCASTD AX, Z16
	VPBROADCASTD BX, Z17
	MOVQ $0x5555, CX
	KMOVW CX, K3

	VMOVDQU32 0(DI), Z0
	VMOVDQU32 64(DI), Z1
	VMOVDQU32 128(DI), Z2
	VMOVDQU32 192(DI), Z3
	VMOVDQU32 256(DI), Z4
	VMOVDQU32 320(DI), Z5
	VMOVDQU32 384(DI), Z6
	VMOVDQU32 448(DI), Z7
	VMOVDQU32 512(DI), Z8
	VMOVDQU32 576(DI), Z9
	VMOVDQU32 640(DI), Z10
	VMOVDQU32 704(DI), Z11
	VMOVDQU32 768(DI), Z12
	VMOVDQU32 832(DI), Z13
	VMOVDQU32 896(DI), Z14
	VMOVDQU32 960(DI), Z15

	MDS

	// The 4 initial full rounds, then the 4 final ones after the partial
	// rounds (DX counts the halves).
	MOVQ $2, DX

half:
	MOVQ $4, CX

full:
	RC
	CMPQ R11, $3
	JNE  full7
	SBOX3ALL
	JMP  fullmds

full7:
	SBOX7ALL

fullmds:
	MDS
	DECQ CX
	JNZ  full
	DECQ DX
	JZ   done

	// The partial rounds.
	TESTQ R9, R9
	JZ    half

partial:
	VPBROADCASTD 0(R8), Z18
	ADDM(Z0, Z18, Z0)
	ADDQ $4, R8
	CMPQ R11, $3
	JNE  partial7
	SBOX3(Z0)
	JMP  partiallin

partial7:
	SBOX7(Z0)

partiallin:
	// The sum of s1..s15 (Z19) and their products with the diagonal do
	// not wait for s0's S-box: they run beside it.
	ADDM(Z1, Z2, Z19)
	ADDM(Z3, Z4, Z20)
	ADDM(Z5, Z6, Z24)
	ADDM(Z7, Z8, Z25)
	ADDM(Z9, Z10, Z18)
	ADDM(Z19, Z20, Z19)
	ADDM(Z24, Z25, Z24)
	ADDM(Z11, Z12, Z20)
	ADDM(Z13, Z14, Z25)
	ADDM(Z18, Z15, Z18)
	ADDM(Z19, Z24, Z19)
	ADDM(Z20, Z25, Z20)
	ADDM(Z19, Z18, Z19)
	ADDM(Z19, Z20, Z19)
	CMPQ R12, $1
	JEQ  partialkb
	CMPQ R12, $2
	JEQ  partialbb
	DIAG(Z1, 4)
	DIAG(Z2, 8)
	DIAG(Z3, 12)
	DIAG(Z4, 16)
	DIAG(Z5, 20)
	DIAG(Z6, 24)
	DIAG(Z7, 28)
	DIAG(Z8, 32)
	DIAG(Z9, 36)
	DIAG(Z10, 40)
	DIAG(Z11, 44)
	DIAG(Z12, 48)
	DIAG(Z13, 52)
	DIAG(Z14, 56)
	DIAG(Z15, 60)

	// Each element is the sum plus its product with the diagonal.
	ADDM(Z19, Z0, Z19)
	DIAG(Z0, 0)
	ADDM(Z0, Z19, Z0)
	ADDM(Z1, Z19, Z1)
	ADDM(Z2, Z19, Z2)
	ADDM(Z3, Z19, Z3)
	ADDM(Z4, Z19, Z4)
	ADDM(Z5, Z19, Z5)
	ADDM(Z6, Z19, Z6)
	ADDM(Z7, Z19, Z7)
	ADDM(Z8, Z19, Z8)
	ADDM(Z9, Z19, Z9)
	ADDM(Z10, Z19, Z10)
	ADDM(Z11, Z19, Z11)
	ADDM(Z12, Z19, Z12)
	ADDM(Z13, Z19, Z13)
	ADDM(Z14, Z19, Z14)
	ADDM(Z15, Z19, Z15)
	JMP  partialnext

partialkb:
	// KoalaBear16's diagonal, [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 2^-8,
	// 2^-3, 2^-24, -2^-8, -2^-3, -2^-4, -2^-24], by shifts and additions:
	// the magnitudes first, then the sum plus or minus each.
	DOUBLEM(Z2, Z2)
	NEG2EXP(Z3, $1, $31, $23, $30)
	DOUBLEM(Z4, Z18)
	ADDM(Z4, Z18, Z4)
	DOUBLEM(Z5, Z5)
	DOUBLEM(Z5, Z5)
	NEG2EXP(Z6, $1, $31, $23, $30)
	DOUBLEM(Z7, Z18)
	ADDM(Z7, Z18, Z7)
	DOUBLEM(Z8, Z8)
	DOUBLEM(Z8, Z8)
	NEG2EXP(Z9, $8, $24, $16, $23)
	NEG2EXP(Z10, $3, $29, $21, $28)
	NEG2EXP(Z11, $24, $8, $0, $7)
	NEG2EXP(Z12, $8, $24, $16, $23)
	NEG2EXP(Z13, $3, $29, $21, $28)
	NEG2EXP(Z14, $4, $28, $20, $27)
	NEG2EXP(Z15, $24, $8, $0, $7)
	ADDM(Z19, Z0, Z19)
	DOUBLEM(Z0, Z0)
	SUBM(Z19, Z0, Z0)
	ADDM(Z1, Z19, Z1)
	ADDM(Z2, Z19, Z2)
	ADDM(Z3, Z19, Z3)
	ADDM(Z4, Z19, Z4)
	ADDM(Z5, Z19, Z5)
	SUBM(Z19, Z6, Z6)
	SUBM(Z19, Z7, Z7)
	SUBM(Z19, Z8, Z8)
	ADDM(Z9, Z19, Z9)
	ADDM(Z10, Z19, Z10)
	ADDM(Z11, Z19, Z11)
	SUBM(Z19, Z12, Z12)
	SUBM(Z19, Z13, Z13)
	SUBM(Z19, Z14, Z14)
	SUBM(Z19, Z15, Z15)
	JMP  partialnext

partialbb:
	// BabyBear16's diagonal, [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 2^-8,
	// 2^-2, 2^-3, 2^-27, -2^-8, -2^-4, -2^-27], likewise.
	DOUBLEM(Z2, Z2)
	NEG2EXP(Z3, $1, $31, $26, $30)
	DOUBLEM(Z4, Z18)
	ADDM(Z4, Z18, Z4)
	DOUBLEM(Z5, Z5)
	DOUBLEM(Z5, Z5)
	NEG2EXP(Z6, $1, $31, $26, $30)
	DOUBLEM(Z7, Z18)
	ADDM(Z7, Z18, Z7)
	DOUBLEM(Z8, Z8)
	DOUBLEM(Z8, Z8)
	NEG2EXP(Z9, $8, $24, $19, $23)
	NEG2EXP(Z10, $2, $30, $25, $29)
	NEG2EXP(Z11, $3, $29, $24, $28)
	NEG2EXP(Z12, $27, $5, $0, $4)
	NEG2EXP(Z13, $8, $24, $19, $23)
	NEG2EXP(Z14, $4, $28, $23, $27)
	NEG2EXP(Z15, $27, $5, $0, $4)
	ADDM(Z19, Z0, Z19)
	DOUBLEM(Z0, Z0)
	SUBM(Z19, Z0, Z0)
	ADDM(Z1, Z19, Z1)
	ADDM(Z2, Z19, Z2)
	ADDM(Z3, Z19, Z3)
	ADDM(Z4, Z19, Z4)
	ADDM(Z5, Z19, Z5)
	SUBM(Z19, Z6, Z6)
	SUBM(Z19, Z7, Z7)
	SUBM(Z19, Z8, Z8)
	ADDM(Z9, Z19, Z9)
	ADDM(Z10, Z19, Z10)
	ADDM(Z11, Z19, Z11)
	ADDM(Z12, Z19, Z12)
	SUBM(Z19, Z13, Z13)
	SUBM(Z19, Z14, Z14)
	SUBM(Z19, Z15, Z15)

partialnext:
	DECQ R9
	JNZ  partial
	JMP  half

done:
	VMOVDQU32 Z0, 0(DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, 128(DI)
	VMOVDQU32 Z3, 192(DI)
	VMOVDQU32 Z4, 256(DI)
	VMOVDQU32 Z5, 320(DI)
	VMOVDQU32 Z6, 384(DI)
	VMOVDQU32 Z7, 448(DI)
	VMOVDQU32 Z8, 512(DI)
	VMOVDQU32 Z9, 576(DI)
	VMOVDQU32 Z10, 640(DI)
	VMOVDQU32 Z11, 704(DI)
	VMOVDQU32 Z12, 768(DI)
	VMOVDQU32 Z13, 832(DI)
	VMOVDQU32 Z14, 896(DI)
	VMOVDQU32 Z15, 960(DI)
	VZEROUPPER
	RET
