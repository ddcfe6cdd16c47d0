// gshmem.cuh: the device side of gshmem, for kernels that issue their own
// puts, gets, atomics, signals and waits (the NVSHMEM device API's shape).
//
// Header only. A kernel reaches the other PEs through this PE's state
// table, the __constant__ gshmemi_state, which the library writes before
// the kernels run. How it gets there depends on how the kernels are built:
//
//   - with nvcc into the program (runtime API, `gshmem nvcc app.cu`, or
//     nvcc -I$PREFIX/include app.cu -L$PREFIX/lib -lmpi_abi): every
//     translation unit that includes this header registers its copy of the
//     table with libmpi_abi when the program starts, and gshmem_init (or
//     gshmemx_init_attr) writes it; nothing to call.
//   - with separate compilation (-rdc=true): the device program has one
//     table, so exactly one .cu file defines it by
//         #define GSHMEM_STATE_DEFINE
//         #include <gshmem.cuh>
//     (NVSHMEM keeps its state in libnvshmem_device.a instead; without a
//     definition the device link fails on gshmemi_state).
//   - as a module loaded with the driver API (nvcc -ptx or -cubin, then
//     cuModuleLoad): gshmemx_cumodule_init(module) writes the module's
//     table (gshmem.h); the Go loader (kernels.LoadPTX) does the same for Go
//     programs.
//
// In a .cu file the host API comes with it: this header includes gshmem.h
// when it is on the include path, and the calls both headers name
// (gshmem_my_pe, gshmem_int_p, gshmem_barrier_all, ...) are the library's
// on the host and this header's in device code, as NVSHMEM's are.
//
// A symmetric address is an address inside this PE's own heap (from
// gshmem_malloc, or shmem.DevicePtr of a Sym for this PE in Go, or a
// pointer derived from it): the calls below turn it into the target PE's
// heap as mapped in this context (CUDA IPC for another process, the same
// pointer for a PE of this process, peer access for another GPU) from the
// state table.
//
// Scopes: the plain calls are made by one thread; the _warp forms by every
// thread of a warp (converged) and the _block forms by every thread of the
// block, with the same arguments. A warp or block form starts with its
// group's barrier, as NVSHMEM's do: what any thread of the group wrote to the
// source before the call is what moves (a kernel may compute a row and put
// it with no barrier of its own, as NVIDIA's Jacobi does). Completion: a put is complete at its
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

#if defined(__has_include) && !defined(GSHMEM_NO_HOST_API)
#if __has_include("gshmem.h")
#include "gshmem.h"
#endif
#endif

// Shared with gshmem.h, which defines the same.
#ifndef GSHMEMI_COMMON_TYPES
#define GSHMEMI_COMMON_TYPES
enum gshmem_cmp { GSHMEM_CMP_EQ = 0, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE };
enum gshmem_signal_op { GSHMEM_SIGNAL_SET = 0, GSHMEM_SIGNAL_ADD = 1 };
typedef unsigned long long gshmem_team_t;
#endif

// GSHMEMI_API defines a call that gshmem.h also declares for the host: one
// extern "C" __host__ __device__ function whose body exists only when
// compiling for the device, so a host caller links to libmpi_abi and a
// kernel inlines the body. The other device calls are static.
#ifdef __CUDA_ARCH__
#define GSHMEMI_API(decl, ...) extern "C" __host__ __device__ __forceinline__ decl __VA_ARGS__
#else
#define GSHMEMI_API(decl, ...) extern "C" __host__ __device__ decl;
#endif
// The redeclaration of gshmem.h's host calls as __host__ __device__ is
// what GSHMEMI_API means to do.
#pragma nv_diag_suppress 20040

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

// One per device program: per translation unit in whole-program
// compilation, one in all under -rdc=true (defined where GSHMEM_STATE_DEFINE
// is). Written by the library (see the top of this file).
#if defined(__CUDACC_RDC__) && !defined(GSHMEM_STATE_DEFINE)
extern __constant__ gshmem_state_t gshmemi_state;
#else
__constant__ gshmem_state_t gshmemi_state;
#endif

// ------------------------------------------------------------ addressing ---

GSHMEMI_API(int gshmem_my_pe(void), { return gshmemi_state.mype; })
GSHMEMI_API(int gshmem_n_pes(void), { return gshmemi_state.npes; })

// gshmem_ptr returns the address of sym on pe, usable by load/store from
// this kernel, or NULL when pe's heap is not mapped here.
GSHMEMI_API(void *gshmem_ptr(const void *sym, int pe), {
  unsigned long long off = (unsigned long long)sym - gshmemi_state.heap_base;
  unsigned long long b = __ldg(gshmemi_state.peer_base + pe);
  return b ? (void *)(b + off) : (void *)0;
})

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
GSHMEMI_API(void gshmem_quiet(void), { asm volatile("fence.sc.sys;" ::: "memory"); })
GSHMEMI_API(void gshmem_fence(void), { asm volatile("fence.acq_rel.sys;" ::: "memory"); })

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

GSHMEMI_API(void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe), {
  gshmemi_copy(gshmemi_peer(dest, pe), source, nelems, 0, 1);
})
GSHMEMI_API(void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe), {
  gshmemi_copy(dest, gshmemi_peer(source, pe), nelems, 0, 1);
})
static __device__ __forceinline__ void gshmemx_putmem_warp(void *dest, const void *source, size_t nelems, int pe) {
  __syncwarp();
  gshmemi_copy(gshmemi_peer(dest, pe), source, nelems, gshmemi_lane(), 32);
  __syncwarp();
}
static __device__ __forceinline__ void gshmemx_getmem_warp(void *dest, const void *source, size_t nelems, int pe) {
  __syncwarp();
  gshmemi_copy(dest, gshmemi_peer(source, pe), nelems, gshmemi_lane(), 32);
  __syncwarp();
}
static __device__ __forceinline__ void gshmemx_putmem_block(void *dest, const void *source, size_t nelems, int pe) {
  __syncthreads();
  gshmemi_copy(gshmemi_peer(dest, pe), source, nelems, gshmemi_block_tid(), gshmemi_block_size());
  __syncthreads();
}
static __device__ __forceinline__ void gshmemx_getmem_block(void *dest, const void *source, size_t nelems, int pe) {
  __syncthreads();
  gshmemi_copy(dest, gshmemi_peer(source, pe), nelems, gshmemi_block_tid(), gshmemi_block_size());
  __syncthreads();
}
// The non-blocking forms: the same copies, without the closing barrier of
// the warp and block forms; complete after gshmem_quiet.
GSHMEMI_API(void gshmem_putmem_nbi(void *dest, const void *source, size_t n, int pe), {
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, 0, 1);
})
GSHMEMI_API(void gshmem_getmem_nbi(void *dest, const void *source, size_t n, int pe), {
  gshmemi_copy(dest, gshmemi_peer(source, pe), n, 0, 1);
})
static __device__ __forceinline__ void gshmemx_putmem_nbi_warp(void *dest, const void *source, size_t n, int pe) {
  __syncwarp();
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, gshmemi_lane(), 32);
}
static __device__ __forceinline__ void gshmemx_putmem_nbi_block(void *dest, const void *source, size_t n, int pe) {
  __syncthreads();
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, gshmemi_block_tid(), gshmemi_block_size());
}
static __device__ __forceinline__ void gshmemx_getmem_nbi_warp(void *dest, const void *source, size_t n, int pe) {
  __syncwarp();
  gshmemi_copy(dest, gshmemi_peer(source, pe), n, gshmemi_lane(), 32);
}
static __device__ __forceinline__ void gshmemx_getmem_nbi_block(void *dest, const void *source, size_t n, int pe) {
  __syncthreads();
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

GSHMEMI_API(void gshmem_putmem_signal(void *dest, const void *source, size_t n, uint64_t *sig,
                                                            uint64_t value, int op, int pe), {
  gshmem_putmem(dest, source, n, pe);
  gshmem_signal_op(sig, value, op, pe);
})
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
  __syncthreads();
  gshmemi_copy(gshmemi_peer(dest, pe), source, n, gshmemi_block_tid(), gshmemi_block_size());
  __syncthreads();
  if (gshmemi_block_tid() == 0) {
    gshmem_fence();
    gshmem_signal_op(sig, value, op, pe);
  }
  __syncthreads();
}
GSHMEMI_API(void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t n, uint64_t *sig, uint64_t value,
                                          int op, int pe),
            { gshmem_putmem_signal(dest, source, n, sig, value, op, pe); })
#define gshmemx_putmem_signal_nbi_block gshmemx_putmem_signal_block

// gshmemx_signal_op is NVSHMEM's name for the same update in device code
// (gshmem.h declares it for the host, where it is the library's).
GSHMEMI_API(void gshmemx_signal_op(uint64_t *sig, uint64_t value, int op, int pe),
            { gshmem_signal_op(sig, value, op, pe); })

GSHMEMI_API(uint64_t gshmem_signal_fetch(const uint64_t *sig), {
  return gshmemi_ld_acquire_u64((const unsigned long long *)sig);
})

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
// Waits on every ivars[i] whose status[i] is 0 (all of them when status
// is NULL), as OpenSHMEM's wait_until_all.
template <typename T>
static __device__ __forceinline__ void gshmemi_wait_until_all(const T *ivars, size_t n, const int *status, int cmp,
                                                              T value) {
  for (size_t i = 0; i < n; i++)
    if (!status || !status[i]) gshmemi_wait_until(ivars + i, cmp, value);
}
template <typename T> static __device__ __forceinline__ int gshmemi_test(const T *ivar, int cmp, T value) {
  return gshmemi_cmp(gshmemi_ld_acquire(ivar), cmp, value);
}

GSHMEMI_API(uint64_t gshmem_signal_wait_until(uint64_t *sig, int cmp, uint64_t value), {
  uint64_t v;
  do {
    v = gshmemi_ld_acquire_u64((const unsigned long long *)sig);
  } while (!gshmemi_cmp(v, cmp, value));
  return v;
})

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
  } else if (sizeof(T) == 2) {
    // Through unsigned short: half and __nv_bfloat16 have no volatile
    // assignment.
    *(volatile unsigned short *)p = *(const unsigned short *)&v;
  } else {
    *(volatile unsigned char *)p = *(const unsigned char *)&v;
  }
}
template <typename T> static __device__ __forceinline__ T gshmemi_g(const T *src, int pe) {
  // Through the unsigned integer of T's size: half and __nv_bfloat16 have
  // no volatile load.
  const void *p = gshmemi_peer(src, pe);
  T v;
  if (sizeof(T) == 8) {
    unsigned long long u = *(const volatile unsigned long long *)p;
    memcpy(&v, &u, sizeof(T));
  } else if (sizeof(T) == 4) {
    unsigned int u = *(const volatile unsigned int *)p;
    memcpy(&v, &u, sizeof(T));
  } else if (sizeof(T) == 2) {
    unsigned short u = *(const volatile unsigned short *)p;
    memcpy(&v, &u, sizeof(T));
  } else {
    unsigned char u = *(const volatile unsigned char *)p;
    memcpy(&v, &u, sizeof(T));
  }
  return v;
}

// Typed entry points, as NVSHMEM names them: gshmem_<type>_<op>.
#define GSHMEMI_RMA(NAME, T)                                                                                      \
  GSHMEMI_API(void gshmem_##NAME##_p(T *dest, T value, int pe), { gshmemi_p<T>(dest, value, pe); })              \
  GSHMEMI_API(T gshmem_##NAME##_g(const T *source, int pe), { return gshmemi_g<T>(source, pe); })                 \
  GSHMEMI_API(void gshmem_##NAME##_put(T *dest, const T *source, size_t nelems, int pe),                          \
              { gshmem_putmem(dest, source, nelems * sizeof(T), pe); })                                           \
  GSHMEMI_API(void gshmem_##NAME##_get(T *dest, const T *source, size_t nelems, int pe),                          \
              { gshmem_getmem(dest, source, nelems * sizeof(T), pe); })                                           \
  static __device__ __forceinline__ void gshmemx_##NAME##_put_warp(T *dest, const T *src, size_t n, int pe) {    \
    gshmemx_putmem_warp(dest, src, n * sizeof(T), pe);                                                            \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_put_block(T *dest, const T *src, size_t n, int pe) {   \
    gshmemx_putmem_block(dest, src, n * sizeof(T), pe);                                                           \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_get_block(T *dest, const T *src, size_t n, int pe) {   \
    gshmemx_getmem_block(dest, src, n * sizeof(T), pe);                                                           \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_get_warp(T *dest, const T *src, size_t n, int pe) {    \
    gshmemx_getmem_warp(dest, src, n * sizeof(T), pe);                                                            \
  }                                                                                                               \
  GSHMEMI_API(void gshmem_##NAME##_put_nbi(T *dest, const T *source, size_t nelems, int pe),                      \
              { gshmem_putmem_nbi(dest, source, nelems * sizeof(T), pe); })                                       \
  GSHMEMI_API(void gshmem_##NAME##_get_nbi(T *dest, const T *source, size_t nelems, int pe),                      \
              { gshmem_getmem_nbi(dest, source, nelems * sizeof(T), pe); })                                       \
  static __device__ __forceinline__ void gshmemx_##NAME##_put_nbi_warp(T *dest, const T *src, size_t n, int pe) { \
    gshmemx_putmem_nbi_warp(dest, src, n * sizeof(T), pe);                                                        \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_put_nbi_block(T *dest, const T *src, size_t n, int pe) { \
    gshmemx_putmem_nbi_block(dest, src, n * sizeof(T), pe);                                                       \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_get_nbi_warp(T *dest, const T *src, size_t n, int pe) { \
    gshmemx_getmem_nbi_warp(dest, src, n * sizeof(T), pe);                                                        \
  }                                                                                                               \
  static __device__ __forceinline__ void gshmemx_##NAME##_get_nbi_block(T *dest, const T *src, size_t n, int pe) { \
    gshmemx_getmem_nbi_block(dest, src, n * sizeof(T), pe);                                                       \
  }
// Every type gshmem.h names (NVSHMEM's standard RMA types).
GSHMEMI_RMA(float, float)
GSHMEMI_RMA(double, double)
GSHMEMI_RMA(char, char)
GSHMEMI_RMA(schar, signed char)
GSHMEMI_RMA(short, short)
GSHMEMI_RMA(int, int)
GSHMEMI_RMA(long, long)
GSHMEMI_RMA(longlong, long long)
GSHMEMI_RMA(uchar, unsigned char)
GSHMEMI_RMA(ushort, unsigned short)
GSHMEMI_RMA(uint, unsigned int)
GSHMEMI_RMA(ulong, unsigned long)
GSHMEMI_RMA(ulonglong, unsigned long long)
GSHMEMI_RMA(int8, int8_t)
GSHMEMI_RMA(int16, int16_t)
GSHMEMI_RMA(int32, int32_t)
GSHMEMI_RMA(int64, int64_t)
GSHMEMI_RMA(uint8, uint8_t)
GSHMEMI_RMA(uint16, uint16_t)
GSHMEMI_RMA(uint32, uint32_t)
GSHMEMI_RMA(uint64, uint64_t)
GSHMEMI_RMA(size, size_t)
GSHMEMI_RMA(ptrdiff, ptrdiff_t)

// The typed atomics, waits and tests. Their C types are gshmem.h's (and
// OpenSHMEM's): uint64 is uint64_t, ulonglong is unsigned long long.
#define GSHMEMI_AMO(NAME, T)                                                                                        \
  GSHMEMI_API(T gshmem_##NAME##_atomic_fetch(const T *source, int pe), { return gshmemi_fetch<T>(source, pe); })  \
  GSHMEMI_API(void gshmem_##NAME##_atomic_set(T *dest, T value, int pe), { gshmemi_set<T>(dest, value, pe); })    \
  GSHMEMI_API(T gshmem_##NAME##_atomic_swap(T *dest, T value, int pe), { return gshmemi_swap<T>(dest, value, pe); }) \
  GSHMEMI_API(T gshmem_##NAME##_atomic_compare_swap(T *dest, T cond, T value, int pe),                              \
              { return gshmemi_cswap<T>(dest, cond, value, pe); })                                                  \
  GSHMEMI_API(T gshmem_##NAME##_atomic_fetch_add(T *dest, T value, int pe),                                         \
              { return gshmemi_fetch_add<T>(dest, value, pe); })                                                    \
  GSHMEMI_API(void gshmem_##NAME##_atomic_add(T *dest, T value, int pe), { gshmemi_fetch_add<T>(dest, value, pe); }) \
  GSHMEMI_API(T gshmem_##NAME##_atomic_fetch_inc(T *dest, int pe), { return gshmemi_fetch_add<T>(dest, (T)1, pe); }) \
  GSHMEMI_API(void gshmem_##NAME##_atomic_inc(T *dest, int pe), { gshmemi_fetch_add<T>(dest, (T)1, pe); })        \
  GSHMEMI_API(void gshmem_##NAME##_wait_until(T *ivar, int cmp, T cmp_value),                                       \
              { gshmemi_wait_until<T>(ivar, cmp, cmp_value); })                                                     \
  GSHMEMI_API(int gshmem_##NAME##_test(T *ivar, int cmp, T cmp_value), { return gshmemi_test<T>(ivar, cmp, cmp_value); }) \
  GSHMEMI_API(void gshmem_##NAME##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),  \
              { gshmemi_wait_until_all<T>(ivars, nelems, status, cmp, cmp_value); })
#define GSHMEMI_BITWISE(NAME, T)                                                                                    \
  GSHMEMI_API(T gshmem_##NAME##_atomic_fetch_and(T *dest, T value, int pe),                                         \
              { return gshmemi_fetch_and<T>(dest, value, pe); })                                                    \
  GSHMEMI_API(T gshmem_##NAME##_atomic_fetch_or(T *dest, T value, int pe), { return gshmemi_fetch_or<T>(dest, value, pe); }) \
  GSHMEMI_API(T gshmem_##NAME##_atomic_fetch_xor(T *dest, T value, int pe),                                         \
              { return gshmemi_fetch_xor<T>(dest, value, pe); })                                                    \
  GSHMEMI_API(void gshmem_##NAME##_atomic_and(T *dest, T value, int pe), { gshmemi_fetch_and<T>(dest, value, pe); }) \
  GSHMEMI_API(void gshmem_##NAME##_atomic_or(T *dest, T value, int pe), { gshmemi_fetch_or<T>(dest, value, pe); })  \
  GSHMEMI_API(void gshmem_##NAME##_atomic_xor(T *dest, T value, int pe), { gshmemi_fetch_xor<T>(dest, value, pe); })
GSHMEMI_AMO(int, int)
GSHMEMI_AMO(uint32, uint32_t)
GSHMEMI_AMO(long, long)
GSHMEMI_AMO(longlong, long long)
GSHMEMI_AMO(uint64, uint64_t)
GSHMEMI_AMO(ulonglong, unsigned long long)
GSHMEMI_BITWISE(int, int)
GSHMEMI_BITWISE(uint32, uint32_t)
GSHMEMI_BITWISE(uint64, uint64_t)
GSHMEMI_BITWISE(ulonglong, unsigned long long)
GSHMEMI_BITWISE(long, long)

// -------------------------------------------------------------- barrier ---

// gshmem_sync_all: every PE's calling thread meets (dissemination over
// counters in the device control areas; counters only grow, so nothing is
// reset). Exactly one thread of each PE calls it, and every PE must.
GSHMEMI_API(void gshmem_sync_all(void), {
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
})
// gshmem_barrier_all: quiet, then sync_all.
GSHMEMI_API(void gshmem_barrier_all(void), {
  gshmem_quiet();
  gshmem_sync_all();
})
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

// ------------------------------------------------------------ reductions ---

// Reduction operation codes (also the codes the Go side passes to the
// backend's collective kernels).
#define GSHMEMI_RED_SUM 0
#define GSHMEMI_RED_PROD 1
#define GSHMEMI_RED_MIN 2
#define GSHMEMI_RED_MAX 3
#define GSHMEMI_RED_AND 4
#define GSHMEMI_RED_OR 5
#define GSHMEMI_RED_XOR 6


template <typename T> struct gshmemi_unsigned { typedef T U; };
template <> struct gshmemi_unsigned<signed char> { typedef unsigned char U; };
template <> struct gshmemi_unsigned<short> { typedef unsigned short U; };
template <> struct gshmemi_unsigned<int> { typedef unsigned int U; };
template <> struct gshmemi_unsigned<long long> { typedef unsigned long long U; };
template <> struct gshmemi_unsigned<long> { typedef unsigned long U; };
template <> struct gshmemi_unsigned<char> { typedef unsigned char U; };

// Integers wrap, as Go's do (through the unsigned type: signed overflow is
// undefined in C++, and the low bits of a product do not depend on sign).
template <typename T> static __device__ __forceinline__ T gshmemi_fold(int op, T a, T b) {
  typedef typename gshmemi_unsigned<T>::U U;
  switch (op) {
  case GSHMEMI_RED_SUM: return (T)(U)((U)a + (U)b);
  case GSHMEMI_RED_PROD: return (T)(U)((U)a * (U)b);
  case GSHMEMI_RED_MIN: return b < a ? b : a;
  case GSHMEMI_RED_MAX: return a < b ? b : a;
  case GSHMEMI_RED_AND: return (T)((U)a & (U)b);
  case GSHMEMI_RED_OR: return (T)((U)a | (U)b);
  default: return (T)((U)a ^ (U)b);
  }
}

// Floats follow Go's min and max: a NaN wins, and -0 is below +0. Sums and
// products are plain IEEE operations (no contraction), so a fold in the
// same order gives the host's bits.
template <typename F> static __device__ __forceinline__ F gshmemi_fold_float(int op, F a, F b) {
  switch (op) {
  case GSHMEMI_RED_SUM: return a + b;
  case GSHMEMI_RED_PROD: return a * b;
  case GSHMEMI_RED_MIN:
    if (a != a) return a;
    if (b != b) return b;
    if (a < b) return a;
    if (b < a) return b;
    return signbit(a) ? a : b;
  default:
    if (a != a) return a;
    if (b != b) return b;
    if (a < b) return b;
    if (b < a) return a;
    return signbit(a) ? b : a;
  }
}
template <> __device__ __forceinline__ float gshmemi_fold<float>(int op, float a, float b) {
  return gshmemi_fold_float<float>(op, a, b);
}
template <> __device__ __forceinline__ double gshmemi_fold<double>(int op, double a, double b) {
  return gshmemi_fold_float<double>(op, a, b);
}
// half and bfloat16 fold in float (cuda_fp16's operators are not there on
// every arch) and round back to nearest even: float holds at least twice
// their precision plus two bits, so each sum and product is the correctly
// rounded 2-byte one, and min and max are exact.
#ifdef GSHMEMI_HAVE_HALF
template <> __device__ __forceinline__ __half gshmemi_fold<__half>(int op, __half a, __half b) {
  return __float2half_rn(gshmemi_fold_float<float>(op, __half2float(a), __half2float(b)));
}
template <>
__device__ __forceinline__ __nv_bfloat16 gshmemi_fold<__nv_bfloat16>(int op, __nv_bfloat16 a, __nv_bfloat16 b) {
  return __float2bfloat16_rn(gshmemi_fold_float<float>(op, __bfloat162float(a), __bfloat162float(b)));
}
#endif


// ------------------------------------------------------ team collectives ---
//
// Block-scoped team collectives inside kernels, as NVSHMEM's
// nvshmemx_*_block calls: every thread of one block on each member calls
// them with the same arguments, and only one block per PE may run a team's
// collectives at a time. A gshmem_team_t is the team's device handle
// (shmem Team.DeviceHandle on the host): the address, in this PE's heap, of
// the team's descriptor, which lies in the device copy of the team's heap
// slot beside the counters its barriers use. Each call opens with a team
// barrier (the members' data is ready) and closes with one (sources may be
// reused, destinations hold the result); reductions fold in team order on
// every member, so every member gets the same bits.

#define GSHMEMI_TEAM_CTR 512    /* this block's barrier counters, one per member, written by peers */
#define GSHMEMI_TEAM_EPOCH 1024 /* this PE's count of kernel-side team barriers */
#define GSHMEMI_TEAM_LL_EPOCH 1032 /* this PE's count of one-round (LL) reductions */
#define GSHMEMI_TEAM_DESC 1088  /* the descriptor: the handle points here */
#define GSHMEMI_TEAM_LL 2048    /* one-round reductions' landing slots: [2 parities][8 senders][64 B + flag] */
#define GSHMEMI_LL_MAX_PES 8
#define GSHMEMI_LL_MAX_BYTES 64
#define GSHMEMI_TEAM_MAGIC 0x6d61657467736867ull /* "ghsgteam" */

typedef struct gshmemi_team_desc {
  unsigned long long magic;
  int np, me;
  int sys; /* a member is on another GPU: system-scope synchronization */
  int pad;
  int members[64]; /* world PE of each member */
} gshmemi_team_desc_t;

GSHMEMI_API(int gshmem_team_my_pe(gshmem_team_t team), {
  return ((const gshmemi_team_desc_t *)team)->me;
})
GSHMEMI_API(int gshmem_team_n_pes(gshmem_team_t team), {
  return ((const gshmemi_team_desc_t *)team)->np;
})
// gshmem_team_translate_pe returns the world PE of member p.
static __device__ __forceinline__ int gshmemi_team_pe(gshmem_team_t team, int p) {
  return ((const gshmemi_team_desc_t *)team)->members[p];
}

// gshmemx_team_sync_block: a barrier of the team's members (with quiet:
// every put, atomic and signal issued before it is complete).
static __device__ __forceinline__ void gshmemx_team_sync_block(gshmem_team_t team) {
  __shared__ unsigned long long gshmemi_team_ep;
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  char *slot = (char *)team - GSHMEMI_TEAM_DESC;
  int tid = gshmemi_block_tid(), nt = gshmemi_block_size();
  int np = t->np, me = t->me, sys = t->sys;
  __syncthreads();
  if (tid == 0) {
    if (sys) {
      asm volatile("fence.sc.sys;" ::: "memory");
    } else {
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    unsigned long long *ep = (unsigned long long *)(slot + GSHMEMI_TEAM_EPOCH);
    gshmemi_team_ep = *ep + 1;
    *ep = gshmemi_team_ep;
  }
  __syncthreads();
  unsigned long long epoch = gshmemi_team_ep;
  for (int p = tid; p < np; p += nt) {
    unsigned long long *c = (unsigned long long *)gshmemi_peer(slot + GSHMEMI_TEAM_CTR + 8 * me, t->members[p]);
    if (sys) {
      asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(c) : "memory");
    } else {
      asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(c) : "memory");
    }
  }
  const unsigned long long *own = (const unsigned long long *)(slot + GSHMEMI_TEAM_CTR);
  for (int p = tid; p < np; p += nt) {
    unsigned long long v;
    do {
      if (sys) {
        asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(own + p) : "memory");
      } else {
        asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(own + p) : "memory");
      }
    } while (v < epoch);
  }
  __syncthreads();
}
#define gshmemx_barrier_block gshmemx_team_sync_block

// gshmemi_reduce_block folds n elements of every member's source, in team
// order, into dest. In place (dest == source) it goes through shared
// memory in chunks, each stored after a barrier (no member reads it any
// more).
//
// Up to 64 bytes on up to 8 members it takes one round instead of two
// barriers: every member writes its source, then a flag holding the call's
// number, into its landing slot at every member, waits for every member's
// flag in its own slots and folds them. The slots alternate between two
// parities: a member that writes call k+2 into a slot has seen every
// member's call k+1, which each sent only after reading call k's.
template <typename T>
static __device__ __forceinline__ void gshmemi_reduce_ll(gshmem_team_t team, int op, T *dest, const T *source,
                                                         size_t n) {
  __shared__ unsigned long long gshmemi_ll_ep;
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  char *slot = (char *)team - GSHMEMI_TEAM_DESC;
  int tid = gshmemi_block_tid(), nt = gshmemi_block_size(), np = t->np, me = t->me, sys = t->sys;
  __syncthreads();
  if (tid == 0) {
    unsigned long long *ep = (unsigned long long *)(slot + GSHMEMI_TEAM_LL_EPOCH);
    gshmemi_ll_ep = *ep + 1;
    *ep = gshmemi_ll_ep;
  }
  __syncthreads();
  unsigned long long epoch = gshmemi_ll_ep;
  char *area = slot + GSHMEMI_TEAM_LL + (epoch & 1) * (GSHMEMI_LL_MAX_PES * 128);
  if (tid < np) {
    char *to = (char *)gshmemi_peer(area + 128 * me, t->members[tid]);
    for (size_t i = 0; i < n; i++) ((T *)to)[i] = source[i];
    unsigned long long *flag = (unsigned long long *)(to + GSHMEMI_LL_MAX_BYTES);
    if (sys) {
      asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(flag), "l"(epoch) : "memory");
    } else {
      asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(flag), "l"(epoch) : "memory");
    }
    const unsigned long long *in = (const unsigned long long *)(area + 128 * tid + GSHMEMI_LL_MAX_BYTES);
    unsigned long long v;
    do {
      if (sys) {
        asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(in) : "memory");
      } else {
        asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(in) : "memory");
      }
    } while (v != epoch);
  }
  __syncthreads();
  for (size_t i = tid; i < n; i += nt) {
    T acc = ((const T *)area)[i];
    for (int p = 1; p < np; p++) acc = gshmemi_fold<T>(op, acc, ((const T *)(area + 128 * p))[i]);
    dest[i] = acc;
  }
  __syncthreads();
}

template <typename T>
static __device__ __forceinline__ void gshmemi_reduce_block(gshmem_team_t team, int op, T *dest, const T *source,
                                                            size_t n) {
  __shared__ uint4 gshmemi_rbuf[256];
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  int tid = gshmemi_block_tid(), nt = gshmemi_block_size(), np = t->np;
  if (np <= GSHMEMI_LL_MAX_PES && n * sizeof(T) <= GSHMEMI_LL_MAX_BYTES) {
    gshmemi_reduce_ll<T>(team, op, dest, source, n);
    return;
  }
  gshmemx_team_sync_block(team);
  if (dest != source) {
    for (size_t i = tid; i < n; i += nt) {
      T acc = ((const T *)gshmemi_peer(source, t->members[0]))[i];
      for (int p = 1; p < np; p++) acc = gshmemi_fold<T>(op, acc, ((const T *)gshmemi_peer(source, t->members[p]))[i]);
      dest[i] = acc;
    }
    gshmemx_team_sync_block(team);
    return;
  }
  const size_t chunk = sizeof(gshmemi_rbuf) / sizeof(T);
  T *buf = (T *)gshmemi_rbuf;
  for (size_t c = 0; c < n; c += chunk) {
    size_t e = n - c < chunk ? n - c : chunk;
    for (size_t i = tid; i < e; i += nt) {
      T acc = ((const T *)gshmemi_peer(source, t->members[0]))[c + i];
      for (int p = 1; p < np; p++)
        acc = gshmemi_fold<T>(op, acc, ((const T *)gshmemi_peer(source, t->members[p]))[c + i]);
      buf[i] = acc;
    }
    gshmemx_team_sync_block(team);
    for (size_t i = tid; i < e; i += nt) dest[c + i] = buf[i];
    __syncthreads();
  }
  if (n == 0) gshmemx_team_sync_block(team);
}

#define GSHMEMI_RED_BLOCK(NAME, T, OPNAME, OP)                                                                     \
  static __device__ __forceinline__ int gshmemx_##NAME##_##OPNAME##_reduce_block(gshmem_team_t team, T *dest,     \
                                                                                 const T *source, size_t nreduce) { \
    gshmemi_reduce_block<T>(team, OP, dest, source, nreduce);                                                      \
    return 0;                                                                                                      \
  }
#define GSHMEMI_RED_ARITH(NAME, T)                                                                                \
  GSHMEMI_RED_BLOCK(NAME, T, sum, GSHMEMI_RED_SUM)                                                                \
  GSHMEMI_RED_BLOCK(NAME, T, prod, GSHMEMI_RED_PROD)                                                              \
  GSHMEMI_RED_BLOCK(NAME, T, min, GSHMEMI_RED_MIN)                                                                \
  GSHMEMI_RED_BLOCK(NAME, T, max, GSHMEMI_RED_MAX)
#define GSHMEMI_RED_BITS(NAME, T)                                                                                 \
  GSHMEMI_RED_BLOCK(NAME, T, and, GSHMEMI_RED_AND)                                                                \
  GSHMEMI_RED_BLOCK(NAME, T, or, GSHMEMI_RED_OR)                                                                  \
  GSHMEMI_RED_BLOCK(NAME, T, xor, GSHMEMI_RED_XOR)
#define GSHMEMI_RED_INT(NAME, T) GSHMEMI_RED_ARITH(NAME, T) GSHMEMI_RED_BITS(NAME, T)
GSHMEMI_RED_INT(char, char)
GSHMEMI_RED_INT(schar, signed char)
GSHMEMI_RED_INT(short, short)
GSHMEMI_RED_INT(int, int)
GSHMEMI_RED_INT(long, long)
GSHMEMI_RED_INT(longlong, long long)
GSHMEMI_RED_INT(uchar, unsigned char)
GSHMEMI_RED_INT(ushort, unsigned short)
GSHMEMI_RED_INT(uint, unsigned int)
GSHMEMI_RED_INT(ulong, unsigned long)
GSHMEMI_RED_INT(ulonglong, unsigned long long)
GSHMEMI_RED_INT(int8, int8_t)
GSHMEMI_RED_INT(int16, int16_t)
GSHMEMI_RED_INT(int32, int32_t)
GSHMEMI_RED_INT(int64, int64_t)
GSHMEMI_RED_INT(uint8, uint8_t)
GSHMEMI_RED_INT(uint16, uint16_t)
GSHMEMI_RED_INT(uint32, uint32_t)
GSHMEMI_RED_INT(uint64, uint64_t)
GSHMEMI_RED_ARITH(float, float)
GSHMEMI_RED_ARITH(double, double)

// Broadcast: nelems bytes of the root's source into every member's dest
// (the root's too, unless dest == source there).
static __device__ __forceinline__ int gshmemx_broadcastmem_block(gshmem_team_t team, void *dest, const void *source,
                                                                size_t nelems, int root) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  gshmemx_team_sync_block(team);
  if (t->me != root || dest != source)
    gshmemi_copy(dest, gshmemi_peer(source, t->members[root]), nelems, gshmemi_block_tid(), gshmemi_block_size());
  gshmemx_team_sync_block(team);
  return 0;
}
// fcollect: member p's nelems bytes of source land at dest + p * nelems on
// every member.
static __device__ __forceinline__ int gshmemx_fcollectmem_block(gshmem_team_t team, void *dest, const void *source,
                                                               size_t nelems) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  gshmemx_team_sync_block(team);
  for (int i = 1; i <= t->np; i++) {
    int p = (t->me + i) % t->np;
    gshmemi_copy((char *)dest + (size_t)p * nelems, gshmemi_peer(source, t->members[p]), nelems, gshmemi_block_tid(),
                 gshmemi_block_size());
  }
  gshmemx_team_sync_block(team);
  return 0;
}
// alltoall: block j (nelems bytes) of member i's source lands in block i of
// member j's dest.
static __device__ __forceinline__ int gshmemx_alltoallmem_block(gshmem_team_t team, void *dest, const void *source,
                                                               size_t nelems) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  gshmemx_team_sync_block(team);
  for (int i = 1; i <= t->np; i++) {
    int p = (t->me + i) % t->np;
    gshmemi_copy((char *)dest + (size_t)p * nelems,
                 (const char *)gshmemi_peer(source, t->members[p]) + (size_t)t->me * nelems, nelems,
                 gshmemi_block_tid(), gshmemi_block_size());
  }
  gshmemx_team_sync_block(team);
  return 0;
}
#define GSHMEMI_COLL_TYPED(NAME, T)                                                                               \
  static __device__ __forceinline__ int gshmemx_##NAME##_broadcast_block(gshmem_team_t team, T *dest,            \
                                                                         const T *source, size_t n, int root) {  \
    return gshmemx_broadcastmem_block(team, dest, source, n * sizeof(T), root);                                   \
  }                                                                                                               \
  static __device__ __forceinline__ int gshmemx_##NAME##_fcollect_block(gshmem_team_t team, T *dest,             \
                                                                        const T *source, size_t n) {             \
    return gshmemx_fcollectmem_block(team, dest, source, n * sizeof(T));                                          \
  }                                                                                                               \
  static __device__ __forceinline__ int gshmemx_##NAME##_alltoall_block(gshmem_team_t team, T *dest,             \
                                                                        const T *source, size_t n) {             \
    return gshmemx_alltoallmem_block(team, dest, source, n * sizeof(T));                                          \
  }
GSHMEMI_COLL_TYPED(char, char)
GSHMEMI_COLL_TYPED(short, short)
GSHMEMI_COLL_TYPED(int, int)
GSHMEMI_COLL_TYPED(long, long)
GSHMEMI_COLL_TYPED(longlong, long long)
GSHMEMI_COLL_TYPED(uint32, uint32_t)
GSHMEMI_COLL_TYPED(uint64, uint64_t)
GSHMEMI_COLL_TYPED(float, float)
GSHMEMI_COLL_TYPED(double, double)

// ------------------------------------------------------------- host side ---
//
// Host code, when nvcc compiles this header (runtime-API programs): the registration of this unit's state with
// libmpi_abi, and the collective launch. The library's calls are weak, so
// a program that does not link libmpi_abi still links (its kernels then
// run without a state: gshmemx_collective_launch refuses).

#if defined(__CUDACC__)
#include <stdio.h>

extern "C" {
typedef int (*gshmemi_bind_fn)(const void *state, size_t size, int device);
int gshmemi_register_state(gshmemi_bind_fn bind) __attribute__((weak));
int gshmemi_kern_query(int *device, int *sharers) __attribute__((weak));
}

#if !defined(__CUDA_ARCH__) && (!defined(__CUDACC_RDC__) || defined(GSHMEM_STATE_DEFINE))
// gshmemi_bind_state writes this unit's gshmemi_state on the PE's GPU
// (the runtime's context there is the GPU's primary context, the
// library's too) and leaves the caller's current device as it was.
static int gshmemi_bind_state(const void *state, size_t size, int device) {
  if (size != sizeof(gshmem_state_t)) return 2;
  int prev = -1;
  if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
  if (prev != device && cudaSetDevice(device) != cudaSuccess) return 1;
  cudaError_t e = cudaMemcpyToSymbol(gshmemi_state, state, size);
  if (prev >= 0 && prev != device) cudaSetDevice(prev);
  return e == cudaSuccess ? 0 : 1;
}
__attribute__((constructor)) static void gshmemi_register_unit(void) {
  if (gshmemi_register_state) gshmemi_register_state(gshmemi_bind_state);
}
#elif !defined(__CUDA_ARCH__)
// Under -rdc=true the unit that defines the state registers it; naming it
// here makes the linker fail (undefined gshmemi_state) when no unit does.
__attribute__((used)) static const void *gshmemi_state_ref = (const void *)&gshmemi_state;
#endif

// gshmemx_collective_launch_query_gridsize: the most blocks of func (of
// block threads, shared bytes of dynamic shared memory) that can be
// resident at once on the PE's GPU, shared with the other PEs on that GPU
// (under MPS their collective kernels run at the same time). 0, or
// nonzero after saying why.
static inline int gshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args, size_t shared,
                                                           int *gridsize) {
  (void)args;
  int dev = 0, sharers = 1, per = 0, sms = 0;
  if (!gshmemi_kern_query || gshmemi_kern_query(&dev, &sharers) != 0) {
    fprintf(stderr, "gshmem: gshmemx_collective_launch: no device state (gshmem_init first, with the heap on the "
                    "device: GSHMEM_HEAP=device and a libmpi_abi built with -tags cuda)\n");
    return 1;
  }
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, func, (int)(block.x * block.y * block.z), shared);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess) {
    fprintf(stderr, "gshmem: gshmemx_collective_launch: occupancy of the kernel: %s\n", cudaGetErrorString(e));
    return (int)e;
  }
  *gridsize = per * sms / (sharers > 0 ? sharers : 1);
  return 0;
}

// gshmemx_collective_launch launches a kernel whose blocks wait on each
// other or on the other PEs' kernels (device barriers, signal waits), as
// nvshmemx_collective_launch: every block must be resident at once, so the
// launch is cooperative, and a grid larger than can be (for this PE's
// share of the GPU) is refused rather than left to hang. 0, or nonzero
// (a cudaError_t where the runtime failed) after saying why.
static inline int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                            cudaStream_t stream) {
  int limit = 0, dev = 0, cur = -1;
  int rc = gshmemx_collective_launch_query_gridsize(func, block, args, shared, &limit);
  if (rc != 0) return rc;
  unsigned long long n = (unsigned long long)grid.x * grid.y * grid.z;
  if (n == 0 || n > (unsigned long long)limit) {
    fprintf(stderr, "gshmem: gshmemx_collective_launch: a grid of %llu blocks; at most %d can be resident at once for "
                    "this PE on its GPU\n", n, limit);
    return (int)cudaErrorCooperativeLaunchTooLarge;
  }
  gshmemi_kern_query(&dev, 0);
  if (cudaGetDevice(&cur) != cudaSuccess || cur != dev) {
    fprintf(stderr, "gshmem: gshmemx_collective_launch: the current device is %d, this PE's GPU is %d (cudaSetDevice)\n",
            cur, dev);
    return (int)cudaErrorInvalidDevice;
  }
  cudaError_t e = cudaLaunchCooperativeKernel(func, grid, block, args, shared, stream);
  if (e == cudaErrorNotSupported) {
    // No cooperative launches here (an MPS client may lack them): the
    // occupancy check above already showed that the grid fits.
    (void)cudaGetLastError();
    e = cudaLaunchKernel(func, grid, block, args, shared, stream);
  }
  if (e != cudaSuccess) fprintf(stderr, "gshmem: gshmemx_collective_launch: %s\n", cudaGetErrorString(e));
  return (int)e;
}
#endif

// The team collectives in thread and warp scope, and reducescatter.
#include "gshmem_coll.cuh"

// NVSHMEM's typed families gshmem.h or NVSHMEM has beyond the above
// (strided, typed put-with-signal in every scope, the vector, any and some
// waits), generated.
#include "gshmem_typed.cuh"

#pragma nv_diag_default 20040

#endif // GSHMEM_CUH
