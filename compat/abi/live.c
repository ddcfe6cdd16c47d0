//go:build cgo

/* The live-handle set (live.h). Go's handle table serializes the writers;
 * the hot paths read it without a lock, and a handle's struct is written
 * before the handle enters the set (release store) and stays mapped after
 * it leaves (Go keeps freed structs for reuse, their magic cleared). */

#include "live.h"

uintptr_t abi_live_set[ABI_LIVE_SLOTS];

void abi_live_add(uintptr_t h)
{
    unsigned i = abi_live_hash(h);
    for (int k = 0; k < ABI_LIVE_PROBE; k++) {
        uintptr_t *s = &abi_live_set[(i + k) & (ABI_LIVE_SLOTS - 1)];
        if (*s == 0 || *s == h) {
            __atomic_store_n(s, h, __ATOMIC_RELEASE);
            return;
        }
    }
}

void abi_live_del(uintptr_t h)
{
    unsigned i = abi_live_hash(h);
    for (int k = 0; k < ABI_LIVE_PROBE; k++) {
        uintptr_t *s = &abi_live_set[(i + k) & (ABI_LIVE_SLOTS - 1)];
        if (*s == h)
            __atomic_store_n(s, 0, __ATOMIC_RELEASE);
    }
}
