// gshmem.cuh: the device side of gshmem, for kernels that issue their own
// puts, gets, atomics, signals and waits (the NVSHMEM device API's shape).
//
// Header only. Include it in a .cu file, compile that file to PTX
//
//     nvcc -arch=sm_90 -ptx -O3 -I kernels/cuda my.cu -o my.ptx
//
// and load the PTX with kernels.Load (Go, -tags cuda): the loader writes
// this PE's state table into the module's gshmemi_state symbol before any
// kernel runs. A symmetric address is an address inside this PE's own heap
// (shmem.DevicePtr of a Sym for this PE, or a pointer derived from it): the
// calls below turn it into the target PE's heap as mapped in this context
// (CUDA IPC for another process, the same pointer for a PE of this process,
// peer access for another GPU) from the state table.
//
// Scopes: the plain calls are made by one thread; the _warp forms by every
// thread of a warp (converged) and the _block forms by every thread of the
// block, with the same arguments. Completion: a put is complete at its
// target after gshmem_quiet (or a barrier); gshmem_fence orders puts,
// atomics and signals to one PE. The transport is load/store over mapped
// device memory, so the _nbi forms are the blocking ones.
//
// The layout of gshmem_state_t is fixed: the Go side encodes it
// (shmem/internal/cuda) and a test checks the two against each other.
#ifndef GSHMEM_CUH
#define GSHMEM_CUH

#include <stdint.h>
#include <stddef.h>

// ---------------------------------------------------------------- state ---

#define GSHMEM_STATE_MAGIC 0x31304d454d485347ull /* "GSHMEM01" */
#define GSHMEM_STATE_SIZE 64
#define GSHMEM_STATE_OFF_MAGIC 0
#define GSHMEM_STATE_OFF_MYPE 8
#define GSHMEM_STATE_OFF_NPES 12
#define GSHMEM_STATE_OFF_HEAP_BASE 16
#define GSHMEM_STATE_OFF_HEAP_SIZE 24
#define GSHMEM_STATE_OFF_PEER_BASE 32
#define GSHMEM_STATE_OFF_CTRL_SIZE 40
#define GSHMEM_STATE_OFF_TEAM_NODE 48

// The device control area: the first bytes of every PE's device heap, below
// the first offset the allocator hands out (ctrl_size).
#define GSHMEM_CTRL_BARRIER 0    /* 32 dissemination counters, 64 B apart, written by peers */
#define GSHMEM_CTRL_EPOCH 2048   /* this PE's device barrier epoch */
#define GSHMEM_CTRL_MIN_SIZE 4096

typedef struct gshmem_state {
  unsigned long long magic;            /* GSHMEM_STATE_MAGIC once bound */
  int mype;                            /* this PE */
  int npes;                            /* PEs of the world */
  unsigned long long heap_base;        /* this PE's heap, device address */
  unsigned long long heap_size;        /* bytes per PE */
  const unsigned long long *peer_base; /* [npes] heaps as mapped here; 0 = not reachable */
  unsigned long long ctrl_size;        /* bytes of control area at each heap's start */
  unsigned long long team_node;        /* reserved: node team handle */
  unsigned long long reserved;
} gshmem_state_t;

// One per module; written by the loader (cuModuleGetGlobal + copy).
__constant__ gshmem_state_t gshmemi_state;

// ------------------------------------------------------------- constants ---

enum gshmem_cmp { GSHMEM_CMP_EQ = 0, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE };
enum gshmem_signal_op { GSHMEM_SIGNAL_SET = 0, GSHMEM_SIGNAL_ADD = 1 };

// ------------------------------------------------------------ addressing ---

static __device__ __forceinline__ int gshmem_my_pe(void) { return gshmemi_state.mype; }
static __device__ __forceinline__ int gshmem_n_pes(void) { return gshmemi_state.npes; }

// gshmem_ptr returns the address of sym on pe, usable by load/store from
// this kernel, or NULL when pe's heap is not mapped here.
static __device__ __forceinline__ void *gshmem_ptr(const void *sym, int pe) {
  unsigned long long off = (unsigned long long)sym - gshmemi_state.heap_base;
  unsigned long long b = __ldg(gshmemi_state.peer_base + pe);
  return b ? (void *)(b + off) : (void *)0;
}

static __device__ __forceinline__ void *gshmemi_peer(const void *sym, int pe) {
  return (void *)(__ldg(gshmemi_state.peer_base + pe) + ((unsigned long long)sym - gshmemi_state.heap_base));
}

static __device__ __forceinline__ unsigned long long *gshmemi_ctrl(int pe, unsigned off) {
  return (unsigned long long *)(__ldg(gshmemi_state.peer_base + pe) + off);
}

// ----------------------------------------------------- memory primitives ---

static __device__ __forceinline__ unsigned long long gshmemi_ld_acquire_u64(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ unsigned int gshmemi_ld_acquire_u32(const unsigned int *p) {
  unsigned int v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ unsigned long long gshmemi_ld_relaxed_u64(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ void gshmemi_st_relaxed_u64(unsigned long long *p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
static __device__ __forceinline__ void gshmemi_st_release_u64(unsigned long long *p, unsigned long long v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
static __device__ __forceinline__ void gshmemi_st_relaxed_u32(unsigned int *p, unsigned int v) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ void gshmemi_red_release_add_u64(unsigned long long *p, unsigned long long v) {
  asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// quiet: every put, atomic and signal this thread issued is complete and
// visible at its target. fence: they are ordered before later ones.
static __device__ __forceinline__ void gshmem_quiet(void) { asm volatile("fence.sc.sys;" ::: "memory"); }
static __device__ __forceinline__ void gshmem_fence(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// ---------------------------------------------------------------- copies ---

static __device__ __forceinline__ int gshmemi_block_tid(void) {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static __device__ __forceinline__ int gshmemi_block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }
static __device__ __forceinline__ int gshmemi_lane(void) { return threadIdx.x & 31; }

// gshmemi_copy: the threads tid = 0..nt-1 together copy n bytes. 16-byte
// vectors, four in flight per thread, when source and destination share
// their alignment; 8, 4 or 1 bytes otherwise.
static __device__ __forceinline__ void gshmemi_copy(void *dst, const void *src, size_t n, int tid, int nt) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  unsigned long long mis = ((unsigned long long)d ^ (unsigned long long)s);
  if ((mis & 15) == 0) {
    size_t head = (16 - ((unsigned long long)d & 15)) & 15;
    if (head > n) head = n;
    for (size_t i = tid; i < head; i += nt) d[i] = s[i];
    d += head; s += head; n -= head;
    size_t nv = n >> 4;
    uint4 *dv = (uint4 *)d;
    const uint4 *sv = (const uint4 *)s;
    size_t i = tid;
    for (; i + 3 * (size_t)nt < nv; i += 4 * (size_t)nt) {
      uint4 a = sv[i], b = sv[i + nt], c = sv[i + 2 * (size_t)nt], e = sv[i + 3 * (size_t)nt];
      dv[i] = a; dv[i + nt] = b; dv[i + 2 * (size_t)nt] = c; dv[i + 3 * (size_t)nt] = e;
    }
    for (; i < nv; i += nt) dv[i] = sv[i];
    size_t done = nv << 4;
    for (size_t j = done + tid; j < n; j += nt) d[j] = s[j];
  } else if ((mis & 7) == 0) {
    size_t head = (8 - ((unsigned long long)d & 7)) & 7;
    if (head > n) head = n;
    for (size_t i = tid; i < head; i += nt) d[i] = s[i];
    d += head; s += head; n -= head;
    size_t nv = n >> 3;
    for (size_t i = tid; i < nv; i += nt) ((unsigned long long *)d)[i] = ((const unsigned long long *)s)[i];
    for (size_t j = (nv << 3) + tid; j < n; j += nt) d[j] = s[j];
  } else if ((mis & 3) == 0) {
    size_t head = (4 - ((unsigned long long)d & 3)) & 3;
    if (head > n) head = n;
    for (size_t i = tid; i < head; i += nt) d[i] = s[i];
    d += head; s += head; n -= head;
    size_t nv = n >> 2;
    for (size_t i = tid; i < nv; i += nt) ((unsigned int *)d)[i] = ((const unsigned int *)s)[i];
    for (size_t j = (nv << 2) + tid; j < n; j += nt) d[j] = s[j];
  } else {
    for (size_t i = tid; i < n; i += nt) d[i] = s[i];
  }
}

// ------------------------------------------------------------- put / get ---

static __device__ __forceinline__ void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, nelems, 0, 1);
}
static __device__ __forceinline__ void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe) {
  gshmemi_copy(dest, gshmemi_peer(source, pe), nelems, 0, 1);
}
static __device__ __forceinline__ void gshmemx_putmem_warp(void *dest, const void *source, size_t nelems, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, nelems, gshmemi_lane(), 32);
  __syncwarp();
}
static __device__ __forceinline__ void gshmemx_getmem_warp(void *dest, const void *source, size_t nelems, int pe) {
  gshmemi_copy(dest, gshmemi_peer(source, pe), nelems, gshmemi_lane(), 32);
  __syncwarp();
}
static __device__ __forceinline__ void gshmemx_putmem_block(void *dest, const void *source, size_t nelems, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, nelems, gshmemi_block_tid(), gshmemi_block_size());
  __syncthreads();
}
static __device__ __forceinline__ void gshmemx_getmem_block(void *dest, const void *source, size_t nelems, int pe) {
  gshmemi_copy(dest, gshmemi_peer(source, pe), nelems, gshmemi_block_tid(), gshmemi_block_size());
  __syncthreads();
}
// The non-blocking forms: the same copies, without the closing barrier of
// the warp and block forms; complete after gshmem_quiet.
static __device__ __forceinline__ void gshmem_putmem_nbi(void *dest, const void *source, size_t n, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, 0, 1);
}
static __device__ __forceinline__ void gshmem_getmem_nbi(void *dest, const void *source, size_t n, int pe) {
  gshmemi_copy(dest, gshmemi_peer(source, pe), n, 0, 1);
}
static __device__ __forceinline__ void gshmemx_putmem_nbi_warp(void *dest, const void *source, size_t n, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, gshmemi_lane(), 32);
}
static __device__ __forceinline__ void gshmemx_putmem_nbi_block(void *dest, const void *source, size_t n, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, gshmemi_block_tid(), gshmemi_block_size());
}
static __device__ __forceinline__ void gshmemx_getmem_nbi_block(void *dest, const void *source, size_t n, int pe) {
  gshmemi_copy(dest, gshmemi_peer(source, pe), n, gshmemi_block_tid(), gshmemi_block_size());
}

// --------------------------------------------------------------- signals ---

// gshmem_signal_op updates the 64-bit signal word sig on pe atomically,
// after every put this thread issued before it (release).
static __device__ __forceinline__ void gshmem_signal_op(uint64_t *sig, uint64_t value, int op, int pe) {
  unsigned long long *p = (unsigned long long *)gshmemi_peer(sig, pe);
  if (op == GSHMEM_SIGNAL_ADD) {
    gshmemi_red_release_add_u64(p, value);
  } else {
    gshmemi_st_release_u64(p, value);
  }
}

static __device__ __forceinline__ void gshmem_putmem_signal(void *dest, const void *source, size_t n, uint64_t *sig,
                                                            uint64_t value, int op, int pe) {
  gshmem_putmem(dest, source, n, pe);
  gshmem_signal_op(sig, value, op, pe);
}
static __device__ __forceinline__ void gshmemx_putmem_signal_warp(void *dest, const void *source, size_t n,
                                                                  uint64_t *sig, uint64_t value, int op, int pe) {
  gshmemx_putmem_warp(dest, source, n, pe);
  if (gshmemi_lane() == 0) {
    gshmem_fence();
    gshmem_signal_op(sig, value, op, pe);
  }
  __syncwarp();
}
static __device__ __forceinline__ void gshmemx_putmem_signal_block(void *dest, const void *source, size_t n,
                                                                   uint64_t *sig, uint64_t value, int op, int pe) {
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, gshmemi_block_tid(), gshmemi_block_size());
  __syncthreads();
  if (gshmemi_block_tid() == 0) {
    gshmem_fence();
    gshmem_signal_op(sig, value, op, pe);
  }
  __syncthreads();
}
#define gshmem_putmem_signal_nbi gshmem_putmem_signal
#define gshmemx_putmem_signal_nbi_block gshmemx_putmem_signal_block

static __device__ __forceinline__ uint64_t gshmem_signal_fetch(const uint64_t *sig) {
  return gshmemi_ld_acquire_u64((const unsigned long long *)sig);
}

// ----------------------------------------------------------------- waits ---

template <typename T>
static __device__ __forceinline__ bool gshmemi_cmp(T a, int cmp, T b) {
  switch (cmp) {
  case GSHMEM_CMP_EQ: return a == b;
  case GSHMEM_CMP_NE: return a != b;
  case GSHMEM_CMP_GT: return a > b;
  case GSHMEM_CMP_GE: return a >= b;
  case GSHMEM_CMP_LT: return a < b;
  default: return a <= b;
  }
}

template <typename T> static __device__ __forceinline__ T gshmemi_ld_acquire(const T *p) {
  if (sizeof(T) == 8) {
    unsigned long long v = gshmemi_ld_acquire_u64((const unsigned long long *)p);
    return *(T *)&v;
  } else {
    unsigned int v = gshmemi_ld_acquire_u32((const unsigned int *)p);
    return *(T *)&v;
  }
}

// Waits on this PE's own symmetric word ivar (4 or 8 bytes).
template <typename T> static __device__ __forceinline__ void gshmemi_wait_until(const T *ivar, int cmp, T value) {
  while (!gshmemi_cmp(gshmemi_ld_acquire(ivar), cmp, value)) {
  }
}
template <typename T> static __device__ __forceinline__ int gshmemi_test(const T *ivar, int cmp, T value) {
  return gshmemi_cmp(gshmemi_ld_acquire(ivar), cmp, value);
}

static __device__ __forceinline__ uint64_t gshmem_signal_wait_until(const uint64_t *sig, int cmp, uint64_t value) {
  uint64_t v;
  do {
    v = gshmemi_ld_acquire_u64((const unsigned long long *)sig);
  } while (!gshmemi_cmp(v, cmp, value));
  return v;
}

// -------------------------------------------------------------- atomics ---
// On pe's copy of the word at the symmetric address dest, system scope.

template <typename T> struct gshmemi_amo_t;
template <> struct gshmemi_amo_t<int> { typedef int U; };
template <> struct gshmemi_amo_t<unsigned int> { typedef unsigned int U; };
template <> struct gshmemi_amo_t<unsigned long long> { typedef unsigned long long U; };
template <> struct gshmemi_amo_t<long long> { typedef unsigned long long U; };
template <> struct gshmemi_amo_t<long> { typedef unsigned long long U; };
template <> struct gshmemi_amo_t<unsigned long> { typedef unsigned long long U; };

#define GSHMEMI_AS(T, p) ((typename gshmemi_amo_t<T>::U *)(p))
#define GSHMEMI_V(T, v) ((typename gshmemi_amo_t<T>::U)(v))

template <typename T> static __device__ __forceinline__ T gshmemi_fetch_add(T *dest, T v, int pe) {
  return (T)atomicAdd_system(GSHMEMI_AS(T, gshmemi_peer(dest, pe)), GSHMEMI_V(T, v));
}
template <typename T> static __device__ __forceinline__ T gshmemi_swap(T *dest, T v, int pe) {
  return (T)atomicExch_system(GSHMEMI_AS(T, gshmemi_peer(dest, pe)), GSHMEMI_V(T, v));
}
template <typename T> static __device__ __forceinline__ T gshmemi_cswap(T *dest, T cond, T v, int pe) {
  return (T)atomicCAS_system(GSHMEMI_AS(T, gshmemi_peer(dest, pe)), GSHMEMI_V(T, cond), GSHMEMI_V(T, v));
}
template <typename T> static __device__ __forceinline__ T gshmemi_fetch_and(T *dest, T v, int pe) {
  return (T)atomicAnd_system(GSHMEMI_AS(T, gshmemi_peer(dest, pe)), GSHMEMI_V(T, v));
}
template <typename T> static __device__ __forceinline__ T gshmemi_fetch_or(T *dest, T v, int pe) {
  return (T)atomicOr_system(GSHMEMI_AS(T, gshmemi_peer(dest, pe)), GSHMEMI_V(T, v));
}
template <typename T> static __device__ __forceinline__ T gshmemi_fetch_xor(T *dest, T v, int pe) {
  return (T)atomicXor_system(GSHMEMI_AS(T, gshmemi_peer(dest, pe)), GSHMEMI_V(T, v));
}
template <typename T> static __device__ __forceinline__ T gshmemi_fetch(const T *src, int pe) {
  return gshmemi_ld_acquire((const T *)gshmemi_peer(src, pe));
}
template <typename T> static __device__ __forceinline__ void gshmemi_set(T *dest, T v, int pe) {
  T *p = (T *)gshmemi_peer(dest, pe);
  if (sizeof(T) == 8) {
    gshmemi_st_release_u64((unsigned long long *)p, *(unsigned long long *)&v);
  } else {
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(*(unsigned int *)&v) : "memory");
  }
}

// p and g: one element, one store or load (a peer may wait on it).
template <typename T> static __device__ __forceinline__ void gshmemi_p(T *dest, T v, int pe) {
  T *p = (T *)gshmemi_peer(dest, pe);
  if (sizeof(T) == 8) {
    gshmemi_st_relaxed_u64((unsigned long long *)p, *(unsigned long long *)&v);
  } else if (sizeof(T) == 4) {
    gshmemi_st_relaxed_u32((unsigned int *)p, *(unsigned int *)&v);
  } else {
    *(volatile T *)p = v;
  }
}
template <typename T> static __device__ __forceinline__ T gshmemi_g(const T *src, int pe) {
  return *(const volatile T *)gshmemi_peer(src, pe);
}

// Typed entry points, as NVSHMEM names them: gshmem_<type>_<op>.
#define GSHMEMI_RMA(NAME, T)                                                                                      \
  static __device__ __forceinline__ void gshmem_##NAME##_p(T *dest, T v, int pe) { gshmemi_p<T>(dest, v, pe); } \
  static __device__ __forceinline__ T gshmem_##NAME##_g(const T *src, int pe) { return gshmemi_g<T>(src, pe); }  \
  static __device__ __forceinline__ void gshmem_##NAME##_put(T *dest, const T *src, size_t n, int pe) {          \
    gshmem_putmem(dest, src, n * sizeof(T), pe);                                                                  \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmem_##NAME##_get(T *dest, const T *src, size_t n, int pe) {          \
    gshmem_getmem(dest, src, n * sizeof(T), pe);                                                                  \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_put_warp(T *dest, const T *src, size_t n, int pe) {    \
    gshmemx_putmem_warp(dest, src, n * sizeof(T), pe);                                                            \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_put_block(T *dest, const T *src, size_t n, int pe) {   \
    gshmemx_putmem_block(dest, src, n * sizeof(T), pe);                                                           \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_get_block(T *dest, const T *src, size_t n, int pe) {   \
    gshmemx_getmem_block(dest, src, n * sizeof(T), pe);                                                           \
  }
GSHMEMI_RMA(char, char)
GSHMEMI_RMA(int, int)
GSHMEMI_RMA(long, long)
GSHMEMI_RMA(longlong, long long)
GSHMEMI_RMA(uint32, uint32_t)
GSHMEMI_RMA(uint64, uint64_t)
GSHMEMI_RMA(float, float)
GSHMEMI_RMA(double, double)

#define GSHMEMI_AMO(NAME, T)                                                                                        \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_fetch(const T *src, int pe) {                          \
    return gshmemi_fetch<T>(src, pe);                                                                               \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_atomic_set(T *dest, T v, int pe) {                         \
    gshmemi_set<T>(dest, v, pe);                                                                                    \
  }                                                                                                                 \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_swap(T *dest, T v, int pe) {                           \
    return gshmemi_swap<T>(dest, v, pe);                                                                            \
  }                                                                                                                 \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_compare_swap(T *dest, T cond, T v, int pe) {           \
    return gshmemi_cswap<T>(dest, cond, v, pe);                                                                     \
  }                                                                                                                 \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_fetch_add(T *dest, T v, int pe) {                      \
    return gshmemi_fetch_add<T>(dest, v, pe);                                                                       \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_atomic_add(T *dest, T v, int pe) {                         \
    gshmemi_fetch_add<T>(dest, v, pe);                                                                              \
  }                                                                                                                 \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_fetch_inc(T *dest, int pe) {                           \
    return gshmemi_fetch_add<T>(dest, (T)1, pe);                                                                    \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_atomic_inc(T *dest, int pe) {                              \
    gshmemi_fetch_add<T>(dest, (T)1, pe);                                                                           \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_wait_until(const T *ivar, int cmp, T value) {              \
    gshmemi_wait_until<T>(ivar, cmp, value);                                                                        \
  }                                                                                                                 \
  static __device__ __forceinline__ int gshmem_##NAME##_test(const T *ivar, int cmp, T value) {                     \
    return gshmemi_test<T>(ivar, cmp, value);                                                                       \
  }
#define GSHMEMI_BITWISE(NAME, T)                                                                                    \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_fetch_and(T *dest, T v, int pe) {                      \
    return gshmemi_fetch_and<T>(dest, v, pe);                                                                       \
  }                                                                                                                 \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_fetch_or(T *dest, T v, int pe) {                       \
    return gshmemi_fetch_or<T>(dest, v, pe);                                                                        \
  }                                                                                                                 \
  static __device__ __forceinline__ T gshmem_##NAME##_atomic_fetch_xor(T *dest, T v, int pe) {                      \
    return gshmemi_fetch_xor<T>(dest, v, pe);                                                                       \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_atomic_and(T *dest, T v, int pe) {                         \
    gshmemi_fetch_and<T>(dest, v, pe);                                                                              \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_atomic_or(T *dest, T v, int pe) {                          \
    gshmemi_fetch_or<T>(dest, v, pe);                                                                               \
  }                                                                                                                 \
  static __device__ __forceinline__ void gshmem_##NAME##_atomic_xor(T *dest, T v, int pe) {                         \
    gshmemi_fetch_xor<T>(dest, v, pe);                                                                              \
  }
GSHMEMI_AMO(int, int)
GSHMEMI_AMO(uint32, unsigned int)
GSHMEMI_AMO(long, long)
GSHMEMI_AMO(longlong, long long)
GSHMEMI_AMO(uint64, unsigned long long)
GSHMEMI_BITWISE(int, int)
GSHMEMI_BITWISE(uint32, unsigned int)
GSHMEMI_BITWISE(uint64, unsigned long long)
GSHMEMI_BITWISE(long, long)

// -------------------------------------------------------------- barrier ---

// gshmem_sync_all: every PE's calling thread meets (dissemination over
// counters in the device control areas; counters only grow, so nothing is
// reset). Exactly one thread of each PE calls it, and every PE must.
static __device__ __forceinline__ void gshmem_sync_all(void) {
  int me = gshmemi_state.mype, n = gshmemi_state.npes;
  unsigned long long *mine = gshmemi_ctrl(me, 0);
  unsigned long long *ep = (unsigned long long *)((char *)mine + GSHMEM_CTRL_EPOCH);
  unsigned long long epoch = *ep + 1;
  *ep = epoch;
  for (int k = 0, d = 1; d < n; k++, d <<= 1) {
    unsigned long long *peer = gshmemi_ctrl((me + d) % n, GSHMEM_CTRL_BARRIER + 64 * k);
    gshmemi_red_release_add_u64(peer, 1);
    const unsigned long long *own = (const unsigned long long *)((char *)mine + GSHMEM_CTRL_BARRIER + 64 * k);
    while (gshmemi_ld_acquire_u64(own) < epoch) {
    }
  }
}
// gshmem_barrier_all: quiet, then sync_all.
static __device__ __forceinline__ void gshmem_barrier_all(void) {
  gshmem_quiet();
  gshmem_sync_all();
}
static __device__ __forceinline__ void gshmemx_barrier_all_warp(void) {
  __syncwarp();
  if (gshmemi_lane() == 0) gshmem_barrier_all();
  __syncwarp();
}
static __device__ __forceinline__ void gshmemx_barrier_all_block(void) {
  __syncthreads();
  if (gshmemi_block_tid() == 0) gshmem_barrier_all();
  __syncthreads();
}
static __device__ __forceinline__ void gshmemx_sync_all_block(void) {
  __syncthreads();
  if (gshmemi_block_tid() == 0) gshmem_sync_all();
  __syncthreads();
}
static __device__ __forceinline__ void gshmemx_quiet_block(void) {
  gshmem_quiet();
  __syncthreads();
}

#endif // GSHMEM_CUH
