//go:build !purego

package mpitype

import "unsafe"

// On amd64 a strided pack of 4- and 8-byte elements gathers them into
// 16-byte registers and stores those: a word loop stores once per
// element and is bound by stores (1 MiB of stride-2 doubles: 20 GB/s;
// these: 32 GB/s, the rate at which the 2 MiB the vector spans can be
// read, BenchmarkPackVector beside BenchmarkPackMemcpySpan). Unpacking
// stores once per element either way and stays in Go. The purego build
// tag leaves the Go loops alone on amd64 too.
const haveGather = true

//go:noescape
func gather8(dst, src unsafe.Pointer, n, stride int)

//go:noescape
func gather4(dst, src unsafe.Pointer, n, stride int)

//go:noescape
func gather4x2(dst, src unsafe.Pointer, n int)
