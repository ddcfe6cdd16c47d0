package transport

import (
	"fmt"
)

// Stream is an independent sequence of operations on the peers' heaps:
// what a communication context (shmem.Ctx) issues through. Its Quiet
// completes its own operations only, and a peer applies the operations of
// different streams independently. Offsets are checked by the caller, as
// for Transport.
type Stream interface {
	Put(pe int, off uint64, src []byte) error
	Get(pe int, off uint64, dst []byte) error
	GetNBI(pe int, off uint64, dst []byte) error
	Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error)
	// AtomicNBI is Atomic that does not wait: the old value lands in dst
	// (width bytes) by the time Quiet returns.
	AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error
	// Accumulate applies a to a peer's heap that is not mapped here, as
	// one message; a fetching one waits for the old values, the others
	// complete by Quiet.
	Accumulate(pe int, a *Acc) error
	Quiet() error
	// Close completes the stream's operations and releases it.
	Close() error
}

// AtomicNBI implements Stream for the PE's own stream. Mapped peers
// complete at once, with Atomic's check for a lost peer.
func (m *Multi) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	if m.heap(pe) != nil || m.Local(pe) {
		old, err := m.Atomic(pe, off, width, op, operand, compare)
		putBits(dst, old)
		return err
	}
	if base, _ := op.Split(); base > OpXor || (width != 4 && width != 8) {
		return fmt.Errorf("transport: atomic op %d of width %d", op, width)
	}
	return m.rem.AtomicNBI(pe, off, width, op, operand, compare, dst)
}

// Accumulate implements Stream for the PE's own stream.
func (m *Multi) Accumulate(pe int, a *Acc) error {
	if m.Local(pe) || m.rem == nil {
		if _, err := m.mapLocal(pe); err != nil {
			return err // a node-local peer that is gone
		}
		return fmt.Errorf("transport: accumulate to PE %d, whose heap is mapped: apply it directly", pe)
	}
	return m.rem.Accumulate(pe, a)
}

// NewStream opens a stream of its own for a context: tcp peers get
// connections of their own; mapped peers complete every operation at once
// and need none. It returns nil when no peer is reached over tcp (the
// PE's own operations are then as independent as a stream's).
func (m *Multi) NewStream() Stream {
	m.tcpMu.Lock()
	t := m.tcp
	m.tcpMu.Unlock()
	if t == nil {
		return nil
	}
	return &multiStream{m: m, ts: t.newStream()}
}

type multiStream struct {
	m  *Multi
	ts *tcpStream
}

func (s *multiStream) Put(pe int, off uint64, src []byte) error {
	if h := s.m.heap(pe); h != nil {
		putInto(h, off, src)
		return nil
	}
	if s.m.Local(pe) {
		return s.m.Put(pe, off, src)
	}
	return s.ts.Put(pe, off, src)
}

func (s *multiStream) Get(pe int, off uint64, dst []byte) error {
	if h := s.m.heap(pe); h != nil {
		getFrom(h, off, dst)
		return nil
	}
	if s.m.Local(pe) {
		return s.m.Get(pe, off, dst)
	}
	return s.ts.Get(pe, off, dst)
}

func (s *multiStream) GetNBI(pe int, off uint64, dst []byte) error {
	if s.m.heap(pe) != nil || s.m.Local(pe) {
		return s.Get(pe, off, dst)
	}
	return s.ts.GetNBI(pe, off, dst)
}

func (s *multiStream) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	if h := s.m.heap(pe); h != nil {
		return atomicOn(h, off, width, op, operand, compare)
	}
	if s.m.Local(pe) {
		return s.m.Atomic(pe, off, width, op, operand, compare)
	}
	if base, _ := op.Split(); base > OpXor || (width != 4 && width != 8) {
		return 0, fmt.Errorf("transport: atomic op %d of width %d", op, width)
	}
	return s.ts.Atomic(pe, off, width, op, operand, compare)
}

func (s *multiStream) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	if s.m.heap(pe) != nil || s.m.Local(pe) {
		old, err := s.Atomic(pe, off, width, op, operand, compare)
		putBits(dst, old)
		return err
	}
	if base, _ := op.Split(); base > OpXor || (width != 4 && width != 8) {
		return fmt.Errorf("transport: atomic op %d of width %d", op, width)
	}
	return s.ts.AtomicNBI(pe, off, width, op, operand, compare, dst)
}

func (s *multiStream) Accumulate(pe int, a *Acc) error {
	if s.m.Local(pe) {
		return fmt.Errorf("transport: accumulate to PE %d, whose heap is mapped: apply it directly", pe)
	}
	return s.ts.Accumulate(pe, a)
}

func (s *multiStream) Quiet() error { return s.ts.Quiet() }

func (s *multiStream) Close() error { return s.ts.Close() }

// AtomicNBI implements Stream: shared memory completes at once.
func (s *Shm) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	old, err := s.Atomic(pe, off, width, op, operand, compare)
	putBits(dst, old)
	return err
}
