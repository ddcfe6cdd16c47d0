/* soak.c: a 4-PE job through the C ABI that runs point-to-point,
 * collectives and RMA for argv[1] seconds and checks every value and
 * count exactly (test/soak.sh runs it beside busy loops). Any error ends
 * the job (MPI_ERRORS_ARE_FATAL): a peer falsely declared lost fails it
 * with the lost class and the rank. Each round:
 *   - a ring MPI_Sendrecv of 8 bytes (eager) and of 64 KiB (rendezvous);
 *   - MPI_Irecv from MPI_ANY_SOURCE of one int from every other rank,
 *     MPI_Isend to each, MPI_Waitall, and the sum checked;
 *   - MPI_Allreduce, MPI_Bcast from a rotating root, MPI_Barrier;
 *   - MPI_Accumulate (+1) into every rank's counter slot for this rank and
 *     a MPI_Put to the right neighbour read back by MPI_Get, in one
 *     MPI_Win_lock_all epoch with MPI_Win_flush_all.
 * Rank 0 decides each round whether to go on (in the MPI_Bcast), so every
 * rank runs the same number of rounds; at the end each rank's counters
 * must equal that number. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define BIG (64 * 1024 / sizeof(int))

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "soak: CHECK FAILED %s:%d (rank %d, round %ld): %s\n", __FILE__, \
                    __LINE__, rank, (long)round, #cond);                                    \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                   \
        }                                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    int rank = -1, size = 0;
    long round = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 2 && size >= 2);
    double secs = atof(argv[1]);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *big_out = malloc(BIG * sizeof(int)), *big_in = malloc(BIG * sizeof(int));
    int64_t *base;
    MPI_Win win;
    /* slots 0..size-1: counters, one per origin; slot size: the put slot */
    MPI_Win_allocate((MPI_Aint)(size + 1) * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i <= size; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    double t0 = MPI_Wtime(), last = t0;
    for (;; round++) {
        int go = rank == 0 ? MPI_Wtime() - t0 < secs : 0;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!go)
            break;

        /* ring, eager and rendezvous */
        int64_t small_out = round * 1000 + rank, small_in = -1;
        MPI_Sendrecv(&small_out, 1, MPI_INT64_T, right, 1, &small_in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(small_in == round * 1000 + left);
        big_out[0] = (int)round, big_out[BIG - 1] = rank;
        big_in[0] = big_in[BIG - 1] = -1;
        MPI_Sendrecv(big_out, (int)BIG, MPI_INT, right, 2, big_in, (int)BIG, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(big_in[0] == (int)round && big_in[BIG - 1] == left);

        /* MPI_ANY_SOURCE from every other rank */
        MPI_Request reqs[2 * 64];
        int in[64], out = rank + (int)round, n = 0;
        for (int p = 0; p < size - 1; p++)
            MPI_Irecv(&in[p], 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &reqs[n++]);
        for (int p = 0; p < size; p++)
            if (p != rank)
                MPI_Isend(&out, 1, MPI_INT, p, 3, MPI_COMM_WORLD, &reqs[n++]);
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        long sum = 0, want = 0;
        for (int p = 0; p < size - 1; p++)
            sum += in[p];
        for (int p = 0; p < size; p++)
            if (p != rank)
                want += p + round;
        CHECK(sum == want);

        /* collectives */
        long mine = rank + round, all = -1;
        MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(all == (long)size * (size - 1) / 2 + size * round);
        long b = rank == (int)((round + 1) % size) ? round * 7 : -1;
        MPI_Bcast(&b, 1, MPI_LONG, (int)((round + 1) % size), MPI_COMM_WORLD);
        CHECK(b == round * 7);
        MPI_Barrier(MPI_COMM_WORLD);

        /* RMA */
        int64_t one = 1, v = round * 10 + rank, got = -1;
        for (int p = 0; p < size; p++)
            MPI_Accumulate(&one, 1, MPI_INT64_T, p, rank, 1, MPI_INT64_T, MPI_SUM, win);
        MPI_Put(&v, 1, MPI_INT64_T, right, size, 1, MPI_INT64_T, win);
        MPI_Win_flush_all(win);
        MPI_Get(&got, 1, MPI_INT64_T, right, size, 1, MPI_INT64_T, win);
        MPI_Win_flush(right, win);
        CHECK(got == v);

        if (rank == 0 && MPI_Wtime() - last >= 30) {
            last = MPI_Wtime();
            printf("soak: %.0f s, %ld rounds\n", last - t0, round + 1);
            fflush(stdout);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int p = 0; p < size; p++)
        CHECK(base[p] == round); /* every origin's accumulate of every round, once */
    MPI_Win_free(&win);
    double took = MPI_Wtime() - t0;
    printf("soak ok rank %d: %ld rounds in %.1f s, counts exact\n", rank, round, took);
    free(big_out);
    free(big_in);
    MPI_Finalize();
    return 0;
}
