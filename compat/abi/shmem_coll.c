//go:build cgo

/* OpenSHMEM's collectives that gshmem.h's engine does not run: the
 * deprecated active-set forms (PE_start, logPE_stride, PE_size, with the
 * caller's pSync), and reductions over types Go has no arithmetic for
 * (long double, C's complex types). They are written over the routines
 * themselves: a dissemination barrier of remote atomic adds and waits on
 * pSync's words, and blocking gets of the members' symmetric sources,
 * which every transport carries, whether the arrays are on the heap or are
 * globals. Into a PE mapped here each of those is a C instruction or copy,
 * and a wait spins in C before Go's: no call here crosses into Go then. */

#include <stdlib.h>
#include "oshmem.h"

/* A set of PEs as a collective sees it: an active set (psync set) or a
 * team. */
typedef struct {
    const char *call;
    int n, me;         /* members; this PE's index among them */
    int start, stride; /* an active set's member i is world PE start + i*stride */
    shmem_team_t team;
    int *pes; /* a team's members as world PEs (malloc'd) */
    long *psync;
} oshi_set;

static int set_pe(const oshi_set *s, int i) { return s->psync != NULL ? s->start + i * s->stride : s->pes[i]; }

/* pSync's words: one per round of set_sync (ceil(log2(PE_size)) <= 31 of
 * them, since PE_size is an int), then collect's element count. Every
 * SHMEM_*_SYNC_SIZE holds them. */
enum { PSYNC_COUNT = 31, PSYNC_WORDS = 32 };
_Static_assert(SHMEM_BARRIER_SYNC_SIZE >= PSYNC_WORDS && SHMEM_BCAST_SYNC_SIZE >= PSYNC_WORDS &&
                   SHMEM_COLLECT_SYNC_SIZE >= PSYNC_WORDS && SHMEM_REDUCE_SYNC_SIZE >= PSYNC_WORDS &&
                   SHMEM_ALLTOALL_SYNC_SIZE >= PSYNC_WORDS && SHMEM_ALLTOALLS_SYNC_SIZE >= PSYNC_WORDS &&
                   SHMEM_SYNC_SIZE >= PSYNC_WORDS,
               "pSync holds set_sync's rounds and collect's count");

/* set_open checks an active set's arguments (the job ends on bad ones, and
 * when this PE is not a member) and its pSync. */
static void set_open(oshi_set *s, const char *call, int start, int logstride, int size, long *psync)
{
    shm_ready(call);
    if (start < 0 || logstride < 0 || logstride > 30 || size < 1)
        shm_fatal(call, "PE_start %d, logPE_stride %d, PE_size %d is not an active set", start, logstride, size);
    long stride = 1L << logstride, last = start + (long)(size - 1) * stride;
    if (last >= abi_shm.n_pes)
        shm_fatal(call, "the active set (PE_start %d, logPE_stride %d, PE_size %d) ends at PE %ld of a job of %d",
                  start, logstride, size, last, abi_shm.n_pes);
    int me = abi_shm.my_pe;
    if (me < start || me > last || (me - start) % stride != 0)
        shm_fatal(call, "PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size %d)", me, start,
                  logstride, size);
    uint64_t obj, off;
    if (psync == NULL || !shm_find(psync, PSYNC_WORDS * sizeof(long), &obj, &off))
        shm_fatal(call, "pSync %p is not a symmetric array of %d longs (SHMEM_*_SYNC_SIZE)", (void *)psync,
                  PSYNC_WORDS);
    *s = (oshi_set){call, size, (int)((me - start) / stride), start, (int)stride, SHMEM_TEAM_INVALID, NULL, psync};
}

/* set_team is a team's set, or 0 when this PE is not in team. */
static int set_team(oshi_set *s, const char *call, shmem_team_t team)
{
    shm_ready(call);
    if (team == SHMEM_TEAM_INVALID)
        return 0;
    int n = gshmem_team_n_pes(team), me = gshmem_team_my_pe(team);
    if (n <= 0 || me < 0)
        return 0;
    int *pes = malloc((size_t)n * sizeof(int));
    if (pes == NULL)
        shm_fatal(call, "out of memory");
    for (int i = 0; i < n; i++)
        pes[i] = gshmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
    *s = (oshi_set){call, n, me, 0, 0, team, pes, NULL};
    return 1;
}

/* set_sync returns once every member has called it: on an active set a
 * dissemination barrier over its pSync (shm_sync_set: at 2 PEs one remote
 * atomic and one wait each), on a team the team's sync. Back-to-back
 * calls on one pSync are safe (its words count arrivals), and pSync holds
 * SHMEM_SYNC_VALUE again once every member has returned. */
static void set_sync(const oshi_set *s)
{
    if (s->psync == NULL) {
        gshmem_team_sync(s->team);
        return;
    }
    _Static_assert(sizeof(long) == sizeof(int64_t) && SHMEM_SYNC_VALUE == 0, "pSync's words are shm_sync_set's");
    shm_sync_set(s->call, (int64_t *)s->psync, s->start, s->stride, s->n, s->me);
}

static void set_close(oshi_set *s) { free(s->pes); }

/* fetch copies n elements of size bytes at src on member i to dst. */
static void fetch(const oshi_set *s, void *dst, const void *src, size_t n, size_t size, int i)
{
    if (n == 0)
        return;
    if (i == s->me)
        memmove(dst, src, n * size);
    else
        shm_get(s->call, dst, src, n, size, set_pe(s, i), 0);
}

/* ----------------------------------------------- active-set routines --- */

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    oshi_set s;
    set_open(&s, "shmem_barrier", PE_start, logPE_stride, PE_size, pSync);
    gshmem_quiet();
    set_sync(&s);
}

void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    oshi_set s;
    set_open(&s, "shmem_sync", PE_start, logPE_stride, PE_size, pSync);
    set_sync(&s);
}

/* broadcast: every member but the root gets the root's source; the root's
 * dest is left as it was, as the active-set form says. */
static void broadcast(const char *call, void *dest, const void *source, size_t nelems, size_t size, int root,
                      int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    oshi_set s;
    set_open(&s, call, PE_start, logPE_stride, PE_size, pSync);
    if (root < 0 || root >= s.n)
        shm_fatal(call, "PE_root %d is not an index of the active set's %d PEs", root, s.n);
    shm_bytes(call, nelems, size);
    set_sync(&s);
    if (s.me != root)
        fetch(&s, dest, source, nelems, size, root);
    set_sync(&s);
}

void pshmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride,
                        int PE_size, long *pSync)
{
    broadcast("shmem_broadcast32", dest, source, nelems, 4, PE_root, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride,
                        int PE_size, long *pSync)
{
    broadcast("shmem_broadcast64", dest, source, nelems, 8, PE_root, PE_start, logPE_stride, PE_size, pSync);
}

/* collect: member i's nelems (pSync[PSYNC_COUNT] while the call runs)
 * place its block after those of the members before it. fcollect: equal
 * blocks. */
static void collect(const char *call, void *dest, const void *source, size_t nelems, size_t size, int fixed,
                    int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    oshi_set s;
    set_open(&s, call, PE_start, logPE_stride, PE_size, pSync);
    shm_bytes(call, nelems, size);
    if (!fixed)
        pshmem_long_atomic_set(&pSync[PSYNC_COUNT], (long)nelems, abi_shm.my_pe);
    set_sync(&s);
    size_t at = 0;
    for (int i = 0; i < s.n; i++) {
        size_t n = nelems;
        if (!fixed && i != s.me)
            n = (size_t)pshmem_long_atomic_fetch(&pSync[PSYNC_COUNT], set_pe(&s, i));
        fetch(&s, (char *)dest + shm_bytes(call, at, size), source, n, size, i);
        at += n;
    }
    set_sync(&s);
    if (!fixed)
        pshmem_long_atomic_set(&pSync[PSYNC_COUNT], SHMEM_SYNC_VALUE, abi_shm.my_pe);
}

void pshmem_collect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,
                      long *pSync)
{
    collect("shmem_collect32", dest, source, nelems, 4, 0, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_collect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,
                      long *pSync)
{
    collect("shmem_collect64", dest, source, nelems, 8, 0, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync)
{
    collect("shmem_fcollect32", dest, source, nelems, 4, 1, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync)
{
    collect("shmem_fcollect64", dest, source, nelems, 8, 1, PE_start, logPE_stride, PE_size, pSync);
}

/* alltoall(s): member i's block for this PE (its me-th) lands in block i
 * of dest; dst and sst are strides in elements. */
static void alltoalls(const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                      size_t nelems, size_t size, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    oshi_set s;
    set_open(&s, call, PE_start, logPE_stride, PE_size, pSync);
    if (dst < 1 || sst < 1)
        shm_fatal(call, "strides dst %td and sst %td must be at least 1", dst, sst);
    size_t block = shm_bytes(call, shm_bytes(call, nelems, (size_t)dst), size);
    size_t sblock = shm_bytes(call, shm_bytes(call, nelems, (size_t)sst), size);
    set_sync(&s);
    for (int i = 0; i < s.n && nelems > 0; i++) {
        char *d = (char *)dest + (size_t)i * block;
        const char *src = (const char *)source + (size_t)s.me * sblock;
        if (dst == 1 && sst == 1)
            fetch(&s, d, src, nelems, size, i);
        else
            shm_istride(call, d, src, dst, sst, nelems, size, set_pe(&s, i), 0);
    }
    set_sync(&s);
}

void pshmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync)
{
    alltoalls("shmem_alltoall32", dest, source, 1, 1, nelems, 4, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync)
{
    alltoalls("shmem_alltoall64", dest, source, 1, 1, nelems, 8, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,
                        int logPE_stride, int PE_size, long *pSync)
{
    alltoalls("shmem_alltoalls32", dest, source, dst, sst, nelems, 4, PE_start, logPE_stride, PE_size, pSync);
}

void pshmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,
                        int logPE_stride, int PE_size, long *pSync)
{
    alltoalls("shmem_alltoalls64", dest, source, dst, sst, nelems, 8, PE_start, logPE_stride, PE_size, pSync);
}

/* ------------------------------------------------------- reductions --- */

/* reduce: every member gets every member's source and reduces them in
 * member order (so that every PE computes the same bits, floats
 * included), then, once all have read (dest may be source), writes its
 * dest. */
enum { REDUCE_SMALL = 512 };
static void reduce(oshi_set *s, void *dest, const void *source, size_t nreduce, size_t size, oshi_reducer op)
{
    size_t bytes = shm_bytes(s->call, nreduce, size);
    /* A small reduction folds on the stack (no malloc per call). */
    _Alignas(64) unsigned char small[2][REDUCE_SMALL];
    void *acc = small[0], *in = small[1];
    if (bytes > REDUCE_SMALL) {
        acc = malloc(bytes), in = malloc(bytes);
        if (acc == NULL || in == NULL)
            shm_fatal(s->call, "out of memory for %zu bytes", bytes);
    }
    set_sync(s);
    for (int i = 0; i < s->n; i++) {
        fetch(s, i == 0 ? acc : in, source, nreduce, size, i);
        if (i > 0)
            op(acc, in, nreduce);
    }
    set_sync(s);
    memcpy(dest, acc, bytes);
    if (bytes > REDUCE_SMALL) {
        free(acc);
        free(in);
    }
}

int oshi_reduce_team(const char *call, shmem_team_t team, void *dest, const void *source, size_t nreduce, size_t size,
                     oshi_reducer op)
{
    oshi_set s;
    if (!set_team(&s, call, team))
        return 1;
    reduce(&s, dest, source, nreduce, size, op);
    set_close(&s);
    return 0;
}

void oshi_reduce_set(const char *call, int PE_start, int logPE_stride, int PE_size, long *pSync, void *dest,
                     const void *source, int nreduce, size_t size, oshi_reducer op)
{
    oshi_set s;
    set_open(&s, call, PE_start, logPE_stride, PE_size, pSync);
    if (nreduce < 0)
        shm_fatal(call, "nreduce %d is negative", nreduce);
    reduce(&s, dest, source, (size_t)nreduce, size, op);
}

#define OSHI_ALIASES_SHMEM_COLL_C
#include "zshmem_alias.h"
