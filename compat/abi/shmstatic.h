/* shmstatic.h: the data segments shmem_init made symmetric
 * (shmem_static.go): the program's own and those of the shared libraries
 * it was started with (shmem.c: oshi_data_segments). The bytes
 * [lo, lo+len) of segment i are the heap object at offset off, on every
 * PE; shm_static_n counts the segments published (0 before shmem_init and
 * after finalize) (shm.h: shm_find). */
#ifndef GSHMEM_ABI_SHMSTATIC_H
#define GSHMEM_ABI_SHMSTATIC_H

#include <stdint.h>

#define SHM_STATIC_MAX 64

typedef struct {
    uintptr_t lo;
    uint64_t len;
    uint64_t off;
} shm_static_seg;
extern shm_static_seg shm_static[SHM_STATIC_MAX];
extern uint32_t shm_static_n;

/* shm_static_addr is the heap address of a when a lies in a symmetric data
 * segment, else a. */
static inline uintptr_t shm_static_addr(uintptr_t a, uintptr_t base)
{
    uint32_t n = __atomic_load_n(&shm_static_n, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        const shm_static_seg *g = &shm_static[i];
        if (a - g->lo < g->len)
            return base + (uintptr_t)g->off + (a - g->lo);
    }
    return a;
}

#endif
