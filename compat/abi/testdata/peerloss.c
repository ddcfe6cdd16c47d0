/* A lost peer through the C ABI: rank 1 kills or stops itself (argv[1]:
 * "kill" or "stop") after a barrier; the survivors, with MPI_ERRORS_RETURN,
 * wait in MPI_Recv from it (rank 0) and in MPI_Barrier (rank 2), and
 * must each get MPI_ERR_PROC_ABORTED. Run without a launcher (the env
 * bootstrap): gshmem run would end the job itself. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, buf = 0;
    CHECK(argc == 2);
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 3);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        fflush(stdout);
        raise(strcmp(argv[1], "stop") == 0 ? SIGSTOP : SIGKILL);
        return 1; /* continued: the test ended the job */
    }
    int rc = rank == 0 ? MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) : MPI_Barrier(MPI_COMM_WORLD);
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK_RC(MPI_Error_string(rc, msg, &len));
    printf("rank %d: class %d (want %d) %s\n", rank, cls, MPI_ERR_PROC_ABORTED, msg);
    CHECK(cls == MPI_ERR_PROC_ABORTED);
    printf("peerloss ok %d\n", rank);
    fflush(stdout);
    _exit(0); /* no MPI_Finalize with a peer gone */
}
