// A C++ program built with mpicxx: the header is C++-clean and the
// library's C symbols link from C++.
#include <mpi.h>
#include <mpi-ext.h>
#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1, size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> all(size);
    MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    bool ok = MPIX_Query_cuda_support() == MPIX_CUDA_AWARE_SUPPORT;
    for (int i = 0; i < size; i++)
        ok = ok && all[i] == i;
    MPI_Finalize();
    if (ok)
        std::printf("cxx ok %d\n", rank);
    return ok ? 0 : 1;
}
