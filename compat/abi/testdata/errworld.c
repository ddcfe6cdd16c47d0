/* MPI-3 codes set MPI_ERRORS_RETURN on MPI_COMM_WORLD and expect errors
 * of calls without a communicator to return; once a handler is set on
 * MPI_COMM_SELF, MPI-4's rule applies. */
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Datatype t;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Type_contiguous(-1, MPI_INT, &t) == MPI_ERR_COUNT);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    printf("errworld ok\n");
    fflush(stdout);
    MPI_Type_contiguous(-1, MPI_INT, &t); /* fatal now: MPI_COMM_SELF's */
    printf("errworld: not fatal\n");
    return 0;
}
