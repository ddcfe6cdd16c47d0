/* MPI_Abort ends the whole job with its code. */
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 7);
    /* The others wait in a receive that never matches: the abort ends them. */
    int x;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("abort: not aborted on %d\n", rank);
    return 0;
}
