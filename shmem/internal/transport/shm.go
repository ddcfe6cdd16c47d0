package transport

import (
	"fmt"
	"sync/atomic"
	"unsafe"

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
	h := s.heaps[pe]
	copy(h[off:off+uint64(len(src))], src)
	doorbell.Ring(h, false)
	return nil
}

// PutNBI implements Transport.
func (s *Shm) PutNBI(pe int, off uint64, src []byte) error { return s.Put(pe, off, src) }

// Get implements Transport.
func (s *Shm) Get(pe int, off uint64, dst []byte) error {
	copy(dst, s.heaps[pe][off:off+uint64(len(dst))])
	return nil
}

// GetNBI implements Transport.
func (s *Shm) GetNBI(pe int, off uint64, dst []byte) error { return s.Get(pe, off, dst) }

// Atomic implements Transport.
func (s *Shm) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	op, runtime := op.Split()
	if op > OpXor {
		return 0, fmt.Errorf("transport: unknown atomic op %d", op)
	}
	h := s.heaps[pe]
	p := unsafe.Pointer(&h[off])
	var old uint64
	switch width {
	case 4:
		old = uint64(atomic32(p, op, uint32(operand), uint32(compare)))
	case 8:
		old = atomic64(p, op, operand, compare)
	default:
		return 0, fmt.Errorf("transport: atomic width %d", width)
	}
	if op != OpLoad {
		doorbell.Ring(h, runtime)
	}
	return old, nil
}

func atomic32(p unsafe.Pointer, op AtomicOp, v, cmp uint32) uint32 {
	w := (*uint32)(p)
	switch op {
	case OpLoad:
		return atomic.LoadUint32(w)
	case OpStore:
		atomic.StoreUint32(w, v)
		return 0
	case OpSwap:
		return atomic.SwapUint32(w, v)
	case OpCompareAndSwap:
		for {
			old := atomic.LoadUint32(w)
			if old != cmp || atomic.CompareAndSwapUint32(w, old, v) {
				return old
			}
		}
	case OpAdd:
		return atomic.AddUint32(w, v) - v
	case OpAnd:
		return atomic.AndUint32(w, v)
	case OpOr:
		return atomic.OrUint32(w, v)
	case OpXor:
		for {
			old := atomic.LoadUint32(w)
			if atomic.CompareAndSwapUint32(w, old, old^v) {
				return old
			}
		}
	}
	panic("transport: unknown atomic op")
}

func atomic64(p unsafe.Pointer, op AtomicOp, v, cmp uint64) uint64 {
	w := (*uint64)(p)
	switch op {
	case OpLoad:
		return atomic.LoadUint64(w)
	case OpStore:
		atomic.StoreUint64(w, v)
		return 0
	case OpSwap:
		return atomic.SwapUint64(w, v)
	case OpCompareAndSwap:
		for {
			old := atomic.LoadUint64(w)
			if old != cmp || atomic.CompareAndSwapUint64(w, old, v) {
				return old
			}
		}
	case OpAdd:
		return atomic.AddUint64(w, v) - v
	case OpAnd:
		return atomic.AndUint64(w, v)
	case OpOr:
		return atomic.OrUint64(w, v)
	case OpXor:
		for {
			old := atomic.LoadUint64(w)
			if atomic.CompareAndSwapUint64(w, old, old^v) {
				return old
			}
		}
	}
	panic("transport: unknown atomic op")
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
