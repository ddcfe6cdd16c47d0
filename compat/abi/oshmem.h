/* oshmem.h: what the OpenSHMEM 1.5 routines (shmem.h: zshmem.c, shmem.c,
 * shmem_coll.c) share inside the library, over shm.h's cores. */
#ifndef GSHMEM_ABI_OSHMEM_H
#define GSHMEM_ABI_OSHMEM_H

#define SHMEMI_NO_GENERICS 1
#include "shm.h"
#include "include/shmem.h"
#include "include/pshmem.h"

/* A communication context: the team whose PE numbers its calls take
 * (world: NULL map), as a map from team PE to world PE. Every context
 * completes on the same engine, so quiet and fence of any context complete
 * and order all of this PE's operations (a context's guarantees, and
 * more). */
struct shmemi_ctx {
    shmem_team_t team;
    long options;
    int n;      /* the team's PEs */
    int *world; /* world PE of each team PE; NULL for the world team */
};

/* oshi_pe is the world PE of pe in ctx's team, or the end of the job on
 * an invalid context or a PE outside its team. */
static inline int oshi_pe(const char *call, shmem_ctx_t ctx, int pe)
{
    if (ctx == SHMEM_CTX_DEFAULT)
        return pe;
    if (ctx == SHMEM_CTX_INVALID)
        shm_fatal(call, "ctx is SHMEM_CTX_INVALID");
    if (ctx->world == NULL)
        return pe;
    if ((unsigned)pe >= (unsigned)ctx->n)
        shm_fatal(call, "PE %d is not a PE of the context's team (0..%d)", pe, ctx->n - 1);
    return ctx->world[pe];
}

/* A reduction of n elements: acc[i] = acc[i] op in[i]. */
typedef void (*oshi_reducer)(void *acc, const void *in, size_t n);

/* The C reductions (shmem_coll.c): over a team, and over an active set
 * with its pSync. */
int oshi_reduce_team(const char *call, shmem_team_t team, void *dest, const void *source, size_t nreduce, size_t size,
                     oshi_reducer op);
void oshi_reduce_set(const char *call, int PE_start, int logPE_stride, int PE_size, long *pSync, void *dest,
                     const void *source, int nreduce, size_t size, oshi_reducer op);

#endif
