/* shm.h: the cores of the symmetric heap's C host API (gshmem.h). The
 * typed functions (zgshmem.c, generated) and the untyped ones (gshmem.c)
 * call these with the call's name, the element count and size.
 *
 * Every address argument that names symmetric memory is checked here, in
 * C, against the live objects of gshmem_malloc (abi_shm.objs), and every
 * PE against 0..n_pes-1: a bad one ends the job with a message naming the
 * call (NVSHMEM's behaviour), never a write outside an object. A target
 * PE whose heap this process maps (abi_shm.peers) is then reached by
 * load, store and atomic instruction, with the doorbell rung after each
 * write as the Go runtime's own paths do, so a peer asleep in a wait
 * wakes; any other PE goes to Go (abiint_shmem_*: package shmem's Put,
 * Get, atomics, over tcp or another transport), which marks pending so
 * that quiet and fence know to complete them. The atomics are the same
 * instructions on the same words as shmem's (4- and 8-byte words), so a C
 * update and a Go or remote one stay atomic with each other. */
#ifndef GSHMEM_ABI_SHM_H
#define GSHMEM_ABI_SHM_H

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include "include/gshmem.h"
#include "state.h"
#include "bell.h"
#include "copy.h"
#include "shmdev.h"
#include "shmstatic.h"
#include "_cgo_export.h"

/* The kind of an element (the Go side's type switch): integers by their
 * signedness, which for char the platform sets. */
enum { ABI_SHM_SINT = 1, ABI_SHM_UINT = 2, ABI_SHM_FLOAT = 3 };
#define ABI_SHM_CHAR (CHAR_MIN < 0 ? ABI_SHM_SINT : ABI_SHM_UINT)

/* Atomic operations of shm_amo (the non-fetching forms drop the result). */
enum { ABI_AMO_FETCH = 0, ABI_AMO_SET, ABI_AMO_SWAP, ABI_AMO_CSWAP, ABI_AMO_ADD, ABI_AMO_AND, ABI_AMO_OR, ABI_AMO_XOR };

/* What shm_wait_set waits for (or tests): every active element, any one,
 * some (all that hold, at least one). */
enum { ABI_SET_ALL = 0, ABI_SET_ANY, ABI_SET_SOME };

/* Collectives of shm_coll, and the reduction operations (shmem.ReduceOp's
 * values). */
enum { ABI_COLL_BROADCAST = 0, ABI_COLL_FCOLLECT, ABI_COLL_ALLTOALL, ABI_COLL_REDUCE, ABI_COLL_COLLECT,
       ABI_COLL_ALLTOALLS, ABI_COLL_REDUCESCATTER };
enum { ABI_RED_SUM = 0, ABI_RED_PROD, ABI_RED_MIN, ABI_RED_MAX, ABI_RED_AND, ABI_RED_OR, ABI_RED_XOR };

/* shm_fatal prints "gshmem: call: PE p: message" and ends the job; it
 * does not return. */
void shm_fatal(const char *call, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* The Go paths (gshmem.c), for PEs not mapped here and for what C does not
 * do. */
void shm_put_go(const char *call, uint64_t obj, uint64_t off, const void *src, size_t n, int pe, int nbi);
void shm_get_go(const char *call, void *dst, uint64_t obj, uint64_t off, size_t n, int pe, int nbi);
uint64_t shm_amo_go(const char *call, uint64_t obj, uint64_t off, int width, int op, uint64_t v, uint64_t cmp, int pe);

void shm_put_signal(const char *call, void *dest, const void *src, size_t nelems, size_t size, uint64_t *sig,
                    uint64_t value, int op, int pe, int nbi);
void shm_wait(const char *call, void *ivar, int width, int kind, int cmp, uint64_t value);
int shm_test(const char *call, void *ivar, int width, int kind, int cmp, uint64_t value);
void shm_istride(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                 size_t size, int pe, int put);
size_t shm_wait_set(const char *call, void *ivars, size_t nelems, size_t *indices, const int *status, int width,
                    int kind, int cmp, uint64_t value, const void *values, int mode, int wait);
int shm_coll(const char *call, int coll, gshmem_team_t team, void *dest, const void *src, size_t nelems, size_t size,
             int kind, int op, int root);
int shm_alltoalls(const char *call, gshmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                  size_t nelems, size_t size);

/* shm_sync_set is a dissemination barrier over n PEs, member i being
 * world PE start + i * stride and this PE member me, on the words of
 * psync (one per round, SHMEM_SYNC_VALUE, 0, at rest), in C: remote atomic
 * adds and waits (gshmem_sync.c). */
void shm_sync_set(const char *call, int64_t *psync, int start, int stride, int n, int me);

/* The cores of the *_on_stream calls (gshmem_stream.c). */
void shm_rma_stream(const char *call, void *dest, const void *src, size_t nelems, size_t size, int pe, int put,
                    gshmemx_stream_t stream);
void shm_put_signal_stream(const char *call, void *dest, const void *src, size_t nelems, size_t size, uint64_t *sig,
                           uint64_t value, int op, int pe, gshmemx_stream_t stream);
int shm_coll_stream(const char *call, int coll, gshmem_team_t team, void *dest, const void *src, size_t nelems,
                    size_t size, int kind, int op, int root, gshmemx_stream_t stream);

/* shm_bits is a value's bytes as the low bytes of a word. */
static inline uint64_t shm_bits(const void *v, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, v, size);
    return b;
}

/* shm_read_word is the width-byte word at heap offset off of this PE
 * (its bytes as the low bytes of the result), read through Go after the
 * PE's earlier operations: the device heap's way to look at a word. */
static inline uint64_t shm_read_word(const char *call, uint64_t obj, uint64_t off, int width)
{
    uint64_t v = 0;
    abiint_shmem_get((char *)call, (uintptr_t)&v, obj, off, (size_t)width, abi_shm.my_pe, 0);
    return v;
}

/* shm_relax is the pause between two polls of a spinning wait. */
static inline void shm_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline void shm_ready(const char *call)
{
    if (__atomic_load_n(&abi_shm.initialized, __ATOMIC_ACQUIRE) == 0)
        shm_fatal(call, "gshmem is not initialized (no gshmem_init or gshmemx_init_attr yet, or gshmem_finalize or "
                        "MPI_Finalize has run)");
}

static inline void shm_check_pe(const char *call, int pe)
{
    if ((unsigned)pe >= (unsigned)abi_shm.n_pes)
        shm_fatal(call, "PE %d is not a PE of this job (0..%d)", pe, abi_shm.n_pes - 1);
}

/* shm_bytes is nelems * size, or the end of the job when it overflows. */
static inline size_t shm_bytes(const char *call, size_t nelems, size_t size)
{
    if (size != 0 && nelems > SIZE_MAX / size)
        shm_fatal(call, "%zu elements of %zu bytes overflow the address space", nelems, size);
    return nelems * size;
}

/* shm_find looks addr's n bytes up among the live objects: 1 and the
 * object's offset and the bytes' offset in the heap when they lie inside
 * one, else 0. A reader of the seqlock: it retries while Go rewrites. */
static inline int shm_find(const void *addr, size_t n, uint64_t *obj, uint64_t *off)
{
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)abi_shm.base;
    a = shm_static_addr(a, base); /* a global: its heap object */
    if (a < base)
        return 0;
    uint64_t o = (uint64_t)(a - base);
    for (;;) {
        uint64_t s1 = __atomic_load_n(&abi_shm.seq, __ATOMIC_ACQUIRE);
        if (s1 & 1) {
            sched_yield(); /* Go is rewriting the list (a collective malloc or free) */
            continue;
        }
        const abi_shm_obj *v = __atomic_load_n(&abi_shm.objs, __ATOMIC_RELAXED);
        int64_t lo = 0, hi = __atomic_load_n(&abi_shm.nobjs, __ATOMIC_RELAXED);
        /* The last object at or below o. */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (__atomic_load_n(&v[mid].off, __ATOMIC_RELAXED) <= o)
                lo = mid + 1;
            else
                hi = mid;
        }
        int ok = 0;
        uint64_t start = 0;
        if (lo > 0) {
            start = __atomic_load_n(&v[lo - 1].off, __ATOMIC_RELAXED);
            uint64_t size = __atomic_load_n(&v[lo - 1].size, __ATOMIC_RELAXED);
            ok = o - start < size && n <= size - (o - start);
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&abi_shm.seq, __ATOMIC_RELAXED) == s1) {
            *obj = start;
            *off = o;
            return ok;
        }
    }
}

/* shm_locate is shm_find, or the end of the job naming what was wrong. */
static inline uint64_t shm_locate(const char *call, const char *what, const void *addr, size_t n, uint64_t *obj)
{
    uint64_t off;
    if (!shm_find(addr, n, obj, &off))
        shm_fatal(call, "%s %p (%zu bytes) is not symmetric on this PE (inside no object of the heap, nor a global shmem_init made symmetric)", what, addr, n);
    return off;
}

/* shm_check_sig_op ends the job on a sig_op that is neither SET nor ADD. */
static inline void shm_check_sig_op(const char *call, int op)
{
    if (op != GSHMEM_SIGNAL_SET && op != GSHMEM_SIGNAL_ADD)
        shm_fatal(call, "sig_op %d is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD", op);
}

/* shm_locate_sig is shm_locate for a signal word: 8 bytes, 8-aligned. */
static inline uint64_t shm_locate_sig(const char *call, const void *sig, uint64_t *obj)
{
    uint64_t off = shm_locate(call, "sig_addr", sig, 8, obj);
    if (off % 8 != 0)
        shm_fatal(call, "sig_addr %p is not aligned to 8 bytes", sig);
    return off;
}

/* shm_signal_args checks a put-with-signal's arguments (the host and
 * on-stream forms take the same), locates its destination (*obj, *off;
 * 0 when nothing moves) and signal word (*sobj, *soff), and returns the
 * payload's bytes. */
static inline size_t shm_signal_args(const char *call, void *dest, size_t nelems, size_t size, uint64_t *sig, int op,
                                     int pe, uint64_t *obj, uint64_t *off, uint64_t *sobj, uint64_t *soff)
{
    shm_ready(call);
    shm_check_pe(call, pe);
    shm_check_sig_op(call, op);
    size_t n = shm_bytes(call, nelems, size);
    *obj = 0;
    *off = 0;
    *soff = shm_locate_sig(call, sig, sobj);
    if (n != 0)
        *off = shm_locate(call, "dest", dest, n, obj);
    return n;
}

/* shm_ring wakes the user waiters of a heap's doorbell after this
 * thread's writes there (bell.h). */
static inline void shm_ring(uint32_t *bell) { bell_ring(bell, BELL_USER); }

/* shm_peer is pe's heap as mapped here, or NULL (then Go). */
static inline uint8_t *shm_peer(int pe)
{
    if (__atomic_load_n(&abi_shm.aborted, __ATOMIC_RELAXED))
        return NULL;
    return __atomic_load_n(&abi_shm.peers[pe], __ATOMIC_ACQUIRE);
}

static inline void shm_put(const char *call, void *dest, const void *src, size_t nelems, size_t size, int pe, int nbi)
{
    shm_ready(call);
    shm_check_pe(call, pe);
    size_t n = shm_bytes(call, nelems, size);
    if (n == 0)
        return;
    uint64_t obj, off = shm_locate(call, "dest", dest, n, &obj);
    uint8_t *p = shm_peer(pe);
    if (p == NULL) {
        shm_put_go(call, obj, off, src, n, pe, nbi);
        return;
    }
    abi_copy(p + off, src, n);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shm_ring(abi_shm.bells[pe]);
}

static inline void shm_get(const char *call, void *dest, const void *src, size_t nelems, size_t size, int pe, int nbi)
{
    shm_ready(call);
    shm_check_pe(call, pe);
    size_t n = shm_bytes(call, nelems, size);
    if (n == 0)
        return;
    uint64_t obj, off = shm_locate(call, "source", src, n, &obj);
    uint8_t *p = shm_peer(pe);
    if (p == NULL) {
        shm_get_go(call, dest, obj, off, n, pe, nbi);
        return;
    }
    abi_copy(dest, p + off, n);
}

/* shm_amo applies op to the width-byte word at dest on pe and returns its
 * previous value (0 for SET). */
static inline uint64_t shm_amo(const char *call, void *dest, int width, int op, uint64_t v, uint64_t cmp, int pe)
{
    shm_ready(call);
    shm_check_pe(call, pe);
    uint64_t obj, off = shm_locate(call, "dest", dest, (size_t)width, &obj);
    if (off % (uint64_t)width != 0)
        shm_fatal(call, "dest %p is not aligned to its %d bytes", dest, width);
    uint8_t *p = shm_peer(pe);
    if (p == NULL)
        return shm_amo_go(call, obj, off, width, op, v, cmp, pe);
    uint64_t old = 0;
    int wrote = 1;
    if (width == 4) {
        uint32_t *w = (uint32_t *)(p + off), x = (uint32_t)v, c = (uint32_t)cmp;
        switch (op) {
        case ABI_AMO_FETCH: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); wrote = 0; break;
        case ABI_AMO_SET: __atomic_store_n(w, x, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_SWAP: old = __atomic_exchange_n(w, x, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_CSWAP:
            wrote = __atomic_compare_exchange_n(w, &c, x, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            old = c;
            break;
        case ABI_AMO_ADD: old = __atomic_fetch_add(w, x, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_AND: old = __atomic_fetch_and(w, x, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_OR: old = __atomic_fetch_or(w, x, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_XOR: old = __atomic_fetch_xor(w, x, __ATOMIC_SEQ_CST); break;
        }
    } else {
        uint64_t *w = (uint64_t *)(p + off), c = cmp;
        switch (op) {
        case ABI_AMO_FETCH: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); wrote = 0; break;
        case ABI_AMO_SET: __atomic_store_n(w, v, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_SWAP: old = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_CSWAP:
            wrote = __atomic_compare_exchange_n(w, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            old = c;
            break;
        case ABI_AMO_ADD: old = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_AND: old = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_OR: old = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;
        case ABI_AMO_XOR: old = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;
        }
    }
    if (wrote)
        shm_ring(abi_shm.bells[pe]);
    return old;
}

#endif
