/* shmstatic.h: the program's data segment when shmem_init made it
 * symmetric (shmem_static.go): the bytes [lo, lo+len) are the heap object
 * at offset off, on every PE; len is 0 otherwise (shm.h: shm_find). */
#ifndef GSHMEM_ABI_SHMSTATIC_H
#define GSHMEM_ABI_SHMSTATIC_H

#include <stdint.h>

typedef struct {
    uintptr_t lo;
    uint64_t len;
    uint64_t off;
} shm_static_seg;
extern shm_static_seg shm_static;

#endif
