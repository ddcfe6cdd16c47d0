//go:build cuda

package cuda

import (
	"errors"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Transport is the cuda transport: offsets below ctrl (the control page:
// barrier counters, allocation agreement, doorbell) stay in the host heap
// and go to the host transport; every other offset is device memory in the
// Domain. Mapped returns nil (device memory is not host load/store
// memory), so the core takes its Put/Get paths.
type Transport struct {
	host  transport.Transport
	dev   *Domain
	ctrl  uint64
	dirty []atomic.Bool // PEs written since the last Quiet, to ring
}

var _ transport.Transport = (*Transport)(nil)

// NewTransport returns the transport over host (for the control page) and d.
func NewTransport(host transport.Transport, d *Domain, ctrl uint64) *Transport {
	return &Transport{host: host, dev: d, ctrl: ctrl, dirty: make([]atomic.Bool, d.cfg.NPEs)}
}

// Host returns the host transport of the control page.
func (t *Transport) Host() transport.Transport { return t.host }

// Domain returns the device heap.
func (t *Transport) Domain() *Domain { return t.dev }

// Mapped implements transport.Transport: nil, the heap is device memory.
func (t *Transport) Mapped(pe int) []byte { return nil }

// touch records a write to pe. The first write since the last Quiet rings
// pe at once (a waiter polls again; the value lands within microseconds);
// Quiet rings it again. Ringing every write would cost a futex wake each
// time a peer sleeps.
func (t *Transport) touch(pe int) {
	if !t.dirty[pe].Swap(true) {
		t.host.Notify(pe)
	}
}

// Put implements transport.Transport.
func (t *Transport) Put(pe int, off uint64, src []byte) error {
	if off < t.ctrl {
		return t.host.Put(pe, off, src)
	}
	err := t.dev.Put(pe, off, src)
	t.touch(pe)
	return err
}

// PutNBI implements transport.Transport (the same as Put: the copy is
// already asynchronous once src is staged).
func (t *Transport) PutNBI(pe int, off uint64, src []byte) error { return t.Put(pe, off, src) }

// Get implements transport.Transport.
func (t *Transport) Get(pe int, off uint64, dst []byte) error {
	if off < t.ctrl {
		return t.host.Get(pe, off, dst)
	}
	return t.dev.Get(pe, off, dst)
}

// GetNBI implements transport.Transport.
func (t *Transport) GetNBI(pe int, off uint64, dst []byte) error { return t.Get(pe, off, dst) }

// Atomic implements transport.Transport.
func (t *Transport) Atomic(pe int, off uint64, width int, op transport.AtomicOp, operand, compare uint64) (uint64, error) {
	if off < t.ctrl {
		return t.host.Atomic(pe, off, width, op, operand, compare)
	}
	old, err := t.dev.Atomic(pe, off, width, op, operand, compare)
	if op, _ := op.Split(); op != transport.OpLoad {
		if op == transport.OpStore {
			t.touch(pe)
		} else {
			t.host.Notify(pe) // the kernel has completed: wake the target now
		}
	}
	return old, err
}

// Notify implements transport.Transport.
func (t *Transport) Notify(pe int) { t.host.Notify(pe) }

// Fence implements transport.Transport: the PE's operations run in order on
// one stream.
func (t *Transport) Fence() error { return t.host.Fence() }

// Quiet implements transport.Transport: the stream is drained, then the
// PEs written to are woken.
func (t *Transport) Quiet() error {
	err := errors.Join(t.dev.Quiet(), t.host.Quiet())
	for pe := range t.dirty {
		if t.dirty[pe].Swap(false) {
			t.host.Notify(pe)
		}
	}
	return err
}

// Close implements transport.Transport.
func (t *Transport) Close() error {
	return errors.Join(t.dev.Close(), t.host.Close())
}
