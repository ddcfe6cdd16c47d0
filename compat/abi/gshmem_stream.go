package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/shmem"
)

// The stream-ordered calls of gshmem.h (gshmemx_*_on_stream, NVSHMEM's
// nvshmemx_*_on_stream): each enqueues its work on the caller's CUDA
// stream through package shmem's *OnDeviceStream calls and returns
// without waiting. They need the heap in device memory (the CUDA build);
// on a host heap, as on any bad argument, they end the job with a message
// naming the call, as the rest of gshmem.h does. C has checked the PE and
// found the symmetric objects.

// shmStreamWorld is the World of an on-stream call, or the end of the job
// when its heap is not device memory.
func shmStreamWorld(call string) *shmem.World {
	w := shmWorld()
	if !shmDevice() {
		if !cudaBuild {
			shmFatal(call, "the *_on_stream calls need libmpi_abi built with -tags cuda (GOFLAGS=-tags=cuda gshmem abi install) and the heap in device memory")
		}
		shmFatal(call, "the symmetric heap is host memory: the *_on_stream calls need it in device memory (GSHMEM_HEAP=device)")
	}
	return w
}

// streamLocal checks that an on-stream call's local buffer at p is device
// memory: the copy engine reads or writes it when the stream gets there.
func streamLocal(call, what string, w *shmem.World, p uintptr) {
	if !w.IsDeviceMemory(p) {
		shmFatal(call, "%s %#x is host memory: an on-stream call moves device memory (gshmem_malloc or cudaMalloc)", what, p)
	}
}

// abiint_shmem_rma_stream is putmem_on_stream (put 1) and getmem_on_stream:
// n bytes between the symmetric object at obj/off on pe and the local
// buffer at local. A symmetric local buffer goes through shmem's
// Put/GetOnDeviceStream; other device memory is one copy on the stream
// to or from pe's heap as mapped here.
//
//export abiint_shmem_rma_stream
func abiint_shmem_rma_stream(call *C.char, put C.int, obj, off C.uint64_t, local C.uintptr_t, n C.size_t, pe C.int, stream C.uintptr_t) {
	c := C.GoString(call)
	w := shmStreamWorld(c)
	sym := shmObjAt(c, uint64(obj), uint64(off), int(n))
	// A symmetric buffer is device memory without asking the driver.
	if l, ok := shmem.DeviceSym(w, uintptr(local), int(n)); ok {
		if put != 0 {
			shmCheck(c, shmem.PutOnDeviceStream(uintptr(stream), sym, l, int(pe)))
		} else {
			shmCheck(c, shmem.GetOnDeviceStream(uintptr(stream), l, sym, int(pe)))
		}
		return
	}
	what := "source"
	if put == 0 {
		what = "dest"
	}
	streamLocal(c, what, w, uintptr(local))
	peer, err := shmem.DevicePtr(sym, int(pe))
	shmCheck(c, err)
	if put != 0 {
		shmCheck(c, devCopy(w, peer, uintptr(local), uint64(n), uintptr(stream), false))
	} else {
		shmCheck(c, devCopy(w, uintptr(local), peer, uint64(n), uintptr(stream), false))
	}
}

// abiint_shmem_put_signal_stream is putmem_signal_on_stream (n may be 0:
// signal_op_on_stream): the data, then the signal, in stream order.
//
//export abiint_shmem_put_signal_stream
func abiint_shmem_put_signal_stream(call *C.char, obj, off C.uint64_t, src C.uintptr_t, n C.size_t, sobj, soff, value C.uint64_t, op, pe C.int, stream C.uintptr_t) {
	c := C.GoString(call)
	w := shmStreamWorld(c)
	sig := shmSig(c, sobj, soff)
	sop, s := shmem.SignalOp(op), uintptr(stream)
	if n != 0 {
		dst := shmObjAt(c, uint64(obj), uint64(off), int(n))
		if l, ok := shmem.DeviceSym(w, uintptr(src), int(n)); ok {
			shmCheck(c, shmem.PutSignalOnDeviceStream(s, dst, l, sig, uint64(value), sop, int(pe)))
			return
		}
		streamLocal(c, "source", w, uintptr(src))
		peer, err := shmem.DevicePtr(dst, int(pe))
		shmCheck(c, err)
		shmCheck(c, devCopy(w, peer, uintptr(src), uint64(n), s, false))
	}
	shmCheck(c, shmem.SignalOnDeviceStream(s, sig, uint64(value), sop, int(pe)))
}

// abiint_shmem_wait_stream is signal_wait_until_on_stream: the stream
// waits until this PE's signal word at obj/off satisfies the comparison.
//
//export abiint_shmem_wait_stream
func abiint_shmem_wait_stream(call *C.char, obj, off C.uint64_t, cmp C.int, value C.uint64_t, stream C.uintptr_t) {
	c := C.GoString(call)
	shmStreamWorld(c)
	shmCheck(c, shmem.WaitUntilOnDeviceStream(uintptr(stream), shmSig(c, obj, off), shmem.Cmp(cmp), uint64(value)))
}

// abiint_shmem_sync_stream is quiet_on_stream (syncQuiet: the stream's
// puts and signals are complete before its later work already, so it
// enqueues nothing), barrier_all_on_stream and sync_all_on_stream (the
// World's device barrier), barrier_on_stream and team_sync_on_stream (the
// team's).
//
//export abiint_shmem_sync_stream
func abiint_shmem_sync_stream(call *C.char, what C.int, team C.gshmem_team_t, stream C.uintptr_t) C.int {
	c := C.GoString(call)
	w := shmStreamWorld(c)
	switch what {
	case syncQuiet:
	case syncBarrierAll, syncSyncAll:
		shmCheck(c, w.BarrierOnDeviceStream(uintptr(stream)))
	default:
		shmCheck(c, shmTeam(c, uint64(team)).SyncOnDeviceStream(uintptr(stream)))
	}
	return 0
}

// abiint_shmem_coll_stream runs one collective of team on stream: nelems
// elements of size bytes (kind and op for reductions). Every member must
// issue the team's on-stream collectives in the same order.
//
//export abiint_shmem_coll_stream
func abiint_shmem_coll_stream(call *C.char, coll C.int, team C.gshmem_team_t, dest, src C.uintptr_t, nelems, size C.size_t, kind, op, root C.int, stream C.uintptr_t) C.int {
	c := C.GoString(call)
	shmStreamWorld(c)
	t := shmTeam(c, uint64(team))
	n, sz, np := int(nelems), int(size), t.NPEs()
	if n == 0 {
		return 0 // nothing to move, as the on-stream forms in shmem
	}
	dn, sn := collSpans(coll, n, sz, np, 0, 0)
	d := shmLocate(c, "dest", uintptr(dest), dn)
	s := shmLocate(c, "source", uintptr(src), sn)
	st := uintptr(stream)
	var err error
	switch coll {
	case collBroadcast:
		err = shmem.BroadcastOnDeviceStream(st, t, d, s, n*sz, int(root))
	case collFCollect:
		err = shmem.FCollectOnDeviceStream(st, t, d, s, n*sz)
	case collAlltoall:
		err = shmem.AlltoallOnDeviceStream(st, t, d, s, n*sz)
	case collReduce, collReduceScatter:
		err = reduceAs(t, shmem.ReduceOp(op), int(kind), sz, d, s, n, coll == collReduceScatter, &st)
	default:
		shmFatal(c, "collective %d has no on-stream form", int(coll))
	}
	shmCheck(c, err)
	return 0
}
