// NVSHMEM's side of test/gpu/run.sh cabi's figures: the measurements of
// compat/abi/testdata/gshmem_stream.c's perf, in the same shapes, through
// NVSHMEM's own calls (on-stream put of 8 B from a symmetric and from a
// cudaMalloc'd source; putmem_signal_on_stream ping-pong of 8 B, one way).
// Built and run by run.sh cabi on the GPU machine, with NVSHMEM from its
// pip wheel, 2 PEs under Open MPI and MPS.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));          \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main()
{
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int ndev = 1;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(lr ? atoi(lr) % ndev : 0));
    CK(cudaFree(0)); // NVSHMEM wants a current context before init
    nvshmem_init();
    int me = nvshmem_my_pe();
    char *dst = (char *)nvshmem_calloc(64, 1), *src = (char *)nvshmem_calloc(64, 1);
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    void *c;
    CK(cudaMalloc(&c, 64));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float ms;
    nvshmem_barrier_all();
    if (me == 0) {
        for (int k = 0; k < 2; k++) {
            const char *what = k == 0 ? "symmetric source" : "cudaMalloc source";
            void *s = k == 0 ? (void *)src : c;
            nvshmemx_putmem_on_stream(dst, s, 8, 1, st);
            CK(cudaStreamSynchronize(st));
            CK(cudaEventRecord(a, st));
            for (int i = 0; i < 1000; i++)
                nvshmemx_putmem_on_stream(dst, s, 8, 1, st);
            nvshmemx_quiet_on_stream(st);
            CK(cudaEventRecord(b, st));
            CK(cudaEventSynchronize(b));
            CK(cudaEventElapsedTime(&ms, a, b));
            printf("BENCH nvshmem putmem_on_stream 8 B, %s (events, 1000 puts): %.2f us/op\n", what, ms * 1e3 / 1000);
            double t0 = now_us();
            for (int r = 0; r < 20; r++) {
                for (int i = 0; i < 100; i++) {
                    nvshmemx_putmem_on_stream(dst, s, 8, 1, st);
                    nvshmemx_quiet_on_stream(st);
                }
                CK(cudaStreamSynchronize(st));
            }
            printf("BENCH nvshmem putmem_on_stream 8 B, %s (host wall, bursts of 100 put+quiet): %.2f us/op\n", what,
                   (now_us() - t0) / 2000);
        }
    }
    nvshmem_barrier_all();
    const int iters = 1000;
    for (int k = 0; k < 2; k++) {
        CK(cudaMemset(sig, 0, sizeof(uint64_t)));
        CK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        double t0 = now_us();
        CK(cudaEventRecord(a, st));
        for (int i = 1; i <= iters; i++) {
            if (me == 0) {
                nvshmemx_putmem_signal_on_stream(dst, src, 8, sig, i, NVSHMEM_SIGNAL_SET, 1, st);
                nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_GE, i, st);
            } else if (me == 1) {
                nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_GE, i, st);
                nvshmemx_putmem_signal_on_stream(dst, src, 8, sig, i, NVSHMEM_SIGNAL_SET, 0, st);
            }
        }
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        double wall = now_us() - t0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (me == 0 && k == 1)
            printf("BENCH nvshmem putmem_signal_on_stream ping-pong 8 B one way (%d round trips): %.2f us (events), %.2f "
                   "us (host wall)\n",
                   iters, ms * 1e3 / iters / 2, wall / iters / 2);
        nvshmem_barrier_all();
    }
    CK(cudaFree(c));
    nvshmem_free(sig);
    nvshmem_free(src);
    nvshmem_free(dst);
    nvshmem_finalize();
    return 0;
}
