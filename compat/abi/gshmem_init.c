//go:build cgo

/* NVSHMEM's initialization with attributes (gshmemx_init_attr and its
 * flags, the unique id, the host library's init), its init status, and
 * buffer registration. The joining is Go's (gshmem.go, gshmem_uid.go). */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "shm.h"

static int init_with(const char *call, unsigned int flags, gshmemx_init_attr_t *attr)
{
    const unsigned int known =
        GSHMEMX_INIT_THREAD_PES | GSHMEMX_INIT_WITH_MPI_COMM | GSHMEMX_INIT_WITH_SHMEM | GSHMEMX_INIT_WITH_UNIQUEID;
    if (flags & ~known) {
        fprintf(stderr, "gshmem: %s: unknown flags 0x%x\n", call, flags & ~known);
        return 1;
    }
    if (flags & GSHMEMX_INIT_THREAD_PES) {
        fprintf(stderr, "gshmem: %s: GSHMEMX_INIT_THREAD_PES (PEs as threads of one process) is not supported: "
                        "start one process per PE\n", call);
        return 1;
    }
    unsigned int modes = flags & (GSHMEMX_INIT_WITH_MPI_COMM | GSHMEMX_INIT_WITH_SHMEM | GSHMEMX_INIT_WITH_UNIQUEID);
    if (modes & (modes - 1)) {
        fprintf(stderr, "gshmem: %s: flags 0x%x name more than one of GSHMEMX_INIT_WITH_MPI_COMM, _WITH_SHMEM and "
                        "_WITH_UNIQUEID\n", call, flags);
        return 1;
    }
    switch (modes) {
    case GSHMEMX_INIT_WITH_MPI_COMM:
        if (attr == NULL || attr->mpi_comm == NULL) {
            fprintf(stderr, "gshmem: %s: GSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm (an MPI_Comm *)\n", call);
            return 1;
        }
        return abiint_shmem_init(1, (uintptr_t) * (MPI_Comm *)attr->mpi_comm);
    case GSHMEMX_INIT_WITH_SHMEM:
        /* shmem_init is gshmem_init in this library: the same heap. */
        if (__atomic_load_n(&abi_shm.initialized, __ATOMIC_ACQUIRE) == 0) {
            fprintf(stderr, "gshmem: %s: GSHMEMX_INIT_WITH_SHMEM needs shmem_init first\n", call);
            return 1;
        }
        return 0;
    case GSHMEMX_INIT_WITH_UNIQUEID:
        if (attr == NULL || attr->args.uid_args.id == NULL) {
            fprintf(stderr, "gshmem: %s: GSHMEMX_INIT_WITH_UNIQUEID needs attr->args.uid_args "
                            "(gshmemx_set_attr_uniqueid_args)\n", call);
            return 1;
        }
        return abiint_shmem_init_uid(attr->args.uid_args.myrank, attr->args.uid_args.nranks,
                                     attr->args.uid_args.id->internal);
    }
    return abiint_shmem_init(0, 0);
}

int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr)
{
    return init_with("gshmemx_init_attr", flags, attr);
}

/* The host library alone is all of this library: the same as init_attr. */
int gshmemx_hostlib_init_attr(unsigned int flags, gshmemx_init_attr_t *attr)
{
    return init_with("gshmemx_hostlib_init_attr", flags, attr);
}

void gshmemx_hostlib_finalize(void)
{
    gshmem_finalize();
}

int gshmemx_get_uniqueid(gshmemx_uniqueid_t *uniqueid)
{
    if (uniqueid == NULL) {
        fprintf(stderr, "gshmem: gshmemx_get_uniqueid: uniqueid is NULL\n");
        return 1;
    }
    uniqueid->version = (1 << 16) + (int)sizeof(gshmemx_uniqueid_t);
    return abiint_shmem_get_uniqueid(uniqueid->internal);
}

int gshmemx_set_attr_uniqueid_args(const int myrank, const int nranks, const gshmemx_uniqueid_t *uniqueid,
                                   gshmemx_init_attr_t *attr)
{
    if (attr == NULL || uniqueid == NULL) {
        fprintf(stderr, "gshmem: gshmemx_set_attr_uniqueid_args: %s is NULL\n", attr == NULL ? "attr" : "uniqueid");
        return 1;
    }
    if (nranks < 1 || myrank < 0 || myrank >= nranks) {
        fprintf(stderr, "gshmem: gshmemx_set_attr_uniqueid_args: rank %d of %d: want 0 <= myrank < nranks\n", myrank,
                nranks);
        return 1;
    }
    attr->args.uid_args.version = (1 << 16) + (int)sizeof(gshmemx_uniqueid_args_t);
    attr->args.uid_args.id = (gshmemx_uniqueid_t *)uniqueid;
    attr->args.uid_args.myrank = myrank;
    attr->args.uid_args.nranks = nranks;
    return 0;
}

int gshmemx_set_attr_mpi_comm_args(void *mpi_comm, gshmemx_init_attr_t *attr)
{
    if (attr == NULL || mpi_comm == NULL) {
        fprintf(stderr, "gshmem: gshmemx_set_attr_mpi_comm_args: %s is NULL\n", attr == NULL ? "attr" : "mpi_comm");
        return 1;
    }
    attr->mpi_comm = mpi_comm;
    return 0;
}

int gshmemx_init_status(void)
{
    return __atomic_load_n(&abi_shm.initialized, __ATOMIC_ACQUIRE) ? GSHMEM_STATUS_IS_INITIALIZED
                                                                   : GSHMEM_STATUS_NOT_INITIALIZED;
}

/* ------------------------------------------------- buffer registration --- */

/* The registered ranges: any local memory is already a valid RMA source
 * or destination here (host copies and cuMemcpy take any address), so a
 * registration is a record the unregistering calls check against. */
typedef struct {
    uintptr_t base;
    size_t len;
} bufreg;
static bufreg *regs;
static size_t nregs, capregs;
static pthread_mutex_t regs_mu = PTHREAD_MUTEX_INITIALIZER;

int gshmemx_buffer_register(void *addr, size_t length)
{
    if (addr == NULL || length == 0) {
        fprintf(stderr, "gshmem: gshmemx_buffer_register: %s\n", addr == NULL ? "addr is NULL" : "length is 0");
        return 1;
    }
    uintptr_t b = (uintptr_t)addr;
    if (b + length < b) {
        fprintf(stderr, "gshmem: gshmemx_buffer_register: %p + %zu wraps around\n", addr, length);
        return 1;
    }
    int rc = 0;
    pthread_mutex_lock(&regs_mu);
    for (size_t i = 0; i < nregs; i++) {
        if (b < regs[i].base + regs[i].len && regs[i].base < b + length) {
            fprintf(stderr, "gshmem: gshmemx_buffer_register: [%p, +%zu) overlaps the registered [%p, +%zu)\n", addr,
                    length, (void *)regs[i].base, regs[i].len);
            rc = 1;
            goto out;
        }
    }
    if (nregs == capregs) {
        size_t c = capregs ? 2 * capregs : 16;
        bufreg *n = realloc(regs, c * sizeof *n);
        if (n == NULL) {
            fprintf(stderr, "gshmem: gshmemx_buffer_register: out of memory\n");
            rc = 2;
            goto out;
        }
        regs = n;
        capregs = c;
    }
    regs[nregs].base = b;
    regs[nregs].len = length;
    nregs++;
out:
    pthread_mutex_unlock(&regs_mu);
    return rc;
}

int gshmemx_buffer_unregister(void *addr)
{
    int rc = 1;
    pthread_mutex_lock(&regs_mu);
    for (size_t i = 0; i < nregs; i++) {
        if (regs[i].base == (uintptr_t)addr) {
            regs[i] = regs[--nregs];
            rc = 0;
            break;
        }
    }
    pthread_mutex_unlock(&regs_mu);
    if (rc != 0)
        fprintf(stderr, "gshmem: gshmemx_buffer_unregister: %p is not the start of a registered buffer\n", addr);
    return rc;
}

void gshmemx_buffer_unregister_all(void)
{
    pthread_mutex_lock(&regs_mu);
    nregs = 0;
    pthread_mutex_unlock(&regs_mu);
}

/* The symmetric form maps a cuMemCreate buffer into every PE's heap; the
 * heap here is one cuMemAlloc region shared by CUDA IPC, which cannot take
 * it in, so the call is refused as NVSHMEM refuses one it cannot map. */
void *gshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags)
{
    (void)flags;
    fprintf(stderr, "gshmem: gshmemx_buffer_register_symmetric(%p, %zu): not supported: the symmetric heap cannot "
                    "take in a buffer of the application's (allocate it with gshmem_malloc)\n", buf_ptr, size);
    return NULL;
}

int gshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size)
{
    fprintf(stderr, "gshmem: gshmemx_buffer_unregister_symmetric(%p, %zu): no buffer was registered "
                    "(gshmemx_buffer_register_symmetric is not supported)\n", mmap_ptr, size);
    return 1;
}
