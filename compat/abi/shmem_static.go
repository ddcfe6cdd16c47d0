package main

/*
#include <stdint.h>
#include <stdlib.h>
#include "shmstatic.h"
int oshi_data_alias(void *heap, uintptr_t lo, size_t len);
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// OpenSHMEM's symmetric data objects: a program's global and static
// variables are remotely accessible, at the same name on every PE. At
// shmem_init the executable's writable data segment (.data and .bss) moves
// into a heap object of its size, allocated collectively (so at the same
// offset on every PE), and that object's pages are mapped at the segment's
// own address in its place (shmem.c: oshi_data_alias). A global then is
// heap memory under its own address: shm_find (and shmStaticAddr here)
// turn the address into the object's heap offset, and every transport
// (shm, tcp, ucx) reaches it as it reaches the heap; loads and stores of
// the program itself see the same pages.

// abiint_osh_static makes the data segment [lo, lo+n) symmetric
// (collective). It does nothing on a device heap, where a global cannot
// live; a segment the PEs disagree on (different executables) ends the
// job.
//
//export abiint_osh_static
func abiint_osh_static(call *C.char, lo C.uintptr_t, n C.size_t) {
	shm.mu.Lock()
	w := shm.w
	shm.mu.Unlock()
	if w == nil || n == 0 || w.HeapOnDevice() || atomic.LoadUint64((*uint64)(unsafe.Pointer(&C.shm_static.len))) != 0 {
		return
	}
	name := C.GoString(call)
	s, err := shmem.Align[byte](w, uint64(os.Getpagesize()), int(n))
	if err != nil {
		shmFatal(name, "making the program's %d bytes of global and static data symmetric: %v (raise SHMEM_SYMMETRIC_SIZE, or run one executable on every PE)", uint64(n), err)
	}
	local := s.Local()
	if rc := C.oshi_data_alias(unsafe.Pointer(&local[0]), lo, n); rc != 0 {
		shmFatal(name, "mapping the program's data segment onto the heap: %v", syscall.Errno(rc))
	}
	shmHandOut(w, s)
	C.shm_static.lo, C.shm_static.off = lo, C.uint64_t(s.Offset())
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&C.shm_static.len)), uint64(n))
	// No PE may write into another's globals before that one has moved
	// them (its copy would undo the write).
	if err := w.BarrierAll(); err != nil {
		shmFatal(name, "%v", err)
	}
}

// shmStaticAddr is the heap address of addr when addr is in the program's
// symmetric data segment, else addr.
func shmStaticAddr(addr uintptr) uintptr {
	n := uintptr(atomic.LoadUint64((*uint64)(unsafe.Pointer(&C.shm_static.len))))
	lo := uintptr(C.shm_static.lo)
	if n != 0 && addr-lo < n {
		return shmC.Base + uintptr(C.shm_static.off) + (addr - lo)
	}
	return addr
}

// shmStaticRelease stops translating globals (gshmem_finalize: the heap
// goes). The globals stay mapped where they are, the program's own.
func shmStaticRelease() {
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&C.shm_static.len)), 0)
}

// abiint_osh_env maps OpenSHMEM's environment variables onto gshmem's
// before the heap starts: SHMEM_SYMMETRIC_SIZE is GSHMEM_SYMMETRIC_SIZE
// and SHMEM_DEBUG turns GSHMEM_DEBUG to debug (a GSHMEM_ setting wins);
// SHMEM_VERSION and SHMEM_INFO print the library's version and its
// settings on PE 0 (shmemInfo, after init).
//
//export abiint_osh_env
func abiint_osh_env() {
	if v, ok := os.LookupEnv("SHMEM_SYMMETRIC_SIZE"); ok && os.Getenv("GSHMEM_SYMMETRIC_SIZE") == "" {
		os.Setenv("GSHMEM_SYMMETRIC_SIZE", v)
	}
	if v := os.Getenv("SHMEM_DEBUG"); v != "" && v != "0" && os.Getenv("GSHMEM_DEBUG") == "" {
		os.Setenv("GSHMEM_DEBUG", "debug")
	}
}

// abiint_osh_info prints what SHMEM_VERSION and SHMEM_INFO ask for, on
// PE 0.
//
//export abiint_osh_info
func abiint_osh_info() {
	if shmPE() != 0 {
		return
	}
	_, version := os.LookupEnv("SHMEM_VERSION")
	_, info := os.LookupEnv("SHMEM_INFO")
	if version || info {
		fmt.Fprintln(os.Stderr, "gshmem: OpenSHMEM 1.5 (shmem.h), vendor gshmem")
	}
	if !info {
		return
	}
	var b strings.Builder
	b.WriteString("gshmem: SHMEM_SYMMETRIC_SIZE  heap size per PE (sets GSHMEM_SYMMETRIC_SIZE; suffixes k, m, g)\n")
	b.WriteString("gshmem: SHMEM_DEBUG           any value but 0: debug messages (sets GSHMEM_DEBUG=debug)\n")
	b.WriteString("gshmem: SHMEM_VERSION         print the library's version at shmem_init\n")
	b.WriteString("gshmem: SHMEM_INFO            print this\n")
	for _, k := range []string{"SHMEM_SYMMETRIC_SIZE", "GSHMEM_SYMMETRIC_SIZE", "SHMEM_DEBUG", "GSHMEM_DEBUG"} {
		fmt.Fprintf(&b, "gshmem:   %s=%q\n", k, os.Getenv(k))
	}
	fmt.Fprint(os.Stderr, b.String())
}
