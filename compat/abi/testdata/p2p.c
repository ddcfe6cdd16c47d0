/* Point-to-point: blocking, nonblocking, persistent, Sendrecv, probes,
 * wildcards, statuses and counts, large messages, a vector datatype. */
#include <string.h>
#include "check.h"

#define BIG (1 << 20)

int main(int argc, char **argv)
{
    int rank, size, v, flag;
    MPI_Status st;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Ring with Send/Recv: odd ranks receive first. */
    int out[4] = {rank, rank * 10, rank * 100, -rank}, in[4] = {0};
    if (rank % 2 == 0) {
        CHECK_RC(MPI_Send(out, 4, MPI_INT, right, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(in, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &st));
    } else {
        CHECK_RC(MPI_Recv(in, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Send(out, 4, MPI_INT, right, 7, MPI_COMM_WORLD));
    }
    CHECK(in[0] == left && in[1] == left * 10 && in[3] == -left);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 4);
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &v));
    CHECK(v == 16);

    /* Wildcards and a short message into a longer buffer. */
    double d = 1.5 + rank, dd[3] = {0};
    MPI_Request rq[2];
    CHECK_RC(MPI_Irecv(dd, 3, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Isend(&d, 1, MPI_DOUBLE, right, 100 + rank, MPI_COMM_WORLD, &rq[1]));
    MPI_Status sts[2];
    CHECK_RC(MPI_Waitall(2, rq, sts));
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);
    CHECK(dd[0] == 1.5 + left && sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 100 + left);
    CHECK_RC(MPI_Get_count(&sts[0], MPI_DOUBLE, &v));
    CHECK(v == 1);

    /* PROC_NULL: completes at once with the standard's status. */
    CHECK_RC(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 0);
    CHECK_RC(MPI_Send(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));

    /* Null requests: empty statuses. */
    MPI_Request nr = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Wait(&nr, &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && st.MPI_ERROR == MPI_SUCCESS);
    CHECK_RC(MPI_Test(&nr, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1);
    CHECK_RC(MPI_Waitany(1, &nr, &v, &st));
    CHECK(v == MPI_UNDEFINED);

    /* Probe then receive what it announced; Iprobe. */
    int tagged = 1000 + rank;
    CHECK_RC(MPI_Send(&tagged, 1, MPI_INT, right, 55, MPI_COMM_WORLD));
    CHECK_RC(MPI_Probe(left, 55, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 55);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 1);
    CHECK_RC(MPI_Iprobe(left, 55, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1);
    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, left, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == 1000 + left);
    CHECK_RC(MPI_Iprobe(left, 56, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 0);

    /* Sendrecv and Sendrecv_replace around the ring. */
    long lo = rank, li = -1;
    CHECK_RC(MPI_Sendrecv(&lo, 1, MPI_LONG, right, 9, &li, 1, MPI_LONG, left, 9, MPI_COMM_WORLD, &st));
    CHECK(li == left && st.MPI_SOURCE == left);
    lo = rank * 3;
    CHECK_RC(MPI_Sendrecv_replace(&lo, 1, MPI_LONG, right, 9, left, 9, MPI_COMM_WORLD, &st));
    CHECK(lo == left * 3);

    /* Large messages (rendezvous), nonblocking, Testall then Waitall. */
    char *big = malloc(BIG), *bigin = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        big[i] = (char)(i * 7 + rank);
    CHECK_RC(MPI_Irecv(bigin, BIG, MPI_CHAR, left, 3, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, right, 3, MPI_COMM_WORLD, &rq[1]));
    CHECK_RC(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
    if (!flag)
        CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < BIG; i++)
        CHECK(bigin[i] == (char)(i * 7 + left));

    /* Ssend with a posted receive; Waitany and Waitsome. */
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Ssend(&rank, 1, MPI_INT, right, 4, MPI_COMM_WORLD));
    int idx;
    CHECK_RC(MPI_Waitany(1, rq, &idx, &st));
    CHECK(idx == 0 && v == left && rq[0] == MPI_REQUEST_NULL);
    int outc, idxs[2];
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Isend(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]));
    int got = 0;
    while (got < 2) {
        CHECK_RC(MPI_Waitsome(2, rq, &outc, idxs, sts));
        CHECK(outc >= 1);
        got += outc;
    }
    CHECK(v == left);
    CHECK_RC(MPI_Waitsome(2, rq, &outc, idxs, sts));
    CHECK(outc == MPI_UNDEFINED);

    /* Persistent requests, started three times. */
    int pv = 0, ps = 0;
    MPI_Request pr[2];
    CHECK_RC(MPI_Recv_init(&pv, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &pr[0]));
    CHECK_RC(MPI_Send_init(&ps, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &pr[1]));
    for (int i = 0; i < 3; i++) {
        ps = rank * 1000 + i;
        CHECK_RC(MPI_Startall(2, pr));
        CHECK_RC(MPI_Waitall(2, pr, sts));
        CHECK(pv == left * 1000 + i && sts[0].MPI_SOURCE == left);
        CHECK(pr[0] != MPI_REQUEST_NULL);
    }
    CHECK_RC(MPI_Wait(&pr[0], &st)); /* inactive: empty status */
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE);
    CHECK_RC(MPI_Request_free(&pr[0]));
    CHECK_RC(MPI_Request_free(&pr[1]));
    CHECK(pr[0] == MPI_REQUEST_NULL);

    /* A column of a 4x3 matrix as a vector type. */
    MPI_Datatype col;
    CHECK_RC(MPI_Type_vector(4, 1, 3, MPI_INT, &col));
    CHECK_RC(MPI_Type_commit(&col));
    CHECK_RC(MPI_Type_size(col, &v));
    CHECK(v == 16);
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(col, &lb, &ext));
    CHECK(lb == 0 && ext == 40);
    int m[12], c[4];
    for (int i = 0; i < 12; i++)
        m[i] = i + rank * 100;
    CHECK_RC(MPI_Sendrecv(m + 1, 1, col, right, 8, c, 4, MPI_INT, left, 8, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 4; i++)
        CHECK(c[i] == 1 + 3 * i + left * 100);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 4);
    MPI_Datatype con;
    CHECK_RC(MPI_Type_contiguous(3, MPI_DOUBLE, &con));
    CHECK_RC(MPI_Type_commit(&con));
    CHECK_RC(MPI_Type_size(con, &v));
    CHECK(v == 24);
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_RC(MPI_Type_set_name(con, "triple"));
    CHECK_RC(MPI_Type_get_name(con, name, &v));
    CHECK(strcmp(name, "triple") == 0 && v == 6);
    CHECK_RC(MPI_Type_get_name(MPI_INT, name, &v));
    CHECK(strcmp(name, "MPI_INT") == 0);
    CHECK_RC(MPI_Type_free(&col));
    CHECK_RC(MPI_Type_free(&con));
    CHECK(col == MPI_DATATYPE_NULL);

    /* Buffered sends complete before the receive is posted. */
    char tiny[100];
    void *back;
    int bsz;
    CHECK_RC(MPI_Buffer_attach(tiny, sizeof tiny));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Bsend(&rank, 1, MPI_INT, right, 12, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Buffer_detach(&back, &bsz));
    CHECK(back == tiny && bsz == sizeof tiny);
    bsz = BIG + sizeof(int) + 2 * MPI_BSEND_OVERHEAD;
    char *bbuf = malloc(bsz);
    CHECK_RC(MPI_Buffer_attach(bbuf, bsz));
    CHECK_RC(MPI_Bsend(big, BIG, MPI_CHAR, right, 11, MPI_COMM_WORLD));
    CHECK_RC(MPI_Bsend(&rank, 1, MPI_INT, right, 12, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == left);
    CHECK_RC(MPI_Recv(bigin, BIG, MPI_CHAR, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(bigin[5] == (char)(5 * 7 + left));
    CHECK_RC(MPI_Buffer_detach(&back, &bsz));
    CHECK(back == bbuf && bsz == BIG + (int)sizeof(int) + 2 * MPI_BSEND_OVERHEAD);
    free(bbuf);

    free(big);
    free(bigin);
    CHECK_RC(MPI_Finalize());
    printf("p2p ok %d\n", rank);
    return 0;
}
