package main

/*
#include <stdint.h>
#include <string.h>
*/
import "C"

import (
	"bytes"
	"fmt"
	"os"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// NVSHMEM's unique-id initialization (gshmem_init.c has the C side). An
// id names either a job of its own, made by shmem.NewUniqueID (rank 0's
// rendezvous address and the job's secret), or, where this library's
// MPI_Init has made the job already, that job: the MPI ranks are the PEs
// then, and the id only checks that every process says so.

// uidInJob marks an id made inside an MPI job (shmem.NewUniqueID's start
// with a different magic).
var uidInJob = []byte("gshmemJ1")

// abiint_shmem_get_uniqueid writes an id into out (shmem.UniqueIDSize
// bytes). It returns 0, or 1 after printing why.
//
//export abiint_shmem_get_uniqueid
func abiint_shmem_get_uniqueid(out *C.char) C.int {
	dst := unsafe.Slice((*byte)(unsafe.Pointer(out)), shmem.UniqueIDSize)
	if mpiWorld() != nil {
		clear(dst)
		copy(dst, uidInJob)
		return 0
	}
	id, err := shmem.NewUniqueID()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gshmem: gshmemx_get_uniqueid: %v\n", err)
		return 1
	}
	copy(dst, id[:])
	return 0
}

// abiint_shmem_init_uid is gshmemx_init_attr with
// GSHMEMX_INIT_WITH_UNIQUEID: rank of nranks, id (shmem.UniqueIDSize
// bytes). It returns 0, or 1 after printing why.
//
//export abiint_shmem_init_uid
func abiint_shmem_init_uid(rank, nranks C.int, id *C.char) C.int {
	const call = "gshmemx_init_attr"
	refuse := func(format string, args ...any) C.int {
		fmt.Fprintf(os.Stderr, "gshmem: %s: GSHMEMX_INIT_WITH_UNIQUEID: %s\n", call, fmt.Sprintf(format, args...))
		return 1
	}
	var uid shmem.UniqueID
	copy(uid[:], unsafe.Slice((*byte)(unsafe.Pointer(id)), shmem.UniqueIDSize))
	r, n := int(rank), int(nranks)
	if n < 1 || r < 0 || r >= n {
		return refuse("rank %d of %d: want 0 <= myrank < nranks (gshmemx_set_attr_uniqueid_args)", r, n)
	}
	mw := mpiWorld()
	inJob := bytes.HasPrefix(uid[:], uidInJob)
	switch {
	case mw != nil && inJob:
		if r != mw.MyPE() || n != mw.NPEs() {
			return refuse("rank %d of %d, but this process is rank %d of the %d of MPI_COMM_WORLD: under MPI the PEs are MPI_COMM_WORLD's ranks (pass its rank and size)", r, n, mw.MyPE(), mw.NPEs())
		}
		return shmStart(call, mw, nil)
	case mw != nil:
		return refuse("MPI_Init has made this process's job, but the id was not made in it (call gshmemx_get_uniqueid on rank 0 after MPI_Init)")
	case inJob:
		return refuse("the id names an MPI job (rank 0 called gshmemx_get_uniqueid after MPI_Init), but this process has not called MPI_Init")
	}
	return shmStart(call, nil, []shmem.Option{shmem.WithUniqueID(uid, r, n)})
}
