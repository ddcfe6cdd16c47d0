package shmem

import (
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// Cmp is a comparison for the wait and test calls (SHMEM_CMP_*).
type Cmp uint8

// The six comparisons. A wait returns when "ivar cmp value" holds.
const (
	CmpEQ Cmp = iota
	CmpNE
	CmpGT
	CmpGE
	CmpLT
	CmpLE
)

func (c Cmp) String() string {
	if c > CmpLE {
		return "Cmp(?)"
	}
	return [...]string{"==", "!=", ">", ">=", "<", "<="}[c]
}

func compare[T SyncInteger](a, b T, c Cmp) bool {
	switch c {
	case CmpEQ:
		return a == b
	case CmpNE:
		return a != b
	case CmpGT:
		return a > b
	case CmpGE:
		return a >= b
	case CmpLT:
		return a < b
	default:
		return a <= b
	}
}

// loadLocal atomically reads the element at byte offset off of this PE's heap.
func loadLocal[T SyncInteger](mem []byte, off uint64) T {
	p := unsafe.Pointer(&mem[off])
	if unsafe.Sizeof(*new(T)) == 2 {
		return fromBits[T](atomicop.Apply(p, 2, atomicop.Load, 0, 0))
	}
	if unsafe.Sizeof(*new(T)) == 4 {
		return fromBits[T](uint64(atomic.LoadUint32((*uint32)(p))))
	}
	return fromBits[T](atomic.LoadUint64((*uint64)(p)))
}

// waitSet is a group of local words being waited on.
type waitSet[T SyncInteger] struct {
	s      Sym[T]
	status []int
	cmp    Cmp
	vals   []T // one value for all, or one per element
}

func newWaitSet[T SyncInteger](s Sym[T], status []int, cmp Cmp, vals []T) (waitSet[T], error) {
	ws := waitSet[T]{s: s, status: status, cmp: cmp, vals: vals}
	if err := s.valid(); err != nil {
		return ws, err
	}
	if cmp > CmpLE {
		return ws, errf(ErrInvalid, "comparison %d", cmp)
	}
	if status != nil && len(status) != s.n {
		return ws, errf(ErrInvalid, "status has %d entries for %d words", len(status), s.n)
	}
	if len(vals) != 1 && len(vals) != s.n {
		return ws, errf(ErrInvalid, "%d comparison values for %d words", len(vals), s.n)
	}
	if s.off%elemSize[T]() != 0 {
		return ws, errf(ErrMisaligned, "wait on offset %d", s.off)
	}
	return ws, nil
}

func (ws *waitSet[T]) active(i int) bool { return ws.status == nil || ws.status[i] == 0 }

func (ws *waitSet[T]) holds(i int) bool {
	v := ws.vals[0]
	if len(ws.vals) > 1 {
		v = ws.vals[i]
	}
	return compare(loadWord[T](ws.s.w, ws.s.off+uint64(i)*elemSize[T]()), v, ws.cmp)
}

func (ws *waitSet[T]) all() bool {
	for i := range ws.s.n {
		if ws.active(i) && !ws.holds(i) {
			return false
		}
	}
	return true
}

// any returns the first active index that holds, -1 if none does and -2 if
// every index is excluded.
func (ws *waitSet[T]) any() int {
	excluded := true
	for i := range ws.s.n {
		if ws.active(i) {
			excluded = false
			if ws.holds(i) {
				return i
			}
		}
	}
	if excluded {
		return -2
	}
	return -1
}

func (ws *waitSet[T]) some() []int {
	var idx []int
	for i := range ws.s.n {
		if ws.active(i) && ws.holds(i) {
			idx = append(idx, i)
		}
	}
	return idx
}

func (ws *waitSet[T]) wait(cond func() bool) error {
	if cond() {
		return nil
	}
	return ws.s.w.waitOwn(false, cond)
}

// waitFor is the runtime's own wait (barriers, collectives): it returns when
// cond holds, and is woken only by atomics on this PE's heap, never by a
// peer's plain puts. cond reads this PE's heap atomically.
func (w *World) waitFor(cond func() bool) error {
	if cond() {
		return nil
	}
	return w.waitOwn(true, cond)
}

// waitOwn waits by the World's policy for cond on words of this PE's heap,
// as a runtime wait (ctrl) or a user wait.
func (w *World) waitOwn(ctrl bool, cond func() bool) error {
	class := doorbell.User
	if ctrl {
		class = doorbell.Ctrl
	}
	return w.waiter.Wait(doorbell.At(w.heap), class, func() (bool, error) { return cond(), nil }, w.check)
}

// WaitUntil blocks until the first element of ivar on this PE satisfies
// "ivar cmp value" (shmem_wait_until). The word is read with atomic loads, so
// a peer's P, atomic or signal that updates it is seen in order with the data
// the peer put before it. The wait spins briefly and then sleeps until a peer
// writes to this PE's heap; it fails with ErrAborted when the World's
// context is cancelled or the job aborts.
func WaitUntil[T SyncInteger](ivar Sym[T], cmp Cmp, value T) error {
	ws, err := newWaitSet(ivar.Slice(0, min(1, ivar.Len())), nil, cmp, []T{value})
	if err != nil {
		return err
	}
	if ws.s.n == 0 {
		return errf(ErrOutOfBounds, "wait on an empty object")
	}
	if ws.holds(0) {
		return nil // without the closure below, which would put ws on the heap
	}
	return waitOne(ivar.w, ws.s.off, cmp, value)
}

func waitOne[T SyncInteger](w *World, off uint64, cmp Cmp, value T) error {
	return w.waiter.Wait(doorbell.At(w.heap), doorbell.User, func() (bool, error) { return compare(loadWord[T](w, off), value, cmp), nil }, w.check)
}

// WaitUntilAll blocks until every element of ivars whose status entry is 0
// satisfies the comparison (shmem_wait_until_all). status may be nil.
func WaitUntilAll[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, value T) error {
	return WaitUntilAllVector(ivars, status, cmp, []T{value})
}

// WaitUntilAllVector is WaitUntilAll with one comparison value per element
// (shmem_wait_until_all_vector).
func WaitUntilAllVector[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, values []T) error {
	ws, err := newWaitSet(ivars, status, cmp, values)
	if err != nil {
		return err
	}
	return ws.wait(ws.all)
}

// WaitUntilAny blocks until some element of ivars whose status entry is 0
// satisfies the comparison and returns its index (shmem_wait_until_any). It
// returns -1 at once when every element is excluded.
func WaitUntilAny[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, value T) (int, error) {
	return WaitUntilAnyVector(ivars, status, cmp, []T{value})
}

// WaitUntilAnyVector is WaitUntilAny with one value per element.
func WaitUntilAnyVector[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, values []T) (int, error) {
	ws, err := newWaitSet(ivars, status, cmp, values)
	if err != nil {
		return -1, err
	}
	idx := -1
	err = ws.wait(func() bool { idx = ws.any(); return idx != -1 })
	return max(idx, -1), err
}

// WaitUntilSome blocks until at least one element of ivars whose status
// entry is 0 satisfies the comparison and returns the indices of all that do
// (shmem_wait_until_some). It returns an empty list at once when every
// element is excluded.
func WaitUntilSome[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, value T) ([]int, error) {
	return WaitUntilSomeVector(ivars, status, cmp, []T{value})
}

// WaitUntilSomeVector is WaitUntilSome with one value per element.
func WaitUntilSomeVector[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, values []T) ([]int, error) {
	ws, err := newWaitSet(ivars, status, cmp, values)
	if err != nil {
		return nil, err
	}
	err = ws.wait(func() bool { return ws.any() != -1 })
	if err != nil {
		return nil, err
	}
	return ws.some(), nil
}

// Test reports whether the first element of ivar satisfies the comparison
// now (shmem_test).
func Test[T SyncInteger](ivar Sym[T], cmp Cmp, value T) (bool, error) {
	ws, err := newWaitSet(ivar.Slice(0, min(1, ivar.Len())), nil, cmp, []T{value})
	if err != nil {
		return false, err
	}
	if ws.s.n == 0 {
		return false, errf(ErrOutOfBounds, "test on an empty object")
	}
	return ws.holds(0), nil
}

// TestAll reports whether every element not excluded by status satisfies
// the comparison now (shmem_test_all).
func TestAll[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, value T) (bool, error) {
	ws, err := newWaitSet(ivars, status, cmp, []T{value})
	if err != nil {
		return false, err
	}
	return ws.all(), nil
}

// TestAny returns the index of an element not excluded by status that
// satisfies the comparison now, or -1 (shmem_test_any).
func TestAny[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, value T) (int, error) {
	ws, err := newWaitSet(ivars, status, cmp, []T{value})
	if err != nil {
		return -1, err
	}
	return max(ws.any(), -1), nil
}

// TestSome returns the indices of the elements not excluded by status that
// satisfy the comparison now (shmem_test_some).
func TestSome[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, value T) ([]int, error) {
	ws, err := newWaitSet(ivars, status, cmp, []T{value})
	if err != nil {
		return nil, err
	}
	return ws.some(), nil
}

// SignalWaitUntil blocks until this PE's signal word satisfies the
// comparison and returns its value (shmem_signal_wait_until).
func SignalWaitUntil(sig Sym[uint64], cmp Cmp, value uint64) (uint64, error) {
	if err := WaitUntil(sig, cmp, value); err != nil {
		return 0, err
	}
	return loadWord[uint64](sig.w, sig.off), nil
}
