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

// func move16(dst, src unsafe.Pointer, n, dstride, sstride int)
//
// Moves n 16-byte elements, sstride bytes apart at src, to dst, dstride
// apart: a pack (dstride 16) or an unpack (sstride 16) of a vector of
// 16-byte elements. Go's loops of [2]uint64 words spill each one to the
// stack on its way.
TEXT ·move16(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ dstride+24(FP), DX
	MOVQ sstride+32(FP), BX
	LEAQ (DX)(DX*2), R8
	LEAQ (BX)(BX*2), R9
loop4:
	CMPQ CX, $4
	JLT  tail
	MOVUPS (SI), X0
	MOVUPS (SI)(BX*1), X1
	MOVUPS (SI)(BX*2), X2
	MOVUPS (SI)(R9*1), X3
	MOVUPS X0, (DI)
	MOVUPS X1, (DI)(DX*1)
	MOVUPS X2, (DI)(DX*2)
	MOVUPS X3, (DI)(R8*1)
	SUBQ   $4, CX
	JEQ    done
	LEAQ   (SI)(BX*4), SI
	LEAQ   (DI)(DX*4), DI
	JMP    loop4
tail:
	TESTQ  CX, CX
	JEQ    done
	MOVUPS (SI), X0
	MOVUPS X0, (DI)
	DECQ   CX
	JEQ    done
	ADDQ   BX, SI
	ADDQ   DX, DI
	JMP    tail
done:
	RET

// func scatter8(dst, src unsafe.Pointer, n, stride int)
//
// The unpack: n 8-byte elements, packed at src, to dst, stride bytes
// apart. A store per element either way; eight loads ahead of them.
TEXT ·scatter8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	LEAQ (DX)(DX*2), R8
	LEAQ (DI)(DX*4), R10
loop8:
	CMPQ CX, $8
	JLT  tail
	MOVQ (SI), AX
	MOVQ 8(SI), BX
	MOVQ 16(SI), R11
	MOVQ 24(SI), R12
	MOVQ AX, (DI)
	MOVQ BX, (DI)(DX*1)
	MOVQ R11, (DI)(DX*2)
	MOVQ R12, (DI)(R8*1)
	MOVQ 32(SI), AX
	MOVQ 40(SI), BX
	MOVQ 48(SI), R11
	MOVQ 56(SI), R12
	MOVQ AX, (R10)
	MOVQ BX, (R10)(DX*1)
	MOVQ R11, (R10)(DX*2)
	MOVQ R12, (R10)(R8*1)
	SUBQ $8, CX
	JEQ  done
	LEAQ (R10)(DX*4), DI
	LEAQ (DI)(DX*4), R10
	ADDQ $64, SI
	JMP  loop8
tail:
	TESTQ CX, CX
	JEQ   done
	MOVQ  (SI), AX
	MOVQ  AX, (DI)
	DECQ  CX
	JEQ   done
	ADDQ  DX, DI
	ADDQ  $8, SI
	JMP   tail
done:
	RET

// func scatter4(dst, src unsafe.Pointer, n, stride int)
//
// scatter8 of 4-byte elements: two per 8-byte load.
TEXT ·scatter4(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	LEAQ (DX)(DX*2), R8
	LEAQ (DI)(DX*4), R10
loop8:
	CMPQ CX, $8
	JLT  tail
	MOVQ (SI), AX
	MOVQ 8(SI), BX
	MOVQ 16(SI), R11
	MOVQ 24(SI), R12
	MOVL AX, (DI)
	SHRQ $32, AX
	MOVL AX, (DI)(DX*1)
	MOVL BX, (DI)(DX*2)
	SHRQ $32, BX
	MOVL BX, (DI)(R8*1)
	MOVL R11, (R10)
	SHRQ $32, R11
	MOVL R11, (R10)(DX*1)
	MOVL R12, (R10)(DX*2)
	SHRQ $32, R12
	MOVL R12, (R10)(R8*1)
	SUBQ $8, CX
	JEQ  done
	LEAQ (R10)(DX*4), DI
	LEAQ (DI)(DX*4), R10
	ADDQ $32, SI
	JMP  loop8
tail:
	TESTQ CX, CX
	JEQ   done
	MOVL  (SI), AX
	MOVL  AX, (DI)
	DECQ  CX
	JEQ   done
	ADDQ  DX, DI
	ADDQ  $4, SI
	JMP   tail
done:
	RET

// func moveN(dst, src unsafe.Pointer, count, n, dstride, sstride int)
//
// move16 for elements of n >= 16 bytes (a vector's blocks of several
// elements): 16 bytes at a time and the last 16 bytes of each element
// from n-16, which may overlap the ones before and rewrites those bytes
// with the same values; never a byte outside the element.
TEXT ·moveN(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ count+16(FP), CX
	MOVQ n+24(FP), R8
	MOVQ dstride+32(FP), DX
	MOVQ sstride+40(FP), BX
	LEAQ -16(R8), R9
	TESTQ CX, CX
	JEQ  done
elem:
	MOVUPS (SI)(R9*1), X1
	XORQ   AX, AX
chunk:
	CMPQ   AX, R9
	JGE    last
	MOVUPS (SI)(AX*1), X0
	MOVUPS X0, (DI)(AX*1)
	ADDQ   $16, AX
	JMP    chunk
last:
	MOVUPS X1, (DI)(R9*1)
	DECQ   CX
	JEQ    done
	ADDQ   BX, SI
	ADDQ   DX, DI
	JMP    elem
done:
	RET
