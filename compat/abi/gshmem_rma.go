package main

/*
#include "abi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// The Go paths of gshmem.h's RMA, atomics, signals and waits: what shm.h
// and gshmem.c send here, a PE whose heap this process does not map (or a
// wait that must sleep). C has checked the PE and found the object; an
// error left (a lost peer, the job ending) ends the job with its message.

// The operations of shm_amo (shm.h).
const (
	amoFetch = iota
	amoSet
	amoSwap
	amoCSwap
	amoAdd
	amoAnd
	amoOr
	amoXor
)

// The element kinds of shm.h.
const (
	kindSInt  = 1
	kindUInt  = 2
	kindFloat = 3
	kindHalf  = 4 // IEEE binary16 (half)
	kindBF16  = 5 // bfloat16
)

// shmWorld is the World of the heap; C checked that gshmem is initialized.
func shmWorld() *shmem.World {
	shm.mu.Lock()
	defer shm.mu.Unlock()
	return shm.w
}

// shmCheck ends the job when a Go path failed.
func shmCheck(call string, err error) {
	if err != nil {
		shmFatal(call, "%v", err)
	}
}

// carried marks an operation Go issued: quiet and fence must reach Go.
func carried() { atomic.StoreInt64(&shmC.Pending, 1) }

// cbytes is n bytes of C memory at p.
func cbytes(p C.uintptr_t, n C.size_t) []byte {
	return unsafe.Slice((*byte)(cptr(p)), int(n))
}

//export abiint_shmem_put
func abiint_shmem_put(call *C.char, obj, off C.uint64_t, src C.uintptr_t, n C.size_t, pe, nbi C.int) {
	c := C.GoString(call)
	dst := shmObjAt(c, uint64(obj), uint64(off), int(n))
	if shmDevice() {
		shmCheck(c, devPut(shmWorld(), dst, uintptr(src), int(pe), nbi != 0))
		carried()
		return
	}
	if nbi != 0 {
		shmCheck(c, shmem.PutNBI(dst, cbytes(src, n), int(pe)))
	} else {
		shmCheck(c, shmem.Put(dst, cbytes(src, n), int(pe)))
	}
	carried()
}

//export abiint_shmem_get
func abiint_shmem_get(call *C.char, dst C.uintptr_t, obj, off C.uint64_t, n C.size_t, pe, nbi C.int) {
	c := C.GoString(call)
	src := shmObjAt(c, uint64(obj), uint64(off), int(n))
	if shmDevice() {
		shmCheck(c, devGet(shmWorld(), uintptr(dst), src, int(pe)))
		return
	}
	if nbi != 0 {
		shmCheck(c, shmem.GetNBI(cbytes(dst, n), src, int(pe)))
		carried()
	} else {
		shmCheck(c, shmem.Get(cbytes(dst, n), src, int(pe)))
	}
}

//export abiint_shmem_amo
func abiint_shmem_amo(call *C.char, obj, off C.uint64_t, width, op C.int, v, cmp C.uint64_t, pe C.int) C.uint64_t {
	c := C.GoString(call)
	b := shmObjAt(c, uint64(obj), uint64(off), int(width))
	var old uint64
	var err error
	if width == 4 {
		var w shmem.Sym[uint32]
		if w, err = shmem.View[uint32](b); err == nil {
			var o uint32
			o, err = amoOn(w, int(op), uint32(v), uint32(cmp), int(pe))
			old = uint64(o)
		}
	} else {
		var w shmem.Sym[uint64]
		if w, err = shmem.View[uint64](b); err == nil {
			old, err = amoOn(w, int(op), uint64(v), uint64(cmp), int(pe))
		}
	}
	shmCheck(c, err)
	carried()
	return C.uint64_t(old)
}

// amoOn is one atomic of shm_amo on the word w at pe through shmem. The
// non-fetching forms use the fetching ones: complete on return, which is
// more than they promise.
func amoOn[T uint32 | uint64](w shmem.Sym[T], op int, v, cmp T, pe int) (T, error) {
	switch op {
	case amoFetch:
		return shmem.Load(w, pe)
	case amoSet:
		return 0, shmem.Store(w, v, pe)
	case amoSwap:
		return shmem.Swap(w, v, pe)
	case amoCSwap:
		return shmem.CompareAndSwap(w, cmp, v, pe)
	case amoAdd:
		return shmem.FetchAdd(w, v, pe)
	case amoAnd:
		return shmem.FetchAnd(w, v, pe)
	case amoOr:
		return shmem.FetchOr(w, v, pe)
	default:
		return shmem.FetchXor(w, v, pe)
	}
}

// shmSig is the signal word at sobj/soff.
func shmSig(call string, sobj, soff C.uint64_t) shmem.Sym[uint64] {
	s, err := shmem.View[uint64](shmObjAt(call, uint64(sobj), uint64(soff), 8))
	shmCheck(call, err)
	return s
}

// abiint_shmem_put_signal is a put with signal (n may be 0: the signal
// alone, gshmemx_signal_op).
//
//export abiint_shmem_put_signal
func abiint_shmem_put_signal(call *C.char, obj, off C.uint64_t, src C.uintptr_t, n C.size_t, sobj, soff, value C.uint64_t, op, pe, nbi C.int) {
	c := C.GoString(call)
	sig := shmSig(c, sobj, soff)
	sop := shmem.SignalOp(op)
	switch {
	case n != 0 && shmDevice():
		// The data on the PE's stream, waited for unless nbi, then the
		// signal on the same stream: a PE that sees it sees the data.
		dst := shmObjAt(c, uint64(obj), uint64(off), int(n))
		shmCheck(c, devPut(shmWorld(), dst, uintptr(src), int(pe), nbi != 0))
		shmCheck(c, shmem.SignalOpAt(sig, uint64(value), sop, int(pe)))
	case n == 0:
		shmCheck(c, shmem.SignalOpAt(sig, uint64(value), sop, int(pe)))
	case nbi != 0:
		shmCheck(c, shmem.PutSignalNBI(shmObjAt(c, uint64(obj), uint64(off), int(n)), cbytes(src, n), sig, uint64(value), sop, int(pe)))
	default:
		shmCheck(c, shmem.PutSignal(shmObjAt(c, uint64(obj), uint64(off), int(n)), cbytes(src, n), sig, uint64(value), sop, int(pe)))
	}
	carried()
}

//export abiint_shmem_signal_wait
func abiint_shmem_signal_wait(call *C.char, obj, off C.uint64_t, cmp C.int, value C.uint64_t) C.uint64_t {
	c := C.GoString(call)
	v, err := shmem.SignalWaitUntil(shmSig(c, obj, off), shmem.Cmp(cmp), uint64(value))
	shmCheck(c, err)
	return C.uint64_t(v)
}

// abiint_shmem_wait is TYPENAME_wait_until once C found the condition
// false: shmem's wait, with its policy (poll, then sleep on the doorbell
// that every write into the heap rings).
//
//export abiint_shmem_wait
func abiint_shmem_wait(call *C.char, obj, off C.uint64_t, width, kind, cmp C.int, value C.uint64_t) {
	c := C.GoString(call)
	b := shmObjAt(c, uint64(obj), uint64(off), int(width))
	cm, v := shmem.Cmp(cmp), uint64(value)
	var err error
	switch {
	case width == 2 && kind == kindSInt:
		err = waitOn[int16](b, cm, int16(v))
	case width == 2:
		err = waitOn[uint16](b, cm, uint16(v))
	case width == 4 && kind == kindSInt:
		err = waitOn[int32](b, cm, int32(v))
	case width == 4:
		err = waitOn[uint32](b, cm, uint32(v))
	case kind == kindSInt:
		err = waitOn[int64](b, cm, int64(v))
	default:
		err = waitOn[uint64](b, cm, v)
	}
	shmCheck(c, err)
}

func waitOn[T shmem.SyncInteger](b shmem.Sym[byte], cmp shmem.Cmp, v T) error {
	s, err := shmem.View[T](b)
	if err != nil {
		return err
	}
	return shmem.WaitUntil(s, cmp, v)
}

// The syncs of gshmem.c.
const (
	syncQuiet = iota
	syncFence
	syncBarrierAll
	syncSyncAll
	syncBarrier
	syncTeam
)

//export abiint_shmem_sync
func abiint_shmem_sync(call *C.char, what C.int, team C.gshmem_team_t) C.int {
	c := C.GoString(call)
	w := shmWorld()
	switch what {
	case syncQuiet:
		shmCheck(c, w.Quiet())
	case syncFence:
		shmCheck(c, w.Fence())
	case syncBarrierAll:
		shmCheck(c, w.BarrierAll())
	case syncSyncAll:
		shmCheck(c, w.SyncAll())
	case syncBarrier:
		shmCheck(c, shmTeam(c, uint64(team)).Barrier())
	default:
		shmCheck(c, shmTeam(c, uint64(team)).Sync())
	}
	return 0
}

// abiint_shmem_await sleeps until shm_scan_done(scan) (gshmem.c's wait on
// an array of words in this PE's heap) holds, with the World's wait
// policy: every write into the heap rings its doorbell and wakes it.
//
//export abiint_shmem_await
func abiint_shmem_await(call *C.char, scan C.uintptr_t) {
	w := shmWorld()
	err := w.Await(w.MyPE(), func() (bool, error) { return C.shm_scan_done(scan) != 0, nil })
	shmCheck(C.GoString(call), err)
}

// abiint_shmem_istride is iput (put 1) and iget to a PE not mapped here:
// shmem's IPut and IGet on elements of the size's Go type.
//
//export abiint_shmem_istride
func abiint_shmem_istride(call *C.char, obj, off C.uint64_t, local C.uintptr_t, dst, sst C.ptrdiff_t, n, size C.size_t, pe, put C.int) {
	c := C.GoString(call)
	sym, loc := int(dst), int(sst) // strides of the symmetric and the local side
	if put == 0 {
		sym, loc = loc, sym
	}
	span := (int(n)-1)*sym + 1
	b := shmObjAt(c, uint64(obj), uint64(off), span*int(size))
	do := func(lb []byte) error {
		switch size {
		case 1:
			return istride[uint8](b, lb, int(dst), int(sst), int(n), int(pe), put != 0)
		case 2:
			return istride[uint16](b, lb, int(dst), int(sst), int(n), int(pe), put != 0)
		case 4:
			return istride[uint32](b, lb, int(dst), int(sst), int(n), int(pe), put != 0)
		case 8:
			return istride[uint64](b, lb, int(dst), int(sst), int(n), int(pe), put != 0)
		default:
			return istride[[2]uint64](b, lb, int(dst), int(sst), int(n), int(pe), put != 0)
		}
	}
	lspan := ((int(n)-1)*loc + 1) * int(size)
	if shmDevice() {
		shmCheck(c, devStrided(shmWorld(), uintptr(local), lspan, put != 0, do))
	} else {
		shmCheck(c, do(cbytes(local, C.size_t(lspan))))
	}
	carried()
}

func istride[T any](b shmem.Sym[byte], local []byte, dst, sst, n, pe int, put bool) error {
	s, err := shmem.View[T](b)
	if err != nil {
		return err
	}
	l := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(local))), len(local)/int(unsafe.Sizeof(*new(T))))
	if put {
		return shmem.IPut(s, l, dst, sst, n, pe)
	}
	return shmem.IGet(l, s, dst, sst, n, pe)
}

// abiint_shmem_lock is gshmem_set_lock (what 0), test_lock (1: returns
// 0 when it took the lock, as OpenSHMEM) and clear_lock (2).
//
//export abiint_shmem_lock
func abiint_shmem_lock(call *C.char, obj, off C.uint64_t, what C.int) C.int {
	c := C.GoString(call)
	l, err := shmem.View[int64](shmObjAt(c, uint64(obj), uint64(off), 8))
	shmCheck(c, err)
	switch what {
	case 0:
		shmCheck(c, shmem.SetLock(l))
	case 1:
		took, err := shmem.TestLock(l)
		shmCheck(c, err)
		if !took {
			return 1
		}
	default:
		shmCheck(c, shmem.ClearLock(l))
	}
	return 0
}
