/* hello.c: an unmodified MPI program, built and run on gshmem:
 *
 *   go build -o bin/gshmem ./cmd/gshmem
 *   bin/gshmem abi install --prefix $HOME/gshmem-mpi
 *   $HOME/gshmem-mpi/bin/mpicc -o hello examples/c/hello.c
 *   $HOME/gshmem-mpi/bin/mpiexec -n 4 ./hello
 *
 * Each rank passes a token around the ring and checks the sum of all
 * ranks with MPI_Allreduce. */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);

    int token = 0;
    if (size > 1) {
        if (rank == 0) {
            token = 1;
            MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("hello from rank %d of %d on %s: token %d, sum of ranks %d\n", rank, size, host, token, sum);
    int ok = sum == size * (size - 1) / 2 && (rank != 0 || size == 1 || token == size);
    MPI_Finalize();
    return ok ? 0 : 1;
}
