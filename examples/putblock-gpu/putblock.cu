// The kernel of examples/putblock-gpu: NVSHMEM's put-block example shape.
// Each block of the grid puts its share of this PE's source block into the
// right neighbour's destination, block-scoped, then the block's first
// thread sets a per-block flag there with a signal (data before signal).
#include "gshmem.cuh"

extern "C" __global__ void putblock(int *dst, const int *src, uint64_t *flags, unsigned long long nelems) {
  int me = gshmem_my_pe(), npes = gshmem_n_pes();
  int right = (me + 1) % npes;
  unsigned long long per = (nelems + gridDim.x - 1) / gridDim.x;
  unsigned long long lo = per * blockIdx.x;
  unsigned long long hi = lo + per < nelems ? lo + per : nelems;
  if (lo < hi) {
    gshmemx_int_put_block(dst + lo, src + lo, hi - lo, right);
  }
  if (threadIdx.x == 0) {
    gshmem_fence();
    gshmem_signal_op(flags + blockIdx.x, 1, GSHMEM_SIGNAL_SET, right);
  }
}
