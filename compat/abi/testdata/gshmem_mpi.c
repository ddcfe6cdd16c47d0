/* MPI and gshmem.h on one job: gshmemx_init_attr over MPI_COMM_WORLD
 * after MPI_Init (a sub-communicator is refused), then MPI calls and
 * gshmem calls interleaved on the same PEs and heap: puts observed by an
 * MPI_Allreduce, an MPI window beside gshmem objects, a gshmem reduction
 * beside an MPI one. With argument "shmem-first", gshmem_init comes first
 * and MPI_Init runs on the World it made; the finalizes come in either
 * order. With "mpi-finalize-only", the code forgets gshmem_finalize and
 * calls gshmem after MPI_Finalize, which must end it with a message (the
 * heap is gone), not touch the unmapped heap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include <gshmem.h>

int main(int argc, char **argv)
{
    int shmem_first = argc > 1 && strcmp(argv[1], "shmem-first") == 0;
    int forget = argc > 1 && strcmp(argv[1], "mpi-finalize-only") == 0;
    int rank, size;
    if (shmem_first)
        gshmem_init();
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (!shmem_first) {
        gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
        if (size > 1) {
            MPI_Comm half;
            CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
            attr.mpi_comm = &half;
            CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0);
            CHECK_RC(MPI_Comm_free(&half));
        }
        MPI_Comm world = MPI_COMM_WORLD;
        attr.mpi_comm = &world;
        /* NVSHMEM programs set the heap's size between MPI_Init and the
         * init (a plain byte count): more than MPI_Init's heap holds is
         * refused, a size it holds is met. */
        CHECK(setenv("GSHMEM_SYMMETRIC_SIZE", "1099511627776000", 1) == 0);
        CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0);
        CHECK(setenv("GSHMEM_SYMMETRIC_SIZE", "4096", 1) == 0);
        CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) == 0);
    }
    CHECK(gshmem_my_pe() == rank && gshmem_n_pes() == size);

    /* Each PE puts its rank into its right neighbour's slot; an MPI
     * reduction of what arrived is the sum of the ranks. */
    int *slot = gshmem_calloc(2, sizeof(int));
    CHECK(slot != NULL);
    MPI_Win win;
    int *wbase;
    CHECK_RC(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    gshmem_barrier_all();
    gshmem_int_p(&slot[0], rank + 1, right);
    gshmem_barrier_all();
    CHECK(slot[0] == left + 1);
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&slot[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size + 1) / 2);

    /* An MPI window and gshmem objects side by side. */
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(wbase[0] == left);
    gshmem_int_atomic_add(&slot[1], rank, 0);
    gshmem_barrier_all();
    if (rank == 0)
        CHECK(slot[1] == size * (size - 1) / 2);

    /* Reductions of both APIs agree. */
    long *src = gshmem_malloc(sizeof(long)), *dst = gshmem_malloc(sizeof(long));
    CHECK(src && dst);
    *src = 10 * rank + 1;
    long mpi_max = 0;
    CHECK_RC(MPI_Allreduce(src, &mpi_max, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    CHECK(gshmem_long_max_reduce(GSHMEM_TEAM_WORLD, dst, src, 1) == 0);
    CHECK(*dst == mpi_max && mpi_max == 10 * (size - 1) + 1);

    CHECK_RC(MPI_Win_free(&win));
    gshmem_free(src);
    gshmem_free(dst);
    gshmem_free(slot);
    if (forget) {
        CHECK_RC(MPI_Finalize());
        gshmem_int_p(slot, 1, 0);
        printf("not fatal\n");
        return 0;
    }
    if (shmem_first) {
        CHECK_RC(MPI_Finalize());
        gshmem_finalize();
    } else {
        gshmem_finalize();
        CHECK_RC(MPI_Finalize());
    }
    printf("gshmem_mpi ok %d/%d\n", rank, size);
    return 0;
}
