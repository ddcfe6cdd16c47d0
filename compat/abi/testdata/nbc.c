/* Nonblocking collectives, alone, mixed with point-to-point in Waitall,
 * and in the NBX pattern (Issend, Iprobe, Ibarrier, Test). */
#include <string.h>
#include "check.h"

static void maxabs(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

int main(int argc, char **argv)
{
    int rank, size, flag;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Request rq[8];

    CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(rq[0] == MPI_REQUEST_NULL);

    int b[3] = {0};
    if (rank == 0) { b[0] = 5; b[1] = 6; b[2] = 7; }
    double x = rank + 1, sum = 0, mx = -1;
    int v = (rank % 2 ? -1 : 1) * rank, am = 0;
    MPI_Op op;
    CHECK_RC(MPI_Op_create(maxabs, 1, &op));
    CHECK_RC(MPI_Ibcast(b, 3, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Iallreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
    CHECK_RC(MPI_Ireduce(&x, &mx, 1, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD, &rq[2]));
    CHECK_RC(MPI_Iallreduce(&v, &am, 1, MPI_INT, op, MPI_COMM_WORLD, &rq[3]));
    int pv = -1, right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_RC(MPI_Irecv(&pv, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &rq[4]));
    CHECK_RC(MPI_Isend(&rank, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &rq[5]));
    MPI_Status sts[6];
    CHECK_RC(MPI_Waitall(6, rq, sts));
    CHECK(b[0] == 5 && b[2] == 7);
    CHECK(sum == size * (size + 1) / 2.0);
    if (rank == size - 1)
        CHECK(mx == size);
    CHECK(am == size - 1);
    CHECK(pv == left && sts[4].MPI_SOURCE == left);

    /* Gather, scatter, allgather, alltoall; completed with Testany. */
    int *all = malloc(sizeof(int) * size), *sc = malloc(sizeof(int) * size), *aa = malloc(sizeof(int) * size);
    int *ta = malloc(sizeof(int) * size), *tb = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) {
        sc[i] = 100 + i;
        ta[i] = rank * 10 + i;
    }
    int got = -1, mine = rank * 3;
    CHECK_RC(MPI_Igather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Iscatter(sc, 1, MPI_INT, &got, 1, MPI_INT, size - 1, MPI_COMM_WORLD, &rq[1]));
    CHECK_RC(MPI_Iallgather(&mine, 1, MPI_INT, aa, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]));
    CHECK_RC(MPI_Ialltoall(ta, 1, MPI_INT, tb, 1, MPI_INT, MPI_COMM_WORLD, &rq[3]));
    int left4 = 4, idx;
    while (left4 > 0) {
        CHECK_RC(MPI_Testany(4, rq, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag && idx != MPI_UNDEFINED)
            left4--;
    }
    CHECK_RC(MPI_Testany(4, rq, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && idx == MPI_UNDEFINED);
    if (rank == 0)
        for (int i = 0; i < size; i++)
            CHECK(all[i] == i * 3);
    CHECK(got == 100 + rank);
    for (int i = 0; i < size; i++) {
        CHECK(aa[i] == i * 3);
        CHECK(tb[i] == i * 10 + rank);
    }

    /* v forms and scans: rank i contributes i+1 ints. */
    int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size), tot = 0;
    for (int i = 0; i < size; i++) {
        cnt[i] = i + 1;
        dsp[i] = tot;
        tot += cnt[i];
    }
    int *vin = malloc(sizeof(int) * (rank + 1)), *vall = malloc(sizeof(int) * tot);
    for (int k = 0; k <= rank; k++)
        vin[k] = rank * 100 + k;
    CHECK_RC(MPI_Iallgatherv(vin, rank + 1, MPI_INT, vall, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq[0]));
    int *s1 = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size), *r1 = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    int *sv = malloc(sizeof(int) * size), *rv = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) {
        s1[i] = r1[i] = 1;
        sd[i] = rd[i] = size - 1 - i;
        sv[size - 1 - i] = rank * 1000 + i;
    }
    CHECK_RC(MPI_Ialltoallv(sv, s1, sd, MPI_INT, rv, r1, rd, MPI_INT, MPI_COMM_WORLD, &rq[1]));
    int sc1 = -1, ex1 = -9;
    CHECK_RC(MPI_Iscan(&rank, &sc1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
    CHECK_RC(MPI_Iexscan(&rank, &ex1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[3]));
    CHECK_RC(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < size; i++)
        for (int k = 0; k <= i; k++)
            CHECK(vall[dsp[i] + k] == i * 100 + k);
    for (int i = 0; i < size; i++)
        CHECK(rv[size - 1 - i] == i * 1000 + rank);
    CHECK(sc1 == rank * (rank + 1) / 2);
    CHECK(rank == 0 ? ex1 == -9 : ex1 == rank * (rank - 1) / 2);
    /* Igatherv at the last rank, Iscatterv from it, reduce-scatters. */
    memset(vall, 0, sizeof(int) * tot);
    CHECK_RC(MPI_Igatherv(vin, rank + 1, MPI_INT, vall, cnt, dsp, MPI_INT, size - 1, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    if (rank == size - 1)
        for (int i = 0; i < size; i++)
            CHECK(vall[dsp[i] + i] == i * 100 + i);
    int *back = malloc(sizeof(int) * (rank + 1));
    CHECK_RC(MPI_Iscatterv(vall, cnt, dsp, MPI_INT, back, rank + 1, MPI_INT, size - 1, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (int k = 0; k <= rank; k++)
        CHECK(back[k] == rank * 100 + k);
    free(back);
    int *row = malloc(sizeof(int) * tot), blk = -1, *mine_v = malloc(sizeof(int) * (rank + 1));
    for (int i = 0; i < tot; i++)
        row[i] = rank + i;
    for (int i = 0; i < size; i++)
        s1[i] = 1;
    CHECK_RC(MPI_Ireduce_scatter_block(row, &blk, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Ireduce_scatter(row, mine_v, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(blk == size * (size - 1) / 2 + size * rank);
    for (int k = 0; k <= rank; k++)
        CHECK(mine_v[k] == size * (size - 1) / 2 + size * (dsp[rank] + k));
    free(row); free(mine_v);
    free(cnt); free(dsp); free(vin); free(vall); free(s1); free(sd); free(r1); free(rd); free(sv); free(rv);

    /* Alltoallw: one int to each rank, byte displacements, reversed. */
    {
        int *wc = malloc(sizeof(int) * size), *wd = malloc(sizeof(int) * size), *ws = malloc(sizeof(int) * size), *wr = malloc(sizeof(int) * size);
        MPI_Datatype *wt = malloc(sizeof(MPI_Datatype) * size);
        for (int i = 0; i < size; i++) {
            wc[i] = 1;
            wd[i] = (size - 1 - i) * (int)sizeof(int);
            wt[i] = MPI_INT;
            ws[size - 1 - i] = rank * 10 + i;
        }
        CHECK_RC(MPI_Alltoallw(ws, wc, wd, wt, wr, wc, wd, wt, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++)
            CHECK(wr[size - 1 - i] == i * 10 + rank);
        memset(wr, 0, sizeof(int) * size);
        CHECK_RC(MPI_Ialltoallw(ws, wc, wd, wt, wr, wc, wd, wt, MPI_COMM_WORLD, &rq[0]));
        CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        for (int i = 0; i < size; i++)
            CHECK(wr[size - 1 - i] == i * 10 + rank);
        free(wc); free(wd); free(ws); free(wr); free(wt);
    }

    /* NBX: synchronous sends to the right, probe-and-receive until the
     * barrier that starts once this rank's sends are done completes. */
    MPI_Request sreq, breq = MPI_REQUEST_NULL;
    int payload = rank, received = 0, barrier_on = 0, done = 0;
    CHECK_RC(MPI_Issend(&payload, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &sreq));
    while (!done) {
        MPI_Status st;
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &st));
        if (flag) {
            int in;
            CHECK_RC(MPI_Recv(&in, 1, MPI_INT, st.MPI_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(in == left);
            received++;
        }
        if (!barrier_on) {
            CHECK_RC(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &breq));
                barrier_on = 1;
            }
        } else {
            CHECK_RC(MPI_Test(&breq, &done, MPI_STATUS_IGNORE));
        }
    }
    CHECK(received == 1);

    CHECK_RC(MPI_Op_free(&op));
    free(all); free(sc); free(aa); free(ta); free(tb);
    CHECK_RC(MPI_Finalize());
    printf("nbc ok %d\n", rank);
    return 0;
}
