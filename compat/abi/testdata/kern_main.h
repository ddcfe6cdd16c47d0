/* kern_main.h: main() of the runtime-API stage-4 tests (kern_rt.cu, one
 * file; kern_rdc_main.cu + kern_rdc_dev.cu, -rdc=true). Kernels built by
 * the user's nvcc into the program, their device state bound by
 * gshmem_init alone. Run with GSHMEM_HEAP=device and a libmpi_abi built
 * with -tags cuda:
 *   (no argument)  the kernels of kern_ops.cuh to the neighbours, checked;
 *                  the collective launch's refusal of a grid too large
 *   bench [bytes]  2 PEs: kernel put bandwidth (default 1 GiB) beside a
 *                  cudaMemcpyAsync into the mapped peer, and the device
 *                  ping-pong's one-way latency
 *   nodevice       a host heap (no GPU needed): the calls that need the
 *                  device state refuse */
#include <stdlib.h>
#include <string.h>
#include "shmcheck.h"

extern "C" __global__ void kern_ops(int *dst, const int *src, int *pv, uint64_t *ctr, uint64_t *sig, int *seen, int n);
extern "C" __global__ void kern_putbw(char *dst, const char *src, size_t n, int pe);
extern "C" __global__ void kern_pingpong(uint64_t *sig, int iters, int wait);
extern "C" __global__ void kern_peer_ptr(const void *sym, int pe, void **out);

/* kern_whoami runs in this file's unit: under -rdc=true it shares the
 * state with kern_rdc_dev.cu's kernels. */
__global__ void kern_whoami(int *out)
{
    out[0] = gshmem_my_pe();
    out[1] = gshmem_n_pes();
}

#define CU(call) SCHECK((call) == cudaSuccess)
/* The module argument's type: a void * here (a CUmodule in NVSHMEM's
 * header, for the same source built against NVSHMEM by test/gpu/run.sh). */
#ifndef KERN_MODULE
#define KERN_MODULE(p) ((void *)(p))
#endif
#define N 70000

static void test_ops(void)
{
    int me = gshmem_my_pe(), np = gshmem_n_pes(), left = (me + np - 1) % np;
    int *dst = (int *)gshmem_malloc(N * sizeof(int)), *src = (int *)gshmem_malloc(N * sizeof(int));
    int *pv = (int *)gshmem_calloc(1, sizeof(int));
    uint64_t *ctr = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t)), *sig = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    SCHECK(dst && src && pv && ctr && sig);
    CU(cudaMemset(src, 0xff, N * sizeof(int))); /* kern_ops writes it: a stale -1 would be seen */
    CU(cudaMemset(dst, 0, N * sizeof(int)));
    int *seen;
    CU(cudaMalloc(&seen, 8 * sizeof(int)));
    CU(cudaMemset(seen, 0xff, 8 * sizeof(int)));

    kern_whoami<<<1, 1>>>(seen);
    CU(cudaDeviceSynchronize());
    int who[2];
    CU(cudaMemcpy(who, seen, sizeof who, cudaMemcpyDeviceToHost));
    SCHECK(who[0] == me && who[1] == np);

    int limit = 0;
    SCHECK(gshmemx_collective_launch_query_gridsize((const void *)kern_ops, dim3(256), NULL, 0, &limit) == 0);
    SCHECK(limit >= 1);
    gshmem_barrier_all(); /* the buffers are ready everywhere */
    int n = N;
    void *args[] = {&dst, &src, &pv, &ctr, &sig, &seen, &n};
    SCHECK(gshmemx_collective_launch((const void *)kern_ops, dim3(1), dim3(256), args, 0, 0) == 0);
    CU(cudaDeviceSynchronize());
    int s[6];
    CU(cudaMemcpy(s, seen, sizeof s, cudaMemcpyDeviceToHost));
    SCHECK(s[0] == me && s[1] == np);
    SCHECK(s[2] == 1000 + left);
    SCHECK(s[3] == np * (np + 1) / 2);
    SCHECK(s[4] == 1);
    SCHECK(s[5] == ((me + 1) % np) * 1000000 + 1);
    static int got[N];
    CU(cudaMemcpy(got, dst, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        SCHECK(got[i] == left * 1000000 + i);

    /* A grid that cannot be resident is refused, not launched. */
#ifndef KERN_NO_REFUSAL_CHECK
    SCHECK(gshmemx_collective_launch((const void *)kern_ops, dim3(limit + 1), dim3(256), args, 0, 0) != 0);
#endif

    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(ctr);
    gshmem_free(pv);
    gshmem_free(src);
    gshmem_free(dst);
    CU(cudaFree(seen));
}

static void bench(size_t bytes)
{
    int me = gshmem_my_pe();
    SCHECK(gshmem_n_pes() == 2);
    char *dst = (char *)gshmem_malloc(bytes), *src = (char *)gshmem_malloc(bytes);
    uint64_t *sig = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    SCHECK(dst && src && sig);
    CU(cudaMemset(src, 1 + me, bytes));
    CU(cudaMemset(dst, 0, bytes));
    CU(cudaDeviceSynchronize());
    gshmem_barrier_all();
    if (me == 0) {
        int sms = 0, dev = 0;
        CU(cudaGetDevice(&dev));
        CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        void **pp, *peer;
        CU(cudaMalloc(&pp, sizeof(void *)));
        kern_peer_ptr<<<1, 1>>>(dst, 1, pp);
        CU(cudaMemcpy(&peer, pp, sizeof peer, cudaMemcpyDeviceToHost));
        SCHECK(peer != NULL);
        cudaEvent_t a, b;
        CU(cudaEventCreate(&a));
        CU(cudaEventCreate(&b));
        /* Ten back to back after a warm-up, per grid of 1024-thread
         * blocks (1 to 16 per SM), beside the copy engine's ten. */
        const int reps = 10;
        float best_k = 1e30f, best_c, ms;
        int best_g = 0;
        CU(cudaMemcpyAsync(peer, src, bytes, cudaMemcpyDeviceToDevice));
        CU(cudaEventRecord(a));
        for (int rep = 0; rep < reps; rep++)
            CU(cudaMemcpyAsync(peer, src, bytes, cudaMemcpyDeviceToDevice));
        CU(cudaEventRecord(b));
        CU(cudaEventSynchronize(b));
        CU(cudaEventElapsedTime(&best_c, a, b));
        best_c /= reps;
        for (int mult = 1; mult <= 16; mult *= 2) {
            kern_putbw<<<mult * sms, 1024>>>(dst, src, bytes, 1);
            CU(cudaEventRecord(a));
            for (int rep = 0; rep < reps; rep++)
                kern_putbw<<<mult * sms, 1024>>>(dst, src, bytes, 1);
            CU(cudaEventRecord(b));
            CU(cudaEventSynchronize(b));
            CU(cudaGetLastError());
            CU(cudaEventElapsedTime(&ms, a, b));
            ms /= reps;
            printf("kern putbw grid %d x 1024: %.1f GB/s\n", mult * sms, bytes / (ms * 1e-3) / 1e9);
            if (ms < best_k) {
                best_k = ms;
                best_g = mult * sms;
            }
        }
        double gk = bytes / (best_k * 1e-3) / 1e9, gc = bytes / (best_c * 1e-3) / 1e9;
        printf("BENCH kern putbw %zu B: user kernel %.1f GB/s (grid %d x 1024), cudaMemcpyAsync D2D %.1f GB/s, ratio %.1f %%\n",
               bytes, gk, best_g, gc, 100.0 * gk / gc);
        CU(cudaFree(pp));
    }
    gshmem_barrier_all();
    if (me == 1) {
        /* What PE 0 put landed. */
        static char h[4096];
        CU(cudaMemcpy(h, dst + bytes - sizeof h, sizeof h, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < sizeof h; i++)
            SCHECK(h[i] == 1);
    }
    gshmem_barrier_all();
    /* Ping-pong: a warm-up round, then the signal wait and the typed
     * wait_until. */
    for (int round = 0; round < 3; round++) {
        int iters = round == 0 ? 200 : 20000, wait = round == 2;
        CU(cudaMemset(sig, 0, sizeof *sig));
        CU(cudaDeviceSynchronize());
        gshmem_barrier_all();
        cudaEvent_t a, b;
        CU(cudaEventCreate(&a));
        CU(cudaEventCreate(&b));
        void *args[] = {&sig, &iters, &wait};
        CU(cudaEventRecord(a));
        SCHECK(gshmemx_collective_launch((const void *)kern_pingpong, dim3(1), dim3(1), args, 0, 0) == 0);
        CU(cudaEventRecord(b));
        CU(cudaEventSynchronize(b));
        CU(cudaGetLastError());
        float ms;
        CU(cudaEventElapsedTime(&ms, a, b));
        uint64_t last;
        CU(cudaMemcpy(&last, sig, sizeof last, cudaMemcpyDeviceToHost));
        SCHECK(last == (uint64_t)iters);
        if (me == 0 && round > 0)
            printf("BENCH kern pingpong: %d round trips, one way %.3f us (gshmem_uint64_p + %s in a user kernel)\n", iters,
                   ms * 1e3 / (2.0 * iters), wait ? "gshmem_uint64_wait_until" : "gshmem_signal_wait_until");
    }
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(src);
    gshmem_free(dst);
}

int main(int argc, char **argv)
{
    gshmem_init();
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "nodevice") == 0) {
        /* A host heap: nothing to bind, and the calls that need the
         * device state say so. */
        int limit = -1, x = 0;
        void *args[] = {&x};
        SCHECK(gshmemx_collective_launch_query_gridsize((const void *)kern_whoami, dim3(32), args, 0, &limit) != 0);
        SCHECK(limit == -1);
        SCHECK(gshmemx_collective_launch((const void *)kern_whoami, dim3(1), dim3(32), args, 0, 0) != 0);
        SCHECK(gshmemx_cumodule_init(KERN_MODULE(&x)) != 0);
        SCHECK(gshmemx_cumodule_init(NULL) != 0);
        gshmem_barrier_all();
        printf("kern nodevice ok %d/%d\n", gshmem_my_pe(), gshmem_n_pes());
    } else if (strcmp(mode, "bench") == 0) {
        bench(argc > 2 ? strtoull(argv[2], NULL, 0) : (size_t)1 << 30);
    } else {
        test_ops();
        printf("kern ok %d/%d\n", gshmem_my_pe(), gshmem_n_pes());
    }
    gshmem_finalize();
    return 0;
}
