/* live.h: the set of live user handles that C may dereference.
 *
 * A user handle is the address of a struct Go allocated (state.h). The hot
 * paths in C read that struct without calling Go, so a handle that is not
 * one (a garbage value, (MPI_Comm)0x12345678) would be dereferenced and
 * crash the process. Go adds every user handle of the kinds C reads
 * (communicators, windows) to this set when it hands the handle out and
 * takes it out before it frees it; C dereferences a handle only after
 * abi_live finds it here, and sends every other one to Go, whose table
 * (handles.go) reports MPI_ERR_COMM, MPI_ERR_WIN and so on. The set is an
 * open-addressed table of ABI_LIVE_SLOTS words, probed at most
 * ABI_LIVE_PROBE slots from a handle's hash: a handle that finds no free
 * slot there is simply not in it, and its calls take the Go path (slower,
 * never wrong). A lookup is a multiply and one to ABI_LIVE_PROBE loads of
 * a table that stays in cache. */
#ifndef GSHMEM_ABI_LIVE_H
#define GSHMEM_ABI_LIVE_H

#include <stdint.h>

enum { ABI_LIVE_BITS = 12, ABI_LIVE_SLOTS = 1 << ABI_LIVE_BITS, ABI_LIVE_PROBE = 8 };

extern uintptr_t abi_live_set[ABI_LIVE_SLOTS];

static inline unsigned abi_live_hash(uintptr_t h)
{
    return (unsigned)(((uint64_t)h * 0x9E3779B97F4A7C15ull) >> (64 - ABI_LIVE_BITS));
}

/* abi_live reports whether h is a live user handle that Go published. */
static inline int abi_live(uintptr_t h)
{
    unsigned i = abi_live_hash(h);
    for (int k = 0; k < ABI_LIVE_PROBE; k++)
        if (__atomic_load_n(&abi_live_set[(i + k) & (ABI_LIVE_SLOTS - 1)], __ATOMIC_ACQUIRE) == h)
            return 1;
    return 0;
}

/* Called by Go, under its handle table's lock. */
void abi_live_add(uintptr_t h);
void abi_live_del(uintptr_t h);

#endif
