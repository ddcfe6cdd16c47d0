//go:build !purego

#include "textflag.h"

// The strided gathers of strided.go (gather_amd64.go says why): SSE2
// only, which every amd64 CPU has. Each moves n elements from src, stride
// bytes apart (any stride, negative too), to dst, packed; it reads and
// writes exactly those elements' bytes.

// func gather8(dst, src unsafe.Pointer, n, stride int)
TEXT ·gather8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	LEAQ (DX)(DX*2), R8  // 3 strides
	LEAQ (SI)(DX*4), R10 // the second four elements
loop8:
	CMPQ CX, $8
	JLT  tail
	// Two elements into each register, low and high half: one 16-byte
	// store for two loads, where a word loop stores once per element.
	MOVQ   (SI), X0
	MOVHPD (SI)(DX*1), X0
	MOVQ   (SI)(DX*2), X1
	MOVHPD (SI)(R8*1), X1
	MOVQ   (R10), X2
	MOVHPD (R10)(DX*1), X2
	MOVQ   (R10)(DX*2), X3
	MOVHPD (R10)(R8*1), X3
	MOVUPS X0, (DI)
	MOVUPS X1, 16(DI)
	MOVUPS X2, 32(DI)
	MOVUPS X3, 48(DI)
	SUBQ   $8, CX
	JEQ    done          // never a pointer past the last element
	LEAQ   (R10)(DX*4), SI
	LEAQ   (SI)(DX*4), R10
	ADDQ   $64, DI
	JMP    loop8
tail:
	TESTQ CX, CX
	JEQ   done
	MOVQ  (SI), AX
	MOVQ  AX, (DI)
	DECQ  CX
	JEQ   done
	ADDQ  DX, SI
	ADDQ  $8, DI
	JMP   tail
done:
	RET

// func gather4(dst, src unsafe.Pointer, n, stride int)
TEXT ·gather4(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	LEAQ (DX)(DX*2), R8
	LEAQ (SI)(DX*4), R10
loop8:
	CMPQ CX, $8
	JLT  tail
	// Four elements into each register, interleaved: one store for four.
	MOVL       (SI), X0
	MOVL       (SI)(DX*1), X1
	MOVL       (SI)(DX*2), X2
	MOVL       (SI)(R8*1), X3
	MOVL       (R10), X4
	MOVL       (R10)(DX*1), X5
	MOVL       (R10)(DX*2), X6
	MOVL       (R10)(R8*1), X7
	PUNPCKLLQ  X1, X0
	PUNPCKLLQ  X3, X2
	PUNPCKLLQ  X5, X4
	PUNPCKLLQ  X7, X6
	PUNPCKLQDQ X2, X0
	PUNPCKLQDQ X6, X4
	MOVUPS     X0, (DI)
	MOVUPS     X4, 16(DI)
	SUBQ       $8, CX
	JEQ        done
	LEAQ       (R10)(DX*4), SI
	LEAQ       (SI)(DX*4), R10
	ADDQ       $32, DI
	JMP        loop8
tail:
	TESTQ CX, CX
	JEQ   done
	MOVL  (SI), AX
	MOVL  AX, (DI)
	DECQ  CX
	JEQ   done
	ADDQ  DX, SI
	ADDQ  $4, DI
	JMP   tail
done:
	RET

// func gather4x2(dst, src unsafe.Pointer, n int)
//
// gather4 at stride 8 (every other int or float) in groups of eight,
// from 16-byte loads: n is a multiple of 8, and the 4 bytes after the
// last element are readable (the caller leaves the last one to gather4).
TEXT ·gather4x2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JEQ  done
loop:
	MOVUPS (SI), X0
	MOVUPS 16(SI), X1
	MOVUPS 32(SI), X2
	MOVUPS 48(SI), X3
	SHUFPS $0x88, X1, X0 // elements 0 and 2 of each
	SHUFPS $0x88, X3, X2
	MOVUPS X0, (DI)
	MOVUPS X2, 16(DI)
	SUBQ   $8, CX
	JLE    done
	ADDQ   $64, SI
	ADDQ   $32, DI
	JMP    loop
done:
	RET
