package transport

import (
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// Shm reaches every peer by load/store through a local mapping of its heap:
// plain memory for PEs that are goroutines of one process, memfd mappings
// for processes of one node. Every operation completes before it returns, so
// the non-blocking forms are the blocking ones and Quiet and Fence only need
// the ordering that Go's atomics already give.
type Shm struct {
	heaps   [][]byte
	release func() error
}

// NewShm returns a transport over heaps, indexed by PE. release, if not nil,
// is called by Close (for example to unmap peers' heaps).
func NewShm(heaps [][]byte, release func() error) *Shm {
	return &Shm{heaps: heaps, release: release}
}

// Mapped implements Transport.
func (s *Shm) Mapped(pe int) []byte { return s.heaps[pe] }

// Put implements Transport.
func (s *Shm) Put(pe int, off uint64, src []byte) error {
	putInto(s.heaps[pe], off, src)
	return nil
}

// putInto, getFrom and atomicOn are the load/store operations on a mapped
// heap h, shared by Shm and Multi (which loads h once per call, since it
// may be mapped by another goroutine meanwhile).
func putInto(h []byte, off uint64, src []byte) {
	copy(h[off:off+uint64(len(src))], src)
	doorbell.Ring(h, false)
}

func getFrom(h []byte, off uint64, dst []byte) {
	copy(dst, h[off:off+uint64(len(dst))])
}

func atomicOn(h []byte, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	op, runtime := op.Split()
	if op > OpXor {
		return 0, fmt.Errorf("transport: unknown atomic op %d", op)
	}
	p := unsafe.Pointer(&h[off])
	if width != 4 && width != 8 {
		return 0, fmt.Errorf("transport: atomic width %d", width)
	}
	old := apply(p, width, op, operand, compare)
	if op != OpLoad {
		doorbell.Ring(h, runtime)
	}
	return old, nil
}

// PutNBI implements Transport.
func (s *Shm) PutNBI(pe int, off uint64, src []byte) error { return s.Put(pe, off, src) }

// Get implements Transport.
func (s *Shm) Get(pe int, off uint64, dst []byte) error {
	getFrom(s.heaps[pe], off, dst)
	return nil
}

// GetNBI implements Transport.
func (s *Shm) GetNBI(pe int, off uint64, dst []byte) error { return s.Get(pe, off, dst) }

// Atomic implements Transport.
func (s *Shm) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	return atomicOn(s.heaps[pe], off, width, op, operand, compare)
}

// apply runs op on the word of width bytes at p through the one
// hardware-atomic switch (atomicop), which the TCP server and the layers'
// direct stores into mapped peers share.
func apply(p unsafe.Pointer, width int, op AtomicOp, v, cmp uint64) uint64 {
	return atomicop.Apply(p, width, atomicop.Op(op), v, cmp)
}

// Notify implements Transport.
func (s *Shm) Notify(pe int) { doorbell.Ring(s.heaps[pe], true) }

// Fence implements Transport. Stores to mapped memory are already ordered.
func (s *Shm) Fence() error { return nil }

// Quiet implements Transport. Every operation completed when it returned.
func (s *Shm) Quiet() error { return nil }

// Close implements Transport.
func (s *Shm) Close() error {
	if s.release != nil {
		return s.release()
	}
	return nil
}
