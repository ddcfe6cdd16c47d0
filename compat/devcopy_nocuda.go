//go:build !cuda

package compat

import "github.com/gshmem/gshmem/shmem"

// Without -tags cuda no World has a device heap, so no buffer is device
// memory and these are never reached; they say so if they are.

func devCopy(*shmem.World, uintptr, uintptr, int) error {
	return errorf(ClassOther, "device copy: this build has no CUDA backend (-tags cuda)")
}

func devSync(*shmem.World) error {
	return errorf(ClassOther, "device sync: this build has no CUDA backend (-tags cuda)")
}
