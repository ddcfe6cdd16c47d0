package windows

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// enter checks that this PE may access rank now: the rank is valid and an
// access epoch to it is open. It is the first step of every operation.
func (win *Win) enter(rank int) error {
	if win == nil {
		return errorf(compat.ClassWin, "nil window")
	}
	if uint(rank) >= uint(win.n) {
		return errorf(compat.ClassRank, "target rank %d of a window of %d ranks", rank, win.n)
	}
	if loadByte(&win.access[rank]) == accOK && win.ctx.Err() == nil {
		return nil
	}
	return win.slowEnter(rank)
}

func (win *Win) slowEnter(rank int) error {
	if err := win.alive(); err != nil {
		return err
	}
	if win.ctx.Err() != nil {
		return errAborted()
	}
	switch loadByte(&win.access[rank]) {
	case accOK:
		return nil
	case accFence:
		// The first RMA of a fence epoch: from now on the epoch is active
		// and must be closed by a fence.
		win.ep.fence = fenceActive
		for i, a := range win.access {
			if a == accFence {
				win.access[i] = accOK
			}
		}
		return nil
	case accWaitPost:
		if err := win.waitPosted(rank); err != nil {
			return err
		}
		win.access[rank] = accOK
		return nil
	case accLockAll, accOpening:
		return win.openLockAll(rank)
	}
	return errorf(compat.ClassRMASync, "no access epoch to rank %d is open (Fence, Start, Lock or LockAll first)", rank)
}

func rangeErr(rank, disp, span, size int) error {
	return errorf(compat.ClassRMARange, "%d bytes at displacement %d are outside rank %d's window of %d bytes", span, disp, rank, size)
}

// locate returns the memory and byte offset of span bytes at disp in
// rank's window, or ErrRMARange.
func (win *Win) locate(rank, disp, span int) (*rmem, int, error) {
	if win.flavor == FlavorDynamic {
		return win.lookup(rank, disp, span)
	}
	s := &win.segs[rank]
	if disp < 0 || disp > s.maxDisp {
		return nil, 0, rangeErr(rank, disp, span, s.size)
	}
	off := disp * s.unit
	if span < 0 || span > s.size-off {
		return nil, 0, rangeErr(rank, disp, span, s.size)
	}
	return s.mem, s.base + off, nil
}

// locateType is locate for count instances of target datatype tt at disp:
// their data starts tt.TrueLB() bytes from disp's address (before it, for
// a negative true lower bound) and spans tt.Span(count) bytes.
func (win *Win) locateType(rank, disp int, tt *mpitype.Map, count int) (*rmem, int, error) {
	span, lo := tt.Span(count), tt.TrueLB()
	if lo == 0 || span == 0 {
		return win.locate(rank, disp, span)
	}
	if win.flavor == FlavorDynamic {
		return win.lookup(rank, disp+lo, span)
	}
	s := &win.segs[rank]
	if disp < 0 || disp > s.maxDisp {
		return nil, 0, rangeErr(rank, disp, span, s.size)
	}
	off := disp*s.unit + lo
	if off < 0 || span > s.size-off {
		return nil, 0, rangeErr(rank, disp, span, s.size)
	}
	return s.mem, s.base + off, nil
}

// Put copies origin into rank target's window at displacement disp
// (MPI_Put with contiguous origin and target of T's basic type). It
// returns when origin may be reused; the data is at the target when the
// epoch's synchronization (or Flush) completes it.
func Put[T compat.Elem](win *Win, origin []T, target, disp int) error {
	if target == compat.ProcNull {
		return nil
	}
	if err := win.enter(target); err != nil {
		return err
	}
	b := mpitype.AsBytes(origin)
	m, off, err := win.locate(target, disp, len(b))
	if err != nil {
		return err
	}
	if m.mapped != nil && !win.devWorld {
		copy(m.mapped[off:off+len(b)], b)
		raceWrote()
		return nil
	}
	if err := m.write(off, b); err != nil {
		return wrap(err, "put to rank %d", target)
	}
	return nil
}

// Get copies len(result) elements from rank target's window at disp into
// result (MPI_Get). result holds them when the epoch's synchronization
// completes the get (here: when Get returns).
func Get[T compat.Elem](win *Win, result []T, target, disp int) error {
	if target == compat.ProcNull {
		return nil
	}
	if err := win.enter(target); err != nil {
		return err
	}
	b := mpitype.AsBytes(result)
	m, off, err := win.locate(target, disp, len(b))
	if err != nil {
		return err
	}
	if m.mapped != nil && !win.devWorld {
		raceSynced()
		copy(b, m.mapped[off:off+len(b)])
		return nil
	}
	if err := m.read(off, b); err != nil {
		return wrap(err, "get from rank %d", target)
	}
	return nil
}

// xfer is a checked transfer description with general datatypes.
type xfer struct {
	buf    []byte
	ocount int
	ot     *mpitype.Map
	tcount int
	tt     *mpitype.Map
	bytes  int // bytes moved
}

// checkTypes validates an origin buffer of T described by (ocount, otype)
// against a target (tcount, ttype). write says whether the target is
// written (its entries must not overlap); readInto whether the origin
// buffer is written (a get's result).
func checkTypes[T compat.Elem](buf []T, ocount int, otype compat.Datatype, tcount int, ttype compat.Datatype, write, readInto bool) (xfer, error) {
	if err := otype.Err(); err != nil {
		return xfer{}, err
	}
	if err := ttype.Err(); err != nil {
		return xfer{}, err
	}
	ot, tt := mpitype.MapOf(otype), mpitype.MapOf(ttype)
	if ocount < 0 || tcount < 0 {
		return xfer{}, errorf(compat.ClassCount, "counts %d and %d", ocount, tcount)
	}
	if ocount > mpitype.MaxBytes/max(ot.Extent(), 1) || tcount > mpitype.MaxBytes/max(tt.Extent(), 1) {
		return xfer{}, errorf(compat.ClassCount, "counts %d and %d are too large for their datatypes", ocount, tcount)
	}
	if b := mpitype.Of[T](); b != ot.Basic() && b != mpitype.BasicUint8 {
		return xfer{}, errorf(compat.ClassType, "a buffer of %v described as %v", b, ot.Basic())
	}
	if !mpitype.SameSignature(ot, ocount, tt, tcount) {
		return xfer{}, errorf(compat.ClassType, "origin (%d x %v) and target (%d x %v) type signatures differ", ocount, otype, tcount, ttype)
	}
	if (ocount > 1 && ot.Extent() < 0) || (tcount > 1 && tt.Extent() < 0) {
		return xfer{}, errorf(compat.ClassType, "several instances of a datatype of negative extent")
	}
	if write && tt.Overlap() {
		return xfer{}, errorf(compat.ClassType, "target datatype has overlapping entries")
	}
	if readInto && ot.Overlap() {
		return xfer{}, errorf(compat.ClassType, "result datatype has overlapping entries")
	}
	b := mpitype.AsBytes(buf)
	if ot.Span(ocount) > len(b) {
		return xfer{}, errorf(compat.ClassArg, "%d x %v needs %d bytes of buffer, have %d", ocount, otype, ot.Span(ocount), len(b))
	}
	return xfer{buf: b, ocount: ocount, ot: ot, tcount: tcount, tt: tt, bytes: ocount * ot.Size()}, nil
}

// PutTyped is MPI_Put with datatypes: ocount instances of otype from
// origin go to tcount instances of ttype at disp in target's window. The
// basic types must match (origin may also be a []byte), and so must the
// element counts.
func PutTyped[T compat.Elem](win *Win, origin []T, ocount int, otype compat.Datatype, target, disp, tcount int, ttype compat.Datatype) error {
	x, err := checkTypes(origin, ocount, otype, tcount, ttype, true, false)
	if err != nil || target == compat.ProcNull {
		return err
	}
	return win.move(true, x, target, disp)
}

// GetTyped is MPI_Get with datatypes: tcount instances of ttype at disp in
// target's window land in ocount instances of otype in result.
func GetTyped[T compat.Elem](win *Win, result []T, ocount int, otype compat.Datatype, target, disp, tcount int, ttype compat.Datatype) error {
	x, err := checkTypes(result, ocount, otype, tcount, ttype, false, true)
	if err != nil || target == compat.ProcNull {
		return err
	}
	return win.move(false, x, target, disp)
}

func (win *Win) move(put bool, x xfer, target, disp int) error {
	if err := win.enter(target); err != nil {
		return err
	}
	m, off, err := win.locateType(target, disp, x.tt, x.tcount)
	if err != nil || x.bytes == 0 {
		return err
	}
	if x.ot.Contiguous() && x.tt.Contiguous() {
		if put {
			return wrap(m.write(off, x.buf[:x.bytes]), "put to rank %d", target)
		}
		return wrap(m.read(off, x.buf[:x.bytes]), "get from rank %d", target)
	}
	var first error
	mpitype.Zip(x.ot.Cursor(x.ocount), x.tt.Cursor(x.tcount), func(o, t, n int) {
		var err error
		if put {
			err = m.write(off+t, x.buf[o:o+n])
		} else {
			err = m.read(off+t, x.buf[o:o+n])
		}
		if first == nil && err != nil {
			first = wrap(err, "transfer with rank %d", target)
		}
	})
	return first
}

// ptrOf returns a pointer to b's first byte.
func ptrOf(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
