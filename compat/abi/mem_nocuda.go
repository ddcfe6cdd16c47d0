//go:build !cuda

package main

import "github.com/gshmem/gshmem/shmem"

// devAlloc is never reached in the host build: a heap is never device
// memory there.
func devAlloc(*shmem.World, int) (uintptr, error) { return 0, shmem.ErrUnsupported }

// devFree: see devAlloc.
func devFree(*shmem.World, uintptr) error { return shmem.ErrUnsupported }
