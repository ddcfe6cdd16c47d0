// Device self-test: a kernel that runs every device operation of
// gshmem.cuh across the PEs and records what it saw for the host to check
// (test/gpu). Compiled to selftest.ptx by `go generate ./kernels/cuda`; it
// is also the test of binding the state table into a module that is not
// the built-in one.
#include "gshmem.cuh"

struct gshmemt_args {
  long long *vals;          // sym, >= 4 elements, zeroed
  uint64_t *ctr;            // sym, 1 element, zeroed
  uint64_t *bits;           // sym, 1 element, zeroed
  uint64_t *sig;            // sym, 1 element, zeroed
  int *buf;                 // sym, n ints, zeroed: receives the left PE's src (block put + signal)
  int *wbuf;                // sym, n ints, zeroed: receives the left PE's src (warp put)
  int *src;                 // sym, n ints: this PE's pattern, me * 1000000 + i
  int *gbuf;                // sym, n ints: the right PE's src, fetched with a block get
  unsigned long long *out;  // sym, 16 elements: results
  int n;
};

extern "C" __global__ void gshmemt_ops(gshmemt_args a) {
  int me = gshmem_my_pe(), npes = gshmem_n_pes();
  int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  bool t0 = threadIdx.x == 0;
  if (t0) {
    gshmem_longlong_p(&a.vals[0], 1000 + me, right);
    gshmem_uint64_atomic_add(a.ctr, 1, 0);
    gshmem_uint64_atomic_or(a.bits, 1ull << me, 0);
    gshmem_barrier_all();
    a.out[0] = (unsigned long long)a.vals[0];                         // 1000 + left
    a.out[1] = (unsigned long long)gshmem_longlong_g(&a.vals[0], right); // 1000 + me
    a.out[2] = gshmem_uint64_atomic_fetch(a.ctr, 0);                   // npes
    a.out[5] = gshmem_uint64_atomic_fetch(a.bits, 0);                  // (1 << npes) - 1
    gshmem_barrier_all();
    a.out[3] = gshmem_uint64_atomic_compare_swap(a.ctr, (unsigned long long)npes, 100 + me, 0);
    a.out[6] = (unsigned long long)gshmem_longlong_atomic_swap(&a.vals[1], me + 7, right); // 0
    gshmem_uint64_atomic_xor(a.bits, 1ull << me, 0);
    a.out[9] = gshmem_uint64_atomic_fetch_add(a.ctr, 0, 0);
    gshmem_barrier_all();
    a.out[4] = gshmem_uint64_atomic_fetch(a.ctr, 0);  // 100 + the PE whose swap won
    a.out[7] = gshmem_uint64_atomic_fetch(a.bits, 0); // 0
    a.out[10] = (unsigned long long)a.vals[1];        // left + 7
    gshmem_longlong_atomic_set(&a.vals[2], 55 + me, right);
    gshmem_int_atomic_fetch_inc((int *)&a.vals[3], right);
    gshmem_quiet();
  }
  __syncthreads();
  // Block-scoped put with signal into the right neighbour, then wait for
  // the left neighbour's.
  gshmemx_putmem_signal_block(a.buf, a.src, a.n * sizeof(int), a.sig, 1, GSHMEM_SIGNAL_ADD, right);
  // Warp-scoped put by the first warp.
  if (threadIdx.x < 32) gshmemx_int_put_warp(a.wbuf, a.src, a.n, right);
  if (t0) {
    a.out[8] = gshmem_signal_wait_until(a.sig, GSHMEM_CMP_GE, 1); // 1
  }
  __syncthreads();
  unsigned long long bad = 0;
  for (int i = threadIdx.x; i < a.n; i += blockDim.x) bad += a.buf[i] != left * 1000000 + i;
  if (bad) atomicAdd(&a.out[11], bad);
  gshmemx_barrier_all_block();
  unsigned long long wbad = 0, gbad = 0;
  for (int i = threadIdx.x; i < a.n; i += blockDim.x) wbad += a.wbuf[i] != left * 1000000 + i;
  if (wbad) atomicAdd(&a.out[12], wbad);
  gshmemx_int_get_block(a.gbuf, a.src, a.n, right);
  for (int i = threadIdx.x; i < a.n; i += blockDim.x) gbad += a.gbuf[i] != right * 1000000 + i;
  if (gbad) atomicAdd(&a.out[13], gbad);
  if (t0) {
    a.out[14] = (unsigned long long)a.vals[2]; // 55 + left
    a.out[15] = (unsigned long long)(unsigned int)*(int *)&a.vals[3]; // 1
  }
  gshmemx_barrier_all_block();
}

// Block-scoped team collectives (test/gpu): one block per member of team.
struct gshmemt_coll_args {
  gshmem_team_t team;
  long long *src; // sym, n*np: this PE's values
  long long *dst; // sym, n: sum reduce of src
  long long *ip;  // sym, n: xor-reduced in place
  double *fsrc;   // sym, n
  double *fdst;   // sym, n: max reduce of fsrc
  long long *bc;  // sym, n: broadcast of the root's src
  long long *fc;  // sym, n*np: fcollect of src
  long long *at;  // sym, n*np: alltoall of src
  long long *sm;  // sym, 3: sum of src[0..3), one-round reduction, three times
  long long *smip; // sym, 8: xor of src[0..8) in place, one-round reduction
  int n, root;
};

extern "C" __global__ void gshmemt_coll(gshmemt_coll_args a) {
  gshmemx_longlong_sum_reduce_block(a.team, a.dst, a.src, a.n);
  gshmemx_longlong_xor_reduce_block(a.team, a.ip, a.ip, a.n);
  gshmemx_double_max_reduce_block(a.team, a.fdst, a.fsrc, a.n);
  gshmemx_longlong_broadcast_block(a.team, a.bc, a.src, a.n, a.root);
  gshmemx_longlong_fcollect_block(a.team, a.fc, a.src, a.n);
  gshmemx_longlong_alltoall_block(a.team, a.at, a.src, a.n);
  for (int k = 0; k < 3; k++) gshmemx_longlong_sum_reduce_block(a.team, a.sm, a.src, 3);
  gshmemx_longlong_xor_reduce_block(a.team, a.smip, a.smip, 8);
  gshmemx_barrier_block(a.team);
}

// iters all-reduces of n floats in a loop, for the bench.
extern "C" __global__ void gshmemt_reduce_loop(gshmem_team_t team, float *dst, const float *src, int n, int iters) {
  for (int i = 0; i < iters; i++) gshmemx_float_sum_reduce_block(team, dst, src, n);
}
