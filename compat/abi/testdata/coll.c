/* Collectives, with MPI_IN_PLACE where MPI allows it. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    int b[3] = {0};
    if (rank == size - 1) {
        b[0] = 11; b[1] = 22; b[2] = 33;
    }
    CHECK_RC(MPI_Bcast(b, 3, MPI_INT, size - 1, MPI_COMM_WORLD));
    CHECK(b[0] == 11 && b[2] == 33);

    double x = rank + 1.0, s = 0, mx = 0;
    CHECK_RC(MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == size * (size + 1) / 2.0);
    CHECK_RC(MPI_Reduce(&x, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(mx == size);
    long lv[2] = {rank, -rank};
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, lv, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD));
    CHECK(lv[0] == 0 && lv[1] == -(size - 1));
    int root_in = rank;
    if (rank == 0)
        CHECK_RC(MPI_Reduce(MPI_IN_PLACE, &root_in, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    else
        CHECK_RC(MPI_Reduce(&root_in, NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(root_in == size * (size - 1) / 2);
    struct { double v; int i; } loc = {(double)(rank % 2), rank}, lres;
    CHECK_RC(MPI_Allreduce(&loc, &lres, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(lres.v == (size > 1 ? 1.0 : 0.0) && lres.i == (size > 1 ? 1 : 0));

    int sc = 0, ex = -1;
    CHECK_RC(MPI_Scan(&rank, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sc == rank * (rank + 1) / 2);
    CHECK_RC(MPI_Exscan(&rank, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0)
        CHECK(ex == rank * (rank - 1) / 2);

    int *all = malloc(sizeof(int) * size * 2), *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    int mine[2] = {rank, rank * rank};
    CHECK_RC(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int i = 0; i < size; i++)
            CHECK(all[2 * i] == i && all[2 * i + 1] == i * i);
    memset(all, 0, sizeof(int) * size * 2);
    CHECK_RC(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(all[2 * i] == i && all[2 * i + 1] == i * i);

    /* v forms: rank i contributes i%2+1 values, placed in reverse order. */
    int total = 0;
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = i % 2 + 1;
        displs[i] = total;
        total += counts[i];
    }
    int *vall = malloc(sizeof(int) * total);
    int vmine[2] = {rank * 10, rank * 10 + 1};
    CHECK_RC(MPI_Allgatherv(vmine, counts[rank], MPI_INT, vall, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        for (int k = 0; k < counts[i]; k++)
            CHECK(vall[displs[i] + k] == i * 10 + k);
    memset(vall, 0, sizeof(int) * total);
    CHECK_RC(MPI_Gatherv(vmine, counts[rank], MPI_INT, vall, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(vall[displs[size - 1]] == (size - 1) * 10);
    int got[2] = {-1, -1};
    CHECK_RC(MPI_Scatterv(vall, counts, displs, MPI_INT, got, counts[rank], MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(got[0] == rank * 10);

    int *sbuf = malloc(sizeof(int) * size), *rbuf = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++)
        sbuf[i] = rank * 100 + i;
    int one = -1;
    CHECK_RC(MPI_Scatter(sbuf, 1, MPI_INT, &one, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
    CHECK(one == (size - 1) * 100 + rank);
    CHECK_RC(MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(rbuf[i] == i * 100 + rank);
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = size - 1 - i;
    }
    CHECK_RC(MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(rbuf[size - 1 - i] == i * 100 + (size - 1 - rank));

    /* Reduce_scatter(_block): every rank sends its row; rank r gets column sums. */
    for (int i = 0; i < size; i++)
        sbuf[i] = rank + i;
    int rs = -1;
    CHECK_RC(MPI_Reduce_scatter_block(sbuf, &rs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rs == size * (size - 1) / 2 + size * rank);
    for (int i = 0; i < size; i++)
        counts[i] = 1;
    rs = -1;
    CHECK_RC(MPI_Reduce_scatter(sbuf, &rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rs == size * (size - 1) / 2 + size * rank);

    free(all); free(counts); free(displs); free(vall); free(sbuf); free(rbuf);
    CHECK_RC(MPI_Finalize());
    printf("coll ok %d\n", rank);
    return 0;
}
