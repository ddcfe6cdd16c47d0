/* Timings of the CUDA-aware C ABI (issue 22), 2 ranks, device buffers
 * (cuMemAlloc) on both sides, in the shape of OSU's osu_latency -d cuda D D
 * (our own code, not OSU's): a Send/Recv ping-pong and an MPI_Sendrecv
 * ping-pong of 8 B, 4 KiB, 64 KiB and 1 MiB, one-way time = round trip / 2
 * (with the argument "host": the same between malloc'd host buffers, in
 * whatever job it runs, and no window figures); and MPI_Put
 * of 8 B + MPI_Win_flush on a window whose memory is on the GPU
 * (MPI_Win_allocate, gshmem_memory=device) from a device and from a host
 * origin, time per put+flush. Each figure is the median of 5 timed rounds
 * after a warm-up round. Build: cc cudap2p_bench.c -lmpi_abi -lcuda. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>
#include <mpi.h>

#define ROUNDS 6 /* the first is warm-up */

#define OK(call)                                                              \
    do {                                                                      \
        if ((call) != 0) {                                                    \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
            MPI_Abort(MPI_COMM_WORLD, 3);                                     \
        }                                                                     \
    } while (0)

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of rounds 1..ROUNDS-1 */
static double median(double *t)
{
    qsort(t + 1, ROUNDS - 1, sizeof *t, cmp);
    return t[1 + (ROUNDS - 1) / 2];
}

int main(int argc, char **argv)
{
    int rank, size;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "cudap2p_bench: 2 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    CUdevice dev;
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuDeviceGet(&dev, 0));
    OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    OK(cuCtxSetCurrent(ctx));
    int onHost = argc > 1 && strcmp(argv[1], "host") == 0;
    CUdeviceptr ds = 0, dr = 0;
    void *s, *r;
    if (onHost) {
        s = calloc(1, 1 << 20);
        r = calloc(1, 1 << 20);
        if (!s || !r)
            MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
        OK(cuMemAlloc(&ds, 1 << 20));
        OK(cuMemAlloc(&dr, 1 << 20));
        s = (void *)(uintptr_t)ds;
        r = (void *)(uintptr_t)dr;
    }
    const char *kind = onHost ? "host->host" : "device->device";
    int peer = 1 - rank;
    const int sizes[] = {8, 4096, 65536, 1 << 20};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    for (int shape = 0; shape < 2; shape++)
        for (int zi = 0; zi < nsizes; zi++) {
            int n = sizes[zi], iters = n <= 8192 ? 2000 : 300;
            double t[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                OK(MPI_Barrier(MPI_COMM_WORLD));
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) {
                    if (shape == 0) {
                        if (rank == 0) {
                            OK(MPI_Send(s, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
                            OK(MPI_Recv(r, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                        } else {
                            OK(MPI_Recv(r, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                            OK(MPI_Send(s, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
                        }
                    } else {
                        /* a ping-pong whose every step is one MPI_Sendrecv:
                         * each rank sends and receives n bytes per step */
                        OK(MPI_Sendrecv(s, n, MPI_BYTE, peer, 2, r, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    }
                }
                t[round] = (MPI_Wtime() - t0) * 1e6 / (shape == 0 ? 2.0 * iters : iters);
            }
            double m = median(t);
            if (rank == 0)
                printf("BENCH abi %s %s %d B: %.2f us %s (median of %d rounds)\n",
                       shape == 0 ? "Send/Recv ping-pong" : "Sendrecv exchange", kind, n, m,
                       shape == 0 ? "one way" : "per call", ROUNDS - 1);
        }

    if (onHost) {
        free(s);
        free(r);
        OK(MPI_Finalize());
        return 0;
    }
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "gshmem_memory", "device"));
    void *base;
    MPI_Win win;
    OK(MPI_Win_allocate(1 << 16, 1, info, MPI_COMM_WORLD, &base, &win));
    OK(MPI_Win_lock_all(0, win));
    uint64_t host = 42;
    for (int origin = 0; origin < 2; origin++) {
        int iters = 2000;
        double t[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double t0 = MPI_Wtime();
            if (rank == 0)
                for (int i = 0; i < iters; i++) {
                    OK(MPI_Put(origin == 0 ? s : (void *)&host, 8, MPI_BYTE, peer, 64 * (i & 63), 8, MPI_BYTE, win));
                    OK(MPI_Win_flush(peer, win));
                }
            t[round] = (MPI_Wtime() - t0) * 1e6 / iters;
        }
        double m = median(t);
        if (rank == 0)
            printf("BENCH abi MPI_Put 8 B + flush, %s origin -> device window: %.2f us (median of %d rounds)\n",
                   origin == 0 ? "device" : "host", m, ROUNDS - 1);
    }
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_free(&win));
    OK(MPI_Info_free(&info));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(cuMemFree(ds));
    OK(cuMemFree(dr));
    OK(MPI_Finalize());
    return 0;
}
