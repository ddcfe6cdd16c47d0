//go:build cgo

/* The stream-ordered calls of gshmem.h (gshmemx_*_on_stream, in NVSHMEM's
 * shape): C checks the PE and finds the symmetric objects, as for the
 * host-initiated calls, and Go (gshmem_stream.go) enqueues the work on the
 * caller's stream through package shmem. The typed forms (zgshmem.c) call
 * the cores here. */

#include "shm.h"

void shm_rma_stream(const char *call, void *dest, const void *src, size_t nelems, size_t size, int pe, int put,
                    gshmemx_stream_t stream)
{
    shm_ready(call);
    shm_check_pe(call, pe);
    size_t n = shm_bytes(call, nelems, size);
    if (n == 0)
        return;
    uint64_t obj, off = shm_locate(call, put ? "dest" : "source", put ? dest : src, n, &obj);
    abiint_shmem_rma_stream((char *)call, put, obj, off, (uintptr_t)(put ? src : dest), n, pe, (uintptr_t)stream);
}

void shm_put_signal_stream(const char *call, void *dest, const void *src, size_t nelems, size_t size, uint64_t *sig,
                           uint64_t value, int op, int pe, gshmemx_stream_t stream)
{
    uint64_t obj, off, sobj, soff;
    size_t n = shm_signal_args(call, dest, nelems, size, sig, op, pe, &obj, &off, &sobj, &soff);
    abiint_shmem_put_signal_stream((char *)call, obj, off, (uintptr_t)src, n, sobj, soff, value, op, pe,
                                   (uintptr_t)stream);
}

int shm_coll_stream(const char *call, int coll, gshmem_team_t team, void *dest, const void *src, size_t nelems,
                    size_t size, int kind, int op, int root, gshmemx_stream_t stream)
{
    shm_ready(call);
    shm_bytes(call, nelems, size);
    return abiint_shmem_coll_stream((char *)call, coll, team, (uintptr_t)dest, (uintptr_t)src, nelems, size, kind, op,
                                    root, (uintptr_t)stream);
}

/* ---------------------------------------------------------- RMA --- */

void gshmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream)
{
    shm_rma_stream("gshmemx_putmem_on_stream", dest, source, nelems, 1, pe, 1, stream);
}

void gshmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream)
{
    shm_rma_stream("gshmemx_getmem_on_stream", dest, source, nelems, 1, pe, 0, stream);
}

/* The _nbi forms are the same: an on-stream copy never blocks the host. */
void gshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream)
{
    shm_rma_stream("gshmemx_putmem_nbi_on_stream", dest, source, nelems, 1, pe, 1, stream);
}

void gshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream)
{
    shm_rma_stream("gshmemx_getmem_nbi_on_stream", dest, source, nelems, 1, pe, 0, stream);
}

/* ------------------------------------------------------ signals --- */

void gshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                     uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream)
{
    shm_put_signal_stream("gshmemx_putmem_signal_on_stream", dest, source, nelems, 1, sig_addr, signal, sig_op, pe,
                          stream);
}

void gshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream)
{
    shm_put_signal_stream("gshmemx_putmem_signal_nbi_on_stream", dest, source, nelems, 1, sig_addr, signal, sig_op,
                          pe, stream);
}

void gshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream)
{
    shm_put_signal_stream("gshmemx_signal_op_on_stream", NULL, NULL, 0, 1, sig_addr, signal, sig_op, pe, stream);
}

void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, gshmemx_stream_t stream)
{
    const char *call = "gshmemx_signal_wait_until_on_stream";
    shm_ready(call);
    if (cmp < GSHMEM_CMP_EQ || cmp > GSHMEM_CMP_LE)
        shm_fatal(call, "cmp %d is not a GSHMEM_CMP_* comparison", cmp);
    uint64_t obj, off = shm_locate_sig(call, sig_addr, &obj);
    abiint_shmem_wait_stream((char *)call, obj, off, cmp, cmp_value, (uintptr_t)stream);
}

/* ---------------------------------------------- ordering and syncs --- */

enum { SYNC_QUIET = 0, SYNC_FENCE, SYNC_BARRIER_ALL, SYNC_SYNC_ALL, SYNC_BARRIER, SYNC_TEAM };

void gshmemx_quiet_on_stream(gshmemx_stream_t stream)
{
    shm_ready("gshmemx_quiet_on_stream");
    abiint_shmem_sync_stream((char *)"gshmemx_quiet_on_stream", SYNC_QUIET, 0, (uintptr_t)stream);
}

void gshmemx_barrier_all_on_stream(gshmemx_stream_t stream)
{
    shm_ready("gshmemx_barrier_all_on_stream");
    abiint_shmem_sync_stream((char *)"gshmemx_barrier_all_on_stream", SYNC_BARRIER_ALL, 0, (uintptr_t)stream);
}

void gshmemx_sync_all_on_stream(gshmemx_stream_t stream)
{
    shm_ready("gshmemx_sync_all_on_stream");
    abiint_shmem_sync_stream((char *)"gshmemx_sync_all_on_stream", SYNC_SYNC_ALL, 0, (uintptr_t)stream);
}

int gshmemx_barrier_on_stream(gshmem_team_t team, gshmemx_stream_t stream)
{
    shm_ready("gshmemx_barrier_on_stream");
    return abiint_shmem_sync_stream((char *)"gshmemx_barrier_on_stream", SYNC_BARRIER, team, (uintptr_t)stream);
}

int gshmemx_team_sync_on_stream(gshmem_team_t team, gshmemx_stream_t stream)
{
    shm_ready("gshmemx_team_sync_on_stream");
    return abiint_shmem_sync_stream((char *)"gshmemx_team_sync_on_stream", SYNC_TEAM, team, (uintptr_t)stream);
}

/* -------------------------------------------------- collectives --- */

int gshmemx_broadcastmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root,
                                   gshmemx_stream_t stream)
{
    return shm_coll_stream("gshmemx_broadcastmem_on_stream", ABI_COLL_BROADCAST, team, dest, source, nelems, 1,
                           ABI_SHM_UINT, 0, PE_root, stream);
}

int gshmemx_fcollectmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                  gshmemx_stream_t stream)
{
    return shm_coll_stream("gshmemx_fcollectmem_on_stream", ABI_COLL_FCOLLECT, team, dest, source, nelems, 1,
                           ABI_SHM_UINT, 0, 0, stream);
}

int gshmemx_alltoallmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                  gshmemx_stream_t stream)
{
    return shm_coll_stream("gshmemx_alltoallmem_on_stream", ABI_COLL_ALLTOALL, team, dest, source, nelems, 1,
                           ABI_SHM_UINT, 0, 0, stream);
}
