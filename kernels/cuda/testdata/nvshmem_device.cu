// nvshmem_device.cu: one kernel calling every family of NVSHMEM's device
// API that gshmem provides, under NVSHMEM's names, through nvshmem.h and
// nvshmemx.h as NVSHMEM programs include them. Compiled, not run, by
// TestNVSHMEMDeviceCompiles.
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void every_family(int *ibuf, long *lbuf, float *fbuf, double *dbuf, uint64_t *sig, size_t *idx, int *status,
                             char *mem) {
  int pe = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  // typed, sized and mem RMA, every scope
  nvshmem_int_p(ibuf, 1, pe);
  int g = nvshmem_int_g(ibuf, pe);
  nvshmem_float_put(fbuf, fbuf + 8, 4, pe);
  nvshmem_double_get_nbi(dbuf, dbuf + 8, 4, pe);
  nvshmemx_long_put_warp(lbuf, lbuf + 8, 4, pe);
  nvshmemx_int_get_nbi_block(ibuf, ibuf + 8, 4, pe);
  nvshmem_putmem(mem, mem + 64, 16, pe);
  nvshmemx_getmem_block(mem, mem + 64, 16, pe);
  nvshmemx_putmem_nbi_warp(mem, mem + 64, 16, pe);
  // strided, every scope
  nvshmem_int_iput(ibuf, ibuf + 8, 2, 1, 4, pe);
  nvshmem_double_iget(dbuf, dbuf + 8, 1, 2, 4, pe);
  nvshmemx_float_iput_warp(fbuf, fbuf + 8, 2, 1, 4, pe);
  nvshmemx_long_iget_block(lbuf, lbuf + 8, 1, 2, 4, pe);
  // put with signal, every scope
  nvshmem_int_put_signal(ibuf, ibuf + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmem_double_put_signal_nbi(dbuf, dbuf + 8, 4, sig, 1, NVSHMEM_SIGNAL_SET, pe);
  nvshmemx_float_put_signal_warp(fbuf, fbuf + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmemx_long_put_signal_nbi_block(lbuf, lbuf + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmemx_putmem_signal_nbi_warp(mem, mem + 64, 16, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmemx_signal_op(sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  // AMOs
  int old = nvshmem_int_atomic_fetch_add(ibuf, 1, pe);
  nvshmem_uint64_atomic_xor((uint64_t *)sig, 3, pe);
  long l = nvshmem_long_atomic_compare_swap(lbuf, 0, 1, pe);
  size_t z = nvshmem_size_atomic_fetch_inc(idx, pe) + nvshmem_size_atomic_fetch(idx, pe);
  nvshmem_ptrdiff_atomic_xor((ptrdiff_t *)lbuf, 1, pe);
  nvshmem_uint_atomic_add((unsigned int *)ibuf, 1u, pe);
  int32_t c = nvshmem_int32_atomic_swap(ibuf, 2, pe);
  float f = nvshmem_float_atomic_fetch(fbuf, pe);
  nvshmem_double_atomic_set(dbuf, 1.0, pe);
  // waits and tests, all/any/some and vector
  nvshmem_fence();
  nvshmem_quiet();
  nvshmem_int_wait_until(ibuf, NVSHMEM_CMP_GE, 0);
  nvshmem_long_wait_until_all(lbuf, 4, status, NVSHMEM_CMP_GE, 0L);
  size_t any = nvshmem_int_wait_until_any(ibuf, 4, status, NVSHMEM_CMP_NE, 7);
  size_t some = nvshmem_long_wait_until_some_vector(lbuf, 4, idx, status, NVSHMEM_CMP_GE, lbuf + 8);
  int all = nvshmem_int_test_all_vector(ibuf, 4, status, NVSHMEM_CMP_EQ, ibuf + 8);
  size_t t = nvshmem_size_test_some((size_t *)lbuf, 4, idx, status, NVSHMEM_CMP_GT, 0);
  uint64_t s = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1) + nvshmem_signal_fetch(sig);
  // barriers and syncs, collectives in block scope
  nvshmem_barrier_all();
  nvshmemx_barrier_all_block();
  nvshmemx_sync_all_block();
  nvshmemx_team_sync_block(NVSHMEM_TEAM_WORLD);
  nvshmemx_int_sum_reduce_block(NVSHMEM_TEAM_WORLD, ibuf, ibuf + 8, 4);
  nvshmemx_double_max_reduce_block(NVSHMEM_TEAM_WORLD, dbuf, dbuf + 8, 4);
  nvshmemx_float_broadcast_block(NVSHMEM_TEAM_WORLD, fbuf, fbuf + 8, 4, 0);
  nvshmemx_long_fcollect_block(NVSHMEM_TEAM_WORLD, lbuf, lbuf + 8, 1);
  nvshmemx_int_alltoall_block(NVSHMEM_TEAM_WORLD, ibuf, ibuf + 8, 1);
  nvshmemx_int_and_reduce_block(NVSHMEM_TEAM_WORLD, ibuf, ibuf + 8, 4);
  nvshmemx_size_broadcast_block(NVSHMEM_TEAM_WORLD, idx, idx + 8, 4, 0);
  nvshmemx_double_fcollect_block(NVSHMEM_TEAM_WORLD, dbuf, dbuf + 8, 1);
  nvshmemx_uint8_alltoall_block(NVSHMEM_TEAM_WORLD, (uint8_t *)mem, (uint8_t *)mem + 64, 1);
  // thread and warp scope, reducescatter in every scope (gshmem_coll.cuh)
  nvshmem_barrier(NVSHMEM_TEAM_WORLD);
  nvshmem_team_sync(NVSHMEM_TEAM_WORLD);
  nvshmemx_barrier_warp(NVSHMEM_TEAM_WORLD);
  nvshmemx_team_sync_warp(NVSHMEM_TEAM_WORLD);
  nvshmemx_sync_all_warp();
  nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, ibuf, ibuf + 8, 1);
  nvshmem_double_sum_reduce(NVSHMEM_TEAM_WORLD, dbuf, dbuf, 4);
  nvshmem_uint64_xor_reduce(NVSHMEM_TEAM_WORLD, (uint64_t *)lbuf, (uint64_t *)lbuf + 8, 2);
  nvshmem_float_broadcast(NVSHMEM_TEAM_WORLD, fbuf, fbuf + 8, 4, 0);
  nvshmem_long_alltoall(NVSHMEM_TEAM_WORLD, lbuf, lbuf + 8, 1);
  nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, mem, (char *)mem + 64, 8);
  nvshmemx_int_max_reduce_warp(NVSHMEM_TEAM_WORLD, ibuf, ibuf + 8, 4);
  nvshmemx_float_fcollect_warp(NVSHMEM_TEAM_WORLD, fbuf, fbuf + 8, 1);
  nvshmemx_broadcastmem_warp(NVSHMEM_TEAM_WORLD, mem, (char *)mem + 64, 8, 0);
  nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, ibuf, ibuf + 8, 1);
  nvshmemx_double_min_reducescatter_warp(NVSHMEM_TEAM_WORLD, dbuf, dbuf + 8, 1);
  nvshmemx_size_or_reducescatter_block(NVSHMEM_TEAM_WORLD, idx, idx + 8, 1);
  void *p = nvshmem_ptr(ibuf, pe);
  ibuf[0] = g + old + (int)l + (int)any + (int)some + all + (int)t + (int)s + (p != 0) + (int)z + c + (int)f;
}


// Every family of the 2-byte floats (half, __nv_bfloat16), every scope.
#define HALF_REDUCE(N, T, OP)                                                                                      \
  nvshmem_##N##_##OP##_reduce(NVSHMEM_TEAM_WORLD, d, d + 8, 4);                                                   \
  nvshmemx_##N##_##OP##_reduce_warp(NVSHMEM_TEAM_WORLD, d, d + 8, 4);                                            \
  nvshmemx_##N##_##OP##_reduce_block(NVSHMEM_TEAM_WORLD, d, d + 8, 4);                                           \
  nvshmem_##N##_##OP##_reducescatter(NVSHMEM_TEAM_WORLD, d, d + 8, 2);                                            \
  nvshmemx_##N##_##OP##_reducescatter_warp(NVSHMEM_TEAM_WORLD, d, d + 8, 2);                                     \
  nvshmemx_##N##_##OP##_reducescatter_block(NVSHMEM_TEAM_WORLD, d, d + 8, 2);
#define HALF_FAMILIES(N, T)                                                                                        \
  __device__ void N##_families(T *d, uint64_t *sig, int pe) {                                                     \
    nvshmem_##N##_p(d, nvshmem_##N##_g(d + 1, pe), pe);                                                           \
    nvshmem_##N##_put(d, d + 8, 4, pe);                                                                           \
    nvshmem_##N##_get(d, d + 8, 4, pe);                                                                           \
    nvshmem_##N##_put_nbi(d, d + 8, 4, pe);                                                                       \
    nvshmem_##N##_get_nbi(d, d + 8, 4, pe);                                                                       \
    nvshmemx_##N##_put_warp(d, d + 8, 4, pe);                                                                     \
    nvshmemx_##N##_get_warp(d, d + 8, 4, pe);                                                                     \
    nvshmemx_##N##_put_nbi_warp(d, d + 8, 4, pe);                                                                 \
    nvshmemx_##N##_get_nbi_warp(d, d + 8, 4, pe);                                                                 \
    nvshmemx_##N##_put_block(d, d + 8, 4, pe);                                                                    \
    nvshmemx_##N##_get_block(d, d + 8, 4, pe);                                                                    \
    nvshmemx_##N##_put_nbi_block(d, d + 8, 4, pe);                                                                \
    nvshmemx_##N##_get_nbi_block(d, d + 8, 4, pe);                                                                \
    nvshmem_##N##_iput(d, d + 8, 2, 1, 4, pe);                                                                    \
    nvshmem_##N##_iget(d, d + 8, 1, 2, 4, pe);                                                                    \
    nvshmemx_##N##_iput_warp(d, d + 8, 2, 1, 4, pe);                                                              \
    nvshmemx_##N##_iget_warp(d, d + 8, 1, 2, 4, pe);                                                              \
    nvshmemx_##N##_iput_block(d, d + 8, 2, 1, 4, pe);                                                             \
    nvshmemx_##N##_iget_block(d, d + 8, 1, 2, 4, pe);                                                             \
    nvshmem_##N##_put_signal(d, d + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);                                        \
    nvshmem_##N##_put_signal_nbi(d, d + 8, 4, sig, 1, NVSHMEM_SIGNAL_SET, pe);                                    \
    nvshmemx_##N##_put_signal_warp(d, d + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);                                  \
    nvshmemx_##N##_put_signal_nbi_warp(d, d + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);                              \
    nvshmemx_##N##_put_signal_block(d, d + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);                                 \
    nvshmemx_##N##_put_signal_nbi_block(d, d + 8, 4, sig, 1, NVSHMEM_SIGNAL_ADD, pe);                             \
    nvshmem_##N##_broadcast(NVSHMEM_TEAM_WORLD, d, d + 8, 4, 0);                                                  \
    nvshmemx_##N##_broadcast_warp(NVSHMEM_TEAM_WORLD, d, d + 8, 4, 0);                                            \
    nvshmemx_##N##_broadcast_block(NVSHMEM_TEAM_WORLD, d, d + 8, 4, 0);                                           \
    nvshmem_##N##_fcollect(NVSHMEM_TEAM_WORLD, d, d + 8, 1);                                                      \
    nvshmemx_##N##_fcollect_warp(NVSHMEM_TEAM_WORLD, d, d + 8, 1);                                                \
    nvshmemx_##N##_fcollect_block(NVSHMEM_TEAM_WORLD, d, d + 8, 1);                                               \
    nvshmem_##N##_alltoall(NVSHMEM_TEAM_WORLD, d, d + 8, 1);                                                      \
    nvshmemx_##N##_alltoall_warp(NVSHMEM_TEAM_WORLD, d, d + 8, 1);                                                \
    nvshmemx_##N##_alltoall_block(NVSHMEM_TEAM_WORLD, d, d + 8, 1);                                               \
    HALF_REDUCE(N, T, sum) HALF_REDUCE(N, T, prod) HALF_REDUCE(N, T, min) HALF_REDUCE(N, T, max)                  \
  }
HALF_FAMILIES(half, half)
HALF_FAMILIES(bfloat16, __nv_bfloat16)

__global__ void half_families(half *h, __nv_bfloat16 *b, uint64_t *sig) {
  int pe = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  half_families(h, sig, pe);
  bfloat16_families(b, sig, pe);
}

int main(void) {
  nvshmem_init();
  int *ibuf = (int *)nvshmem_malloc(4096);
  nvshmem_free(ibuf);
  nvshmem_finalize();
  return 0;
}
