//go:build cgo

/* gshmem.h's waits (a look in C, then a sleep in Go on this PE's
 * doorbell), ordering and barriers, teams and collectives (Go's, over
 * package shmem). */

#include <stdlib.h>
#include "shm.h"

/* ------------------------------------------------------------ waits --- */

/* holds compares the width-byte word at p with value as kind says. */
static int holds(const void *p, int width, int kind, int cmp, uint64_t value)
{
    int64_t a, b;
    uint64_t ua, ub;
    switch (width) {
    case 2: {
        uint16_t x = __atomic_load_n((const uint16_t *)p, __ATOMIC_SEQ_CST);
        a = (int16_t)x, b = (int16_t)(uint16_t)value, ua = x, ub = (uint16_t)value;
        break;
    }
    case 4: {
        uint32_t x = __atomic_load_n((const uint32_t *)p, __ATOMIC_SEQ_CST);
        a = (int32_t)x, b = (int32_t)(uint32_t)value, ua = x, ub = (uint32_t)value;
        break;
    }
    default: {
        uint64_t x = __atomic_load_n((const uint64_t *)p, __ATOMIC_SEQ_CST);
        a = (int64_t)x, b = (int64_t)value, ua = x, ub = value;
    }
    }
    int s = kind == ABI_SHM_SINT;
    switch (cmp) {
    case GSHMEM_CMP_EQ: return ua == ub;
    case GSHMEM_CMP_NE: return ua != ub;
    case GSHMEM_CMP_GT: return s ? a > b : ua > ub;
    case GSHMEM_CMP_GE: return s ? a >= b : ua >= ub;
    case GSHMEM_CMP_LT: return s ? a < b : ua < ub;
    default: return s ? a <= b : ua <= ub;
    }
}

static const uint8_t *locate_ivar(const char *call, const void *ivar, int width, int cmp, uint64_t *obj, uint64_t *off)
{
    shm_ready(call);
    if (cmp < GSHMEM_CMP_EQ || cmp > GSHMEM_CMP_LE)
        shm_fatal(call, "cmp %d is not a GSHMEM_CMP_* comparison", cmp);
    *off = shm_locate(call, "ivar", ivar, (size_t)width, obj);
    if (*off % (uint64_t)width != 0)
        shm_fatal(call, "ivar %p is not aligned to its %d bytes", ivar, width);
    return abi_shm.base + *off;
}

/* On a device heap locate_ivar's address is device memory: C looks at a
 * copy of the word (shm_read_word), and a wait is Go's from the start. */

/* A wait polls in C first (abi_shm.spin polls, shm_relax between them), as
 * do the waits on arrays and on a signal below, so that a word on its way
 * ends it without a call into Go; a longer wait is Go's (the World's
 * policy: more polls, then a sleep on this PE's doorbell, and the checks
 * for an ended job or a lost peer). */
void shm_wait(const char *call, void *ivar, int width, int kind, int cmp, uint64_t value)
{
    uint64_t obj, off;
    const uint8_t *p = locate_ivar(call, ivar, width, cmp, &obj, &off);
    if (!shm_dev.on)
        for (int64_t i = abi_shm.spin; i > 0; i--) {
            if (holds(p, width, kind, cmp, value))
                return;
            shm_relax();
        }
    abiint_shmem_wait((char *)call, obj, off, width, kind, cmp, value);
}

int shm_test(const char *call, void *ivar, int width, int kind, int cmp, uint64_t value)
{
    uint64_t obj, off;
    const uint8_t *p = locate_ivar(call, ivar, width, cmp, &obj, &off);
    if (shm_dev.on) {
        uint64_t v = shm_read_word(call, obj, off, width);
        return holds(&v, width, kind, cmp, value);
    }
    return holds(p, width, kind, cmp, value);
}

/* shm_scan is one wait or test over an array of words: what
 * shm_scan_done reads each time Go's Await polls it. */
typedef struct shm_scan {
    const uint8_t *p;       /* the first element, in this PE's heap */
    size_t n;
    const int *status;      /* nonzero: the element is left out (may be NULL) */
    int width, kind, cmp, mode;
    uint64_t value;
    const uint8_t *values;  /* the _vector forms: one value per element, else NULL */
    size_t *indices;        /* SOME: where the indices go */
    size_t result;          /* ANY: the index (SIZE_MAX for none); SOME: the count; ALL: 1 when all hold */
    size_t start;           /* ANY: where the scan begins */
} shm_scan;

/* any_rotor moves where each ANY scan begins, so that repeated tests find
 * every element that holds, not always the first (OpenSHMEM asks the
 * _any routines to be fair). */
static size_t any_rotor;

int shm_scan_done(uintptr_t scan)
{
    shm_scan *s = (shm_scan *)scan;
    size_t active = 0, count = 0;
    int all = 1;
    for (size_t j = 0; j < s->n; j++) {
        size_t i = s->mode == ABI_SET_ANY ? (s->start + j) % s->n : j;
        if (s->status != NULL && s->status[i] != 0)
            continue;
        active++;
        uint64_t v = s->value;
        if (s->values != NULL)
            v = shm_bits(s->values + i * (size_t)s->width, (size_t)s->width);
        if (!holds(s->p + i * (size_t)s->width, s->width, s->kind, s->cmp, v)) {
            all = 0;
            continue;
        }
        if (s->mode == ABI_SET_ANY) {
            s->result = i;
            return 1;
        }
        if (s->mode == ABI_SET_SOME && s->indices != NULL)
            s->indices[count] = i;
        count++;
    }
    switch (s->mode) {
    case ABI_SET_ALL:
        s->result = all;
        return all;
    case ABI_SET_ANY:
        s->result = SIZE_MAX;
        return active == 0; /* every element left out: nothing to wait for */
    default:
        s->result = count;
        return count > 0 || active == 0;
    }
}

size_t shm_wait_set(const char *call, void *ivars, size_t nelems, size_t *indices, const int *status, int width,
                    int kind, int cmp, uint64_t value, const void *values, int mode, int wait)
{
    shm_scan s = {.n = nelems, .status = status, .width = width, .kind = kind, .cmp = cmp, .mode = mode,
                  .value = value, .values = values, .indices = indices};
    if (nelems == 0) {
        shm_ready(call);
        return mode == ABI_SET_ANY ? SIZE_MAX : mode == ABI_SET_ALL;
    }
    if (mode == ABI_SET_ANY)
        s.start = __atomic_fetch_add(&any_rotor, 1, __ATOMIC_RELAXED) % nelems;
    uint64_t obj, off;
    size_t n = shm_bytes(call, nelems, (size_t)width);
    s.p = locate_ivar(call, ivars, width, cmp, &obj, &off);
    if (n > (size_t)width)
        shm_locate(call, "ivars", ivars, n, &obj);
    if (mode == ABI_SET_SOME && indices == NULL)
        shm_fatal(call, "indices is NULL");
    if (shm_dev.on) {
        /* Scan a host copy of the words, which Go refreshes each look. */
        void *copy = malloc(n);
        if (copy == NULL)
            shm_fatal(call, "out of memory for a copy of %zu bytes", n);
        s.p = copy;
        abiint_shmem_scan_device((char *)call, (uintptr_t)&s, (uintptr_t)copy, obj, off, n, wait);
        free(copy);
        return s.result;
    }
    int done = shm_scan_done((uintptr_t)&s);
    for (int64_t i = wait ? abi_shm.spin : 0; !done && i > 0; i--) {
        shm_relax();
        done = shm_scan_done((uintptr_t)&s);
    }
    if (!done && wait)
        abiint_shmem_await((char *)call, (uintptr_t)&s);
    return s.result;
}

uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    const char *call = "gshmem_signal_wait_until";
    uint64_t obj, off;
    const uint8_t *p = locate_ivar(call, sig_addr, 8, cmp, &obj, &off);
    if (!shm_dev.on)
        for (int64_t i = abi_shm.spin; i > 0; i--) {
            uint64_t v = __atomic_load_n((const uint64_t *)p, __ATOMIC_SEQ_CST);
            if (holds(&v, 8, ABI_SHM_UINT, cmp, cmp_value))
                return v;
            shm_relax();
        }
    return abiint_shmem_signal_wait((char *)call, obj, off, cmp, cmp_value);
}

/* ---------------------------------------------- ordering and syncs --- */

/* Operations into mapped PEs are complete when they return (stores and
 * atomics of this process); a fence orders them. Operations Go carried
 * (pending) need its quiet or fence. */
enum { SYNC_QUIET = 0, SYNC_FENCE, SYNC_BARRIER_ALL, SYNC_SYNC_ALL, SYNC_BARRIER, SYNC_TEAM };

void gshmem_quiet(void)
{
    shm_ready("gshmem_quiet");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST) != 0)
        abiint_shmem_sync((char *)"gshmem_quiet", SYNC_QUIET, 0);
}

void gshmem_fence(void)
{
    shm_ready("gshmem_fence");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&abi_shm.pending, __ATOMIC_SEQ_CST) != 0)
        abiint_shmem_sync((char *)"gshmem_fence", SYNC_FENCE, 0);
}

/* In round k (k = 0 .. ceil(log2 n)-1) member i adds 1 to psync[k] on
 * member i+2^k (mod n), waits until its own psync[k] is above 0 and takes
 * 1 back off; after the last round every member has heard, directly or
 * through others, from every member. At 2 PEs that is one remote atomic
 * and one wait each, a one-way trip. The words count arrivals rather than
 * hold a flag, so a fast member's add for its next barrier on the same
 * words (it can land before the slow member took this one's) is a token
 * kept for that barrier, never lost, and each word is back at 0 once every
 * member has taken its own. The adds and waits are this file's and
 * shm.h's: into a mapped PE an instruction (and a doorbell for a sleeper),
 * elsewhere Go's atomic; a wait spins in C, then sleeps in Go, which also
 * reports a lost peer or an ended job. */
void shm_sync_set(const char *call, int64_t *psync, int start, int stride, int n, int me)
{
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        int64_t *word = &psync[k];
        shm_amo(call, word, 8, ABI_AMO_ADD, 1, 0, start + ((me + d) % n) * stride);
        shm_wait(call, word, 8, ABI_SHM_SINT, GSHMEM_CMP_GT, 0);
        shm_amo(call, word, 8, ABI_AMO_ADD, (uint64_t)-1, 0, abi_shm.my_pe);
    }
}

/* The world's barrier and sync run in C over abi_shm.sync where the heap
 * is host memory (shm_sync_set: no call into Go when every PE is mapped
 * here), else Go's team barrier. A barrier first completes what Go
 * carried (its quiet). */
void gshmem_barrier_all(void)
{
    shm_ready("gshmem_barrier_all");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (abi_shm.sync != NULL) {
        if (__atomic_exchange_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST) != 0)
            abiint_shmem_sync((char *)"gshmem_barrier_all", SYNC_QUIET, 0);
        shm_sync_set("gshmem_barrier_all", abi_shm.sync, 0, 1, abi_shm.n_pes, abi_shm.my_pe);
        return;
    }
    __atomic_store_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST);
    abiint_shmem_sync((char *)"gshmem_barrier_all", SYNC_BARRIER_ALL, 0);
}

void gshmem_sync_all(void)
{
    shm_ready("gshmem_sync_all");
    if (abi_shm.sync != NULL) {
        shm_sync_set("gshmem_sync_all", abi_shm.sync, 0, 1, abi_shm.n_pes, abi_shm.my_pe);
        return;
    }
    abiint_shmem_sync((char *)"gshmem_sync_all", SYNC_SYNC_ALL, 0);
}

void gshmem_barrier(gshmem_team_t team)
{
    shm_ready("gshmem_barrier");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST);
    abiint_shmem_sync((char *)"gshmem_barrier", SYNC_BARRIER, team);
}

int gshmem_team_sync(gshmem_team_t team)
{
    shm_ready("gshmem_team_sync");
    return abiint_shmem_sync((char *)"gshmem_team_sync", SYNC_TEAM, team);
}

/* ------------------------------------------------------------ teams --- */

void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe)
{
    shm_ready("gshmem_team_ptr");
    int wpe = gshmem_team_translate_pe(team, pe, GSHMEM_TEAM_WORLD);
    if (wpe < 0)
        shm_fatal("gshmem_team_ptr", "PE %d is not a member of team %llu", pe, (unsigned long long)team);
    return gshmem_ptr(dest, wpe);
}

int gshmem_team_my_pe(gshmem_team_t team)
{
    shm_ready("gshmem_team_my_pe");
    return abiint_shmem_team_pe((char *)"gshmem_team_my_pe", team, 0);
}

int gshmem_team_n_pes(gshmem_team_t team)
{
    shm_ready("gshmem_team_n_pes");
    return abiint_shmem_team_pe((char *)"gshmem_team_n_pes", team, 1);
}

int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team)
{
    shm_ready("gshmem_team_translate_pe");
    return abiint_shmem_team_translate(src_team, src_pe, dest_team);
}

int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size,
                              const gshmem_team_config_t *config, long config_mask, gshmem_team_t *new_team)
{
    shm_ready("gshmem_team_split_strided");
    int contexts = (config != NULL && (config_mask & GSHMEM_TEAM_NUM_CONTEXTS)) ? config->num_contexts : 0;
    gshmem_team_t t = GSHMEM_TEAM_INVALID;
    int rc = abiint_shmem_team_split(parent_team, start, stride, size, contexts, &t);
    if (new_team != NULL)
        *new_team = t;
    return rc;
}

int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange, const gshmem_team_config_t *xaxis_config,
                         long xaxis_mask, gshmem_team_t *xaxis_team, const gshmem_team_config_t *yaxis_config,
                         long yaxis_mask, gshmem_team_t *yaxis_team)
{
    shm_ready("gshmem_team_split_2d");
    int xc = (xaxis_config != NULL && (xaxis_mask & GSHMEM_TEAM_NUM_CONTEXTS)) ? xaxis_config->num_contexts : 0;
    int yc = (yaxis_config != NULL && (yaxis_mask & GSHMEM_TEAM_NUM_CONTEXTS)) ? yaxis_config->num_contexts : 0;
    gshmem_team_t x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
    int rc = abiint_shmem_team_split_2d(parent_team, xrange, xc, yc, &x, &y);
    if (xaxis_team != NULL)
        *xaxis_team = x;
    if (yaxis_team != NULL)
        *yaxis_team = y;
    return rc;
}

int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t *config)
{
    shm_ready("gshmem_team_get_config");
    if (team == GSHMEM_TEAM_INVALID || config == NULL)
        return 1;
    int contexts = abiint_shmem_team_contexts((char *)"gshmem_team_get_config", team);
    if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = contexts;
    return 0;
}

void gshmem_team_destroy(gshmem_team_t team)
{
    shm_ready("gshmem_team_destroy");
    abiint_shmem_team_destroy(team);
}

/* ------------------------------------------------------ collectives --- */

int shm_coll(const char *call, int coll, gshmem_team_t team, void *dest, const void *src, size_t nelems, size_t size,
             int kind, int op, int root)
{
    shm_ready(call);
    shm_bytes(call, nelems, size);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return abiint_shmem_coll((char *)call, coll, team, (uintptr_t)dest, (uintptr_t)src, nelems, size, kind, op, root,
                             1, 1);
}

int shm_alltoalls(const char *call, gshmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                  size_t nelems, size_t size)
{
    shm_ready(call);
    shm_bytes(call, nelems, size);
    if (dst < 1 || sst < 1)
        shm_fatal(call, "strides %td and %td: both must be at least 1", dst, sst);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return abiint_shmem_coll((char *)call, ABI_COLL_ALLTOALLS, team, (uintptr_t)dest, (uintptr_t)src, nelems, size,
                             ABI_SHM_UINT, 0, 0, dst, sst);
}

int gshmem_alltoallsmem(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    return shm_alltoalls("gshmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}

int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    return shm_coll("gshmem_broadcastmem", ABI_COLL_BROADCAST, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, PE_root);
}

int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shm_coll("gshmem_fcollectmem", ABI_COLL_FCOLLECT, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, 0);
}

int gshmem_collectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shm_coll("gshmem_collectmem", ABI_COLL_COLLECT, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, 0);
}

int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shm_coll("gshmem_alltoallmem", ABI_COLL_ALLTOALL, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, 0);
}
