/* win_create_time.c: what MPI_Win_create and MPI_Win_free cost on a large
 * buffer, for test/perf/win-create.sh. Plain MPI-3 C, built unchanged
 * with gshmem's mpicc (libmpi_abi) and with Open MPI's. Every rank
 * mallocs MIB MiB and, in mode "touched", writes every page first (the
 * usual case: the array holds data); in mode "fresh" it leaves the
 * buffer as malloc gave it (untouched pages). It times MPI_Win_create
 * (the slowest rank, barrier to barrier), one put and a check through the
 * window (so the window is known to work), and MPI_Win_free, and prints
 *   create <mode> <MiB> <seconds>
 *   free <mode> <MiB> <seconds>
 *
 *   win_create_time [MIB [MODE]]     default 1024 touched */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 1024;
    const char *mode = argc > 2 ? argv[2] : "touched";
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = (size_t)mib << 20;
    char *buf = malloc(n);
    if (buf == NULL) {
        fprintf(stderr, "win_create_time: no memory for %ld MiB\n", mib);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(mode, "touched") == 0)
        memset(buf, rank + 1, n);
    MPI_Win win;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Win_create(buf, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    char v = 42;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win);
    MPI_Put(&v, 1, MPI_CHAR, (rank + 1) % size, (MPI_Aint)(n - 1), 1, MPI_CHAR, win);
    MPI_Win_unlock((rank + 1) % size, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Win_sync(win);
    MPI_Win_unlock(rank, win);
    char want = strcmp(mode, "touched") == 0 ? (char)(rank + 1) : buf[n / 2];
    if (buf[n - 1] != 42 || buf[n / 2] != want) {
        fprintf(stderr, "win_create_time: rank %d: the window does not show the put\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    MPI_Win_free(&win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    if (buf[n - 1] != 42) {
        fprintf(stderr, "win_create_time: rank %d: the buffer lost its data at MPI_Win_free\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) {
        printf("create %s %ld %.4f\n", mode, mib, t1 - t0);
        printf("free %s %ld %.4f\n", mode, mib, t3 - t2);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
