//go:build !amd64 || purego

package mpitype

import "unsafe"

// haveGather is false: strided packs run the Go word loops.
const haveGather = false

func gather8(dst, src unsafe.Pointer, n, stride int) { panic("mpitype: no gather kernel") }
func gather4(dst, src unsafe.Pointer, n, stride int) { panic("mpitype: no gather kernel") }
func gather4x2(dst, src unsafe.Pointer, n int)       { panic("mpitype: no gather kernel") }

func move16(dst, src unsafe.Pointer, n, dstride, sstride int) { panic("mpitype: no gather kernel") }
func scatter8(dst, src unsafe.Pointer, n, stride int)         { panic("mpitype: no gather kernel") }
func scatter4(dst, src unsafe.Pointer, n, stride int)         { panic("mpitype: no gather kernel") }

func moveN(dst, src unsafe.Pointer, count, n, dstride, sstride int) {
	panic("mpitype: no gather kernel")
}
