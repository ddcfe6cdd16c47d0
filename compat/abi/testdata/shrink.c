/* A survivor goes on after a lost rank (mpi-ext.h's fault tolerance):
 * rank 1 of 4 kills or stops itself (argv[1]) after a barrier. The
 * survivors, with MPI_ERRORS_RETURN and GSHMEM_MPI_FT=ulfm, see
 * MPI_Allreduce on MPI_COMM_WORLD fail with MPIX_ERR_PROC_FAILED naming
 * rank 1, acknowledge it, agree, shrink MPI_COMM_WORLD and finish an
 * MPI_Allreduce, a barrier and a ring of sends on the three of them; a
 * revoked duplicate of the shrunk communicator refuses calls with
 * MPIX_ERR_REVOKED. Run without a launcher (the env bootstrap): gshmem
 * run ends the job when a rank dies. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
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
    int rank, size;
    CHECK(argc == 2);
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 4);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        fflush(stdout);
        raise(strcmp(argv[1], "stop") == 0 ? SIGSTOP : SIGKILL);
        return 1; /* continued: the test ended the job */
    }

    /* The loss is reported, naming the rank. */
    int in = rank + 1, out = 0;
    int rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    CHECK_RC(MPI_Error_string(rc, msg, &len));
    printf("rank %d: Allreduce class %d (want %d): %s\n", rank, class_of(rc), MPIX_ERR_PROC_FAILED, msg);
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED);
    CHECK(strstr(msg, "PE 1 ") != NULL || strstr(msg, "rank 1 ") != NULL);

    /* Who failed: get_failed names rank 1; acknowledged, agree passes. */
    MPI_Group failed, world;
    int n = -1, r1 = -1, zero = 0;
    CHECK_RC(MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed));
    CHECK_RC(MPI_Group_size(failed, &n));
    CHECK(n == 1);
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_RC(MPI_Group_translate_ranks(failed, 1, &zero, world, &r1));
    CHECK(r1 == 1);
    CHECK_RC(MPI_Group_free(&failed));
    int flag = rank == 2 ? 0x6 : 0x7;
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(class_of(rc) == MPIX_ERR_PROC_FAILED); /* not yet acknowledged */
    CHECK(flag == 0x6);
    CHECK_RC(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
    CHECK_RC(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &failed));
    CHECK_RC(MPI_Group_size(failed, &n));
    CHECK(n == 1);
    CHECK_RC(MPI_Group_free(&failed));
    CHECK_RC(MPI_Group_free(&world));
    flag = rank == 3 ? 0x3 : 0x7;
    CHECK_RC(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0x3);

    /* Shrink and go on. */
    MPI_Comm shrunk;
    int srank = -1, ssize = -1;
    CHECK_RC(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
    CHECK_RC(MPI_Comm_rank(shrunk, &srank));
    CHECK_RC(MPI_Comm_size(shrunk, &ssize));
    CHECK(ssize == 3);
    CHECK(srank == (rank == 0 ? 0 : rank - 1));
    CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, shrunk));
    CHECK(out == 1 + 3 + 4);
    CHECK_RC(MPI_Barrier(shrunk));
    int tok = srank, got = -1;
    CHECK_RC(MPI_Sendrecv(&tok, 1, MPI_INT, (srank + 1) % 3, 5, &got, 1, MPI_INT, (srank + 2) % 3, 5, shrunk,
                          MPI_STATUS_IGNORE));
    CHECK(got == (srank + 2) % 3);

    /* A revoked communicator refuses calls; freeing it works. */
    MPI_Comm dup;
    int revoked = -1;
    CHECK_RC(MPI_Comm_dup(shrunk, &dup));
    CHECK_RC(MPIX_Comm_revoke(dup));
    CHECK_RC(MPIX_Comm_is_revoked(dup, &revoked));
    CHECK(revoked == 1);
    rc = MPI_Barrier(dup);
    CHECK(class_of(rc) == MPIX_ERR_REVOKED);
    rc = MPI_Send(&tok, 1, MPI_INT, 0, 0, dup);
    CHECK(class_of(rc) == MPIX_ERR_REVOKED);
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, shrunk));
    CHECK(out == 4);
    printf("shrink ok %d\n", rank);
    fflush(stdout);
    _exit(0); /* no MPI_Finalize with a rank gone (see the porting guide) */
}
