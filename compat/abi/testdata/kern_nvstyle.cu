/* An NVSHMEM program's shape, renamed: one .cu file that includes only
 * <gshmem.h> and <gshmemx.h> (no gshmem.cuh, no GSHMEM_STATE_DEFINE),
 * compiled with -rdc=true and linked with -lgshmem_device -lmpi_abi, as
 * NVIDIA's nvshmem Jacobi is with -lnvshmem. MPI_Init first, then
 * gshmemx_init_attr over MPI_COMM_WORLD; kernels put rows to the right
 * neighbour (gshmemx_float_put_nbi_block, gshmem_float_p), complete them
 * (gshmem_quiet), signal both neighbours (gshmemx_signal_op) and wait for
 * both (gshmem_uint64_wait_until_all, with no status and with one that
 * masks words nobody sets), round after round between on-stream barriers.
 * On a host heap (no GPU) the kernels cannot run: it checks the host side
 * and says so. */
#include <mpi.h>
#include <gshmem.h>
#include <gshmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                                  \
    do {                                                                                          \
        if (!(c)) {                                                                               \
            fprintf(stderr, "CHECK FAILED %s:%d (PE %d): %s\n", __FILE__, __LINE__, gshmem_my_pe(), #c); \
            gshmem_global_exit(3);                                                                \
        }                                                                                         \
    } while (0)
#define CU(call) CHECK((call) == cudaSuccess)
#define N 4099 /* not a multiple of the block or the vector */

__global__ void ring(float *dst, const float *src, int n, uint64_t *sig, uint64_t round, int me, int np)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    gshmemx_float_put_nbi_block(dst, src, n, right);
    if (threadIdx.x == 0) {
        gshmem_float_p(dst + n, (float)me + round, right);
        gshmem_quiet();
        gshmemx_signal_op(sig, round, GSHMEM_SIGNAL_SET, right);
        gshmemx_signal_op(sig + 1, round, GSHMEM_SIGNAL_SET, left);
        gshmem_uint64_wait_until_all(sig, 2, NULL, GSHMEM_CMP_GE, round);
        const int status[4] = {0, 0, 1, 1}; /* sig[2], sig[3]: never set */
        gshmem_uint64_wait_until_all(sig, 4, status, GSHMEM_CMP_EQ, round);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    gshmemx_init_attr_t attr; /* as NVIDIA's Jacobi: only mpi_comm set */
    attr.mpi_comm = &comm;
    CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) == 0);
    int me = gshmem_my_pe(), np = gshmem_n_pes(), left = (me + np - 1) % np;
    if (!gshmemx_heap_on_device()) {
        gshmem_barrier_all();
        printf("kern nvstyle host heap ok %d/%d\n", me, np);
        gshmem_finalize();
        MPI_Finalize();
        return 0;
    }
    float *dst = (float *)gshmem_malloc((N + 1) * sizeof(float)), *src = (float *)gshmem_malloc(N * sizeof(float));
    uint64_t *sig = (uint64_t *)gshmem_calloc(4, sizeof(uint64_t));
    CHECK(dst && src && sig);
    static float h[N + 1];
    cudaStream_t s;
    CU(cudaStreamCreate(&s));
    for (uint64_t round = 1; round <= 5; round++) {
        for (int i = 0; i < N; i++)
            h[i] = (float)(me * 10000 + i) + round;
        CU(cudaMemcpy(src, h, N * sizeof(float), cudaMemcpyHostToDevice));
        gshmemx_barrier_all_on_stream(s); /* every PE read the last round's dst */
        ring<<<1, 256, 0, s>>>(dst, src, N, sig, round, me, np);
        CU(cudaGetLastError());
        CU(cudaStreamSynchronize(s));
        CU(cudaMemcpy(h, dst, (N + 1) * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            CHECK(h[i] == (float)(left * 10000 + i) + round);
        CHECK(h[N] == (float)left + round);
    }
    gshmem_barrier_all();
    printf("kern nvstyle ok %d/%d\n", me, np);
    gshmem_free(dst);
    gshmem_free(src);
    gshmem_free(sig);
    gshmem_finalize();
    MPI_Finalize();
    return 0;
}
