//go:build !purego

package mpitype

import "unsafe"

// On amd64 a strided pack of 4- and 8-byte elements gathers them into
// 16-byte registers and stores those: a word loop stores once per
// element and is bound by stores (1 MiB of stride-2 doubles: 0.45 of
// memcpy of the same bytes; these: 0.63, the rate at which the 2 MiB the
// vector spans can be read, which every pack must read). Unpacks store
// once per element either way, from eight loads ahead (Go's unrolled
// loops of [8]W arrays spill them to the stack: doubles 0.44 -> 0.62,
// ints 0.23 -> 0.36), and 16-byte elements move as one register each
// way, longer runs 16 bytes at a time (blocks of 3 doubles 0.22 -> 0.55,
// of 16 doubles 0.36 -> 0.80: Go's [3]uint64 words spill, and a copy call
// per block costs more than its bytes). The purego build tag leaves the
// Go loops alone on amd64 too.
const haveGather = true

//go:noescape
func gather8(dst, src unsafe.Pointer, n, stride int)

//go:noescape
func gather4(dst, src unsafe.Pointer, n, stride int)

//go:noescape
func gather4x2(dst, src unsafe.Pointer, n int)

//go:noescape
func move16(dst, src unsafe.Pointer, n, dstride, sstride int)

//go:noescape
func scatter8(dst, src unsafe.Pointer, n, stride int)

//go:noescape
func scatter4(dst, src unsafe.Pointer, n, stride int)

//go:noescape
func moveN(dst, src unsafe.Pointer, count, n, dstride, sstride int)
