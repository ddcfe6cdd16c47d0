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
// shmem_init the executable's writable data segment (.data and .bss), and
// that of every shared library the program was started with (except the
// system's and gshmem's own: shmem.c's oshi_data_segments says which),
// moves into a heap object of its size, allocated collectively (so at the
// same offset on every PE, in the loader's order, the same on every PE of
// one executable), and that object's pages are mapped at the segment's own
// address in its place (shmem.c: oshi_data_alias). A global then is heap
// memory under its own address: shm_find (and shmStaticAddr here) turn the
// address into the object's heap offset, and every transport (shm, tcp,
// ucx) reaches it as it reaches the heap; loads and stores of the program
// itself see the same pages.

// abiint_osh_static makes the n data segments [lo[i], lo[i]+len[i])
// symmetric (collective). It does nothing on a device heap, where a global
// cannot live; segments the PEs disagree on (different executables or
// libraries) end the job.
//
//export abiint_osh_static
func abiint_osh_static(call *C.char, lo, size *C.uintptr_t, n C.int) {
	shm.mu.Lock()
	w := shm.w
	shm.mu.Unlock()
	if w == nil || n <= 0 || w.HeapOnDevice() || atomic.LoadUint32((*uint32)(unsafe.Pointer(&C.shm_static_n))) != 0 {
		return
	}
	name := C.GoString(call)
	los, lens := unsafe.Slice(lo, int(n)), unsafe.Slice(size, int(n))
	for i := range los {
		what := "the program's"
		if i > 0 {
			what = fmt.Sprintf("a shared library's (%#x)", uintptr(los[i]))
		}
		s, err := shmem.Align[byte](w, uint64(os.Getpagesize()), int(lens[i]))
		if err != nil {
			shmFatal(name, "making %s %d bytes of global and static data symmetric: %v (raise SHMEM_SYMMETRIC_SIZE, or run one executable, with the same libraries, on every PE)", what, uint64(lens[i]), err)
		}
		local := s.Local()
		if rc := C.oshi_data_alias(unsafe.Pointer(&local[0]), los[i], C.size_t(lens[i])); rc != 0 {
			shmFatal(name, "mapping %s data segment onto the heap: %v", what, syscall.Errno(rc))
		}
		shmHandOut(w, s)
		C.shm_static[i] = C.shm_static_seg{lo: los[i], len: C.uint64_t(lens[i]), off: C.uint64_t(s.Offset())}
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&C.shm_static_n)), uint32(n))
	// No PE may write into another's globals before that one has moved
	// them (its copy would undo the write).
	if err := w.BarrierAll(); err != nil {
		shmFatal(name, "%v", err)
	}
}

// shmStaticAddr is the heap address of addr when addr is in a symmetric
// data segment, else addr.
func shmStaticAddr(addr uintptr) uintptr {
	n := atomic.LoadUint32((*uint32)(unsafe.Pointer(&C.shm_static_n)))
	for i := range n {
		g := &C.shm_static[i]
		if lo := uintptr(g.lo); addr-lo < uintptr(g.len) {
			return shmC.Base + uintptr(g.off) + (addr - lo)
		}
	}
	return addr
}

// shmStaticRelease stops translating globals (gshmem_finalize: the heap
// goes). The globals stay mapped where they are, the program's own.
func shmStaticRelease() {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&C.shm_static_n)), 0)
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
