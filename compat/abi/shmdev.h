/* shmdev.h: the device heap's part of the state gshmem.h's C paths read
 * (gshmem.c defines it, gshmem_device.go fills it in).
 *
 * With the heap in device memory (the CUDA build, GSHMEM_HEAP=device, or
 * gshmem_init alone in that build), abi_shm.base is this PE's heap as a
 * device address and abi_shm.peers stays NULL: no PE is host load/store
 * memory, so every call goes to Go, which moves the bytes with the copy
 * engine and kernels, and C never dereferences a heap address (it reads a
 * word through Go: shm_read_word). on is set before abi_shm.initialized
 * and cleared after it; peers is each PE's heap as mapped into this
 * process's GPU context (CUDA IPC), 0 where it is not, for gshmem_ptr.
 * Not in state.h: only gshmem's C reads it. */
#ifndef GSHMEM_ABI_SHMDEV_H
#define GSHMEM_ABI_SHMDEV_H

#include <stdint.h>

typedef struct shm_device {
    int32_t on;
    uintptr_t *peers;
} shm_device;
extern shm_device shm_dev;

#endif
