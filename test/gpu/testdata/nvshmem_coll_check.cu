// nvshmem_coll_check.cu: the team collectives of gshmem_coll.cuh checked on
// the GPU through nvshmem.h: reduce (in place and not), fcollect,
// broadcast, alltoall and reducescatter in thread, warp and block scope,
// and the team barriers, with every PE's values known. Prints
// "coll check ok PE/N" per PE, or what differed. Run with 2 or more PEs.
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>

#define N 40 // elements per PE: more than a warp's chunk of registers
__device__ int bad;

__device__ void expect(int got, int want, int what) {
  if (got != want) atomicAdd(&bad, 1), printf("check %d: got %d, want %d\n", what, got, want);
}

template <int S> __device__ void check(int *src, int *dst, int *big, int me, int n) {
  const nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
  int tid = S == 0 ? 0 : S == 1 ? threadIdx.x % 32 : threadIdx.x, nt = S == 0 ? 1 : S == 1 ? 32 : blockDim.x;
  for (int i = tid; i < N; i += nt) src[i] = me * 1000 + i;
  for (int i = tid; i < N * n; i += nt) big[i] = me * 1000 + i;
  if (S == 1) __syncwarp();
  if (S == 2) __syncthreads();
  int sum0 = 0;
  for (int p = 0; p < n; p++) sum0 += p * 1000;
  // reduce, out of place then in place
  if (S == 0) nvshmem_int_sum_reduce(w, dst, src, N);
  if (S == 1) nvshmemx_int_sum_reduce_warp(w, dst, src, N);
  if (S == 2) nvshmemx_int_sum_reduce_block(w, dst, src, N);
  for (int i = tid; i < N; i += nt) expect(dst[i], sum0 + n * i, 100 * S + 1);
  if (S == 0) nvshmem_int_max_reduce(w, src, src, N);
  if (S == 1) nvshmemx_int_max_reduce_warp(w, src, src, N);
  if (S == 2) nvshmemx_int_max_reduce_block(w, src, src, N);
  for (int i = tid; i < N; i += nt) expect(src[i], (n - 1) * 1000 + i, 100 * S + 2);
  // fcollect of one element each
  for (int i = tid; i < 1; i += nt) src[0] = me;
  if (S == 0) nvshmem_int_fcollect(w, dst, src, 1);
  if (S == 1) nvshmemx_int_fcollect_warp(w, dst, src, 1);
  if (S == 2) nvshmemx_int_fcollect_block(w, dst, src, 1);
  for (int i = tid; i < n; i += nt) expect(dst[i], i, 100 * S + 3);
  // broadcast from the last PE
  if (S == 0) nvshmem_int_broadcast(w, dst, big, N, n - 1);
  if (S == 1) nvshmemx_int_broadcast_warp(w, dst, big, N, n - 1);
  if (S == 2) nvshmemx_int_broadcast_block(w, dst, big, N, n - 1);
  for (int i = tid; i < N; i += nt) expect(dst[i], (n - 1) * 1000 + i, 100 * S + 4);
  // alltoall: block me of PE p's big lands in block p of mine
  if (S == 0) nvshmem_int_alltoall(w, dst, big, 1);
  if (S == 1) nvshmemx_int_alltoall_warp(w, dst, big, 1);
  if (S == 2) nvshmemx_int_alltoall_block(w, dst, big, 1);
  for (int p = tid; p < n; p += nt) expect(dst[p], p * 1000 + me, 100 * S + 5);
  // reducescatter: block me of every PE's big, summed
  if (S == 0) nvshmem_int_sum_reducescatter(w, dst, big, N);
  if (S == 1) nvshmemx_int_sum_reducescatter_warp(w, dst, big, N);
  if (S == 2) nvshmemx_int_sum_reducescatter_block(w, dst, big, N);
  for (int i = tid; i < N; i += nt) expect(dst[i], sum0 + n * (me * N + i), 100 * S + 6);
  if (S == 0) nvshmem_barrier(w), nvshmem_team_sync(w);
  if (S == 1) nvshmemx_barrier_warp(w), nvshmemx_team_sync_warp(w);
  if (S == 2) nvshmemx_barrier_block(w), nvshmemx_team_sync_block(w);
}

__global__ void run(int *src, int *dst, int *big, int me, int n) {
  if (threadIdx.x == 0) check<0>(src, dst, big, me, n);
  __syncthreads();
  if (threadIdx.x < 32) check<1>(src, dst, big, me, n);
  __syncthreads();
  check<2>(src, dst, big, me, n);
}

int main(void) {
  nvshmem_init();
  int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *src = (int *)nvshmem_malloc(N * sizeof(int)), *dst = (int *)nvshmem_malloc(N * 8 * sizeof(int));
  int *big = (int *)nvshmem_malloc(N * 8 * sizeof(int));
  if (n > 8 || !src || !dst || !big) {
    fprintf(stderr, "coll check: needs 2..8 PEs and the heap\n");
    return 2;
  }
  void *args[] = {&src, &dst, &big, &me, &n};
  if (nvshmemx_collective_launch((const void *)run, dim3(1), dim3(128), args, 0, 0) != 0) return 3;
  if (cudaDeviceSynchronize() != cudaSuccess) return fprintf(stderr, "coll check: %s\n", cudaGetErrorString(cudaGetLastError())), 4;
  int b = 0;
  cudaMemcpyFromSymbol(&b, bad, sizeof b);
  nvshmem_barrier_all();
  if (b == 0) printf("coll check ok %d/%d\n", me, n);
  nvshmem_free(big);
  nvshmem_free(dst);
  nvshmem_free(src);
  nvshmem_finalize();
  return b != 0;
}
