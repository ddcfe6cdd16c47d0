//go:build cgo

/* The environment calls that run in C: no Go, no lock, since they are
 * either hot (MPI_Comm_rank/size; MPI_Wtime is wtime.c) or cannot be Go (the variadic
 * MPI_Pcontrol, calls returning a handle or an address). */

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "abi.h"
#include "_cgo_export.h"
#include "include/mpi-ext.h"

const uint32_t abi_never_down = 0;
abi_state abi_global = {.last_used_code = MPI_ERR_ABI, .down = &abi_never_down};

int abic_Pcontrol(const int level)
{
    /* MPI leaves the meaning to the implementation and to profilers, which
     * interpose MPI_Pcontrol; the library itself does nothing. */
    (void)level;
    return MPI_SUCCESS;
}

MPI_Aint abic_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint abic_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* The object behind a communicator handle, or NULL when it is not a live
 * one (the Go path then reports the error). */
static abi_comm *comm_state(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return abi_global.comm_world;
    if (comm == MPI_COMM_SELF)
        return abi_global.comm_self;
    if ((uintptr_t)comm < ABI_ID_BASE || !abi_live((uintptr_t)comm))
        return NULL;
    abi_comm *c = (abi_comm *)comm;
    if (c->hdr.magic != ABI_MAGIC || c->hdr.kind != ABI_KIND_COMM)
        return NULL;
    return c;
}

int abic_Comm_rank(MPI_Comm comm, int *rank)
{
    abi_comm *c = comm_state(comm);
    if (c == NULL || rank == NULL || abi_global.finalized)
        return abigo_Comm_rank((uintptr_t)comm, rank);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int abic_Comm_size(MPI_Comm comm, int *size)
{
    abi_comm *c = comm_state(comm);
    if (c == NULL || size == NULL || abi_global.finalized)
        return abigo_Comm_size((uintptr_t)comm, size);
    *size = c->size;
    return MPI_SUCCESS;
}

/* Status accessors: plain reads and writes of the 32-byte status. */

int abic_Status_get_source(const MPI_Status *status, int *source)
{
    if (status == NULL || source == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_get_source");
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}

int abic_Status_get_tag(const MPI_Status *status, int *tag)
{
    if (status == NULL || tag == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_get_tag");
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}

int abic_Status_get_error(const MPI_Status *status, int *error)
{
    if (status == NULL || error == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_get_error");
    *error = status->MPI_ERROR;
    return MPI_SUCCESS;
}

int abic_Status_set_source(MPI_Status *status, int source)
{
    if (status == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_set_source");
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int abic_Status_set_tag(MPI_Status *status, int tag)
{
    if (status == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_set_tag");
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

int abic_Status_set_error(MPI_Status *status, int error)
{
    if (status == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_set_error");
    status->MPI_ERROR = error;
    return MPI_SUCCESS;
}

int abic_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (status == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Status_set_cancelled");
    status->MPI_internal[ABI_STATUS_CANCELLED] = flag != 0;
    return MPI_SUCCESS;
}

int abic_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == NULL || flag == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Test_cancelled");
    *flag = status->MPI_internal[ABI_STATUS_CANCELLED] != 0;
    return MPI_SUCCESS;
}

int abic_Get_address(const void *location, MPI_Aint *address)
{
    if (address == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Get_address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* The build, not the header, decides: mpi-ext.h in the source says 0 and
 * the installed one of a -tags cuda build says 1 (gshmem abi install). */
int MPIX_Query_cuda_support(void)
{
#ifdef GSHMEM_ABI_CUDA
    return abiint_cuda_aware();
#else
    return 0;
#endif
}

/* Predefined communicator attributes (MPI_TAG_UB, ...). The value of each
 * is a pointer to an int that lives as long as the library. User keyvals
 * are attr.go's. */
static int attr_tag_ub = 0x7fffffff; /* compat's tags: non-negative int32 */
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE; /* every process can do I/O */
static int attr_wtime_is_global = 0;
static int attr_universe_size;
static int attr_appnum;

static int comm_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag, const char *call)
{
    if (comm_state(comm) == NULL || abi_global.finalized)
        return abiint_raise(ABI_KIND_COMM, (uintptr_t)comm, MPI_ERR_COMM, (char *)call);
    if (attribute_val == NULL || flag == NULL)
        return abiint_raise(ABI_KIND_COMM, (uintptr_t)comm, MPI_ERR_ARG, (char *)call);
    int *v;
    switch (keyval) {
    case MPI_TAG_UB: v = &attr_tag_ub; break;
    case MPI_HOST: v = &attr_host; break;
    case MPI_IO: v = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: v = &attr_wtime_is_global; break;
    case MPI_UNIVERSE_SIZE:
        /* Under gshmem run, which can spawn (MPI_Comm_spawn), the
         * processes this machine runs at one a CPU, or the job if it is
         * larger; elsewhere the job. */
        attr_universe_size = abi_global.comm_world->size;
        if (getenv("GSHMEM_LAUNCHER") != NULL && getenv("GSHMEM_LOCAL_ADDR") != NULL) {
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            if (cpus > attr_universe_size && cpus < 1 << 20)
                attr_universe_size = (int)cpus;
        }
        v = &attr_universe_size;
        break;
    case MPI_LASTUSEDCODE: v = &abi_global.last_used_code; break;
    case MPI_APPNUM: {
        /* The command's index in MPI_Comm_spawn_multiple (0 for
         * MPI_Comm_spawn), which gshmem spawn-exec sets; unset in a
         * process no spawn started. */
        const char *s = getenv("GSHMEM_APPNUM");
        char *end;
        long n = s ? strtol(s, &end, 10) : -1;
        if (s == NULL || *s == 0 || *end != 0 || n < 0 || n > 1 << 20) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        attr_appnum = (int)n;
        v = &attr_appnum;
        break;
    }
    default: /* a user keyval: attr.go */
        return abigo_Comm_get_attr((uintptr_t)comm, keyval, (uintptr_t)attribute_val, flag);
    }
    *(int **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int abic_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return comm_attr(comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
}

int abic_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_attr(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}

/* The thread that called MPI_Init (MPI_Is_thread_main), recorded here
 * before Go sets MPI up. */
static pthread_t main_thread;

int abic_Init(int *argc, char ***argv)
{
    main_thread = pthread_self();
    return abigo_Init(argc, argv);
}

int abic_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    main_thread = pthread_self();
    return abigo_Init_thread(argc, argv, required, provided);
}

int abic_Is_thread_main(int *flag)
{
    if (flag == NULL)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_ARG, (char *)"MPI_Is_thread_main");
    if (!abi_global.initialized)
        return abiint_raise(ABI_KIND_NONE, 0, MPI_ERR_OTHER, (char *)"MPI_Is_thread_main");
    *flag = pthread_equal(main_thread, pthread_self()) != 0;
    return MPI_SUCCESS;
}
