package transport

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"
)

// MapAnon reserves size bytes for the heap of a PE that lives in this
// process: a memfd mapped shared, as a process PE's heap is, so that its
// pages can be mapped a second time (shmem's AdoptPages, which gives
// MPI_Win_create's buffers to the heap) and freed by MADV_REMOVE. Pages
// are committed only when touched.
func MapAnon(size uint64) ([]byte, error) {
	fd, err := unix.MemfdCreate("gshmem-heap", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("transport: memfd_create: %w", err)
	}
	defer unix.Close(fd) // the mapping keeps the memory
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, fmt.Errorf("transport: sizing the %d-byte heap: %w", size, err)
	}
	return mapFd(fd, size)
}

// Unmap releases a mapping made by MapAnon.
func Unmap(b []byte) error { return unix.Munmap(b) }

// Allgather is the bootstrap's collective, as the transport needs it.
// (Connect, in connect.go, builds a process PE's heap and its peers' routes.)
type Allgather func(ctx context.Context, data []byte) ([][]byte, error)

func mapFd(fd int, size uint64) ([]byte, error) {
	b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("transport: mapping a %d-byte heap: %w", size, err)
	}
	return b, nil
}
