//go:build !cuda

package devcopy

import "github.com/gshmem/gshmem/shmem"

// Copy: see the cuda build. Here no World has a device heap.
func Copy(*shmem.World, uintptr, uintptr, int) error { return ErrUnsupported }

// Sync: see the cuda build.
func Sync(*shmem.World) error { return ErrUnsupported }

// ToHostAfterCaller: see the cuda build.
func ToHostAfterCaller(*shmem.World, []byte, uintptr) error { return ErrUnsupported }

// FromHost: see the cuda build.
func FromHost(*shmem.World, uintptr, []byte) error { return ErrUnsupported }

// SyncCaller: see the cuda build.
func SyncCaller(*shmem.World) error { return ErrUnsupported }
