/* jacobi.cuh: what the four stages of the C Jacobi share, so that each
 * stage file holds only what that stage changes (how the halo rows move):
 * the problem as examples/jacobi (Go) defines it - the row split, the
 * parabolic top edge, the sweep's arithmetic, the residual and the
 * checksum - bit for bit, so that every stage prints the Go program's
 * last line. A stage defines jacobi_abort (how it ends its job) before
 * using CK. */
#ifndef JACOBI_CUH
#define JACOBI_CUH

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

enum { THREADS = 256 };

static void jacobi_abort(void);

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));         \
            jacobi_abort();                                                                      \
        }                                                                                        \
    } while (0)

/* args reads -n N and -iters K (defaults 256 and 100, the Go program's). */
static void args(int argc, char **argv, int *n, int *iters)
{
    *n = 256;
    *iters = 100;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "-n") == 0)
            *n = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "-iters") == 0)
            *iters = atoi(argv[a + 1]);
    }
}

/* rows gives the interior rows [lo, hi) rank r of np owns, as the Go code
 * splits them (the first blocks one row longer when they do not divide). */
static void rows(int n, int r, int np, int *lo, int *hi)
{
    int interior = n - 2, base = interior / np, extra = interior % np;
    *lo = 1 + r * base + (r < extra ? r : extra);
    *hi = *lo + base + (r < extra ? 1 : 0);
}

/* initial returns a rank's block (nrows rows from global row lo, with a
 * halo row above and below, n columns) as the sweeps start: zero inside,
 * the top edge where the block borders it. Plain arithmetic, as
 * examples/jacobi's boundary, so the bits agree. free() it. */
static double *initial(int n, int lo, int nrows)
{
    double *h = (double *)calloc((size_t)(nrows + 2) * n, sizeof(double));
    if (h && lo == 1)
        for (int j = 0; j < n; j++) {
            double t = (double)j / (double)(n - 1);
            h[j] = 4 * t * (1 - t);
        }
    return h;
}

/* block_checksum sums, with wrapping, the bit patterns of the rows of block h
 * that the rank owns, and the global edge rows it borders, as the Go
 * program does: summed over the ranks, every point counts once. */
static uint64_t block_checksum(const double *h, int n, int lo, int hi)
{
    int nrows = hi - lo, first = lo == 1 ? 0 : 1, last = hi == n - 1 ? nrows + 1 : nrows;
    uint64_t sum = 0;
    for (int i = first; i <= last; i++)
        for (int j = 0; j < n; j++) {
            uint64_t bits;
            memcpy(&bits, &h[(size_t)i * n + j], sizeof bits);
            sum += bits;
        }
    return sum;
}

/* sweep_blocks is the grid of sweep for a block of nrows rows. */
static int sweep_blocks(int nrows, int n)
{
    int cells = nrows * (n - 2), blocks = (cells + THREADS - 1) / THREADS;
    return blocks < 1 ? 1 : blocks > 1024 ? 1024 : blocks;
}

/* sweep computes dst from src over the block's rows (rows x n, with the
 * halo rows 0 and rows+1) and leaves each thread's largest change in
 * diffs, the point's arithmetic exactly as the Go code's (build with
 * -fmad=false, so that nothing is fused). */
__global__ void sweep(const double *src, double *dst, int nrows, int n, double *diffs)
{
    double d = 0;
    int cells = nrows * (n - 2), me = blockIdx.x * blockDim.x + threadIdx.x;
    for (int cell = me; cell < cells; cell += gridDim.x * blockDim.x) {
        int i = cell / (n - 2) + 1, j = cell % (n - 2) + 1;
        double v = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1] + src[i * n + j + 1]);
        dst[i * n + j] = v;
        d = fmax(d, fabs(v - src[i * n + j]));
    }
    diffs[me] = d;
}

/* maxOf writes the largest of the k values at diffs to *out (one block). */
__global__ void maxOf(const double *diffs, int k, double *out)
{
    __shared__ double m[THREADS];
    double d = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        d = fmax(d, diffs[i]);
    m[threadIdx.x] = d;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            m[threadIdx.x] = fmax(m[threadIdx.x], m[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = m[0];
}

#endif
