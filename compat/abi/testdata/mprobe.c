/* Matched probes and MPI_Isendrecv(_replace). */
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, flag, v;
    MPI_Status st;
    MPI_Message msg;
    MPI_Request rq;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    int out[3] = {rank, rank + 1, rank + 2}, in[3] = {0};
    CHECK_RC(MPI_Send(out, 3, MPI_INT, right, 4, MPI_COMM_WORLD));
    CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &msg, &st));
    CHECK(st.MPI_SOURCE == left && msg != MPI_MESSAGE_NULL);
    /* The matched message no longer matches a probe. */
    CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 3);
    CHECK_RC(MPI_Mrecv(in, 3, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL && in[0] == left && in[2] == left + 2 && st.MPI_TAG == 4);

    CHECK_RC(MPI_Send(out, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    flag = 0;
    while (!flag)
        CHECK_RC(MPI_Improbe(left, 5, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_RC(MPI_Imrecv(&v, 1, MPI_INT, &msg, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(v == left && st.MPI_SOURCE == left);
    CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK_RC(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL);

    long a = rank * 10, b = -1;
    CHECK_RC(MPI_Isendrecv(&a, 1, MPI_LONG, right, 6, &b, 1, MPI_LONG, left, 6, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(b == left * 10 && st.MPI_SOURCE == left && st.MPI_TAG == 6);
    long c[2] = {rank, -rank};
    CHECK_RC(MPI_Isendrecv_replace(c, 2, MPI_LONG, right, 7, left, 7, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(c[0] == left && c[1] == -left);
    CHECK_RC(MPI_Get_count(&st, MPI_LONG, &v));
    CHECK(v == 2);

    CHECK_RC(MPI_Finalize());
    printf("mprobe ok %d\n", rank);
    return 0;
}
