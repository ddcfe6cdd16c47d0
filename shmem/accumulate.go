package shmem

import (
	"errors"
	"sync/atomic"

	"github.com/gshmem/gshmem/internal/accops"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Update is a multi-element atomic update of a PE's memory: the engine of
// the MPI layers' accumulates (windows.Accumulate, GetAccumulate,
// FetchAndOp, CompareAndSwap) when they cannot reach the target's memory
// themselves. Element types and ops are numbered as internal/mpitype
// numbers them (its Basic and Op), whose arithmetic the target applies.
type Update struct {
	Dst  Sym[byte] // the target elements
	Type uint8     // element type (mpitype.Basic)
	Op   uint8     // op (mpitype.Op); NO_OP reads
	Src  []byte    // one source element per target element (nil for NO_OP)
	Cmp  []byte    // one element: a compare-and-swap (Op REPLACE), else nil
	Res  []byte    // receives the previous values, or nil
	// Locks holds the target's NumStripes 4-byte stripe locks, taken for
	// elements no hardware atomic covers; element i takes the stripe
	// ((Phase + i*size) >> 3) % NumStripes. The zero Sym: no locks (such
	// elements then fail).
	Locks Sym[byte]
	Phase int
}

// NumStripes is the number of stripe locks an Update's Locks holds.
const NumStripes = transport.NumStripes

// Accumulate applies u to PE pe's copy of u.Dst, every element atomically
// with respect to every other Accumulate of it and to the layers' direct
// updates of mapped memory (hardware atomics, compare-and-swap loops and
// the same stripe locks). Over tcp it travels as one message (over ucx as
// messages of up to 32 KiB) and the target applies it whole: an update
// that fetches nothing returns at once and completes by Quiet, as a put
// does; one that fetches waits for the old values. A peer whose memory is
// mapped here is updated in place.
func (w *World) Accumulate(pe int, u *Update) error {
	if u == nil || u.Dst.w != w {
		return errf(ErrNotSymmetric, "update of another world's object")
	}
	if _, err := u.Dst.remote(pe, u.Dst.Len()); err != nil {
		return err
	}
	a := &transport.Acc{Off: u.Dst.off, Type: u.Type, Op: u.Op, Src: u.Src, Cmp: u.Cmp, Res: u.Res,
		Locks: transport.NoLocks, Phase: uint64(u.Phase)}
	if u.Locks.w != nil {
		if _, err := u.Locks.remote(pe, 4*NumStripes); err != nil {
			return err
		}
		a.Locks = u.Locks.off
	}
	sz := accSize(u.Type)
	if sz == 0 || u.Dst.Len()%sz != 0 || u.Phase < 0 {
		return errf(ErrInvalid, "update of %d bytes of element type %d", u.Dst.Len(), u.Type)
	}
	a.Count = u.Dst.Len() / sz
	if err := a.Check(uint64(len(w.heap))); err != nil {
		return errf(ErrInvalid, "%v", err)
	}
	if m := w.tr.Mapped(pe); m != nil {
		return transport.ApplyAcc(m, a, func(lock *uint32) error {
			return w.Await(pe, func() (bool, error) { return atomic.LoadUint32(lock) == 0, nil })
		})
	}
	acc, ok := w.tr.(transport.Accumulator)
	if !ok {
		return errf(ErrUnsupported, "accumulate to PE %d over this transport", pe)
	}
	err := acc.Accumulate(pe, a)
	if errors.Is(err, errors.ErrUnsupported) {
		return errf(ErrUnsupported, "%v", err)
	}
	return err
}

// accSize is the size of an element of typ, 0 when there is no such type
// (or no MPI layer linked in to define it).
func accSize(typ uint8) int {
	if t := accops.Get(); t != nil {
		return t.Size(typ)
	}
	return 0
}
