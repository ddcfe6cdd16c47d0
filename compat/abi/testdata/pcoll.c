/* Persistent collectives (MPI-4), started several times. */
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    long x = 0, sum = 0;
    int b = 0, *all = malloc(sizeof(int) * size);
    MPI_Request rq[4];
    CHECK_RC(MPI_Allreduce_init(&x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_RC(MPI_Bcast_init(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    CHECK_RC(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]));
    CHECK_RC(MPI_Allgather_init(&b, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[3]));
    for (int it = 1; it <= 3; it++) {
        x = rank * it;
        b = rank == 0 ? 10 * it : -1;
        CHECK_RC(MPI_Start(&rq[0]));
        CHECK_RC(MPI_Start(&rq[1]));
        CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(sum == (long)it * size * (size - 1) / 2);
        CHECK(b == 10 * it);
        CHECK(rq[0] != MPI_REQUEST_NULL);
        CHECK_RC(MPI_Startall(2, &rq[2]));
        CHECK_RC(MPI_Waitall(2, &rq[2], MPI_STATUSES_IGNORE));
        for (int i = 0; i < size; i++)
            CHECK(all[i] == 10 * it);
    }
    for (int i = 0; i < 4; i++)
        CHECK_RC(MPI_Request_free(&rq[i]));
    free(all);
    CHECK_RC(MPI_Finalize());
    printf("pcoll ok %d\n", rank);
    return 0;
}
