/* dynproc.c: what gshmem has of MPI's dynamic process chapter: a job
 * started by gshmem run has no parent, and MPI_Comm_disconnect of an
 * intercommunicator and of an intracommunicator after their traffic
 * completed gives MPI_COMM_NULL, while the predefined communicators and
 * MPI_COMM_NULL are refused with MPI_ERR_COMM; the name service
 * (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name) and its
 * refusals. Runs on 2 or more. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm parent;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);

    /* An intercommunicator between the halves: a message each way, then
     * disconnect. */
    int left = rank < size / 2;
    MPI_Comm half, ic;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, left, rank, &half));
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? size / 2 : 0, 5, &ic));
    int lrank, v = -1;
    CHECK_RC(MPI_Comm_rank(half, &lrank));
    int rsize;
    CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
    if (lrank < rsize) {
        int mine = 100 + rank;
        MPI_Request r[2];
        CHECK_RC(MPI_Isend(&mine, 1, MPI_INT, lrank, 1, ic, &r[0]));
        CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, lrank, 1, ic, &r[1]));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(v == 100 + (left ? size / 2 + lrank : lrank));
    }
    CHECK_RC(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL);

    /* An intracommunicator: an eager message sent, received, disconnect. */
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, next, 2, &v, 1, MPI_INT, prev, 2, d, MPI_STATUS_IGNORE));
    CHECK(v == prev);
    CHECK_RC(MPI_Comm_disconnect(&d));
    CHECK(d == MPI_COMM_NULL);

    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF, n = MPI_COMM_NULL;
    int cls;
    MPI_Error_class(MPI_Comm_disconnect(&w), &cls);
    CHECK(cls == MPI_ERR_COMM && w == MPI_COMM_WORLD);
    MPI_Error_class(MPI_Comm_disconnect(&s), &cls);
    CHECK(cls == MPI_ERR_COMM);
    MPI_Error_class(MPI_Comm_disconnect(&n), &cls);
    CHECK(cls == MPI_ERR_COMM);

    /* The name service: rank 0 publishes, every rank finds it, a second
     * publication and an unpublish with the wrong port are refused, and
     * once unpublished it is gone. */
    char service[128], port[MPI_MAX_PORT_NAME];
    snprintf(service, sizeof service, "gshmem-test-%s", getenv("GSHMEM_JOB_ID") ? getenv("GSHMEM_JOB_ID") : "x");
    MPI_Error_class(MPI_Lookup_name(service, MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_NAME);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK_RC(MPI_Publish_name(service, MPI_INFO_NULL, "port-of-rank-0"));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Lookup_name(service, MPI_INFO_NULL, port));
    CHECK(strcmp(port, "port-of-rank-0") == 0);
    if (rank == size - 1) {
        MPI_Error_class(MPI_Publish_name(service, MPI_INFO_NULL, "another"), &cls);
        CHECK(cls == MPI_ERR_SERVICE);
        MPI_Error_class(MPI_Unpublish_name(service, MPI_INFO_NULL, "another"), &cls);
        CHECK(cls == MPI_ERR_SERVICE);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK_RC(MPI_Unpublish_name(service, MPI_INFO_NULL, "port-of-rank-0"));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Error_class(MPI_Lookup_name(service, MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_NAME);
    MPI_Error_class(MPI_Unpublish_name(service, MPI_INFO_NULL, "port-of-rank-0"), &cls);
    CHECK(cls == MPI_ERR_SERVICE);

    CHECK_RC(MPI_Comm_free(&half));
    CHECK_RC(MPI_Finalize());
    printf("dynproc ok %d\n", rank);
    return 0;
}
