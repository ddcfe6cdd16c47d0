/* PMPI interposition: MPI_Send goes through prof.c's wrapper. */
#include "check.h"

int prof_sends(void);

int main(int argc, char **argv)
{
    int rank, size, x, y = -1;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    x = rank;
    for (int i = 0; i < 3; i++) {
        if (rank == 0) {
            CHECK_RC(MPI_Send(&x, 1, MPI_INT, size - 1, i, MPI_COMM_WORLD));
        }
        if (rank == size - 1) {
            CHECK_RC(MPI_Recv(&y, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(y == 0);
        }
    }
    CHECK(prof_sends() == (rank == 0 ? 3 : 0));
    CHECK_RC(PMPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK(prof_sends() == (rank == 0 ? 3 : 0));
    CHECK_RC(MPI_Finalize());
    printf("pmpi ok %d\n", rank);
    return 0;
}
