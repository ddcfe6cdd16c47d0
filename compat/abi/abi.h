/* abi.h: what the C files of libmpi_abi.so.1 share: the public header, the
 * symmetric heap's API, the shared state layout, the prototypes of the C implementations and the
 * trampolines into user code (callbacks.c). Go files include it in their
 * cgo preamble; it holds declarations only. */
#ifndef GSHMEM_ABI_H
#define GSHMEM_ABI_H

#include <stddef.h>
#include <stdint.h>
#include "include/mpi.h"
#include "include/gshmem.h"
#include "state.h"
#include "live.h"
#include "zprotos.h"

/* Calls a user's communicator (or window, file, session: the same shape)
 * error handler: fn(&handle, &code). */
void abi_call_errhandler(uintptr_t fn, uintptr_t handle, int code);

/* Call a communicator attribute's copy function (on MPI_Comm_dup) and
 * delete function (on MPI_Comm_free, MPI_Comm_delete_attr, replacement). */
int abi_call_copy_attr(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int abi_call_delete_attr(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t val, uintptr_t extra);

/* Calls a user's reduction function (MPI_Op_create): fn(in, inout, &len,
 * &datatype), which combines in into inout. */
void abi_call_user_op(uintptr_t fn, void *in, void *inout, ptrdiff_t shift, int len, uintptr_t datatype);
void abi_call_user_op_c(uintptr_t fn, void *in, void *inout, ptrdiff_t shift, MPI_Count len, uintptr_t datatype);

/* shm_scan_done evaluates a wait of gshmem.c's shm_wait_set (scan is its
 * shm_scan): 1 when the wait may end. Go's World.Await calls it. */
int shm_scan_done(uintptr_t scan);

/* The C fast paths' counts for the MPI_T performance variables: sends,
 * their bytes, receives, their bytes, RMA operations (p2p.c, rma.c). */
extern uint64_t abi_rma_fast_ops;
void abi_t_fast_counts(uint64_t out[5]);

#endif
