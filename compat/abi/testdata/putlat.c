/* putlat.c: 8-byte MPI_Put + MPI_Win_flush latency in a lock_all epoch
 * (osu_put_latency's pattern), rank 0 to rank 1, for -w allocate or
 * -w create (argument "create"). Prints "putlat: N ns". */
#include <stdint.h>
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_Win win;
    int64_t *base, *mine = calloc(8, 8);
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
        printf("putlat: %.1f ns\n", t / ITERS * 1e9);
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Finalize());
    free(mine);
    return 0;
}
