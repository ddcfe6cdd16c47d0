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

/* The rooted and v-collectives (issue 22: an exchange through the device
 * scratch, no host bounce), on buffers that are device memory on every
 * rank (kind 0), host memory on every rank (1), or host on even ranks and
 * device on odd ones (2). Blocks of count+i ints land backwards with a gap
 * that must stay untouched. */
#define VC 20000 /* ints in a block: 80 KB, far above a 16 KiB scratch's slots */
#define VROOM (4 * VC + 64)
#define SENT 0x5eedf00d

static int vval(int rank, int i) { return rank * 1000003 + i * 7 + 1; }

typedef struct {
    void *p;
    int dev;
} vbuf;

static vbuf vb_alloc(int dev)
{
    vbuf b = {0, dev};
    if (dev) {
        CUdeviceptr d;
        CHECK(cuMemAlloc(&d, VROOM * sizeof(int)) == CUDA_SUCCESS);
        b.p = (void *)d;
    } else {
        b.p = malloc(VROOM * sizeof(int));
        CHECK(b.p != NULL);
    }
    return b;
}

static void vb_free(vbuf b)
{
    if (b.dev)
        CHECK(cuMemFree((CUdeviceptr)b.p) == CUDA_SUCCESS);
    else
        free(b.p);
}

static void vb_put(vbuf b, const int *h, int n)
{
    if (b.dev)
        put((CUdeviceptr)b.p, h, n * sizeof(int));
    else
        memcpy(b.p, h, n * sizeof(int));
}

static void vb_get(int *h, vbuf b, int n)
{
    if (b.dev)
        get(h, (CUdeviceptr)b.p, n * sizeof(int));
    else
        memcpy(h, b.p, n * sizeof(int));
}

static void vb_fill(vbuf b, int *tmp)
{
    for (int i = 0; i < VROOM; i++)
        tmp[i] = SENT;
    vb_put(b, tmp, VROOM);
}

static void vcolls(int rank, int size, int kind)
{
    static int h[VROOM], g[VROOM], w[VROOM];
    int dev = kind == 0 || (kind == 2 && rank % 2 == 1);
    vbuf s = vb_alloc(dev), r = vb_alloc(dev);
    int root = size / 2, counts[4], displs[4], total = 0;
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = VC / size + i;
        displs[i] = total;
        total += counts[i] + 1;
    }
    int mine = counts[rank];
    for (int i = 0; i < mine; i++)
        h[i] = vval(rank, i);

    /* Gather and Gatherv. */
    int b = VC / size;
    vb_put(s, h, b);
    vb_fill(r, g);
    CHECK_RC(MPI_Gather(s.p, b, MPI_INT, r.p, b, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root) {
        vb_get(g, r, VROOM);
        for (int p = 0; p < size; p++)
            for (int i = 0; i < b; i++)
                CHECK(g[p * b + i] == vval(p, i));
        CHECK(g[size * b] == SENT);
    }
    vb_put(s, h, mine);
    vb_fill(r, g);
    CHECK_RC(MPI_Gatherv(s.p, mine, MPI_INT, r.p, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root) {
        vb_get(g, r, VROOM);
        for (int p = 0; p < size; p++) {
            for (int i = 0; i < counts[p]; i++)
                CHECK(g[displs[p] + i] == vval(p, i));
            CHECK(g[displs[p] + counts[p]] == SENT);
        }
    }

    /* Scatterv from the same layout, then Scatter in place at the root. */
    for (int i = 0; i < VROOM; i++)
        w[i] = SENT;
    for (int p = 0; p < size; p++)
        for (int i = 0; i < counts[p]; i++)
            w[displs[p] + i] = vval(p, i);
    vb_put(s, w, VROOM);
    vb_fill(r, g);
    CHECK_RC(MPI_Scatterv(s.p, counts, displs, MPI_INT, r.p, mine, MPI_INT, root, MPI_COMM_WORLD));
    vb_get(g, r, mine + 1);
    for (int i = 0; i < mine; i++)
        CHECK(g[i] == vval(rank, i));
    CHECK(g[mine] == SENT);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < b; i++)
            w[p * b + i] = vval(p, i);
    vb_put(s, w, size * b);
    vb_fill(r, g);
    CHECK_RC(MPI_Scatter(s.p, b, MPI_INT, rank == root ? MPI_IN_PLACE : r.p, b, MPI_INT, root, MPI_COMM_WORLD));
    if (rank != root) {
        vb_get(g, r, b);
        for (int i = 0; i < b; i++)
            CHECK(g[i] == vval(rank, i));
    }

    /* Allgatherv, and in place. */
    vb_put(s, h, mine);
    vb_fill(r, g);
    CHECK_RC(MPI_Allgatherv(s.p, mine, MPI_INT, r.p, counts, displs, MPI_INT, MPI_COMM_WORLD));
    vb_get(g, r, VROOM);
    for (int p = 0; p < size; p++) {
        for (int i = 0; i < counts[p]; i++)
            CHECK(g[displs[p] + i] == vval(p, i));
        CHECK(g[displs[p] + counts[p]] == SENT);
    }
    for (int i = 0; i < VROOM; i++)
        w[i] = SENT;
    for (int i = 0; i < mine; i++)
        w[displs[rank] + i] = vval(rank, i);
    vb_put(r, w, VROOM);
    CHECK_RC(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, r.p, counts, displs, MPI_INT, MPI_COMM_WORLD));
    vb_get(g, r, VROOM);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < counts[p]; i++)
            CHECK(g[displs[p] + i] == vval(p, i));

    /* Alltoallv: rank p sends j b+(p+j)%3 ints, the send side backwards,
     * the receive side forwards with gaps; then in place. */
    int sc[4], sd[4], rc[4], rd[4], at = 0;
    for (int j = size - 1; j >= 0; j--) {
        sc[j] = b + (rank + j) % 3;
        sd[j] = at;
        at += sc[j];
    }
    for (int j = 0, a = 0; j < size; j++) {
        rc[j] = b + (j + rank) % 3;
        rd[j] = a;
        a += rc[j] + 1;
    }
    for (int j = 0; j < size; j++)
        for (int i = 0; i < sc[j]; i++)
            w[sd[j] + i] = vval(rank, j * 100000 + i);
    vb_put(s, w, at);
    vb_fill(r, g);
    CHECK_RC(MPI_Alltoallv(s.p, sc, sd, MPI_INT, r.p, rc, rd, MPI_INT, MPI_COMM_WORLD));
    vb_get(g, r, VROOM);
    for (int p = 0; p < size; p++) {
        for (int i = 0; i < rc[p]; i++)
            CHECK(g[rd[p] + i] == vval(p, rank * 100000 + i));
        CHECK(g[rd[p] + rc[p]] == SENT);
    }
    for (int i = 0; i < VROOM; i++)
        w[i] = SENT;
    for (int j = 0; j < size; j++)
        for (int i = 0; i < rc[j]; i++)
            w[rd[j] + i] = vval(rank, j * 100000 + i);
    vb_put(r, w, VROOM);
    CHECK_RC(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, r.p, rc, rd, MPI_INT, MPI_COMM_WORLD));
    vb_get(g, r, VROOM);
    for (int p = 0; p < size; p++) {
        for (int i = 0; i < rc[p]; i++)
            CHECK(g[rd[p] + i] == vval(p, rank * 100000 + i));
        CHECK(g[rd[p] + rc[p]] == SENT);
    }

    /* Reduce_scatter (counts[i] for rank i) and Reduce_scatter_block, int
     * sum; the block form in place too. */
    int all = 0, lo = 0;
    for (int p = 0; p < size; p++) {
        if (p == rank)
            lo = all;
        all += counts[p];
    }
    for (int i = 0; i < all; i++)
        w[i] = vval(rank, i) % 1000;
    vb_put(s, w, all);
    vb_fill(r, g);
    CHECK_RC(MPI_Reduce_scatter(s.p, r.p, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    vb_get(g, r, mine + 1);
    for (int i = 0; i < mine; i++) {
        int want = 0;
        for (int p = 0; p < size; p++)
            want += vval(p, lo + i) % 1000;
        CHECK(g[i] == want);
    }
    CHECK(g[mine] == SENT);
    vb_put(r, w, size * b);
    CHECK_RC(MPI_Reduce_scatter_block(MPI_IN_PLACE, r.p, b, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    vb_get(g, r, b);
    for (int i = 0; i < b; i++) {
        int want = 0;
        for (int p = 0; p < size; p++)
            want += vval(p, rank * b + i) % 1000;
        CHECK(g[i] == want);
    }
    vb_free(s);
    vb_free(r);
}

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

    for (int kind = 0; kind < 3; kind++)
        vcolls(rank, size, kind);

    CHECK(cuMemFree(s) == CUDA_SUCCESS && cuMemFree(r) == CUDA_SUCCESS);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("cudacoll: %d ranks, device buffers through the ABI (the rooted and v-collectives on device, host and mixed buffers too): ok\n", size);
    CHECK_RC(MPI_Finalize());
    return 0;
}
