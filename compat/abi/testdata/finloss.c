/* MPI_Finalize after a lost rank, under gshmem run --disable-auto-cleanup
 * (the survivors are left running): rank 1 of 3 kills or stops itself
 * (argv[1]: "kill" or "stop") after a barrier, and the survivors, with
 * MPI_ERRORS_RETURN, then (argv[2]) call MPI_Finalize at once
 * ("finalize"), after an MPI_Barrier that reports the loss ("barrier"),
 * or after acknowledging the loss and shrinking MPI_COMM_WORLD ("shrink").
 * MPI_Finalize must return: with the lost rank's class (MPI_ERR_PROC_ABORTED,
 * MPIX_ERR_PROC_FAILED under GSHMEM_MPI_FT=ulfm) and a string naming it,
 * or MPI_SUCCESS after the shrink; then the process returns from main. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include <mpi-ext.h>

static int class_of(int rc)
{
    int cls = -1;
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS);
    return cls;
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK(argc == 3);
    const char *ft = getenv("GSHMEM_MPI_FT");
    int lost = ft != NULL && strcmp(ft, "ulfm") == 0 ? MPIX_ERR_PROC_FAILED : MPI_ERR_PROC_ABORTED;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 3);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        fflush(stdout);
        raise(strcmp(argv[1], "stop") == 0 ? SIGSTOP : SIGKILL);
        return 1; /* continued: the launcher ends it */
    }
    int want = lost;
    if (strcmp(argv[2], "barrier") == 0 || strcmp(argv[2], "shrink") == 0) {
        int rc = MPI_Barrier(MPI_COMM_WORLD);
        CHECK(class_of(rc) == lost);
    }
    if (strcmp(argv[2], "shrink") == 0) {
        MPI_Comm s;
        int in = rank, out = -1;
        CHECK_RC(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
        CHECK_RC(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
        CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, s));
        CHECK(out == 0 + 2);
        want = MPI_SUCCESS;
    }
    int rc = MPI_Finalize(), flag = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    CHECK(MPI_Error_string(rc, msg, &len) == MPI_SUCCESS);
    printf("rank %d: MPI_Finalize class %d (want %d): %s\n", rank, class_of(rc), want, msg);
    CHECK(class_of(rc) == want);
    CHECK(want == MPI_SUCCESS || strstr(msg, "rank 1 ") != NULL);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1);
    printf("finloss ok %d\n", rank);
    return 0;
}
