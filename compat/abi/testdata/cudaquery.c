/* MPIX_Query_cuda_support and MPIX_CUDA_AWARE_SUPPORT, before MPI_Init and
 * after, as a code that picks its buffers by them sees them. */
#include <stdio.h>
#include <mpi-ext.h>
#include "check.h"

int main(int argc, char **argv)
{
    int before = MPIX_Query_cuda_support();
    CHECK_RC(MPI_Init(&argc, &argv));
    int after = MPIX_Query_cuda_support();
    printf("cudaquery: macro=%d before=%d after=%d\n", MPIX_CUDA_AWARE_SUPPORT, before, after);
    CHECK_RC(MPI_Finalize());
    return 0;
}
