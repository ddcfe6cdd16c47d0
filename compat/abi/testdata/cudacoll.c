/* Collectives on device buffers (cuMemAlloc memory) through the ABI, for a
 * library built with -tags cuda and run with GSHMEM_HEAP=device: the
 * buffers are never touched on the host by the program except through
 * cuMemcpy, and every result is checked against the host's fold in rank
 * order. Build: cc cudacoll.c -I<include> -L<lib> -lmpi_abi -lcuda. */
#include <string.h>
#include <cuda.h>
#include "check.h"

#define N 70000 /* above the default scratch of a small heap: in pieces */

static CUdeviceptr dalloc(size_t n)
{
    CUdeviceptr p = 0;
    CHECK(cuMemAlloc(&p, n) == CUDA_SUCCESS);
    return p;
}

static void put(CUdeviceptr d, const void *h, size_t n) { CHECK(cuMemcpyHtoD(d, h, n) == CUDA_SUCCESS); }
static void get(void *h, CUdeviceptr d, size_t n) { CHECK(cuMemcpyDtoH(h, d, n) == CUDA_SUCCESS); }

static float fval(int rank, int i) { return (float)((i * 7 + rank * 13) % 1000) * 0.25f + (float)rank * 0.001f; }

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    /* The library made the GPU's primary context; use it here too. */
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
    CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);

    static float hs[N], hr[N], want[N];
    CUdeviceptr s = dalloc(sizeof hs), r = dalloc(sizeof hr * 4);

    /* Allreduce, float sum: every element against the fold in rank order. */
    for (int i = 0; i < N; i++) {
        hs[i] = fval(rank, i);
        want[i] = fval(0, i);
        for (int p = 1; p < size; p++)
            want[i] = want[i] + fval(p, i);
    }
    put(s, hs, sizeof hs);
    CHECK_RC(MPI_Allreduce((void *)s, (void *)r, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    get(hr, r, sizeof hr);
    CHECK(memcmp(hr, want, sizeof hr) == 0);
    /* In place. */
    put(r, hs, sizeof hs);
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, (void *)r, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    get(hr, r, sizeof hr);
    CHECK(memcmp(hr, want, sizeof hr) == 0);

    /* Reduce, int max, to the last rank. */
    int is[64], ir[64];
    for (int i = 0; i < 64; i++)
        is[i] = (i * 31 + rank * 17) % 101;
    put(s, is, sizeof is);
    CHECK_RC(MPI_Reduce((void *)s, (void *)r, 64, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1) {
        get(ir, r, sizeof ir);
        for (int i = 0; i < 64; i++) {
            int m = 0;
            for (int p = 0; p < size; p++)
                m = (i * 31 + p * 17) % 101 > m ? (i * 31 + p * 17) % 101 : m;
            CHECK(ir[i] == m);
        }
    }

    /* Bcast from rank 0. */
    for (int i = 0; i < N; i++)
        hs[i] = rank == 0 ? fval(0, i) : -1.0f;
    put(s, hs, sizeof hs);
    CHECK_RC(MPI_Bcast((void *)s, N, MPI_FLOAT, 0, MPI_COMM_WORLD));
    get(hr, s, sizeof hr);
    for (int i = 0; i < N; i++)
        CHECK(hr[i] == fval(0, i));

    /* Allgather and Alltoall of ints. */
    enum { M = 1000 };
    static int ga[M], gr[4 * M], ta[4 * M], tr[4 * M];
    CHECK(size <= 4);
    for (int i = 0; i < M; i++)
        ga[i] = rank * 100000 + i;
    put(s, ga, sizeof ga);
    CHECK_RC(MPI_Allgather((void *)s, M, MPI_INT, (void *)r, M, MPI_INT, MPI_COMM_WORLD));
    get(gr, r, sizeof(int) * M * size);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < M; i++)
            CHECK(gr[p * M + i] == p * 100000 + i);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < M; i++)
            ta[j * M + i] = rank * 1000000 + j * 10000 + i;
    put(s, ta, sizeof(int) * M * size);
    CHECK_RC(MPI_Alltoall((void *)s, M, MPI_INT, (void *)r, M, MPI_INT, MPI_COMM_WORLD));
    get(tr, r, sizeof(int) * M * size);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < M; i++)
            CHECK(tr[p * M + i] == p * 1000000 + rank * 10000 + i);

    /* An op without a kernel (MPI_LAND): the host path, copying. */
    for (int i = 0; i < 64; i++)
        is[i] = (i + rank) % 3;
    put(s, is, sizeof is);
    CHECK_RC(MPI_Allreduce((void *)s, (void *)r, 64, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    get(ir, r, sizeof ir);
    for (int i = 0; i < 64; i++) {
        int all = 1;
        for (int p = 0; p < size; p++)
            all = all && (i + p) % 3;
        CHECK(ir[i] == all);
    }

    CHECK(cuMemFree(s) == CUDA_SUCCESS && cuMemFree(r) == CUDA_SUCCESS);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("cudacoll: %d ranks, device buffers through the ABI: ok\n", size);
    CHECK_RC(MPI_Finalize());
    return 0;
}
