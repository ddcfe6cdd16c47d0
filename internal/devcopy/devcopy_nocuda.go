//go:build !cuda

package devcopy

import "github.com/gshmem/gshmem/shmem"

// Copy: see the cuda build. Here no World has a device heap.
func Copy(*shmem.World, uintptr, uintptr, int) error { return ErrUnsupported }

// Sync: see the cuda build.
func Sync(*shmem.World) error { return ErrUnsupported }
