/* rma_calls.c: what each MPI one-sided call costs, for test/perf/abi-calls.sh.
 * Plain MPI-3 C, built unchanged with gshmem's mpicc (libmpi_abi), with
 * Open MPI's and with MPICH's. Rank 0 times ITERS back-to-back calls of
 * each kind into rank 1 (an 8-byte MPI_Win_allocate window, MPI_LONG
 * elements, a shared lock held), with the clock read only around the loop:
 * OSU's latency tests read MPI_Wtime twice per iteration, which here costs
 * more than a put and a flush together and hides what the library costs.
 * The rows ending in "/osu" are OSU's shape for comparison: the same call
 * with MPI_Wtime read before and after each iteration (as
 * osu_put/get/acc_latency do), so that they show what OSU's figure is made
 * of with three digits instead of OSU's two decimals of a microsecond.
 * Prints one line per row: name and nanoseconds per iteration.
 *
 *   rma_calls [ITERS [ROW]]     ROW: one row's name, else every row */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SKIP = 10000 };

static double per_iter(double t0, double t1, long n) { return (t1 - t0) / (double)n * 1e9; }

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "rma_calls: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long *base, v = 1, r = 0, c = 0;
    MPI_Win win;
    MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct { const char *name; int kind, osu; } rows[] = {
            {"put+flush", 0, 0}, {"get+flush", 1, 0}, {"acc+flush", 2, 0}, {"fop+flush", 3, 0}, {"cas+flush", 4, 0},
            {"lock_all+put+unlock_all", 5, 0}, {"lock+put+unlock", 6, 0}, {"wtime", 7, 0},
            {"put+flush/osu", 0, 1}, {"get+flush/osu", 1, 1}, {"acc+flush/osu", 2, 1},
        };
        double bracketed = 0; /* what OSU's per-iteration reads add up to; printed so they stay */
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
            int kind = rows[k].kind;
            if (argc > 2 && strcmp(argv[2], rows[k].name) != 0)
                continue;
            if (kind < 5)
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            double t0 = 0;
            for (long i = 0; i < iters + SKIP; i++) {
                if (i == SKIP)
                    t0 = MPI_Wtime();
                double a = rows[k].osu ? MPI_Wtime() : 0;
                switch (kind) {
                case 0: MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win); MPI_Win_flush(1, win); break;
                case 1: MPI_Get(&r, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win); MPI_Win_flush(1, win); break;
                case 2: MPI_Accumulate(&v, 1, MPI_LONG, 1, 1, 1, MPI_LONG, MPI_SUM, win); MPI_Win_flush(1, win); break;
                case 3: MPI_Fetch_and_op(&v, &r, MPI_LONG, 1, 2, MPI_SUM, win); MPI_Win_flush(1, win); break;
                case 4: MPI_Compare_and_swap(&v, &c, &r, MPI_LONG, 1, 3, win); MPI_Win_flush(1, win); break;
                case 5: MPI_Win_lock_all(0, win); MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win); MPI_Win_unlock_all(win); break;
                case 6: MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win); MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win); MPI_Win_unlock(1, win); break;
                case 7: r += (long)MPI_Wtime(); break;
                }
                if (rows[k].osu)
                    bracketed += MPI_Wtime() - a;
            }
            double t1 = MPI_Wtime();
            if (kind < 5)
                MPI_Win_unlock(1, win);
            printf("%-24s %8.1f ns\n", rows[k].name, per_iter(t0, t1, iters));
        }
        if (bracketed < 0)
            printf("rma_calls: the clock went backwards (%g s)\n", bracketed);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && base[1] != 0 && base[1] < iters) {
        fprintf(stderr, "rma_calls: accumulate total %ld, want at least %ld\n", base[1], iters);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
