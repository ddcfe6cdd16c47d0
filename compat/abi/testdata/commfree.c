/* commfree.c: MPI_Comm_free is local (collective in name only). The
 * members free a communicator in different orders and at different
 * times; a receive posted before the free completes after it, from a
 * send the peer starts on its own handle later, a synchronous send
 * included; and a loop of 10,000 dups and frees runs to the end (the
 * teams under the freed communicators are recycled). Runs on 2 or more
 * processes. */
#include "check.h"

#define NCOMM 100 /* more than the shmem team slots */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);

    /* The last rank frees first, then makes communicators with the
     * others, who send on the one it freed only after that. */
    MPI_Comm comm, tmp[NCOMM];
    int buf[64], dest = size - 1;
    MPI_Request req;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (rank == dest) {
        CHECK_RC(MPI_Irecv(buf, 64, MPI_INT, 0, 0, comm, &req));
        CHECK_RC(MPI_Comm_free(&comm));
        CHECK(comm == MPI_COMM_NULL);
    }
    for (int i = 0; i < NCOMM; i++)
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &tmp[i]));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        for (int i = 0; i < 64; i++)
            buf[i] = i;
        CHECK_RC(MPI_Ssend(buf, 64, MPI_INT, dest, 0, comm));
    } else if (rank == dest) {
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 64; i++)
            CHECK(buf[i] == i);
    }
    for (int i = 0; i < NCOMM; i++) {
        int sum = 0, one = 1, r;
        CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, tmp[i]));
        CHECK(sum == size);
        CHECK_RC(MPI_Comm_rank(tmp[i], &r));
        CHECK(r == size - 1 - rank);
    }
    /* Odd ranks free newest first, even ranks oldest first. */
    for (int i = 0; i < NCOMM; i++)
        CHECK_RC(MPI_Comm_free(&tmp[rank % 2 ? NCOMM - 1 - i : i]));
    if (rank != dest)
        CHECK_RC(MPI_Comm_free(&comm));

    /* Dup and free, 10,000 times, a collective now and then. */
    for (int i = 0; i < 10000; i++) {
        MPI_Comm c;
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        if (i % 997 == 0) {
            int sum = 0;
            CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK(sum == size * (size - 1) / 2);
        }
        CHECK_RC(MPI_Comm_free(&c));
    }
    printf("commfree ok %d\n", rank);
    MPI_Finalize();
    return 0;
}
