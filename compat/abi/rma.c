//go:build cgo

/* The RMA hot paths: put, get, accumulate, fetch-and-op, compare-and-swap
 * into a rank whose window memory is mapped in this process, flush, shared
 * locks and lock_all, without crossing into Go (a C->Go call costs more
 * than a whole 8-byte put into a mapped peer).
 *
 * Each function takes its fast path only when everything it needs is in
 * the state Go published (abi_win, its targets, and windows' own epoch
 * bytes, shared through windows.Win.Bind): a live window with fast set, an
 * epoch open to the rank, a mapped rank, a predefined datatype the same on
 * both sides, a range inside the window. Anything else, errors included,
 * goes to the Go function of the same call, which sees every change made
 * here because the epoch bytes are the same memory. The updates follow the
 * Go path: the same atomic instructions on the same words (so an
 * accumulate from here and one from Go, or from a process reaching the
 * rank over TCP, stay atomic with each other) and the same lock protocol,
 * whose releases ring the heap's doorbell for its lock waiters only. Data writes
 * ring no doorbell, as windows' Put does not: no MPI wait ends on window
 * data (those of fence, PSCW and locks end on their own words), and a
 * target asleep in, say, MPI_Barrier would be woken by every put.
 * MPI_THREAD_SERIALIZED is the level provided: no lock is
 * needed around a window's state. */

#include <string.h>
#include "abi.h"
#include "copy.h"
#include "bell.h"
#include "_cgo_export.h"

/* What a predefined datatype is, for the fast paths. */
enum { K_NONE = 0, K_RAW, K_SINT, K_UINT, K_FLOAT };

typedef struct { int kind; int size; } abi_basic;

static inline abi_basic basic_of(MPI_Datatype dt)
{
    switch ((uintptr_t)dt) {
    case (uintptr_t)MPI_INT: case (uintptr_t)MPI_INT32_T:
        return (abi_basic){K_SINT, 4};
    case (uintptr_t)MPI_LONG: case (uintptr_t)MPI_LONG_LONG: case (uintptr_t)MPI_INT64_T:
        return (abi_basic){K_SINT, 8};
    case (uintptr_t)MPI_UNSIGNED: case (uintptr_t)MPI_UINT32_T:
        return (abi_basic){K_UINT, 4};
    case (uintptr_t)MPI_UNSIGNED_LONG: case (uintptr_t)MPI_UNSIGNED_LONG_LONG: case (uintptr_t)MPI_UINT64_T:
        return (abi_basic){K_UINT, 8};
    case (uintptr_t)MPI_FLOAT:
        return (abi_basic){K_FLOAT, 4};
    case (uintptr_t)MPI_DOUBLE:
        return (abi_basic){K_FLOAT, 8};
    case (uintptr_t)MPI_CHAR: case (uintptr_t)MPI_SIGNED_CHAR: case (uintptr_t)MPI_INT8_T:
        return (abi_basic){K_SINT, 1};
    case (uintptr_t)MPI_UNSIGNED_CHAR: case (uintptr_t)MPI_UINT8_T:
        return (abi_basic){K_UINT, 1};
    case (uintptr_t)MPI_BYTE:
        return (abi_basic){K_RAW, 1};
    case (uintptr_t)MPI_SHORT: case (uintptr_t)MPI_INT16_T:
        return (abi_basic){K_SINT, 2};
    case (uintptr_t)MPI_UNSIGNED_SHORT: case (uintptr_t)MPI_UINT16_T:
        return (abi_basic){K_UINT, 2};
    }
    return (abi_basic){K_NONE, 0};
}

/* The window behind a handle when the fast paths may use it, else NULL.
 * Once any peer is lost (or has finalized) every call takes the Go path,
 * as the Go fast paths do on the same word: a target that was killed or
 * stopped keeps its mapped memory writable, so only the Go path, whose
 * flush and waits consult the transport's health (bounded by
 * GSHMEM_PEER_TIMEOUT), can report it. */
static inline abi_win *fast_win(MPI_Win win, int64_t need)
{
    /* Only a live handle is read (live.h): a garbage or freed one goes to
     * Go, whose table reports MPI_ERR_WIN. */
    if ((uintptr_t)win < ABI_ID_BASE || !abi_live((uintptr_t)win))
        return NULL;
    abi_win *w = (abi_win *)win;
    if (w->hdr.magic != ABI_MAGIC || w->hdr.kind != ABI_KIND_WIN || (w->fast & need) != need ||
        __atomic_load_n(&abi_global.aborted, __ATOMIC_RELAXED) ||
        __atomic_load_n(abi_global.down, __ATOMIC_RELAXED))
        return NULL;
    return w;
}

static inline uint8_t *access_of(abi_win *w) { return (uint8_t *)(w->epoch + 1); }

/* An access byte's atomic load, compare-and-swap and store, made on the
 * aligned 4-byte word that holds it, as windows' access.go makes them
 * (atomics of one size on both sides; little-endian). */
static inline uint32_t *acc_word(uint8_t *p, unsigned *sh)
{
    *sh = (unsigned)((uintptr_t)p & 3) * 8;
    return (uint32_t *)((uintptr_t)p & ~(uintptr_t)3);
}

static inline uint8_t acc_load(uint8_t *p)
{
    unsigned sh;
    uint32_t *w = acc_word(p, &sh);
    return (uint8_t)(__atomic_load_n(w, __ATOMIC_ACQUIRE) >> sh);
}

static inline int acc_cas(uint8_t *p, uint8_t old, uint8_t v)
{
    unsigned sh;
    uint32_t *w = acc_word(p, &sh), cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    while ((uint8_t)(cur >> sh) == old)
        if (__atomic_compare_exchange_n(w, &cur, (cur & ~(0xffu << sh)) | (uint32_t)v << sh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return 1;
    return 0;
}

static inline void acc_store(uint8_t *p, uint8_t v)
{
    unsigned sh;
    uint32_t *w = acc_word(p, &sh), cur = __atomic_load_n(w, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(w, &cur, (cur & ~(0xffu << sh)) | (uint32_t)v << sh, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
}
static inline uint8_t *locks_of(abi_win *w) { return access_of(w) + w->n; }

/* shared_lock takes rank t's lock as a reader, as windows' acquire does:
 * 0 when held, else the Go continuation's result code. */
static int shared_lock(abi_win *w, MPI_Win win, int t)
{
    abi_target *g = &w->targets[t];
    /* No doorbell: no wait ends on a reader's arrival (writers wait for
     * readers to leave, readers for a writer to go). */
    uint32_t v = __atomic_fetch_add(&g->lock[0], ABI_LOCK_READER, __ATOMIC_SEQ_CST);
    if ((v & ABI_LOCK_WRITER) == 0)
        return MPI_SUCCESS;
    return abiint_win_await_shared((uintptr_t)win, t, v);
}

static inline void shared_unlock(abi_target *g)
{
    __atomic_fetch_add(&g->lock[1], ABI_LOCK_READER, __ATOMIC_SEQ_CST);
    bell_ring(g->bell, BELL_LOCK); /* lock waiters only (windows' pollLock) */
}

/* dyn_hit finds the region of dynamic window target g that holds bytes
 * at address disp: the one found last while the table's generation
 * stays, else a scan of the table (windows' dynamic.go writes a slot's
 * fields before its state and bumps the generation after). Only regions
 * whose pages are in the pool are served here; the rest, and addresses in
 * no region (MPI_ERR_RMA_RANGE), go to Go. On a hit g->data is the
 * region's address 0, so that g->data + disp is the byte. */
static inline int dyn_hit(abi_target *g, MPI_Aint disp, int64_t bytes)
{
    const uint64_t *tab = (const uint64_t *)g->table;
    uint64_t a = (uint64_t)disp, k = (uint64_t)bytes;
    uint64_t gen = __atomic_load_n(&tab[1], __ATOMIC_ACQUIRE);
    if (gen == g->dgen && a >= g->dlo && a - g->dlo <= g->dn && k <= g->dn - (a - g->dlo) && g->data != NULL)
        return 1;
    uint64_t hw = __atomic_load_n(&tab[0], __ATOMIC_ACQUIRE), limit = (uint64_t)g->size;
    if (hw > ABI_DYN_SLOTS)
        hw = ABI_DYN_SLOTS;
    for (uint64_t s = 0; s < hw; s++) {
        const uint64_t *sl = (const uint64_t *)(g->table + ABI_DYN_HEADER + s * ABI_DYN_SLOT);
        if (__atomic_load_n(&sl[3], __ATOMIC_ACQUIRE) != ABI_DYN_POOL)
            continue;
        uint64_t lo = __atomic_load_n(&sl[0], __ATOMIC_RELAXED), n = __atomic_load_n(&sl[1], __ATOMIC_RELAXED),
                 off = __atomic_load_n(&sl[2], __ATOMIC_RELAXED);
        if (a < lo || a - lo > n || k > n - (a - lo))
            continue;
        if (off < ABI_DYN_TABLE || off > limit || n > limit - off)
            continue; /* a torn read beside a detach: never outside the pool */
        g->dgen = gen;
        g->dlo = lo;
        g->dn = n;
        g->data = (uint8_t *)((uintptr_t)g->table + off - lo);
        return 1;
    }
    return 0;
}

/* target returns rank t's mapped memory for bytes at disp, with the epoch
 * to t open (taking a lock_all epoch's lock on first use, as windows'
 * enter does), or NULL for the Go path. *rc is set when the lock wait
 * failed: the call then returns *rc. */
static inline abi_target *target(abi_win *w, MPI_Win win, int t, MPI_Aint disp, int64_t bytes, int *rc)
{
    *rc = MPI_SUCCESS;
    if ((unsigned)t >= (unsigned)w->n)
        return NULL;
    abi_target *g = &w->targets[t];
    if (g->table != NULL) {
        if (bytes <= 0 || !dyn_hit(g, disp, bytes))
            return NULL;
    } else if (g->data == NULL || disp < 0 || bytes <= 0 || disp > g->size / g->unit || bytes > g->size - disp * g->unit)
        return NULL;
    uint8_t *acc = &access_of(w)[t];
    uint8_t a = acc_load(acc);
    if (a == ABI_ACC_OPEN)
        return g;
    /* Threads sharing the window may come here at once (windows'
     * access.go): the one whose swap moves the byte to OPENING takes the
     * lock; another finding OPENING goes to Go, which waits for it. */
    if (a != ABI_ACC_LOCKALL || !g->mapped || !(w->fast & ABI_WIN_FAST_LOCK) ||
        !acc_cas(acc, ABI_ACC_LOCKALL, ABI_ACC_OPENING))
        return NULL;
    *rc = shared_lock(w, win, t);
    acc_store(acc, *rc == MPI_SUCCESS ? ABI_ACC_OPEN : ABI_ACC_LOCKALL);
    return *rc == MPI_SUCCESS ? g : NULL;
}

/* xfer_target is target() for a put or get the fast path serves: the
 * same predefined datatype and count on both sides. *bytes is the size. */
static inline abi_target *xfer_target(abi_win *w, MPI_Win win, const void *addr, int ocount, MPI_Datatype ot,
                                      int trank, MPI_Aint tdisp, int tcount, MPI_Datatype tt, size_t *bytes, int *rc)
{
    abi_basic b = basic_of(ot);
    *rc = MPI_SUCCESS;
    if (w == NULL || b.kind == K_NONE || ot != tt || ocount != tcount || addr == NULL)
        return NULL;
    *bytes = (size_t)ocount * (size_t)b.size;
    return target(w, win, trank, tdisp, (int64_t)*bytes, rc);
}

/* How many RMA operations the fast paths below did: the MPI_T
 * performance variables add it to the Go paths' count (mpit_pvar.go). A
 * plain increment: at MPI_THREAD_MULTIPLE threads putting at once may
 * lose a few counts of this statistic, which a locked add on every
 * operation would cost more than the whole 8-byte put. */
uint64_t abi_rma_fast_ops;

int abic_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    size_t n = 0;
    int rc;
    abi_target *g = xfer_target(fast_win(win, ABI_WIN_FAST_RMA), win, origin_addr, origin_count, origin_datatype,
                                target_rank, target_disp, target_count, target_datatype, &n, &rc);
    if (g == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        return abigo_Put((uintptr_t)origin_addr, origin_count, (uintptr_t)origin_datatype, target_rank, target_disp,
                         target_count, (uintptr_t)target_datatype, (uintptr_t)win);
    }
    abi_copy(g->data + target_disp * g->unit, origin_addr, n);
    abi_rma_fast_ops++;
    return MPI_SUCCESS;
}

int abic_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    size_t n = 0;
    int rc;
    abi_target *g = xfer_target(fast_win(win, ABI_WIN_FAST_RMA), win, origin_addr, origin_count, origin_datatype,
                                target_rank, target_disp, target_count, target_datatype, &n, &rc);
    if (g == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        return abigo_Get((uintptr_t)origin_addr, origin_count, (uintptr_t)origin_datatype, target_rank, target_disp,
                         target_count, (uintptr_t)target_datatype, (uintptr_t)win);
    }
    abi_copy(origin_addr, g->data + target_disp * g->unit, n);
    abi_rma_fast_ops++;
    return MPI_SUCCESS;
}

/* One integer element's update. Sum, band, bor, bxor, replace and the
 * fetch (NO_OP) are one instruction; the rest a compare-and-swap loop on
 * the element: both what windows' applyElem uses on the same word. The
 * previous value goes to *old. */
#define ELEM_OPS(NAME, T)                                                                           \
    static int NAME(T *p, T v, MPI_Op op, T *old)                                                   \
    {                                                                                               \
        switch ((uintptr_t)op) {                                                                    \
        case (uintptr_t)MPI_NO_OP: *old = __atomic_load_n(p, __ATOMIC_SEQ_CST); return 1;           \
        case (uintptr_t)MPI_REPLACE: *old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); return 1;  \
        case (uintptr_t)MPI_SUM: *old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); return 1;       \
        case (uintptr_t)MPI_BAND: *old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); return 1;      \
        case (uintptr_t)MPI_BOR: *old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); return 1;        \
        case (uintptr_t)MPI_BXOR: *old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); return 1;      \
        }                                                                                           \
        T cur = __atomic_load_n(p, __ATOMIC_SEQ_CST), nv;                                           \
        for (;;) {                                                                                  \
            switch ((uintptr_t)op) {                                                                \
            /* Products wrap as Go's do: unsigned arithmetic, not signed overflow. */               \
            case (uintptr_t)MPI_PROD: nv = (T)((unsigned long long)cur * (unsigned long long)v); break; \
            case (uintptr_t)MPI_MIN: nv = cur < v ? cur : v; break;                                 \
            case (uintptr_t)MPI_MAX: nv = cur > v ? cur : v; break;                                 \
            case (uintptr_t)MPI_LAND: nv = (cur != 0) && (v != 0); break;                           \
            case (uintptr_t)MPI_LOR: nv = (cur != 0) || (v != 0); break;                            \
            case (uintptr_t)MPI_LXOR: nv = (cur != 0) != (v != 0); break;                           \
            default: return 0;                                                                      \
            }                                                                                       \
            if (__atomic_compare_exchange_n(p, &cur, nv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))   \
                break;                                                                              \
        }                                                                                           \
        *old = cur;                                                                                 \
        return 1;                                                                                   \
    }

ELEM_OPS(elem_i32, int32_t)
ELEM_OPS(elem_i64, int64_t)
ELEM_OPS(elem_u32, uint32_t)
ELEM_OPS(elem_u64, uint64_t)

/* The float forms loop on the bits of the word, so the compare-and-swap
 * compares bits as windows' loop does (a NaN's bits equal themselves). */
#define FLOAT_OPS(NAME, F, U)                                                                       \
    static int NAME(U *p, F v, MPI_Op op, F *old)                                                   \
    {                                                                                               \
        U cur = __atomic_load_n(p, __ATOMIC_SEQ_CST), nv, vb;                                       \
        F c, r;                                                                                     \
        memcpy(&vb, &v, sizeof vb);                                                                 \
        for (;;) {                                                                                  \
            memcpy(&c, &cur, sizeof c);                                                             \
            switch ((uintptr_t)op) {                                                                \
            case (uintptr_t)MPI_NO_OP: *old = c; return 1;                                          \
            case (uintptr_t)MPI_REPLACE: nv = vb; break;                                            \
            case (uintptr_t)MPI_SUM: r = c + v; memcpy(&nv, &r, sizeof nv); break;                  \
            case (uintptr_t)MPI_PROD: r = c * v; memcpy(&nv, &r, sizeof nv); break;                 \
            default: return 0;                                                                      \
            }                                                                                       \
            if (__atomic_compare_exchange_n(p, &cur, nv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))   \
                break;                                                                              \
        }                                                                                           \
        *old = c;                                                                                   \
        return 1;                                                                                   \
    }

FLOAT_OPS(elem_f32, float, uint32_t)
FLOAT_OPS(elem_f64, double, uint64_t)

/* elem_small updates a 1- or 2-byte integer element (or swaps it when cmp
 * is not NULL and it equals *cmp) as a compare-and-swap loop on the
 * aligned 4-byte word that holds it, which is what the core's atomics
 * (atomicop) and windows' applyElem do for such elements, so the paths
 * stay atomic with each other. Arithmetic wraps as Go's does. */
static void elem_small(uint8_t *p, int size, int sign, MPI_Op op, int64_t v, const int64_t *cmp, int64_t *old)
{
    uint32_t *w = (uint32_t *)((uintptr_t)p & ~(uintptr_t)3);
    int shift = (int)((uintptr_t)p & 3) * 8;
    uint32_t m = (size == 1 ? 0xffu : 0xffffu);
    uint32_t cur = __atomic_load_n(w, __ATOMIC_SEQ_CST);
    for (;;) {
        uint32_t e = (cur >> shift) & m;
        int64_t c = e;
        if (sign && (e & (m ^ (m >> 1))))
            c -= (int64_t)m + 1;
        *old = c;
        uint64_t n;
        if (cmp != NULL) {
            if (c != *cmp)
                return;
            n = (uint64_t)v;
        } else {
            switch ((uintptr_t)op) {
            case (uintptr_t)MPI_NO_OP: return;
            case (uintptr_t)MPI_REPLACE: n = (uint64_t)v; break;
            case (uintptr_t)MPI_SUM: n = (uint64_t)c + (uint64_t)v; break;
            case (uintptr_t)MPI_PROD: n = (uint64_t)c * (uint64_t)v; break;
            case (uintptr_t)MPI_MIN: n = (uint64_t)(c < v ? c : v); break;
            case (uintptr_t)MPI_MAX: n = (uint64_t)(c > v ? c : v); break;
            case (uintptr_t)MPI_LAND: n = (c != 0) && (v != 0); break;
            case (uintptr_t)MPI_LOR: n = (c != 0) || (v != 0); break;
            case (uintptr_t)MPI_LXOR: n = (c != 0) != (v != 0); break;
            case (uintptr_t)MPI_BAND: n = (uint64_t)(c & v); break;
            case (uintptr_t)MPI_BOR: n = (uint64_t)(c | v); break;
            case (uintptr_t)MPI_BXOR: n = (uint64_t)(c ^ v); break;
            default: return;
            }
        }
        uint32_t nw = (cur & ~(m << shift)) | (((uint32_t)n & m) << shift);
        if (nw == cur || __atomic_compare_exchange_n(w, &cur, nw, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return;
    }
}

/* small_operand reads a 1- or 2-byte element with its sign. */
static inline int64_t small_operand(const void *src, int size, int sign)
{
    if (size == 1)
        return sign ? (int64_t) * (const int8_t *)src : (int64_t) * (const uint8_t *)src;
    int16_t s;
    uint16_t u;
    memcpy(&s, src, 2);
    memcpy(&u, src, 2);
    return sign ? (int64_t)s : (int64_t)u;
}

/* op_fast reports whether elem below handles op on b (else Go: its own
 * error checks, MIN/MAX on floats with Go's NaN rules, the rest). */
static inline int op_fast(abi_basic b, MPI_Op op, int fetch)
{
    switch ((uintptr_t)op) {
    case (uintptr_t)MPI_NO_OP:
        return fetch;
    case (uintptr_t)MPI_REPLACE: case (uintptr_t)MPI_SUM: case (uintptr_t)MPI_PROD:
        return 1;
    case (uintptr_t)MPI_MIN: case (uintptr_t)MPI_MAX: case (uintptr_t)MPI_LAND: case (uintptr_t)MPI_LOR:
    case (uintptr_t)MPI_LXOR: case (uintptr_t)MPI_BAND: case (uintptr_t)MPI_BOR: case (uintptr_t)MPI_BXOR:
        return b.kind != K_FLOAT;
    }
    return 0;
}

/* elem applies op to the element at p with the operand at src (may be
 * NULL for NO_OP) and stores the previous value at res when not NULL. */
static inline void elem(abi_basic b, void *p, const void *src, void *res, MPI_Op op)
{
    union { int32_t i32; int64_t i64; uint32_t u32; uint64_t u64; float f32; double f64; int8_t i8; uint8_t u8;
            int16_t i16; uint16_t u16; } v = {0}, old = {0};
    if (b.size < 4) {
        int64_t o = 0;
        elem_small(p, b.size, b.kind == K_SINT, op, src != NULL ? small_operand(src, b.size, b.kind == K_SINT) : 0,
                   NULL, &o);
        if (res != NULL) {
            if (b.size == 1)
                old.u8 = (uint8_t)o;
            else
                old.u16 = (uint16_t)o;
        }
    }
    if (src != NULL)
        memcpy(&v, src, b.size);
    switch (b.kind * 16 + b.size) {
    case K_SINT * 16 + 4: elem_i32(p, v.i32, op, &old.i32); break;
    case K_SINT * 16 + 8: elem_i64(p, v.i64, op, &old.i64); break;
    case K_UINT * 16 + 4: elem_u32(p, v.u32, op, &old.u32); break;
    case K_UINT * 16 + 8: elem_u64(p, v.u64, op, &old.u64); break;
    case K_FLOAT * 16 + 4: elem_f32(p, v.f32, op, &old.f32); break;
    case K_FLOAT * 16 + 8: elem_f64(p, v.f64, op, &old.f64); break;
    }
    if (res != NULL)
        memcpy(res, &old, b.size);
}

/* acc_target is target() for count elements of an accumulate: aligned
 * elements of a 4- or 8-byte type with an op elem handles. */
static inline abi_target *acc_target(abi_win *w, MPI_Win win, abi_basic b, MPI_Op op, int fetch, int t, MPI_Aint disp,
                                     int count, int *rc)
{
    *rc = MPI_SUCCESS;
    if (b.kind < K_SINT || !op_fast(b, op, fetch) || count <= 0)
        return NULL;
    abi_target *g = target(w, win, t, disp, (int64_t)count * b.size, rc);
    if (g != NULL && ((uintptr_t)(g->data + disp * g->unit) % b.size) != 0)
        return NULL; /* unaligned: windows takes a stripe lock */
    return g;
}

int abic_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_RMA);
    abi_basic b = basic_of(origin_datatype);
    int rc = MPI_SUCCESS;
    abi_target *g;
    if (w == NULL || origin_datatype != target_datatype || origin_count != target_count || origin_addr == NULL ||
        op == MPI_NO_OP ||
        (g = acc_target(w, win, b, op, 0, target_rank, target_disp, origin_count, &rc)) == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        return abigo_Accumulate((uintptr_t)origin_addr, origin_count, (uintptr_t)origin_datatype, target_rank,
                                target_disp, target_count, (uintptr_t)target_datatype, (uintptr_t)op, (uintptr_t)win);
    }
    uint8_t *p = g->data + target_disp * g->unit;
    const uint8_t *s = origin_addr;
    for (int i = 0; i < origin_count; i++)
        elem(b, p + (size_t)i * b.size, s + (size_t)i * b.size, NULL, op);
    abi_rma_fast_ops++;
    return MPI_SUCCESS;
}

int abic_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_RMA);
    abi_basic b = basic_of(target_datatype);
    int rc = MPI_SUCCESS;
    int noop = op == MPI_NO_OP;
    abi_target *g;
    if (w == NULL || result_datatype != target_datatype || result_count != target_count || result_addr == NULL ||
        (!noop && (origin_datatype != target_datatype || origin_count != target_count || origin_addr == NULL)) ||
        (g = acc_target(w, win, b, op, 1, target_rank, target_disp, target_count, &rc)) == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        return abigo_Get_accumulate((uintptr_t)origin_addr, origin_count, (uintptr_t)origin_datatype,
                                    (uintptr_t)result_addr, result_count, (uintptr_t)result_datatype, target_rank,
                                    target_disp, target_count, (uintptr_t)target_datatype, (uintptr_t)op,
                                    (uintptr_t)win);
    }
    uint8_t *p = g->data + target_disp * g->unit, *r = result_addr;
    const uint8_t *s = origin_addr;
    for (int i = 0; i < target_count; i++)
        elem(b, p + (size_t)i * b.size, noop ? NULL : s + (size_t)i * b.size, r + (size_t)i * b.size, op);
    abi_rma_fast_ops++;
    return MPI_SUCCESS;
}

int abic_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_RMA);
    abi_basic b = basic_of(datatype);
    int rc = MPI_SUCCESS;
    int noop = op == MPI_NO_OP;
    abi_target *g;
    if (w == NULL || result_addr == NULL || (!noop && origin_addr == NULL) ||
        (g = acc_target(w, win, b, op, 1, target_rank, target_disp, 1, &rc)) == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        return abigo_Fetch_and_op((uintptr_t)origin_addr, (uintptr_t)result_addr, (uintptr_t)datatype, target_rank,
                                  target_disp, (uintptr_t)op, (uintptr_t)win);
    }
    elem(b, g->data + target_disp * g->unit, noop ? NULL : origin_addr, result_addr, op);
    abi_rma_fast_ops++;
    return MPI_SUCCESS;
}

int abic_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_RMA);
    abi_basic b = basic_of(datatype);
    int rc = MPI_SUCCESS;
    abi_target *g;
    /* Integers only, as windows' CompareAndSwap takes (floats are an
     * error there). */
    if (w == NULL || (b.kind != K_SINT && b.kind != K_UINT) || origin_addr == NULL || compare_addr == NULL ||
        result_addr == NULL ||
        (g = acc_target(w, win, b, MPI_REPLACE, 1, target_rank, target_disp, 1, &rc)) == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        return abigo_Compare_and_swap((uintptr_t)origin_addr, (uintptr_t)compare_addr, (uintptr_t)result_addr,
                                      (uintptr_t)datatype, target_rank, target_disp, (uintptr_t)win);
    }
    void *p = g->data + target_disp * g->unit;
    if (b.size < 4) {
        int sign = b.kind == K_SINT;
        int64_t cmp = small_operand(compare_addr, b.size, sign), old = 0;
        elem_small(p, b.size, sign, MPI_REPLACE, small_operand(origin_addr, b.size, sign), &cmp, &old);
        if (b.size == 1) {
            uint8_t r = (uint8_t)old;
            memcpy(result_addr, &r, 1);
        } else {
            uint16_t r = (uint16_t)old;
            memcpy(result_addr, &r, 2);
        }
    } else if (b.size == 4) {
        uint32_t cmp, v;
        memcpy(&cmp, compare_addr, 4);
        memcpy(&v, origin_addr, 4);
        __atomic_compare_exchange_n((uint32_t *)p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        memcpy(result_addr, &cmp, 4);
    } else {
        uint64_t cmp, v;
        memcpy(&cmp, compare_addr, 8);
        memcpy(&v, origin_addr, 8);
        __atomic_compare_exchange_n((uint64_t *)p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        memcpy(result_addr, &cmp, 8);
    }
    abi_rma_fast_ops++;
    return MPI_SUCCESS;
}

/* Flush: every operation to a mapped rank is complete at the target when
 * it returns (plain stores and atomics in this process), so a flush of
 * one only checks the epoch, as windows' Flush does, and keeps the
 * compiler from moving the stores past it (a release fence: on x86 the
 * stores then leave in order, so whatever synchronization follows, all of
 * which uses locked instructions, finds them done). */
static inline int passive_open(abi_win *w, int t)
{
    return (unsigned)t < (unsigned)w->n && w->targets[t].mapped &&
           (acc_load(&locks_of(w)[t]) != 0 || w->epoch->lock_all != 0);
}

/* flush_one and flush_all are the fast paths of the flush calls; slow is
 * the call's Go export. */
static inline int flush_one(int rank, MPI_Win win, int (*slow)(int, uintptr_t))
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_LOCK);
    if (w == NULL || !passive_open(w, rank))
        return slow(rank, (uintptr_t)win);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static inline int flush_all(MPI_Win win, int (*slow)(uintptr_t))
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_LOCK | ABI_WIN_FAST_ALLMAPPED);
    if (w == NULL || (__atomic_load_n(&w->epoch->nlocks, __ATOMIC_RELAXED) == 0 && w->epoch->lock_all == 0))
        return slow((uintptr_t)win);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int abic_Win_flush(int rank, MPI_Win win) { return flush_one(rank, win, abigo_Win_flush); }
int abic_Win_flush_local(int rank, MPI_Win win) { return flush_one(rank, win, abigo_Win_flush_local); }
int abic_Win_flush_all(MPI_Win win) { return flush_all(win, abigo_Win_flush_all); }
int abic_Win_flush_local_all(MPI_Win win) { return flush_all(win, abigo_Win_flush_local_all); }

/* lockable: a new passive epoch may start here without the checks only Go
 * makes (no fence or start epoch to leave, no assertion). */
static inline int lockable(abi_win *w, int assert)
{
    return assert == 0 && w->epoch->fence == ABI_FENCE_NONE && !w->epoch->in_start;
}

/* Threads may lock and unlock different ranks of one window at once
 * (MPI_THREAD_MULTIPLE), here and in windows' Lock and Unlock alike: the
 * rank's locks byte moves from 0 (or the held type) to TAKING by one
 * compare-and-swap, so of two threads on one rank exactly one goes on and
 * the other goes to Go, which answers MPI_ERR_RMA_SYNC; the count of
 * locked ranks changes by atomic adds. Below MULTIPLE calls never overlap
 * and plain loads and stores do (nothing to pay). */
static inline int epoch_mt(void) { return abi_global.thread_level == MPI_THREAD_MULTIPLE; }

static inline int lock_claim(uint8_t *p, uint8_t old, int mt)
{
    if (mt)
        return acc_cas(p, old, ABI_LOCK_TAKING);
    if (*p != old)
        return 0;
    *p = ABI_LOCK_TAKING;
    return 1;
}

static inline void epoch_set(uint8_t *p, uint8_t v, int mt)
{
    if (mt)
        acc_store(p, v);
    else
        *p = v;
}

static inline void nlocks_add(abi_win *w, int d, int mt)
{
    if (mt)
        __atomic_fetch_add(&w->epoch->nlocks, d, __ATOMIC_RELAXED);
    else
        w->epoch->nlocks += d;
}

int abic_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_LOCK);
    int mt = epoch_mt();
    if (w == NULL || lock_type != MPI_LOCK_SHARED || !lockable(w, assert) || (unsigned)rank >= (unsigned)w->n ||
        !w->targets[rank].mapped || w->epoch->lock_all != 0 || !lock_claim(&locks_of(w)[rank], 0, mt))
        return abigo_Win_lock(lock_type, rank, assert, (uintptr_t)win);
    int rc = shared_lock(w, win, rank);
    if (rc != MPI_SUCCESS) {
        epoch_set(&locks_of(w)[rank], 0, mt);
        return rc;
    }
    nlocks_add(w, 1, mt);
    epoch_set(&access_of(w)[rank], ABI_ACC_OPEN, mt);
    epoch_set(&locks_of(w)[rank], ABI_LOCK_SHARED, mt);
    return MPI_SUCCESS;
}

int abic_Win_unlock(int rank, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_LOCK);
    int mt = epoch_mt();
    if (w == NULL || (unsigned)rank >= (unsigned)w->n || !w->targets[rank].mapped ||
        !lock_claim(&locks_of(w)[rank], ABI_LOCK_SHARED, mt))
        return abigo_Win_unlock(rank, (uintptr_t)win);
    /* The release's locked add orders every store of the epoch before it. */
    epoch_set(&access_of(w)[rank], ABI_ACC_NONE, mt);
    nlocks_add(w, -1, mt);
    shared_unlock(&w->targets[rank]);
    epoch_set(&locks_of(w)[rank], 0, mt);
    return MPI_SUCCESS;
}

int abic_Win_lock_all(int assert, MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_LOCK);
    if (w == NULL || !lockable(w, assert) || w->epoch->lock_all != 0 ||
        __atomic_load_n(&w->epoch->nlocks, __ATOMIC_RELAXED) != 0)
        return abigo_Win_lock_all(assert, (uintptr_t)win);
    /* As windows' LockAll: each rank's lock is taken by the first
     * operation to it (target above, or Go's enter). */
    w->epoch->lock_all = ABI_LOCK_SHARED;
    memset(access_of(w), ABI_ACC_LOCKALL, (size_t)w->n);
    return MPI_SUCCESS;
}

int abic_Win_unlock_all(MPI_Win win)
{
    abi_win *w = fast_win(win, ABI_WIN_FAST_LOCK | ABI_WIN_FAST_ALLMAPPED);
    if (w == NULL || w->epoch->lock_all != ABI_LOCK_SHARED)
        return abigo_Win_unlock_all((uintptr_t)win);
    /* Each release's locked add orders the epoch's stores to its rank (a
     * rank never locked got none). */
    w->epoch->lock_all = 0;
    uint8_t *acc = access_of(w);
    for (int t = 0; t < w->n; t++) {
        uint8_t a = acc[t];
        acc[t] = ABI_ACC_NONE;
        if (a == ABI_ACC_OPEN)
            shared_unlock(&w->targets[t]);
    }
    return MPI_SUCCESS;
}
