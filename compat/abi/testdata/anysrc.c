/* Receives from MPI_ANY_SOURCE after a loss, as ULFM specifies, under
 * gshmem run with GSHMEM_MPI_FT=ulfm: rank 1 of 3 kills itself, and rank 0
 * (MPI_ERRORS_RETURN) finds that
 *   - MPI_Wait of an MPI_Irecv from MPI_ANY_SOURCE returns
 *     MPIX_ERR_PROC_FAILED_PENDING naming rank 1, and the request stays
 *     valid (not MPI_REQUEST_NULL); MPI_Test of it says the same, flag 0;
 *   - MPI_Waitany of another such request returns the same class with its
 *     index, and MPI_Waitall puts it in the request's status under
 *     MPI_ERR_IN_STATUS; both leave the request valid;
 *   - a blocking MPI_Recv from MPI_ANY_SOURCE, and MPI_Sendrecv's receive
 *     from it, return MPIX_ERR_PROC_FAILED and take nothing: the messages
 *     that rank 2 sends later for those tags are received by the next
 *     receives;
 *   - after MPIX_Comm_failure_ack (MPIX_Comm_failure_get_acked then holds
 *     rank 1), the same request completes with rank 2's message, and a
 *     new MPI_Recv from MPI_ANY_SOURCE receives one.
 * Then both survivors shrink MPI_COMM_WORLD and finish an MPI_Allreduce. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include <mpi-ext.h>

static int class_of(int rc)
{
    int cls = -1;
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS);
    return cls;
}

static int names_rank1(int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    CHECK(MPI_Error_string(rc, msg, &len) == MPI_SUCCESS);
    printf("rank 0: %s\n", msg);
    return strstr(msg, "rank 1 ") != NULL || strstr(msg, "rank 1)") != NULL;
}

/* acked_has_1 checks that MPIX_Comm_failure_get_acked holds rank 1 only. */
static void acked_has_1(void)
{
    MPI_Group acked, world;
    int n = -1, one = 0, w = -1;
    CHECK_RC(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked));
    CHECK_RC(MPI_Group_size(acked, &n));
    CHECK(n == 1);
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_RC(MPI_Group_translate_ranks(acked, 1, &one, world, &w));
    CHECK(w == 1);
    MPI_Group_free(&acked);
    MPI_Group_free(&world);
}

/* await_loss waits (bounded) until this rank knows rank 1 is lost, then
 * acknowledges it. */
static void await_loss(void)
{
    for (int i = 0; i < 2000; i++) {
        MPI_Group failed;
        int n = 0;
        CHECK_RC(MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed));
        CHECK_RC(MPI_Group_size(failed, &n));
        MPI_Group_free(&failed);
        if (n == 1) {
            CHECK_RC(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
            return;
        }
        usleep(10000);
    }
    CHECK(!"rank 1's loss was never reported");
}

int main(int argc, char **argv)
{
    int rank, size, v = -1, flag = 1;
    MPI_Status st;
    MPI_Request req;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 3);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        fflush(stdout);
        raise(SIGKILL);
        return 1;
    }
    if (rank == 0) {
        CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &req));
        int rc = MPI_Wait(&req, &st);
        CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED_PENDING);
        CHECK(names_rank1(rc));
        CHECK(req != MPI_REQUEST_NULL);
        rc = MPI_Test(&req, &flag, &st);
        CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED_PENDING);
        CHECK(flag == 0 && req != MPI_REQUEST_NULL);
        MPI_Request req2;
        int v2 = -1, idx = -1;
        CHECK_RC(MPI_Irecv(&v2, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &req2));
        MPI_Request two[2] = {MPI_REQUEST_NULL, req2};
        rc = MPI_Waitany(2, two, &idx, &st);
        CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED_PENDING && idx == 1 && two[1] == req2);
        MPI_Status sts[2];
        rc = MPI_Waitall(2, two, sts);
        CHECK(class_of(rc) == MPI_ERR_IN_STATUS && class_of(sts[1].MPI_ERROR) == MPIX_ERR_PROC_FAILED_PENDING);
        CHECK(two[1] == req2);
        int w = -1, none = 0;
        rc = MPI_Sendrecv(&none, 1, MPI_INT, MPI_PROC_NULL, 0, &w, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st);
        CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED);
        rc = MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st);
        CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED);
        CHECK(names_rank1(rc));
        CHECK_RC(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
        acked_has_1();
        int go = 1;
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, 2, 9, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&req, &st)); /* acknowledged: it waits, and rank 2's message completes it */
        CHECK(req == MPI_REQUEST_NULL && v == 42 && st.MPI_SOURCE == 2 && st.MPI_TAG == 7);
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st));
        CHECK(w == 43 && st.MPI_SOURCE == 2); /* the failed MPI_Recv took nothing */
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st));
        CHECK(w == 44 && st.MPI_SOURCE == 2); /* nor did MPI_Sendrecv's */
        CHECK_RC(MPI_Waitall(2, two, sts));
        CHECK(v2 == 45 && two[1] == MPI_REQUEST_NULL && sts[1].MPI_SOURCE == 2);
    } else {
        int go = 0, a = 42, b = 43, c = 44, d = 45;
        await_loss();
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &st));
        CHECK(go == 1);
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&b, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&c, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&d, 1, MPI_INT, 0, 11, MPI_COMM_WORLD));
    }
    MPI_Comm s;
    int in = rank, out = -1;
    CHECK_RC(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
    CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, s));
    CHECK(out == 0 + 2);
    CHECK_RC(MPI_Comm_free(&s));
    CHECK_RC(MPI_Finalize());
    printf("anysrc ok %d\n", rank);
    return 0;
}
