package main

/*
#include <stdlib.h>
#include "abi.h"
#include "shmdev.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// gshmem.h on a heap in device memory. NVSHMEM's users expect
// nvshmem_malloc to return GPU memory, so in the CUDA build gshmem_init
// alone puts the heap on the GPU unless GSHMEM_HEAP says host; a job that
// MPI_Init started first keeps the heap GSHMEM_HEAP chose for MPI (host
// by default: MPI windows need it), with a note on stderr in the CUDA build
// when nothing chose.
//
// The host-initiated calls then reach symmetric memory only through
// package shmem's device paths (stream memory writes, copies on the PE's
// stream, atomic kernels): C never loads or stores a heap address. A
// local buffer (the source of a put, the destination of a get) may be
// host memory or device memory, told apart by the driver: device memory
// moves device to device (shmem's PutSym and GetSym when it is itself
// symmetric, else a copy on the PE's stream to or from the peer's mapped
// address), after the work already on the legacy default stream (where a
// cudaMemcpy that filled it ran).

// shmHeapOptions are gshmem_init's options when it starts the job: the
// device heap in the CUDA build when GSHMEM_HEAP is unset and the driver
// is there (without one, the host heap, said on stderr).
func shmHeapOptions() []shmem.Option {
	if !cudaBuild || strings.TrimSpace(os.Getenv("GSHMEM_HEAP")) != "" {
		return nil
	}
	if err := shmem.DeviceSupport(); err != nil {
		fmt.Fprintf(os.Stderr, "gshmem: gshmem_init: note: %v: the heap is host memory (GSHMEM_HEAP=host says so and silences this)\n", err)
		return nil
	}
	return []shmem.Option{shmem.WithDevice()}
}

// abiint_shmem_cuda_build is 1 in the library built with -tags cuda (for
// gshmem_info_get_name).
//
//export abiint_shmem_cuda_build
func abiint_shmem_cuda_build() C.int {
	if cudaBuild {
		return 1
	}
	return 0
}

// shmNoteHostHeap says, in the CUDA build, that gshmem runs on the host
// heap MPI made when no one asked where the heap goes: a code ported from
// NVSHMEM expects device memory from gshmem_malloc.
func shmNoteHostHeap(call string, w *shmem.World) {
	if cudaBuild && !w.HeapOnDevice() && strings.TrimSpace(os.Getenv("GSHMEM_HEAP")) == "" && w.MyPE() == 0 {
		fmt.Fprintf(os.Stderr, "gshmem: %s: note: MPI_Init made the heap in host memory (GSHMEM_HEAP unset): gshmem_malloc returns host memory; set GSHMEM_HEAP=device for GPU memory\n", call)
	}
}

// shmSetupDevice publishes a device heap: its base as a device address, no
// host mapping, and every PE's heap as mapped in this process's context.
// shm.mu is held.
func shmSetupDevice(w *shmem.World) error {
	dev, err := w.Device()
	if err != nil {
		return err
	}
	n := w.NPEs()
	p := C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0))))
	if p == nil {
		return fmt.Errorf("out of memory")
	}
	peers := unsafe.Slice((*uintptr)(p), n)
	for pe := range peers {
		peers[pe] = dev.HeapBase(pe)
	}
	shmC.Base = dev.HeapBase(w.MyPE())
	C.shm_dev.peers = (*C.uintptr_t)(p)
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.shm_dev.on)), 1)
	return nil
}

// shmFinalizeDevice takes the device heap's state down. shm.mu is held.
func shmFinalizeDevice() {
	if C.shm_dev.on == 0 {
		return
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.shm_dev.on)), 0)
	C.free(unsafe.Pointer(C.shm_dev.peers))
	C.shm_dev.peers = nil
}

// shmDevice reports whether the heap is device memory.
func shmDevice() bool { return atomic.LoadInt32((*int32)(unsafe.Pointer(&C.shm_dev.on))) != 0 }

// peStream is the CUstream of the PE's host-initiated operations, which
// its Quiet waits for.
func peStream(w *shmem.World) uintptr {
	dev, err := w.Device()
	if err != nil {
		return 0
	}
	return dev.Stream()
}

// devLocal tells what the local buffer of n bytes at p is on a device
// heap: a symmetric object (sym, ok), other device memory (onDev), or host
// memory. Device memory is ordered after the legacy default stream's work
// (the copy that filled it, or the last one that read it) first.
func devLocal(w *shmem.World, p uintptr, n int) (sym shmem.Sym[byte], ok, onDev bool, err error) {
	sym, ok = shmem.DeviceSym(w, p, n) // no driver call for the heap's own memory
	if onDev = ok || w.IsDeviceMemory(p); onDev {
		err = w.DeviceAfterDefaultStream()
	}
	return sym, ok, onDev, err
}

// devPut is a put into dst on pe from the local buffer src on a device
// heap; it returns when src may be reused unless nbi (then Quiet waits).
func devPut(w *shmem.World, dst shmem.Sym[byte], src uintptr, pe int, nbi bool) error {
	n := dst.Len()
	s, isSym, onDev, err := devLocal(w, src, n)
	switch {
	case err != nil:
		return err
	case isSym && nbi:
		return shmem.PutSymNBI(dst, s, pe)
	case isSym:
		return shmem.PutSym(dst, s, pe)
	case !onDev:
		b := unsafe.Slice((*byte)(cptr(C.uintptr_t(src))), n)
		if nbi {
			return shmem.PutNBI(dst, b, pe)
		}
		return shmem.Put(dst, b, pe)
	}
	to, err := shmem.DevicePtr(dst, pe)
	if err != nil {
		return err
	}
	return devCopy(w, to, src, uint64(n), peStream(w), !nbi)
}

// devGet is a get of src on pe into the local buffer dst on a device heap.
// It returns when dst holds the bytes (the nbi form too: more than it
// promises).
func devGet(w *shmem.World, dst uintptr, src shmem.Sym[byte], pe int) error {
	n := src.Len()
	d, isSym, onDev, err := devLocal(w, dst, n)
	switch {
	case err != nil:
		return err
	case isSym:
		return shmem.GetSym(d, src, pe)
	case !onDev:
		return shmem.Get(unsafe.Slice((*byte)(cptr(C.uintptr_t(dst))), n), src, pe)
	}
	from, err := shmem.DevicePtr(src, pe)
	if err != nil {
		return err
	}
	return devCopy(w, dst, from, uint64(n), peStream(w), true)
}

// devStrided is iput (put) and iget with a local buffer of span bytes at
// local in device memory: through a host copy of it, since the strided
// calls move elements one by one.
func devStrided(w *shmem.World, local uintptr, span int, put bool, do func(b []byte) error) error {
	_, _, onDev, err := devLocal(w, local, span)
	if err != nil || !onDev {
		if err == nil {
			err = do(unsafe.Slice((*byte)(cptr(C.uintptr_t(local))), span))
		}
		return err
	}
	b := make([]byte, span)
	if err := w.CopyDeviceToHost(b, local); err != nil {
		return err
	}
	if err := do(b); err != nil {
		return err
	}
	if put {
		return nil
	}
	return w.CopyHostToDevice(local, b)
}

// abiint_shmem_scan_device is shm_wait_set on a device heap: C's scan
// looks at copy, a host copy of the n bytes at obj/off that this refreshes
// before each look, until the scan is done (or once, for a test).
//
//export abiint_shmem_scan_device
func abiint_shmem_scan_device(call *C.char, scan, copy C.uintptr_t, obj, off C.uint64_t, n C.size_t, wait C.int) {
	c := C.GoString(call)
	w := shmWorld()
	src := shmObjAt(c, uint64(obj), uint64(off), int(n))
	buf := cbytes(copy, n)
	look := func() (bool, error) {
		if err := shmem.Get(buf, src, w.MyPE()); err != nil {
			return false, err
		}
		return C.shm_scan_done(scan) != 0, nil
	}
	done, err := look()
	if err == nil && !done && wait != 0 {
		err = w.Await(w.MyPE(), look)
	}
	shmCheck(c, err)
}
