/* MPI_ERRORS_ARE_FATAL, the default: a send to a rank that does not
 * exist ends the job, naming the call. */
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1)
        MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("fatal: still running on %d\n", rank);
    MPI_Finalize();
    return 0;
}
