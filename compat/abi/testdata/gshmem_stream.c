/* gshmem.h on a heap in device memory, and its *_on_stream calls (stage 3
 * in C), for the library built with -tags cuda: every host-initiated
 * family on device symmetric memory with host, symmetric and cudaMalloc'd
 * local buffers, then every stream-ordered call on a CUDA stream made
 * with the driver API, each result read back with cuMemcpyDtoH and
 * checked. "perf" (2 PEs) adds the figures: on-stream put of 8 B and a
 * putmem_signal_on_stream ping-pong.
 *
 * Build: mpicc gshmem_stream.c -lcuda (the library's include and lib
 * directories); run: gshmem run -n N ./gshmem_stream [perf]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda.h>
#include "shmcheck.h"

#define CU(x) SCHECK((x) == CUDA_SUCCESS)

enum { N = 4096, BIG = 1 << 20, M = 1000 };

static CUstream st;
static int me, n, right, left;

/* h2d fills device memory and waits until it is there (a pageable
 * cuMemcpyHtoD may return before its DMA lands). */
static void h2d(void *d, const void *h, size_t bytes)
{
    CU(cuMemcpyHtoD((CUdeviceptr)d, h, bytes));
    CU(cuCtxSynchronize());
}

static void d2h(void *h, const void *d, size_t bytes) { CU(cuMemcpyDtoH(h, (CUdeviceptr)d, bytes)); }

static void *dalloc(size_t bytes)
{
    CUdeviceptr p;
    CU(cuMemAlloc(&p, bytes));
    return (void *)p;
}

static int val(int pe, int i) { return pe * 100000 + i * 7 + 1; }

static void fill(int *h, int pe, int k)
{
    for (int i = 0; i < N; i++)
        h[i] = val(pe, i) + k;
}

static void expect(const void *d, int pe, int k)
{
    static int h[N];
    d2h(h, d, sizeof h);
    for (int i = 0; i < N; i++)
        SCHECK(h[i] == val(pe, i) + k);
}

static void sync_stream(void) { CU(cuStreamSynchronize(st)); }

/* The host-initiated calls on device symmetric memory. */
static void host_calls(void)
{
    static int h[N];
    int *a = gshmem_malloc(N * sizeof(int)), *b = gshmem_calloc(N, sizeof(int));
    long *l = gshmem_calloc(4, sizeof(long));
    SCHECK(a && b && l);
    unsigned int mt = 0;
    CU(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)a));
    SCHECK(mt == CU_MEMORYTYPE_DEVICE);
    d2h(h, b, sizeof h);
    for (int i = 0; i < N; i++)
        SCHECK(h[i] == 0); /* calloc */
    SCHECK(gshmem_ptr(a, me) == a);
    SCHECK(gshmem_ptr(a, right) != NULL);
    SCHECK(gshmem_addr_accessible(a + 5, right) && !gshmem_addr_accessible(h, right));
    int *c = dalloc(N * sizeof(int));

    /* put from host memory, typed */
    fill(h, me, 1);
    gshmem_barrier_all();
    gshmem_int_put(a, h, N, right);
    gshmem_barrier_all();
    expect(a, left, 1);
    /* put from symmetric device memory */
    fill(h, me, 2);
    h2d(b, h, sizeof h);
    gshmem_barrier_all();
    gshmem_putmem(a, b, N * sizeof(int), right);
    gshmem_barrier_all();
    expect(a, left, 2);
    /* put_nbi from cuMemAlloc memory, then quiet */
    fill(h, me, 3);
    h2d(c, h, sizeof h);
    gshmem_barrier_all();
    gshmem_putmem_nbi(a, c, N * sizeof(int), right);
    gshmem_quiet();
    gshmem_barrier_all();
    expect(a, left, 3);
    /* get into host, cuMemAlloc and symmetric memory: right's a holds
     * me's pattern 3 */
    memset(h, 0, sizeof h);
    gshmem_int_get(h, a, N, right);
    for (int i = 0; i < N; i++)
        SCHECK(h[i] == val(me, i) + 3);
    gshmem_getmem(c, a, N * sizeof(int), right);
    expect(c, me, 3);
    gshmem_getmem_nbi(b, a, N * sizeof(int), right);
    gshmem_quiet();
    expect(b, me, 3);
    /* p and g */
    gshmem_long_p(l, 100 + me, right);
    gshmem_barrier_all();
    SCHECK(gshmem_long_g(l, me) == 100 + left);
    SCHECK(gshmem_long_g(l, right) == 100 + me);
    /* gshmem_ptr: the peer's device memory, written with the driver */
    long v = 200 + me;
    CU(cuMemcpyHtoD((CUdeviceptr)gshmem_ptr(l + 1, right), &v, sizeof v));
    CU(cuCtxSynchronize());
    gshmem_barrier_all();
    SCHECK(gshmem_long_g(l + 1, me) == 200 + left);
    /* strided, host and device local buffers */
    int hs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    gshmem_int_iput(a, hs, 2, 1, 8, right); /* a[0], a[2], ... */
    gshmem_barrier_all();
    gshmem_int_iget(hs, a, 1, 2, 8, me);
    for (int i = 0; i < 8; i++)
        SCHECK(hs[i] == i + 1);
    h2d(c, hs, sizeof hs);
    gshmem_barrier_all();
    gshmem_int_iput(a + 1, c, 2, 1, 8, right); /* a[1], a[3], ... */
    gshmem_barrier_all();
    int *c2 = dalloc(8 * sizeof(int));
    gshmem_int_iget(c2, a + 1, 1, 2, 8, me);
    memset(hs, 0, sizeof hs);
    d2h(hs, c2, sizeof hs);
    for (int i = 0; i < 8; i++)
        SCHECK(hs[i] == i + 1);
    CU(cuMemFree((CUdeviceptr)c2));

    /* atomics */
    long *ctr = gshmem_calloc(2, sizeof(long));
    gshmem_barrier_all();
    gshmem_long_atomic_fetch_add(ctr, me + 1, 0);
    gshmem_long_atomic_add(ctr + 1, 1, right);
    gshmem_barrier_all();
    if (me == 0)
        SCHECK(gshmem_long_atomic_fetch(ctr, 0) == (long)n * (n + 1) / 2);
    SCHECK(gshmem_long_atomic_fetch(ctr + 1, me) == 1);
    SCHECK(gshmem_long_atomic_compare_swap(ctr + 1, 1, 50 + me, me) == 1);
    SCHECK(gshmem_long_atomic_swap(ctr + 1, 7, me) == 50 + me);
    gshmem_long_atomic_set(ctr + 1, 9, me);
    SCHECK(gshmem_long_atomic_fetch(ctr + 1, me) == 9);

    /* signals, waits and tests */
    uint64_t *sig = gshmem_calloc(1, sizeof(uint64_t));
    int *flags = gshmem_calloc((size_t)n, sizeof(int));
    fill(h, me, 4);
    h2d(b, h, sizeof h);
    gshmem_barrier_all();
    gshmem_putmem_signal(a, b, N * sizeof(int), sig, (uint64_t)me + 1, GSHMEM_SIGNAL_SET, right);
    SCHECK(gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, (uint64_t)left + 1) == (uint64_t)left + 1);
    expect(a, left, 4);
    SCHECK(gshmem_signal_fetch(sig) == (uint64_t)left + 1);
    gshmem_barrier_all();
    gshmemx_signal_op(sig, 10, GSHMEM_SIGNAL_ADD, right);
    gshmem_uint64_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)left + 11);
    for (int p = 0; p < n; p++)
        gshmem_int_p(flags + me, 1, p);
    gshmem_int_wait_until_all(flags, (size_t)n, NULL, GSHMEM_CMP_EQ, 1);
    SCHECK(gshmem_int_test_all(flags, (size_t)n, NULL, GSHMEM_CMP_EQ, 1));
    SCHECK(gshmem_int_test(flags + me, GSHMEM_CMP_EQ, 1));
    SCHECK(!gshmem_int_test(flags + me, GSHMEM_CMP_EQ, 2));
    SCHECK(gshmem_int_wait_until_any(flags, (size_t)n, NULL, GSHMEM_CMP_EQ, 1) < (size_t)n);
    size_t idx[64];
    SCHECK(n <= 64 && gshmem_int_test_some(flags, (size_t)n, idx, NULL, GSHMEM_CMP_EQ, 1) == (size_t)n);
    int ones[64];
    for (int p = 0; p < n; p++)
        ones[p] = 1;
    gshmem_int_wait_until_all_vector(flags, (size_t)n, NULL, GSHMEM_CMP_EQ, ones);
    gshmem_barrier_all();
    /* fence: two puts to one PE land in order */
    gshmem_int_p(flags + me, 2, right);
    gshmem_fence();
    gshmem_int_p(flags + me, 3, right);
    gshmem_int_wait_until(flags + left, GSHMEM_CMP_EQ, 3);
    gshmem_barrier_all();

    /* collectives */
    float *fs = gshmem_malloc(M * sizeof(float)), *fd = gshmem_malloc(M * sizeof(float));
    static float hf[M];
    for (int i = 0; i < M; i++)
        hf[i] = (float)(i % 50 + me);
    h2d(fs, hf, sizeof hf);
    gshmem_barrier_all();
    SCHECK(gshmem_float_sum_reduce(GSHMEM_TEAM_WORLD, fd, fs, M) == 0);
    d2h(hf, fd, sizeof hf);
    for (int i = 0; i < M; i++)
        SCHECK(hf[i] == (float)(n * (i % 50) + n * (n - 1) / 2));
    fill(h, me, 5);
    h2d(b, h, sizeof h);
    gshmem_barrier_all();
    SCHECK(gshmem_broadcastmem(GSHMEM_TEAM_WORLD, a, b, N * sizeof(int), n - 1) == 0);
    expect(a, n - 1, 5);
    gshmem_barrier_all();

    /* locks */
    long *lock = gshmem_calloc(1, sizeof(long));
    gshmem_set_lock(lock);
    gshmem_long_atomic_add(ctr, 1, 0);
    gshmem_clear_lock(lock);
    gshmem_barrier_all();

    gshmem_free(lock);
    gshmem_free(fd);
    gshmem_free(fs);
    gshmem_free(flags);
    gshmem_free(sig);
    gshmem_free(ctr);
    CU(cuMemFree((CUdeviceptr)c));
    gshmem_free(l);
    gshmem_free(b);
    gshmem_free(a);
}

/* The stream-ordered calls. */
static void stream_calls(void)
{
    static int h[N];
    int *dst = gshmem_calloc(N, sizeof(int)), *src = gshmem_malloc(N * sizeof(int));
    char *big = gshmem_malloc(BIG), *bigsrc = gshmem_malloc(BIG);
    uint64_t *sig = gshmem_calloc(2, sizeof(uint64_t));
    int *c = dalloc(N * sizeof(int));
    SCHECK(dst && src && big && bigsrc && sig);

    /* putmem_on_stream from symmetric memory, then a barrier on the stream */
    fill(h, me, 10);
    h2d(src, h, sizeof h);
    gshmem_barrier_all();
    gshmemx_putmem_on_stream(dst, src, N * sizeof(int), right, st);
    gshmemx_quiet_on_stream(st);
    gshmemx_barrier_all_on_stream(st);
    sync_stream();
    expect(dst, left, 10);
    /* typed put_on_stream from cuMemAlloc memory, barrier_on_stream(team) */
    fill(h, me, 11);
    h2d(c, h, sizeof h);
    gshmemx_sync_all_on_stream(st); /* every PE has read dst above */
    gshmemx_int_put_on_stream(dst, c, N, right, st);
    SCHECK(gshmemx_barrier_on_stream(GSHMEM_TEAM_WORLD, st) == 0);
    sync_stream();
    expect(dst, left, 11);
    /* getmem_on_stream into cuMemAlloc and into symmetric memory */
    gshmemx_getmem_on_stream(c, dst, N * sizeof(int), right, st);
    sync_stream();
    expect(c, me, 11);
    gshmemx_int_get_nbi_on_stream(src, dst, N, right, st);
    sync_stream();
    expect(src, me, 11);
    gshmemx_getmem_nbi_on_stream(c, dst, N * sizeof(int), right, st);
    sync_stream();
    expect(c, me, 11);
    SCHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_WORLD, st) == 0);
    fill(h, me, 14);
    h2d(src, h, sizeof h);
    gshmemx_sync_all_on_stream(st); /* every PE has read its dst and my src is set */
    gshmemx_putmem_nbi_on_stream(dst, src, N * sizeof(int), right, st);
    gshmemx_barrier_all_on_stream(st);
    sync_stream();
    expect(dst, left, 14);
    SCHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_WORLD, st) == 0);

    /* putmem_signal_on_stream + signal_wait_until_on_stream: small (one
     * kernel) and 1 MiB (a copy, then the signal) */
    for (int k = 0; k < 2; k++) {
        size_t bytes = k == 0 ? 64 : BIG;
        char *d = k == 0 ? (char *)dst : big, *s = k == 0 ? (char *)src : bigsrc;
        static char hb[BIG], want[BIG];
        for (size_t i = 0; i < bytes; i++)
            hb[i] = (char)(i * 13 + me * 7 + k), want[i] = (char)(i * 13 + left * 7 + k);
        h2d(s, hb, bytes);
        gshmem_barrier_all();
        gshmemx_putmem_signal_on_stream(d, s, bytes, sig, (uint64_t)k + 1, GSHMEM_SIGNAL_SET, right, st);
        gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, (uint64_t)k + 1, st);
        sync_stream();
        memset(hb, 0, bytes);
        d2h(hb, d, bytes);
        SCHECK(memcmp(hb, want, bytes) == 0);
        gshmem_barrier_all();
    }
    /* signal_op_on_stream ADD from every PE, then a wait on the sum; the
     * _nbi forms with a typed put */
    for (int p = 0; p < n; p++)
        gshmemx_signal_op_on_stream(sig + 1, (uint64_t)me + 1, GSHMEM_SIGNAL_ADD, p, st);
    gshmemx_signal_wait_until_on_stream(sig + 1, GSHMEM_CMP_GE, (uint64_t)n * (n + 1) / 2, st);
    sync_stream();
    SCHECK(gshmem_signal_fetch(sig + 1) == (uint64_t)n * (n + 1) / 2);
    fill(h, me, 12);
    h2d(src, h, sizeof h);
    gshmem_barrier_all();
    gshmemx_int_put_signal_nbi_on_stream(dst, src, N, sig, 99, GSHMEM_SIGNAL_SET, right, st);
    gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, 99, st);
    sync_stream();
    expect(dst, left, 12);
    gshmem_barrier_all();

    /* collectives on the stream */
    float *fs = gshmem_malloc(M * sizeof(float)), *fd = gshmem_malloc(M * sizeof(float) * (size_t)n);
    int *is = gshmem_malloc(M * sizeof(int) * (size_t)n), *id = gshmem_malloc(M * sizeof(int) * (size_t)n);
    uint64_t *us = gshmem_malloc(M * sizeof(uint64_t)), *ud = gshmem_malloc(M * sizeof(uint64_t));
    double *ds = gshmem_malloc(M * sizeof(double)), *dd = gshmem_malloc(M * sizeof(double));
    static float hf[M];
    static int hi[M * 8];
    static uint64_t hu[M];
    static double hd[M];
    SCHECK(n <= 8);
    for (int i = 0; i < M; i++) {
        hf[i] = (float)(i % 50 + me);
        hu[i] = (uint64_t)1 << ((i + me) % 64);
        hd[i] = (double)((i * 7 + me * 3) % 101);
    }
    for (int i = 0; i < M * n; i++)
        hi[i] = (i * 31 + me * 17) % 1009;
    h2d(fs, hf, sizeof hf);
    h2d(is, hi, M * sizeof(int) * (size_t)n);
    h2d(us, hu, sizeof hu);
    h2d(ds, hd, sizeof hd);
    gshmem_barrier_all();
    SCHECK(gshmemx_float_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, fd, fs, M, st) == 0);
    SCHECK(gshmemx_int_max_reduce_on_stream(GSHMEM_TEAM_WORLD, id, is, M, st) == 0);
    SCHECK(gshmemx_uint64_xor_reduce_on_stream(GSHMEM_TEAM_WORLD, ud, us, M, st) == 0);
    SCHECK(gshmemx_double_min_reduce_on_stream(GSHMEM_TEAM_WORLD, dd, ds, M, st) == 0);
    sync_stream();
    d2h(hf, fd, sizeof hf);
    d2h(hi, id, M * sizeof(int));
    d2h(hu, ud, sizeof hu);
    d2h(hd, dd, sizeof hd);
    for (int i = 0; i < M; i++) {
        SCHECK(hf[i] == (float)(n * (i % 50) + n * (n - 1) / 2));
        int mx = 0;
        uint64_t x = 0;
        double mn = 1e9;
        for (int p = 0; p < n; p++) {
            int v = (i * 31 + p * 17) % 1009;
            mx = v > mx ? v : mx;
            x ^= (uint64_t)1 << ((i + p) % 64);
            double dv = (double)((i * 7 + p * 3) % 101);
            mn = dv < mn ? dv : mn;
        }
        SCHECK(hi[i] == mx);
        SCHECK(hu[i] == x);
        SCHECK(hd[i] == mn);
    }
    gshmem_barrier_all();
    /* reducescatter: PE me gets block me of the sums */
    SCHECK(gshmemx_int_sum_reducescatter_on_stream(GSHMEM_TEAM_WORLD, id, is, M, st) == 0);
    sync_stream();
    d2h(hi, id, M * sizeof(int));
    for (int i = 0; i < M; i++) {
        int s = 0;
        for (int p = 0; p < n; p++)
            s += ((me * M + i) * 31 + p * 17) % 1009;
        SCHECK(hi[i] == s);
    }
    gshmem_barrier_all();
    /* broadcastmem, fcollectmem, alltoallmem */
    fill(h, me, 13);
    h2d(src, h, sizeof h);
    gshmem_barrier_all();
    SCHECK(gshmemx_broadcastmem_on_stream(GSHMEM_TEAM_WORLD, dst, src, N * sizeof(int), n - 1, st) == 0);
    sync_stream();
    expect(dst, n - 1, 13);
    gshmem_barrier_all();
    for (int i = 0; i < M; i++)
        hi[i] = me * M + i;
    h2d(is, hi, M * sizeof(int));
    gshmem_barrier_all();
    SCHECK(gshmemx_fcollectmem_on_stream(GSHMEM_TEAM_WORLD, id, is, M * sizeof(int), st) == 0);
    sync_stream();
    d2h(hi, id, M * sizeof(int) * (size_t)n);
    for (int i = 0; i < M * n; i++)
        SCHECK(hi[i] == i);
    gshmem_barrier_all();
    int blk = M / n;
    for (int i = 0; i < blk * n; i++)
        hi[i] = me * 1000000 + i; /* block p goes to PE p */
    h2d(is, hi, (size_t)blk * n * sizeof(int));
    gshmem_barrier_all();
    SCHECK(gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, id, is, (size_t)blk * sizeof(int), st) == 0);
    sync_stream();
    d2h(hi, id, (size_t)blk * n * sizeof(int));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < blk; i++)
            SCHECK(hi[p * blk + i] == p * 1000000 + me * blk + i);
    gshmem_barrier_all();

    gshmem_free(dd);
    gshmem_free(ds);
    gshmem_free(ud);
    gshmem_free(us);
    gshmem_free(id);
    gshmem_free(is);
    gshmem_free(fd);
    gshmem_free(fs);
    CU(cuMemFree((CUdeviceptr)c));
    gshmem_free(sig);
    gshmem_free(bigsrc);
    gshmem_free(big);
    gshmem_free(src);
    gshmem_free(dst);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* The figures, PE 0 to PE 1: on-stream put of 8 B as NVSHMEM's reference
 * program times it (events around 1000 puts and a quiet), and as gshmem
 * perf's put_on_stream_latency does (host wall, bursts of 100 put+quiet
 * then a synchronize); then a putmem_signal_on_stream ping-pong of 8 B,
 * enqueued by both hosts as they go, one way. */
static void perf(void)
{
    char *dst = gshmem_calloc(64, 1), *src = gshmem_calloc(64, 1);
    uint64_t *sig = gshmem_calloc(1, sizeof(uint64_t));
    char *c = dalloc(64);
    CUevent a, b;
    CU(cuEventCreate(&a, CU_EVENT_DEFAULT));
    CU(cuEventCreate(&b, CU_EVENT_DEFAULT));
    float ms;
    gshmem_barrier_all();
    if (me == 0) {
        for (int k = 0; k < 2; k++) {
            const char *what = k == 0 ? "symmetric source" : "cuMemAlloc source";
            void *s = k == 0 ? (void *)src : (void *)c;
            gshmemx_putmem_on_stream(dst, s, 8, 1, st);
            sync_stream();
            CU(cuEventRecord(a, st));
            for (int i = 0; i < 1000; i++)
                gshmemx_putmem_on_stream(dst, s, 8, 1, st);
            gshmemx_quiet_on_stream(st);
            CU(cuEventRecord(b, st));
            CU(cuEventSynchronize(b));
            CU(cuEventElapsedTime(&ms, a, b));
            printf("BENCH cabi putmem_on_stream 8 B, %s (events, 1000 puts): %.2f us/op\n", what, ms * 1e3 / 1000);
            double t0 = now_us();
            for (int r = 0; r < 20; r++) {
                for (int i = 0; i < 100; i++) {
                    gshmemx_putmem_on_stream(dst, s, 8, 1, st);
                    gshmemx_quiet_on_stream(st);
                }
                sync_stream();
            }
            printf("BENCH cabi putmem_on_stream 8 B, %s (host wall, bursts of 100 put+quiet): %.2f us/op\n", what,
                   (now_us() - t0) / 2000);
        }
    }
    gshmem_barrier_all();
    for (int k = 0; k < 2; k++) {
        int iters = 1000;
        CU(cuMemsetD8((CUdeviceptr)sig, 0, sizeof(uint64_t)));
        CU(cuCtxSynchronize());
        gshmem_barrier_all();
        double t0 = now_us();
        CU(cuEventRecord(a, st));
        for (int i = 1; i <= iters; i++) {
            if (me == 0) {
                gshmemx_putmem_signal_on_stream(dst, src, 8, sig, (uint64_t)i, GSHMEM_SIGNAL_SET, 1, st);
                gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_GE, (uint64_t)i, st);
            } else if (me == 1) {
                gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_GE, (uint64_t)i, st);
                gshmemx_putmem_signal_on_stream(dst, src, 8, sig, (uint64_t)i, GSHMEM_SIGNAL_SET, 0, st);
            }
        }
        CU(cuEventRecord(b, st));
        CU(cuEventSynchronize(b));
        double wall = now_us() - t0;
        CU(cuEventElapsedTime(&ms, a, b));
        if (me == 0 && k == 1) /* the first round warms up */
            printf("BENCH cabi putmem_signal_on_stream ping-pong 8 B one way (%d round trips): %.2f us (events), %.2f us "
                   "(host wall)\n",
                   iters, ms * 1e3 / iters / 2, wall / iters / 2);
        gshmem_barrier_all();
    }
    CU(cuEventDestroy(a));
    CU(cuEventDestroy(b));
    CU(cuMemFree((CUdeviceptr)c));
    gshmem_free(sig);
    gshmem_free(src);
    gshmem_free(dst);
}

int main(int argc, char **argv)
{
    gshmem_init();
    me = gshmem_my_pe();
    n = gshmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    SCHECK(gshmemx_heap_on_device() == 1);
    /* The library made the GPU's primary context; use it here too. */
    int ndev = 0;
    CUdevice dev;
    CUcontext ctx;
    CU(cuInit(0));
    CU(cuDeviceGetCount(&ndev));
    CU(cuDeviceGet(&dev, gshmem_team_my_pe(GSHMEMX_TEAM_NODE) % ndev));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CU(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));

    if (argc > 1 && strcmp(argv[1], "perf") == 0) {
        SCHECK(n >= 2);
        perf();
    } else {
        host_calls();
        stream_calls();
        printf("gshmem_stream ok %d/%d\n", me, n);
    }
    CU(cuStreamDestroy(st));
    gshmem_finalize();
    return 0;
}
