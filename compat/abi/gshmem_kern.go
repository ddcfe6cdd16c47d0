package main

/*
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
int kern_publish(const void *state, size_t size, int device, int sharers, char *why, size_t n);
int kern_unpublish(void);
*/
import "C"

import (
	"fmt"
	"os"

	"github.com/gshmem/gshmem/shmem"
)

// Stage 4 in C: the device state of gshmem.cuh bound into kernels the user
// compiles with their own nvcc (gshmem_kern.c has the registry of the
// program's binders; gshmem_kern_cuda.go the driver-API modules). The state
// is the World's (shmem.Device.State), so it exists only when the heap is
// device memory; on a host heap there is nothing to bind and the calls that
// need it say so.

// kernPublish gives the World's device state to every registered binder,
// at gshmem_init. A host heap publishes nothing.
func kernPublish(w *shmem.World) error {
	if !w.HeapOnDevice() {
		return nil
	}
	dev, err := w.Device()
	if err != nil {
		return err
	}
	st := dev.State()
	if len(st) == 0 {
		return fmt.Errorf("the device heap has no state table")
	}
	sharers, err := kernSharers(dev)
	if err != nil {
		return err
	}
	cs := C.CBytes(st)
	defer C.free(cs)
	var why [256]C.char
	if C.kern_publish(cs, C.size_t(len(st)), C.int(dev.Ordinal()), C.int(sharers), &why[0], C.size_t(len(why))) != 0 {
		return fmt.Errorf("binding the device state into the program's kernels: %s", C.GoString(&why[0]))
	}
	return nil
}

// kernUnpublish forgets the state at gshmem_finalize.
func kernUnpublish() { C.kern_unpublish() }

// abiint_kern_cumodule is gshmemx_cumodule_init (fin 0) and
// gshmemx_cumodule_finalize (fin 1): 0, or 1 after saying why.
//
//export abiint_kern_cumodule
func abiint_kern_cumodule(module C.uintptr_t, fin C.int) C.int {
	call := "gshmemx_cumodule_init"
	if fin != 0 {
		call = "gshmemx_cumodule_finalize"
	}
	refuse := func(format string, args ...any) C.int {
		fmt.Fprintf(os.Stderr, "gshmem: %s: PE %d: %s\n", call, shmPE(), fmt.Sprintf(format, args...))
		return 1
	}
	if module == 0 {
		return refuse("the module is NULL")
	}
	shm.mu.Lock()
	w := shm.w
	if shm.finalized {
		w = nil
	}
	shm.mu.Unlock()
	if w == nil {
		return refuse("gshmem is not initialized (call gshmem_init or gshmemx_init_attr first)")
	}
	if !w.HeapOnDevice() {
		return refuse("the symmetric heap is host memory: kernels need the device heap (GSHMEM_HEAP=device, a library built with -tags cuda)")
	}
	dev, err := w.Device()
	if err != nil {
		return refuse("%v", err)
	}
	if err := kernBindModule(dev, uintptr(module), fin != 0); err != nil {
		return refuse("%v", err)
	}
	return 0
}
