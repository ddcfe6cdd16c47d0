/* MPIX_Comm_revoke reaches every member: rank 0 of 4 revokes a duplicate
 * of MPI_COMM_WORLD while the others are blocked on it, rank 1 in
 * MPI_Recv from rank 2, rank 2 in MPI_Barrier and rank 3 in MPI_Bcast
 * from rank 0 (neither of which rank 0 ever calls). Each returns
 * MPIX_ERR_REVOKED; then every rank sees the duplicate revoked, is refused
 * MPI_Send and MPI_Allreduce on it, shrinks it (all four alive), reduces
 * on the result and frees both; rank 0 then revokes MPI_COMM_WORLD while
 * the others wait in MPI_Finalize, which returns MPI_SUCCESS everywhere. */
#include <string.h>
#include <time.h>
#include "check.h"
#include <mpi-ext.h>

static int class_of(int rc)
{
    int cls = -1;
    CHECK_RC(MPI_Error_class(rc, &cls));
    return cls;
}

int main(int argc, char **argv)
{
    int rank, size, buf[64] = {0};
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 4);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_RC(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    int rc = MPI_SUCCESS;
    switch (rank) {
    case 0: {
        struct timespec ts = {0, 300 * 1000 * 1000}; /* the others block first */
        nanosleep(&ts, NULL);
        CHECK_RC(MPIX_Comm_revoke(dup));
        break;
    }
    case 1: rc = MPI_Recv(buf, 64, MPI_INT, 2, 7, dup, MPI_STATUS_IGNORE); break;
    case 2: rc = MPI_Barrier(dup); break;
    case 3: rc = MPI_Bcast(buf, 64, MPI_INT, 0, dup); break;
    }
    if (rank != 0) {
        char msg[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        CHECK_RC(MPI_Error_string(rc, msg, &len));
        printf("rank %d: class %d (want %d): %s\n", rank, class_of(rc), MPIX_ERR_REVOKED, msg);
        CHECK(class_of(rc) == MPIX_ERR_REVOKED);
    }
    int revoked = 0, in = rank + 1, out = 0;
    CHECK_RC(MPIX_Comm_is_revoked(dup, &revoked));
    CHECK(revoked == 1);
    CHECK(class_of(MPI_Send(buf, 1, MPI_INT, (rank + 1) % 4, 0, dup)) == MPIX_ERR_REVOKED);
    CHECK(class_of(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, dup)) == MPIX_ERR_REVOKED);
    MPI_Comm s;
    int ssize = 0;
    CHECK_RC(MPIX_Comm_shrink(dup, &s));
    CHECK_RC(MPI_Comm_size(s, &ssize));
    CHECK(ssize == 4);
    CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, s));
    CHECK(out == 10);
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Comm_free(&s));
    /* Revoking MPI_COMM_WORLD itself, while the others are already in
     * MPI_Finalize's barrier: MPI_Finalize still completes everywhere. */
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        CHECK_RC(MPIX_Comm_revoke(MPI_COMM_WORLD));
    }
    CHECK_RC(MPI_Finalize());
    printf("revoke ok %d\n", rank);
    return 0;
}
