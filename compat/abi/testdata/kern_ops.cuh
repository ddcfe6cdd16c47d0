/* kern_ops.cuh: the kernels of the stage-4 C tests (kern_rt.cu,
 * kern_rdc_dev.cu, kern_mod.cu), which call gshmem.cuh's device API to
 * their neighbours. extern "C" so that the driver-API test finds them by
 * name in its module. */
#ifndef KERN_OPS_CUH
#define KERN_OPS_CUH

#include <gshmem.cuh>

/* kern_ops, one block on every PE at once (a collective launch): a block
 * put with signal of src into the right neighbour's dst, a p of 1000 + me
 * into its pv, a p-and-get round through gbuf, an atomic add of me + 1 into
 * PE 0's ctr, then quiet, the signal wait and a device barrier; thread 0
 * records what it saw in seen[0..5]: my_pe, n_pes, pv, the ctr total read
 * back from PE 0, the signal, and the right neighbour's src[1] by g. */
extern "C" __global__ void kern_ops(int *dst, const int *src, int *pv, uint64_t *ctr, uint64_t *sig, int *seen,
                                    int n)
{
    int me = gshmem_my_pe(), np = gshmem_n_pes(), right = (me + 1) % np;
    /* The source is written here, each element by a thread of another warp
     * than the one that copies it, and put with no barrier of the kernel's
     * own: the block form's entry barrier must make every write count. */
    for (int i = n - 1 - (int)threadIdx.x; i >= 0; i -= blockDim.x)
        ((int *)src)[i] = me * 1000000 + i;
    gshmemx_putmem_signal_block(dst, src, n * sizeof(int), sig, 1, GSHMEM_SIGNAL_ADD, right);
    if (threadIdx.x == 0) {
        gshmem_int_p(pv, 1000 + me, right);
        gshmem_uint64_atomic_add(ctr, (uint64_t)(me + 1), 0);
        gshmem_quiet();
        uint64_t s = gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, 1);
        gshmem_barrier_all();
        seen[0] = me;
        seen[1] = np;
        seen[2] = *(volatile int *)pv;
        seen[3] = (int)gshmem_uint64_atomic_fetch(ctr, 0);
        seen[4] = (int)s;
        seen[5] = gshmem_int_g(src + 1, right);
    }
}

/* kern_putbw: the grid puts n bytes of src into dst on pe, each block its
 * slice (16-byte aligned), then quiet. */
extern "C" __global__ void kern_putbw(char *dst, const char *src, size_t n, int pe)
{
    size_t per = ((n + gridDim.x - 1) / gridDim.x + 15) & ~(size_t)15;
    size_t lo = per * blockIdx.x;
    if (lo < n) {
        size_t len = n - lo < per ? n - lo : per;
        gshmemx_putmem_nbi_block(dst + lo, src + lo, len, pe);
    }
    __syncthreads();
    if (threadIdx.x == 0) gshmem_quiet();
}

/* kern_pingpong: PE 0 and PE 1 pass a count back and forth iters times
 * with a p into the other's sig and a wait on their own: a signal wait,
 * or (wait != 0) the typed wait_until. */
extern "C" __global__ void kern_pingpong(uint64_t *sig, int iters, int wait)
{
    int me = gshmem_my_pe(), peer = 1 - me;
    for (int i = 1; i <= iters; i++) {
        if (me == 1) {
            if (wait)
                gshmem_uint64_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)i);
            else
                gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)i);
        }
        gshmem_uint64_p(sig, (uint64_t)i, peer);
        if (me == 0) {
            if (wait)
                gshmem_uint64_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)i);
            else
                gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)i);
        }
    }
}

/* kern_peer_ptr: gshmem_ptr on the device, for the copy-engine baseline. */
extern "C" __global__ void kern_peer_ptr(const void *sym, int pe, void **out) { *out = gshmem_ptr(sym, pe); }

#endif
