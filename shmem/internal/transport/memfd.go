package transport

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"
)

// MapAnon reserves size bytes of private anonymous memory for the heap of a
// PE that lives in this process. Pages are touched only when used.
func MapAnon(size uint64) ([]byte, error) {
	return unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
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
