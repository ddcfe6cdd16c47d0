/* stage4_kernel.cu: the 2-D Jacobi solver of examples/jacobi at stage 4 in
 * C: the kernels communicate by themselves. The grid lives in the
 * symmetric heap in device memory (gshmem_malloc); every sweep is two
 * kernels on one stream: halo, whose first block puts this PE's first row
 * into the lower halo of the PE above with a block-scope put-with-signal
 * (gshmem.cuh's gshmemx_putmem_signal_block) and waits for its own upper
 * halo (gshmem_signal_wait_until), the second block the same downwards;
 * then the sweep. Stage 3 issued the same puts and waits from the host, on
 * the stream; here device code issues them, so a kernel that computes a
 * row can send it itself. The residual is a MAX reduction of the last
 * sweep's, from the host at the end. It prints the same last line as the
 * Go program for the same grid:
 *
 *   stage=4 residual=R checksum=C
 *
 * Build with the library built with -tags cuda and the user's own nvcc (the
 * kernels' device state is bound by gshmem.cuh itself: see porting guide
 * 05, stage 4 in C):
 *
 *   GOFLAGS=-tags=cuda gshmem abi install --prefix $P
 *   $P/bin/gshmem nvcc --prefix $P -O2 -fmad=false -arch=sm_90 stage4_kernel.cu -o stage4_kernel
 *   $P/bin/gshmem run -n 2 ./stage4_kernel -n 512 -iters 200
 *   gshmem run -n 2 ./examples/jacobi -stage 4 -n 512 -iters 200   # the same line
 *
 * (-fmad=false: the sweep must round as the Go code does; several
 * processes on one GPU want MPS.) */
#include <gshmem.cuh> /* the device API, and gshmem.h with it */
#include "jacobi.cuh"

static void jacobi_abort(void) { gshmem_global_exit(1); }

/* halo exchanges the halo rows of b (rows x n, halos 0 and rows+1) with the
 * PEs above and below: block 0 upwards, block 1 downwards, each putting my
 * edge row into the neighbour's facing halo with signal v and waiting for
 * the neighbour's row in mine. sig[0] says my upper halo is in, sig[1] my
 * lower one. up_rows is the row count of the PE above (its lower halo is
 * its row up_rows+1). */
__global__ void halo(double *b, int nrows, int n, int up, int down, int up_rows, uint64_t *sig, uint64_t v)
{
    size_t row = (size_t)n * sizeof(double);
    if (blockIdx.x == 0 && up >= 0) {
        gshmemx_putmem_signal_block(b + (size_t)(up_rows + 1) * n, b + n, row, sig + 1, v, GSHMEM_SIGNAL_SET, up);
        if (threadIdx.x == 0)
            gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, v);
    }
    if (blockIdx.x == 1 && down >= 0) {
        gshmemx_putmem_signal_block(b, b + (size_t)nrows * n, row, sig, v, GSHMEM_SIGNAL_SET, down);
        if (threadIdx.x == 0)
            gshmem_signal_wait_until(sig + 1, GSHMEM_CMP_GE, v);
    }
}

int main(int argc, char **argv)
{
    int n, iters;
    args(argc, argv, &n, &iters);
    gshmem_init(); /* in the CUDA build: the heap in GPU memory */
    int me = gshmem_my_pe(), np = gshmem_n_pes();
    if (n < 3 || iters < 0 || np > n - 2 || !gshmemx_heap_on_device()) {
        if (me == 0)
            fprintf(stderr, "stage4_kernel: want -n >= 3, -iters >= 0, at most n-2 PEs and the heap on the GPU (the "
                            "library built with -tags cuda)\n");
        gshmem_finalize();
        return 1;
    }
    /* The runtime API on the library's context: the device's primary one. */
    int ndev = 1;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(gshmem_team_my_pe(GSHMEMX_TEAM_NODE) % ndev));

    int lo, hi, lo0, hi0;
    rows(n, me, np, &lo, &hi);
    rows(n, 0, np, &lo0, &hi0);
    int nrows = hi - lo;
    size_t stride = (size_t)(hi0 - lo0 + 2) * n; /* elements per buffer: PE 0's block is the largest */
    size_t blen = (size_t)(nrows + 2) * n;
    /* Two buffers at 0 and stride; the signal words ([0]: upper halo in,
     * [1]: lower halo in, the value the sweep number + 1); the last sweep's
     * residual, this PE's and the MAX. */
    double *grid = (double *)gshmem_malloc(2 * stride * sizeof(double));
    uint64_t *sig = (uint64_t *)gshmem_calloc(2, sizeof(uint64_t));
    double *lres = (double *)gshmem_malloc(sizeof(double)), *gres = (double *)gshmem_malloc(sizeof(double));
    uint64_t *part = (uint64_t *)gshmem_malloc(sizeof(uint64_t)), *sum = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
    if (!grid || !sig || !lres || !gres || !part || !sum) {
        fprintf(stderr, "stage4_kernel: PE %d: gshmem_malloc failed (GSHMEM_SYMMETRIC_SIZE?)\n", me);
        gshmem_global_exit(1);
    }
    /* Both buffers start as initial() has them. */
    double *h = initial(n, lo, nrows);
    for (int k = 0; k < 2; k++)
        CK(cudaMemcpy(grid + k * stride, h, blen * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    gshmem_barrier_all(); /* every PE's halos are set before anyone puts */

    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    int blocks = sweep_blocks(nrows, n);
    double *diffs;
    CK(cudaMalloc((void **)&diffs, (size_t)blocks * THREADS * sizeof(double)));
    int up = me - 1, down = me + 1 < np ? me + 1 : -1;
    int up_rows = 0;
    if (up >= 0) {
        int ulo, uhi;
        rows(n, up, np, &ulo, &uhi);
        up_rows = uhi - ulo;
    }
    int k = 0;
    for (int it = 0; it < iters; it++) {
        double *b = grid + k * stride;
        halo<<<2, THREADS, 0, st>>>(b, nrows, n, up, down, up_rows, sig, (uint64_t)it + 1);
        sweep<<<blocks, THREADS, 0, st>>>(b, grid + (1 - k) * stride, nrows, n, diffs);
        k = 1 - k;
    }
    maxOf<<<1, THREADS, 0, st>>>(diffs, blocks * THREADS, lres);
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());

    /* The checksum: the bits of the rows I own (and the global boundary row
     * I border), summed with wrapping, then summed across the PEs. */
    CK(cudaMemcpy(h, grid + k * stride, blen * sizeof(double), cudaMemcpyDeviceToHost));
    uint64_t mine = block_checksum(h, n, lo, hi);
    gshmem_uint64_p(part, mine, me);
    gshmem_barrier_all();
    gshmem_uint64_sum_reduce(GSHMEM_TEAM_WORLD, sum, part, 1);
    uint64_t checksum = gshmem_uint64_g(sum, me);
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, gres, lres, 1);
    double residual = iters > 0 ? gshmem_double_g(gres, me) : 0;
    if (me == 0) {
        printf("jacobi: %d x %d grid, %d sweeps on %d PEs, stage 4 (kernel-issued put-with-signal + wait, "
               "gshmem.cuh)\n",
               n, n, iters, np);
        printf("stage=4 residual=%.17g checksum=%016llx\n", residual, (unsigned long long)checksum);
    }
    CK(cudaFree(diffs));
    CK(cudaStreamDestroy(st));
    free(h);
    gshmem_free(sum);
    gshmem_free(part);
    gshmem_free(gres);
    gshmem_free(lres);
    gshmem_free(sig);
    gshmem_free(grid);
    gshmem_finalize();
    return 0;
}
