/* win_put_flush.c: 8-byte MPI_Put + MPI_Win_flush latency in a lock_all
 * epoch (osu_put_latency -s flush's pattern, the clock read around the
 * loop only), rank 0 to rank 1, in an MPI_Win_allocate window or (argument
 * "create") an MPI_Win_create one; and (argument "create1g") the time of
 * MPI_Win_create and MPI_Win_free over a 1 GiB malloc'd, touched array.
 * Plain MPI-3: build it with gshmem's mpicc and with another MPI's.
 * Prints "put+flush: N ns" or "create 1 GiB: S s, free: S s". */
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "win_put_flush: %s failed\n", #c); MPI_Abort(MPI_COMM_WORLD, 3); } } while (0)
#define CHECK_RC(call) CHECK((call) == MPI_SUCCESS)

int main(int argc, char **argv)
{
    int rank;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_Win win;
    int64_t *base, *mine = calloc(8, 8);
    if (argc > 1 && strcmp(argv[1], "create1g") == 0) {
        size_t n = (size_t)1 << 30;
        char *big = malloc(n);
        CHECK(big != NULL);
        memset(big, 1, n);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        CHECK_RC(MPI_Win_create(big, n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        double t1 = MPI_Wtime();
        CHECK_RC(MPI_Win_free(&win));
        double t2 = MPI_Wtime();
        if (rank == 0)
            printf("create 1 GiB: %.3f s, free: %.3f s\n", t1 - t0, t2 - t1);
        free(big);
        CHECK_RC(MPI_Finalize());
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "create") == 0) {
        base = mine;
        CHECK_RC(MPI_Win_create(base, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        CHECK_RC(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    }
    CHECK_RC(MPI_Win_lock_all(0, win));
    int64_t v = 1;
    enum { WARM = 100000, ITERS = 2000000 };
    double t = 0;
    if (rank == 0) {
        for (int i = 0; i < WARM + ITERS; i++) {
            if (i == WARM)
                t = MPI_Wtime();
            CHECK_RC(MPI_Put(&v, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win));
            CHECK_RC(MPI_Win_flush(1, win));
        }
        t = MPI_Wtime() - t;
        printf("put+flush: %.1f ns\n", t / ITERS * 1e9);
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Finalize());
    free(mine);
    return 0;
}
