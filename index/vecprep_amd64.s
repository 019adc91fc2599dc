#include "textflag.h"

// QUANTIZE8 quantizes the 8 float32 values in Y0 to 8 int8 at (DI)(AX*1):
// round(x*127/m), half away from zero, as math.Round does: m in Y15; the
// constants QUANTIZE_CONSTS sets: 127 in Y14, the mask of a float64's
// magnitude in Y13, 0.5 in Y12, 1 in Y11. x*127 is exact, the division
// rounds as Go's does, and |x| - trunc(|x|) is exact.
#define QUANTIZE8 \
	VCVTPS2PD X0, Y1; \
	VEXTRACTF128 $1, Y0, X2; \
	VCVTPS2PD X2, Y2; \
	VMULPD Y14, Y1, Y1; \
	VMULPD Y14, Y2, Y2; \
	VDIVPD Y15, Y1, Y1; \
	VDIVPD Y15, Y2, Y2; \
	VANDPD Y13, Y1, Y3; \
	VANDPD Y13, Y2, Y4; \
	VROUNDPD $3, Y3, Y5; \
	VROUNDPD $3, Y4, Y6; \
	VSUBPD Y5, Y3, Y3; \
	VSUBPD Y6, Y4, Y4; \
	VCMPPD $0x1d, Y12, Y3, Y3; \
	VCMPPD $0x1d, Y12, Y4, Y4; \
	VANDPD Y11, Y3, Y3; \
	VANDPD Y11, Y4, Y4; \
	VADDPD Y3, Y5, Y5; \
	VADDPD Y4, Y6, Y6; \
	VANDNPD Y1, Y13, Y1; \
	VANDNPD Y2, Y13, Y2; \
	VORPD Y1, Y5, Y5; \
	VORPD Y2, Y6, Y6; \
	VCVTTPD2DQY Y5, X5; \
	VCVTTPD2DQY Y6, X6; \
	VPACKSSDW X6, X5, X5; \
	VPACKSSWB X5, X5, X5; \
	VMOVQ X5, (DI)(AX*1)

#define QUANTIZE_CONSTS \
	MOVQ $0x405fc00000000000, DX; \
	VMOVQ DX, X14; \
	VBROADCASTSD X14, Y14; \
	MOVQ $0x7fffffffffffffff, DX; \
	VMOVQ DX, X13; \
	VBROADCASTSD X13, Y13; \
	MOVQ $0x3fe0000000000000, DX; \
	VMOVQ DX, X12; \
	VBROADCASTSD X12, Y12; \
	MOVQ $0x3ff0000000000000, DX; \
	VMOVQ DX, X11; \
	VBROADCASTSD X11, Y11

// func halfEncodeF16C(dst *byte, src *float32, n int) (maxAbs uint16)
TEXT ·halfEncodeF16C(SB), NOSPLIT, $0-26
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fff7fff, AX
	VMOVD AX, X6
	VPBROADCASTD X6, X6
	VPXOR X7, X7, X7
	VPXOR X8, X8, X8
	XORQ AX, AX

encode16:
	LEAQ 16(AX), DX
	CMPQ DX, CX
	JGT  encode8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VCVTPS2PH $0, Y0, X2
	VCVTPS2PH $0, Y1, X3
	VMOVDQU X2, (DI)(AX*2)
	VMOVDQU X3, 16(DI)(AX*2)
	VPAND X6, X2, X2
	VPAND X6, X3, X3
	VPMAXUW X2, X7, X7
	VPMAXUW X3, X8, X8
	MOVQ DX, AX
	JMP  encode16

encode8:
	CMPQ AX, CX
	JGE  encoded
	VMOVUPS (SI)(AX*4), Y0
	VCVTPS2PH $0, Y0, X2
	VMOVDQU X2, (DI)(AX*2)
	VPAND X6, X2, X2
	VPMAXUW X2, X7, X7

encoded:
	VPMAXUW X8, X7, X7
	VPSHUFD $0x4e, X7, X1
	VPMAXUW X1, X7, X7
	VPSHUFD $0xb1, X7, X1
	VPMAXUW X1, X7, X7
	VPSRLD $16, X7, X1
	VPMAXUW X1, X7, X7
	VMOVQ X7, AX
	MOVW AX, maxAbs+24(FP)
	VZEROUPPER
	RET

// func halfDecodeF16C(dst *float32, src *byte, n int) (maxAbs uint16)
TEXT ·halfDecodeF16C(SB), NOSPLIT, $0-26
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fff7fff, AX
	VMOVD AX, X6
	VPBROADCASTD X6, X6
	VPXOR X7, X7, X7
	XORQ AX, AX

decode8:
	CMPQ AX, CX
	JGE  decoded
	VMOVDQU (SI)(AX*2), X2
	VCVTPH2PS X2, Y0
	VMOVUPS Y0, (DI)(AX*4)
	VPAND X6, X2, X2
	VPMAXUW X2, X7, X7
	ADDQ $8, AX
	JMP  decode8

decoded:
	VPSHUFD $0x4e, X7, X1
	VPMAXUW X1, X7, X7
	VPSHUFD $0xb1, X7, X1
	VPMAXUW X1, X7, X7
	VPSRLD $16, X7, X1
	VPMAXUW X1, X7, X7
	VMOVQ X7, AX
	MOVW AX, maxAbs+24(FP)
	VZEROUPPER
	RET

// func quantizeHalfAVX2(dst *int8, src *byte, n int, m float64)
TEXT ·quantizeHalfAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD m+24(FP), Y15
	QUANTIZE_CONSTS
	XORQ AX, AX

qhalf:
	CMPQ AX, CX
	JGE  qhalfdone
	VMOVDQU (SI)(AX*2), X0
	VCVTPH2PS X0, Y0
	QUANTIZE8
	ADDQ $8, AX
	JMP  qhalf

qhalfdone:
	VZEROUPPER
	RET

// func quantizeFloatAVX2(dst *int8, src *float32, n int, m float64)
TEXT ·quantizeFloatAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD m+24(FP), Y15
	QUANTIZE_CONSTS
	XORQ AX, AX

qfloat:
	CMPQ AX, CX
	JGE  qfloatdone
	VMOVUPS (SI)(AX*4), Y0
	QUANTIZE8
	ADDQ $8, AX
	JMP  qfloat

qfloatdone:
	VZEROUPPER
	RET

// func maxAbsBitsAVX2(src *float32, n int) uint32
TEXT ·maxAbsBitsAVX2(SB), NOSPLIT, $0-20
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVL $0x7fffffff, AX
	VMOVD AX, X6
	VPBROADCASTD X6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	XORQ AX, AX

max16:
	LEAQ 16(AX), DX
	CMPQ DX, CX
	JGT  max8
	VPAND (SI)(AX*4), Y6, Y0
	VPAND 32(SI)(AX*4), Y6, Y1
	VPMAXUD Y0, Y7, Y7
	VPMAXUD Y1, Y8, Y8
	MOVQ DX, AX
	JMP  max16

max8:
	CMPQ AX, CX
	JGE  maxdone
	VPAND (SI)(AX*4), Y6, Y0
	VPMAXUD Y0, Y7, Y7

maxdone:
	VPMAXUD Y8, Y7, Y7
	VEXTRACTI128 $1, Y7, X1
	VPMAXUD X1, X7, X7
	VPSHUFD $0x4e, X7, X1
	VPMAXUD X1, X7, X7
	VPSHUFD $0xb1, X7, X1
	VPMAXUD X1, X7, X7
	VMOVD X7, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET
