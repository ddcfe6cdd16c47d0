/* stage1_mpi.cu: the 2-D Jacobi solver of examples/jacobi at stage 1 in C,
 * on the GPU: an MPI+CUDA code as it was before any port. The grid lives
 * in cudaMalloc memory, the halo rows move with MPI_Sendrecv on device
 * pointers (CUDA-aware MPI; MPI_PROC_NULL at the edges), the sweep is a
 * CUDA kernel and the residual MPI_Allreduce(MPI_MAX). It prints the same
 * last line as the Go program for the same grid:
 *
 *   stage=1 residual=R checksum=C
 *
 * Build with the library built with -tags cuda and the user's own nvcc,
 * and run on a device heap (the library is CUDA-aware only there):
 *
 *   GOFLAGS=-tags=cuda gshmem abi install --prefix $P
 *   nvcc -O2 -fmad=false -arch=sm_90 -I$P/include stage1_mpi.cu -o stage1_mpi \
 *        -L$P/lib -lmpi_abi -Xlinker -rpath -Xlinker $P/lib
 *   GSHMEM_HEAP=device $P/bin/gshmem run -n 2 ./stage1_mpi -n 512 -iters 200
 *   gshmem run -n 2 ./examples/jacobi -stage 1 -n 512 -iters 200   # the same line
 *
 * (-fmad=false: the sweep must round as the Go code does; several
 * processes on one GPU want MPS.) */
#include <mpi.h>
#include <mpi-ext.h>
#include "jacobi.cuh"

static void jacobi_abort(void) { MPI_Abort(MPI_COMM_WORLD, 1); }

int main(int argc, char **argv)
{
    int n, iters;
    args(argc, argv, &n, &iters);
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* Device pointers in MPI calls need a CUDA-aware library, at compile
     * time (mpi-ext.h) and at run time (this job's heap on the GPU). */
    if (n < 3 || iters < 0 || np > n - 2 || !MPIX_CUDA_AWARE_SUPPORT || MPIX_Query_cuda_support() != 1) {
        if (me == 0)
            fprintf(stderr, "stage1_mpi: want -n >= 3, -iters >= 0, at most n-2 ranks and a CUDA-aware MPI (the "
                            "library built with -tags cuda, run with GSHMEM_HEAP=device)\n");
        MPI_Finalize();
        return 1;
    }
    /* One GPU per rank of a node, or several ranks on one GPU (MPS). */
    MPI_Comm node;
    int local, ndev = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(local % ndev));

    int lo, hi;
    rows(n, me, np, &lo, &hi);
    int nrows = hi - lo;
    size_t blen = (size_t)(nrows + 2) * n;
    /* Both buffers start as initial() has them. */
    double *h = initial(n, lo, nrows), *grid[2], *diffs, *dmax;
    for (int k = 0; k < 2; k++) {
        CK(cudaMalloc((void **)&grid[k], blen * sizeof(double)));
        CK(cudaMemcpy(grid[k], h, blen * sizeof(double), cudaMemcpyHostToDevice));
    }
    int blocks = sweep_blocks(nrows, n);
    CK(cudaMalloc((void **)&diffs, (size_t)blocks * THREADS * sizeof(double)));
    CK(cudaMalloc((void **)&dmax, sizeof(double)));
    /* A pageable cudaMemcpy may return before its data lands: the first
     * exchange reads these rows. */
    CK(cudaDeviceSynchronize());

    int up = me > 0 ? me - 1 : MPI_PROC_NULL, down = me + 1 < np ? me + 1 : MPI_PROC_NULL;
    double residual = 0;
    int k = 0;
    for (int it = 0; it < iters; it++) {
        double *b = grid[k];
        /* My first row goes up, my lower halo comes from below; then the
         * other way. Every pointer here is device memory. */
        MPI_Sendrecv(b + n, n, MPI_DOUBLE, up, 0, b + (size_t)(nrows + 1) * n, n, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(b + (size_t)nrows * n, n, MPI_DOUBLE, down, 1, b, n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sweep<<<blocks, THREADS>>>(b, grid[1 - k], nrows, n, diffs);
        maxOf<<<1, THREADS>>>(diffs, blocks * THREADS, dmax);
        /* The copy back waits for the sweep, so the next exchange reads
         * finished rows; the host wants the number anyway (a real code
         * would test it for convergence). */
        CK(cudaMemcpy(&residual, dmax, sizeof residual, cudaMemcpyDeviceToHost));
        MPI_Allreduce(MPI_IN_PLACE, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        k = 1 - k;
    }
    CK(cudaGetLastError());

    /* The checksum: the bits of the rows I own (and the global boundary row
     * I border), summed with wrapping, then summed across the ranks. */
    CK(cudaMemcpy(h, grid[k], blen * sizeof(double), cudaMemcpyDeviceToHost));
    uint64_t checksum = block_checksum(h, n, lo, hi);
    MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("jacobi: %d x %d grid, %d sweeps on %d ranks, stage 1 (CUDA-aware MPI_Sendrecv on device buffers, "
               "CUDA sweep kernel)\n",
               n, n, iters, np);
        printf("stage=1 residual=%.17g checksum=%016llx\n", residual, (unsigned long long)checksum);
    }
    CK(cudaFree(dmax));
    CK(cudaFree(diffs));
    CK(cudaFree(grid[1]));
    CK(cudaFree(grid[0]));
    free(h);
    MPI_Finalize();
    return 0;
}
