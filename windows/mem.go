package windows

import (
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// rmem reaches one PE's copy of a symmetric allocation: by load/store when
// the PE's heap is mapped in this process (shmem.Ptr), with the core's
// store-and-wake helpers (shmem.Mapped) so that a PE asleep in a wait on
// that heap wakes, and through shmem calls otherwise. Offsets are bytes from
// the start of the allocation and have been checked by the caller.
type rmem struct {
	pe     int
	mapped []byte
	heap   shmem.Mapped // pe's heap, when mapped is not nil
	sym    shmem.Sym[byte]
	dev    uintptr // pe's copy as mapped here when it is GPU memory (device.go), else 0
}

// forceRemote makes new windows reach every peer through shmem calls, as
// on a transport without load/store access (tests use it).
var forceRemote atomic.Bool

func newRmem(s shmem.Sym[byte], pe int) rmem {
	m := rmem{pe: pe, sym: s}
	if !forceRemote.Load() || pe == s.World().MyPE() {
		m.mapped = shmem.Ptr(s, pe)
		m.heap = s.World().Mapped(pe)
	}
	m.dev = devAddr(s, pe)
	return m
}

func (m *rmem) ptr(off int) unsafe.Pointer { return unsafe.Pointer(&m.mapped[off]) }

func (m *rmem) write(off int, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if m.onDeviceWorld() {
		return m.writeDev(off, b)
	}
	if m.mapped != nil {
		copy(m.mapped[off:off+len(b)], b)
		raceWrote()
		m.heap.Wake()
		return nil
	}
	return shmem.Put(m.sym.Slice(off, off+len(b)), b, m.pe)
}

func (m *rmem) read(off int, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if m.onDeviceWorld() {
		return m.readDev(off, b)
	}
	if m.mapped != nil {
		raceSynced()
		copy(b, m.mapped[off:off+len(b)])
		return nil
	}
	return shmem.Get(b, m.sym.Slice(off, off+len(b)), m.pe)
}

func word[T uint32 | uint64](m *rmem, off int) (shmem.Sym[T], error) {
	return shmem.View[T](m.sym.Slice(off, off+int(unsafe.Sizeof(T(0)))))
}

func (m *rmem) load32(off int) (uint32, error) {
	if m.mapped != nil {
		return atomic.LoadUint32((*uint32)(m.ptr(off))), nil
	}
	s, err := word[uint32](m, off)
	if err != nil {
		return 0, err
	}
	return shmem.Load(s, m.pe)
}

func (m *rmem) store32(off int, v uint32) error {
	if m.mapped != nil {
		m.heap.StoreUint32((*uint32)(m.ptr(off)), v)
		return nil
	}
	s, err := word[uint32](m, off)
	if err != nil {
		return err
	}
	return shmem.Store(s, v, m.pe)
}

// cas32 returns the value the word held; the swap happened if it is old.
func (m *rmem) cas32(off int, old, new uint32) (uint32, error) {
	if m.mapped != nil {
		return m.heap.CompareAndSwapUint32((*uint32)(m.ptr(off)), old, new), nil
	}
	s, err := word[uint32](m, off)
	if err != nil {
		return 0, err
	}
	return shmem.CompareAndSwap(s, old, new, m.pe)
}

// add32 and and32 update lock words: their waiters are lock waiters
// (pollLock), rung without waking the heap's other waiters.
func (m *rmem) add32(off int, v uint32) (uint32, error) {
	if m.mapped != nil {
		n := atomic.AddUint32((*uint32)(m.ptr(off)), v)
		m.heap.RingLock()
		return n - v, nil
	}
	s, err := word[uint32](m, off)
	if err != nil {
		return 0, err
	}
	return shmem.FetchAdd(s, v, m.pe)
}

func (m *rmem) and32(off int, v uint32) error {
	if m.mapped != nil {
		atomic.AndUint32((*uint32)(m.ptr(off)), v)
		m.heap.RingLock()
		return nil
	}
	s, err := word[uint32](m, off)
	if err != nil {
		return err
	}
	return shmem.And(s, v, m.pe)
}

func (m *rmem) load64(off int) (uint64, error) {
	if m.mapped != nil {
		return atomic.LoadUint64((*uint64)(m.ptr(off))), nil
	}
	s, err := word[uint64](m, off)
	if err != nil {
		return 0, err
	}
	return shmem.Load(s, m.pe)
}

func (m *rmem) cas64(off int, old, new uint64) (uint64, error) {
	if m.mapped != nil {
		return m.heap.CompareAndSwapUint64((*uint64)(m.ptr(off)), old, new), nil
	}
	s, err := word[uint64](m, off)
	if err != nil {
		return 0, err
	}
	return shmem.CompareAndSwap(s, old, new, m.pe)
}

// alive reports why the window can no longer be used, or nil.
func (w *Win) alive() error {
	if w.dead.Load() {
		if w.freed {
			return errorf(compat.ClassWin, "window was freed")
		}
		return errAborted()
	}
	return nil
}

func errAborted() error {
	return &compat.Error{Class: compat.ClassOther, Msg: "the World was finalized or its job aborted", Err: shmem.ErrAborted}
}

// poll waits until cond, which reads words of m, reports true or fails,
// by the World's one wait policy: it polls, then sleeps on the doorbell of
// m's heap, which every write into that heap through the core rings (a
// peer's unlock, a stripe release). It ends when the window dies or the
// World's context is cancelled, so that no wait on a peer's word can hang.
func (w *Win) poll(m *rmem, cond func() (bool, error)) error {
	return w.pollAs(m, m.sym.World().Await, cond)
}

// pollLock is poll for lock words (shmem.AwaitLock): a release rings only
// such waiters, and the data traffic into the heap does not wake them.
func (w *Win) pollLock(m *rmem, cond func() (bool, error)) error {
	return w.pollAs(m, m.sym.World().AwaitLock, cond)
}

func (w *Win) pollAs(m *rmem, await func(int, func() (bool, error)) error, cond func() (bool, error)) error {
	var condErr error
	err := await(m.pe, func() (bool, error) {
		if err := w.alive(); err != nil {
			condErr = err
			return false, err
		}
		ok, err := cond()
		condErr = err
		return ok, err
	})
	if err == nil || err == condErr {
		return err
	}
	if aerr := w.alive(); aerr != nil {
		return aerr
	}
	return &compat.Error{Class: compat.ClassOther, Msg: "waiting on rank memory", Err: err}
}

// Per-location locks for accumulates that hardware atomics cannot do
// (elements over 8 bytes, or misaligned): nStripes words in the control
// area of the PE whose heap holds the element, picked by the element's
// offset.
const nStripes = 64

func stripeOff(off int) int { return ctrlStripes + 4*((off>>3)&(nStripes-1)) }

func (w *Win) stripeLock(pe, off int) error {
	c := &w.ctrlMem[pe]
	so := stripeOff(off)
	return w.poll(c, func() (bool, error) {
		old, err := c.cas32(so, 0, 1)
		return old == 0, err
	})
}

func (w *Win) stripeUnlock(pe, off int) error {
	return w.ctrlMem[pe].store32(stripeOff(off), 0)
}
