/* Requests: MPI_Cancel of receives (posted, matched, persistent) and of
 * a delivered send, generalized requests with their three callbacks,
 * and the status queries that leave a request as it is
 * (MPI_Request_get_status and its _all, _any and _some forms). */
#include <string.h>
#include "check.h"

struct greq {
    int queried, freed, cancelled, complete_seen;
};

static int query_fn(void *extra, MPI_Status *st)
{
    struct greq *g = extra;
    g->queried++;
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 44;
    st->MPI_ERROR = MPI_SUCCESS;
    MPI_Status_set_elements(st, MPI_INT, 5);
    MPI_Status_set_cancelled(st, g->cancelled > 0);
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ((struct greq *)extra)->freed++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    struct greq *g = extra;
    g->cancelled++;
    g->complete_seen = complete;
    return MPI_SUCCESS;
}

static int failing_query(void *extra, MPI_Status *st)
{
    (void)extra;
    (void)st;
    return MPI_ERR_OTHER;
}

static void cancel_tests(int rank, int size)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, v = -1, flag;
    MPI_Request rq;
    MPI_Status st;

    /* A posted receive nothing matches: cancelled, status otherwise
     * left alone, and the next message with its tag goes to the next
     * receive. */
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, from, 99, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Cancel(&rq));
    st.MPI_SOURCE = -77;
    st.MPI_TAG = -78;
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1 && st.MPI_SOURCE == -77 && st.MPI_TAG == -78 && v == -1);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    int w = 100 + rank;
    CHECK_RC(MPI_Send(&w, 1, MPI_INT, peer, 99, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, from, 99, MPI_COMM_WORLD, &st));
    CHECK(v == 100 + from);
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0);

    /* A receive a message has matched completes normally. */
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, from, 98, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Send(&w, 1, MPI_INT, peer, 98, MPI_COMM_WORLD));
    do
        CHECK_RC(MPI_Request_get_status(rq, &flag, MPI_STATUS_IGNORE));
    while (!flag);
    CHECK_RC(MPI_Cancel(&rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && v == 100 + from && st.MPI_SOURCE == from && st.MPI_TAG == 98);

    /* An eager send already delivered is not cancelled. */
    CHECK_RC(MPI_Isend(&w, 1, MPI_INT, peer, 97, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Cancel(&rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, from, 97, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == 100 + from);

    /* A rendezvous send and a synchronous one no receive matched are
     * cancelled: Wait returns, Test_cancelled says so, and the receiver
     * never sees them (the next message of their tag is the one it
     * gets). One a receive matched completes normally. */
    {
        enum { BIG = 1 << 20 };
        char *big = malloc(BIG), *got = malloc(BIG);
        CHECK(big != NULL && got != NULL);
        memset(big, 'a' + rank, BIG);
        MPI_Request two[2];
        MPI_Status sts[2];
        CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, peer, 95, MPI_COMM_WORLD, &two[0]));
        CHECK_RC(MPI_Issend(&w, 1, MPI_INT, peer, 95, MPI_COMM_WORLD, &two[1]));
        CHECK_RC(MPI_Cancel(&two[0]));
        CHECK_RC(MPI_Cancel(&two[1]));
        CHECK_RC(MPI_Waitall(2, two, sts));
        CHECK_RC(MPI_Test_cancelled(&sts[0], &flag));
        CHECK(flag == 1);
        CHECK_RC(MPI_Test_cancelled(&sts[1], &flag));
        CHECK(flag == 1);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Iprobe(from, 95, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(flag == 0);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&w, 1, MPI_INT, peer, 95, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, from, 95, MPI_COMM_WORLD, &st));
        CHECK(v == 100 + from);

        CHECK_RC(MPI_Irecv(got, BIG, MPI_CHAR, from, 94, MPI_COMM_WORLD, &two[1]));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, peer, 94, MPI_COMM_WORLD, &two[0]));
        CHECK_RC(MPI_Cancel(&two[0]));
        CHECK_RC(MPI_Waitall(2, two, sts));
        CHECK_RC(MPI_Test_cancelled(&sts[0], &flag));
        CHECK(flag == 0);
        int n;
        CHECK_RC(MPI_Get_count(&sts[1], MPI_CHAR, &n));
        CHECK(n == BIG && got[0] == 'a' + from && got[BIG - 1] == 'a' + from);
        free(big);
        free(got);
    }

    /* A persistent receive: cancelled once, then started again and matched. */
    CHECK_RC(MPI_Recv_init(&v, 1, MPI_INT, from, 96, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Cancel(&rq)); /* inactive: nothing to cancel */
    CHECK_RC(MPI_Start(&rq));
    CHECK_RC(MPI_Cancel(&rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(rq != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* no message of tag 96 before */
    v = -1;
    CHECK_RC(MPI_Start(&rq));
    CHECK_RC(MPI_Send(&w, 1, MPI_INT, peer, 96, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && v == 100 + from);
    CHECK_RC(MPI_Request_free(&rq));

    /* A collective's request cannot be cancelled. */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    int ec, rc = MPI_Cancel(&rq);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_REQUEST);
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void grequest_tests(void)
{
    struct greq g = {0, 0, 0, 0};
    MPI_Request rq;
    MPI_Status st;
    int flag, n;
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &rq));
    CHECK_RC(MPI_Test(&rq, &flag, &st));
    CHECK(flag == 0 && g.queried == 0);
    CHECK_RC(MPI_Request_get_status(rq, &flag, &st));
    CHECK(flag == 0);
    CHECK_RC(MPI_Cancel(&rq));
    CHECK(g.cancelled == 1 && g.complete_seen == 0);
    CHECK_RC(MPI_Grequest_complete(rq));
    CHECK_RC(MPI_Request_get_status(rq, &flag, &st));
    CHECK(flag == 1 && g.queried == 1 && g.freed == 0 && st.MPI_TAG == 44);
    st.MPI_TAG = 0;
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL && g.queried == 2 && g.freed == 1);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 5);
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);

    /* Freed before it completes: free_fn runs at MPI_Grequest_complete. */
    struct greq h = {0, 0, 0, 0};
    MPI_Request keep;
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &h, &rq));
    keep = rq;
    CHECK_RC(MPI_Request_free(&rq));
    CHECK(rq == MPI_REQUEST_NULL && h.freed == 0);
    CHECK_RC(MPI_Grequest_complete(keep));
    CHECK(h.freed == 1 && h.queried == 0);

    /* Mixed with a point-to-point request in one Waitall; a query_fn's
     * error comes back in the status. */
    struct greq k = {0, 0, 0, 0};
    MPI_Request rs[3];
    MPI_Status sts[3];
    int v = 0, w = 9;
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &k, &rs[0]));
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, &rs[1]));
    CHECK_RC(MPI_Grequest_start(failing_query, free_fn, cancel_fn, &k, &rs[2]));
    CHECK_RC(MPI_Grequest_complete(rs[0]));
    CHECK_RC(MPI_Grequest_complete(rs[2]));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Waitall(3, rs, sts);
    CHECK(rc == MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[0].MPI_TAG == 44 && sts[2].MPI_ERROR == MPI_ERR_OTHER);
    CHECK(k.freed == 2 && rs[0] == MPI_REQUEST_NULL && rs[2] == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    (void)w;
}

static void status_tests(void)
{
    MPI_Request rs[3];
    MPI_Status sts[3], st;
    int a = -1, b = -1, one = 1, two = 2, idx, flag, n, ids[3];
    CHECK_RC(MPI_Irecv(&a, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &rs[0]));
    rs[1] = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Irecv(&b, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &rs[2]));
    CHECK_RC(MPI_Request_get_status_any(3, rs, &idx, &flag, &st));
    CHECK(flag == 0);
    CHECK_RC(MPI_Request_get_status_some(3, rs, &n, ids, sts));
    CHECK(n == 0);
    CHECK_RC(MPI_Send(&two, 1, MPI_INT, 0, 2, MPI_COMM_SELF));
    CHECK_RC(MPI_Request_get_status_any(3, rs, &idx, &flag, &st));
    CHECK(flag == 1 && idx == 2 && st.MPI_TAG == 2 && rs[2] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Request_get_status_some(3, rs, &n, ids, sts));
    CHECK(n == 1 && ids[0] == 2 && sts[0].MPI_TAG == 2);
    CHECK_RC(MPI_Request_get_status_all(3, rs, &flag, sts));
    CHECK(flag == 0);
    CHECK_RC(MPI_Send(&one, 1, MPI_INT, 0, 1, MPI_COMM_SELF));
    do
        CHECK_RC(MPI_Request_get_status_all(3, rs, &flag, sts));
    while (!flag);
    CHECK(sts[0].MPI_TAG == 1 && sts[2].MPI_TAG == 2 && sts[1].MPI_TAG == MPI_ANY_TAG);
    CHECK(rs[0] != MPI_REQUEST_NULL && rs[2] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE));
    CHECK(a == 1 && b == 2);
    /* Only null requests. */
    CHECK_RC(MPI_Request_get_status_any(3, rs, &idx, &flag, &st));
    CHECK(flag == 1 && idx == MPI_UNDEFINED);
    CHECK_RC(MPI_Request_get_status_some(3, rs, &n, ids, sts));
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Request_get_status_all(3, rs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1);
}

/* A persistent request keeps its datatype: MPI_Type_free between the
 * init and each MPI_Start (MPI-4.1 5.1: the free only marks the type, and
 * communication using it completes normally). */
static void freed_type_tests(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype every2;
    CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_INT, &every2));
    CHECK_RC(MPI_Type_commit(&every2));
    int out[8], in[8], bout[8], bin[8];
    MPI_Request rq[4];
    CHECK_RC(MPI_Send_init(out, 1, every2, right, 70, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Recv_init(in, 1, every2, left, 70, MPI_COMM_WORLD, &rq[1]));
    CHECK_RC(MPI_Bsend_init(bout, 1, every2, right, 71, MPI_COMM_WORLD, &rq[2]));
    CHECK_RC(MPI_Recv_init(bin, 1, every2, left, 71, MPI_COMM_WORLD, &rq[3]));
    CHECK_RC(MPI_Type_free(&every2));
    CHECK(every2 == MPI_DATATYPE_NULL);
    int bsz = 4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *mem = malloc(bsz);
    CHECK_RC(MPI_Buffer_attach(mem, bsz));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 8; i++) {
            out[i] = rank * 100 + round * 10 + i;
            bout[i] = -out[i];
            in[i] = bin[i] = -1;
        }
        CHECK_RC(MPI_Startall(4, rq));
        CHECK_RC(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 8; i++) {
            int want = i % 2 ? -1 : left * 100 + round * 10 + i;
            CHECK(in[i] == want);
            CHECK(bin[i] == (i % 2 ? -1 : -want));
        }
    }
    for (int i = 0; i < 4; i++)
        CHECK_RC(MPI_Request_free(&rq[i]));
    void *back;
    int bs;
    CHECK_RC(MPI_Buffer_detach(&back, &bs));
    free(back);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    cancel_tests(rank, size);
    grequest_tests();
    status_tests();
    freed_type_tests(rank, size);
    CHECK_RC(MPI_Finalize());
    printf("requests ok %d\n", rank);
    return 0;
}
