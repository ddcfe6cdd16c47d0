/* The MPI side of test/perf/startup.sh: a program that only initializes
 * MPI and finalizes it, so that mpirun -np N of it times the start-up of
 * an N-process MPI job, as test/perf/initfini does for gshmem. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
