// Built-in kernels of the CUDA backend, compiled to builtin.ptx by
// `go generate ./internal/devstate` (against kernels/cuda/gshmem.cuh) and
// loaded once per PE into its context: the device forms of host-initiated
// operations (atomics, stream barrier, stream waits that stream memory
// operations cannot express) and the kernels of the device benchmarks.
#include "gshmem.cuh"
#include "coll.cuh"

#define GSHMEMI_OP_LOAD 0
#define GSHMEMI_OP_STORE 1
#define GSHMEMI_OP_SWAP 2
#define GSHMEMI_OP_CAS 3
#define GSHMEMI_OP_ADD 4
#define GSHMEMI_OP_AND 5
#define GSHMEMI_OP_OR 6
#define GSHMEMI_OP_XOR 7

// One atomic on the word at addr (a mapped peer address), the previous
// value written to *out (host-mapped memory) unless out is 0.
extern "C" __global__ void gshmemi_amo(unsigned long long addr, unsigned int width, unsigned int op,
                                       unsigned long long v, unsigned long long cmp, unsigned long long out) {
  unsigned long long old = 0;
  if (width == 8) {
    unsigned long long *p = (unsigned long long *)addr;
    switch (op) {
    case GSHMEMI_OP_LOAD: old = gshmemi_ld_acquire_u64(p); break;
    case GSHMEMI_OP_STORE: gshmemi_st_release_u64(p, v); break;
    case GSHMEMI_OP_SWAP: old = atomicExch_system(p, v); break;
    case GSHMEMI_OP_CAS: old = atomicCAS_system(p, cmp, v); break;
    case GSHMEMI_OP_ADD: old = atomicAdd_system(p, v); break;
    case GSHMEMI_OP_AND: old = atomicAnd_system(p, v); break;
    case GSHMEMI_OP_OR: old = atomicOr_system(p, v); break;
    case GSHMEMI_OP_XOR: old = atomicXor_system(p, v); break;
    }
  } else {
    unsigned int *p = (unsigned int *)addr;
    unsigned int w = (unsigned int)v, c = (unsigned int)cmp;
    switch (op) {
    case GSHMEMI_OP_LOAD: old = gshmemi_ld_acquire_u32(p); break;
    case GSHMEMI_OP_STORE: asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(w) : "memory"); break;
    case GSHMEMI_OP_SWAP: old = atomicExch_system(p, w); break;
    case GSHMEMI_OP_CAS: old = atomicCAS_system(p, c, w); break;
    case GSHMEMI_OP_ADD: old = atomicAdd_system(p, w); break;
    case GSHMEMI_OP_AND: old = atomicAnd_system(p, w); break;
    case GSHMEMI_OP_OR: old = atomicOr_system(p, w); break;
    case GSHMEMI_OP_XOR: old = atomicXor_system(p, w); break;
    }
  }
  gshmem_quiet();
  if (out) *(volatile unsigned long long *)out = old;
}

// A stream-ordered barrier across every PE (BarrierOnStream).
extern "C" __global__ void gshmemi_barrier_all(void) { gshmem_barrier_all(); }

// A stream-ordered sync (no quiet).
extern "C" __global__ void gshmemi_sync_all(void) { gshmem_sync_all(); }

// A stream-ordered wait on this PE's 64-bit word at addr (local address)
// for the comparisons stream memory operations cannot express.
extern "C" __global__ void gshmemi_wait_until_u64(unsigned long long addr, int cmp, unsigned long long value) {
  gshmemi_wait_until<unsigned long long>((const unsigned long long *)addr, cmp, value);
}

// A stream-ordered signal add at a mapped address.
extern "C" __global__ void gshmemi_signal_add(unsigned long long addr, unsigned long long value) {
  gshmemi_red_release_add_u64((unsigned long long *)addr, value);
}

// A stream-ordered put of n bytes between mapped addresses, for sizes where
// a kernel costs less than a copy-engine copy; with sig != 0 and a single
// block, the signal follows the data in the same kernel (op: 0 set, 1 add).
extern "C" __global__ void gshmemi_put_nbi(char *dst, const char *src, unsigned long long n, unsigned long long sig,
                                           unsigned long long value, int op) {
  int nt = blockDim.x * gridDim.x;
  gshmemi_copy(dst, src, n, blockIdx.x * blockDim.x + threadIdx.x, nt);
  if (sig) {
    __syncthreads();
    if (threadIdx.x == 0) {
      gshmem_fence();
      if (op == GSHMEM_SIGNAL_ADD) {
        gshmemi_red_release_add_u64((unsigned long long *)sig, value);
      } else {
        gshmemi_st_release_u64((unsigned long long *)sig, value);
      }
    }
  }
}

// ------------------------------------------------------------ benchmarks ---

// Device-initiated bulk put: block b puts its share of bytes into pe's dst
// (NVSHMEM's putmem_nbi_block benchmark shape).
extern "C" __global__ void gshmemi_bench_put_block(char *dst, const char *src, unsigned long long bytes, int pe) {
  unsigned long long chunk = (bytes / gridDim.x) & ~15ull;
  unsigned long long start = chunk * blockIdx.x;
  unsigned long long n = blockIdx.x == gridDim.x - 1 ? bytes - start : chunk;
  gshmemx_putmem_nbi_block(dst + start, src + start, n, pe);
}

// The reference: a plain grid-stride uint4 copy between two local buffers.
extern "C" __global__ void gshmemi_bench_copy(uint4 *dst, const uint4 *src, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

// Ping-pong: p of a long into the peer's flag, then wait for the peer's
// answer in our own flag. Run by one thread on each of the two PEs.
extern "C" __global__ void gshmemi_bench_pingpong(long long *flag, int iters, int first, int peer) {
  for (int i = 1; i <= iters; i++) {
    if (first) {
      gshmem_longlong_p(flag, (long long)i, peer);
      gshmem_longlong_wait_until(flag, GSHMEM_CMP_EQ, (long long)i);
    } else {
      gshmem_longlong_wait_until(flag, GSHMEM_CMP_EQ, (long long)i);
      gshmem_longlong_p(flag, (long long)i, peer);
    }
  }
}

// Fills n 32-bit words at p with seed + index.
extern "C" __global__ void gshmemi_fill_u32(unsigned int *p, unsigned long long n, unsigned int seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = seed + (unsigned int)i;
}

// Counts the words of p that differ from seed + index into *bad.
extern "C" __global__ void gshmemi_check_u32(const unsigned int *p, unsigned long long n, unsigned int seed,
                                             unsigned long long *bad) {
  unsigned long long local = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    local += p[i] != seed + (unsigned int)i;
  if (local) atomicAdd(bad, local);
}
