/* stage2_win.cu: the 2-D Jacobi solver of examples/jacobi at stage 2 in C,
 * on the GPU: the halo rows move by one-sided MPI_Put straight into the
 * neighbours' halo rows, in an MPI window whose memory is on the GPU
 * (MPI_Win_allocate with info gshmem_memory=device, as NVSHMEM-backed
 * windows are), one MPI_Win_fence per sweep. The sweep is a CUDA kernel
 * and the residual MPI_Allreduce(MPI_MAX), as at stage 1. It prints the
 * same last line as the Go program for the same grid:
 *
 *   stage=2 residual=R checksum=C
 *
 * Build with the library built with -tags cuda and the user's own nvcc,
 * and run on a device heap (where window memory can be GPU memory):
 *
 *   GOFLAGS=-tags=cuda gshmem abi install --prefix $P
 *   nvcc -O2 -fmad=false -arch=sm_90 -I$P/include stage2_win.cu -o stage2_win \
 *        -L$P/lib -lmpi_abi -Xlinker -rpath -Xlinker $P/lib
 *   GSHMEM_HEAP=device $P/bin/gshmem run -n 2 ./stage2_win -n 512 -iters 200
 *   gshmem run -n 2 ./examples/jacobi -stage 2 -n 512 -iters 200   # the same line
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
    /* Puts from window memory on the GPU need a CUDA-aware library, at
     * compile time (mpi-ext.h) and at run time (this job's heap on the GPU). */
    if (n < 3 || iters < 0 || np > n - 2 || !MPIX_CUDA_AWARE_SUPPORT || MPIX_Query_cuda_support() != 1) {
        if (me == 0)
            fprintf(stderr, "stage2_win: want -n >= 3, -iters >= 0, at most n-2 ranks and a CUDA-aware MPI (the "
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

    int lo, hi, lo0, hi0;
    rows(n, me, np, &lo, &hi);
    rows(n, 0, np, &lo0, &hi0);
    int nrows = hi - lo;
    size_t blen = (size_t)(nrows + 2) * n;
    /* Both buffers in one window, buffer k at displacement k * stride
     * (elements): the stride is rank 0's block, the largest, so that every
     * rank finds a neighbour's buffer at the same place as its own. */
    MPI_Aint stride = (MPI_Aint)(hi0 - lo0 + 2) * n;
    MPI_Info info;
    MPI_Win win;
    double *grid;
    MPI_Info_create(&info);
    MPI_Info_set(info, "gshmem_memory", "device");
    MPI_Win_allocate(2 * stride * (MPI_Aint)sizeof(double), sizeof(double), info, MPI_COMM_WORLD, &grid, &win);
    MPI_Info_free(&info);
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, grid));
    if (pa.type != cudaMemoryTypeDevice) {
        fprintf(stderr, "stage2_win: rank %d: the window's memory is not on the GPU\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Both buffers start as initial() has them. */
    double *h = initial(n, lo, nrows), *diffs, *dmax;
    for (int k = 0; k < 2; k++)
        CK(cudaMemcpy(grid + k * stride, h, blen * sizeof(double), cudaMemcpyHostToDevice));
    int blocks = sweep_blocks(nrows, n);
    CK(cudaMalloc((void **)&diffs, (size_t)blocks * THREADS * sizeof(double)));
    CK(cudaMalloc((void **)&dmax, sizeof(double)));
    /* A pageable cudaMemcpy may return before its data lands, and the
     * first fence lets the neighbours put into these halo rows. */
    CK(cudaDeviceSynchronize());

    int up = me - 1, down = me + 1 < np ? me + 1 : -1, ulo = 0, uhi = 0;
    if (up >= 0)
        rows(n, up, np, &ulo, &uhi);
    double residual = 0;
    int k = 0;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int it = 0; it < iters; it++) {
        double *b = grid + k * stride;
        /* My first row into the lower halo of the rank above (its row
         * uhi-ulo+1), my last row into the upper halo (row 0) of the rank
         * below; the fence completes both ways. */
        if (up >= 0)
            MPI_Put(b + n, n, MPI_DOUBLE, up, k * stride + (MPI_Aint)(uhi - ulo + 1) * n, n, MPI_DOUBLE, win);
        if (down >= 0)
            MPI_Put(b + (size_t)nrows * n, n, MPI_DOUBLE, down, k * stride, n, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        sweep<<<blocks, THREADS>>>(b, grid + (1 - k) * stride, nrows, n, diffs);
        maxOf<<<1, THREADS>>>(diffs, blocks * THREADS, dmax);
        /* The copy back waits for the sweep, so the next puts read
         * finished rows. */
        CK(cudaMemcpy(&residual, dmax, sizeof residual, cudaMemcpyDeviceToHost));
        MPI_Allreduce(MPI_IN_PLACE, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        k = 1 - k;
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CK(cudaGetLastError());

    /* The checksum: the bits of the rows I own (and the global boundary row
     * I border), summed with wrapping, then summed across the ranks. */
    CK(cudaMemcpy(h, grid + k * stride, blen * sizeof(double), cudaMemcpyDeviceToHost));
    uint64_t checksum = block_checksum(h, n, lo, hi);
    MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("jacobi: %d x %d grid, %d sweeps on %d ranks, stage 2 (MPI_Put + MPI_Win_fence on a window in GPU "
               "memory, CUDA sweep kernel)\n",
               n, n, iters, np);
        printf("stage=2 residual=%.17g checksum=%016llx\n", residual, (unsigned long long)checksum);
    }
    CK(cudaFree(dmax));
    CK(cudaFree(diffs));
    free(h);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
