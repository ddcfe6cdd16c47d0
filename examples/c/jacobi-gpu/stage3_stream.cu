/* stage3_stream.cu: the 2-D Jacobi solver of examples/jacobi at stage 3 in
 * C, on the GPU: the grid lives in the symmetric heap in device memory
 * (gshmem_malloc), and every sweep is issued on one CUDA stream up front:
 * the halo rows go straight into the neighbours' halo rows with
 * gshmemx_putmem_signal_on_stream, gshmemx_signal_wait_until_on_stream
 * holds the stream until the neighbours' rows are in, the sweep is a CUDA
 * kernel, and the residual a MAX reduction on the stream
 * (gshmemx_double_max_reduce_on_stream). The host waits once, at the end.
 * It prints the same last line as the Go program for the same grid:
 *
 *   stage=3 residual=R checksum=C
 *
 * Build with the library built with -tags cuda and the user's own nvcc:
 *
 *   GOFLAGS=-tags=cuda gshmem abi install --prefix $P
 *   nvcc -O2 -fmad=false -arch=sm_90 -I$P/include stage3_stream.cu -o stage3_stream \
 *        -L$P/lib -lmpi_abi -Xlinker -rpath -Xlinker $P/lib
 *   $P/bin/gshmem run -n 2 ./stage3_stream -n 512 -iters 200
 *   gshmem run -n 2 ./examples/jacobi -stage 3 -n 512 -iters 200   # the same line
 *
 * (-fmad=false: the sweep must round as the Go code does; several
 * processes on one GPU want MPS.) */
#include <gshmem.h>
#include "jacobi.cuh"

static void jacobi_abort(void) { gshmem_global_exit(1); }

int main(int argc, char **argv)
{
    int n, iters;
    args(argc, argv, &n, &iters);
    gshmem_init(); /* in the CUDA build: the heap in GPU memory */
    int me = gshmem_my_pe(), np = gshmem_n_pes();
    if (n < 3 || iters < 0 || np > n - 2 || !gshmemx_heap_on_device()) {
        if (me == 0)
            fprintf(stderr, "stage3_stream: want -n >= 3, -iters >= 0, at most n-2 PEs and the heap on the GPU (the "
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
     * [1]: lower halo in, the value the sweep number + 1); the residuals
     * (this PE's and the MAX, one pair per buffer parity). */
    double *grid = (double *)gshmem_malloc(2 * stride * sizeof(double));
    uint64_t *sig = (uint64_t *)gshmem_calloc(2, sizeof(uint64_t));
    double *lres = (double *)gshmem_malloc(2 * sizeof(double)), *gres = (double *)gshmem_malloc(2 * sizeof(double));
    uint64_t *part = (uint64_t *)gshmem_malloc(sizeof(uint64_t)), *sum = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
    if (!grid || !sig || !lres || !gres || !part || !sum) {
        fprintf(stderr, "stage3_stream: PE %d: gshmem_malloc failed (GSHMEM_SYMMETRIC_SIZE?)\n", me);
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
    size_t row = (size_t)n * sizeof(double);
    int k = 0;
    for (int it = 0; it < iters; it++) {
        uint64_t v = (uint64_t)it + 1;
        double *b = grid + k * stride;
        /* My first row into the lower halo of the PE above, my last row
         * into the upper halo of the PE below, each with its signal; then
         * the stream waits for my own two halos. */
        if (up >= 0) {
            int ulo, uhi;
            rows(n, up, np, &ulo, &uhi);
            gshmemx_putmem_signal_on_stream(b + (size_t)(uhi - ulo + 1) * n, b + n, row, sig + 1, v, GSHMEM_SIGNAL_SET,
                                            up, st);
        }
        if (down >= 0)
            gshmemx_putmem_signal_on_stream(b, b + (size_t)nrows * n, row, sig, v, GSHMEM_SIGNAL_SET, down, st);
        if (up >= 0)
            gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_GE, v, st);
        if (down >= 0)
            gshmemx_signal_wait_until_on_stream(sig + 1, GSHMEM_CMP_GE, v, st);
        sweep<<<blocks, THREADS, 0, st>>>(b, grid + (1 - k) * stride, nrows, n, diffs);
        maxOf<<<1, THREADS, 0, st>>>(diffs, blocks * THREADS, lres + k);
        gshmemx_double_max_reduce_on_stream(GSHMEM_TEAM_WORLD, gres + k, lres + k, 1, st);
        k = 1 - k;
    }
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
    double residual = iters > 0 ? gshmem_double_g(gres + (1 - k), me) : 0;
    if (me == 0) {
        printf("jacobi: %d x %d grid, %d sweeps on %d PEs, stage 3 (gshmem.h on-stream put-with-signal + wait, CUDA "
               "sweep kernel)\n",
               n, n, iters, np);
        printf("stage=3 residual=%.17g checksum=%016llx\n", residual, (unsigned long long)checksum);
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
