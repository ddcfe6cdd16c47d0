// gshmem_coll.cuh: the team collectives in thread and warp scope (the
// block scope's own are in gshmem.cuh) and reducescatter in every scope,
// NVSHMEM's device forms; included by gshmem.cuh, not on its own.
//
// Scope S: 0 one thread calls, 1 every thread of one warp, 2 every thread
// of one block. As in NVSHMEM, one group of each PE calls a collective on
// a team at a time, and every member's group must call it.
#ifndef GSHMEM_COLL_CUH
#define GSHMEM_COLL_CUH

template <int S> static __device__ __forceinline__ int gshmemi_scope_tid(void) {
  return S == 0 ? 0 : S == 1 ? gshmemi_lane() : gshmemi_block_tid();
}
template <int S> static __device__ __forceinline__ int gshmemi_scope_size(void) {
  return S == 0 ? 1 : S == 1 ? 32 : gshmemi_block_size();
}
template <int S> static __device__ __forceinline__ void gshmemi_scope_sync(void) {
  if (S == 1) __syncwarp();
  if (S == 2) __syncthreads();
}

// gshmemi_team_sync_g: the team's barrier (with quiet) in scope S: the
// block scope's gshmemx_team_sync_block, and for a thread or a warp the
// same counters, the epoch kept in a register (a warp's lane 0 takes it
// and hands it round).
template <int S> static __device__ __forceinline__ void gshmemi_team_sync_g(gshmem_team_t team) {
  if (S == 2) {
    gshmemx_team_sync_block(team);
    return;
  }
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  char *slot = (char *)team - GSHMEMI_TEAM_DESC;
  int tid = gshmemi_scope_tid<S>(), nt = gshmemi_scope_size<S>();
  int np = t->np, me = t->me, sys = t->sys;
  gshmemi_scope_sync<S>();
  unsigned long long epoch = 0;
  if (tid == 0) {
    if (sys) {
      asm volatile("fence.sc.sys;" ::: "memory");
    } else {
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    unsigned long long *ep = (unsigned long long *)(slot + GSHMEMI_TEAM_EPOCH);
    epoch = *ep + 1;
    *ep = epoch;
  }
  if (S == 1) epoch = __shfl_sync(0xffffffffu, epoch, 0);
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
  gshmemi_scope_sync<S>();
}

// Barrier and sync of a team, and of the world, in thread and warp scope.
GSHMEMI_API(void gshmem_barrier(gshmem_team_t team), { gshmemi_team_sync_g<0>(team); })
GSHMEMI_API(int gshmem_team_sync(gshmem_team_t team), {
  gshmemi_team_sync_g<0>(team);
  return 0;
})
static __device__ __forceinline__ void gshmemx_barrier_warp(gshmem_team_t team) { gshmemi_team_sync_g<1>(team); }
static __device__ __forceinline__ int gshmemx_team_sync_warp(gshmem_team_t team) {
  gshmemi_team_sync_g<1>(team);
  return 0;
}
static __device__ __forceinline__ void gshmemx_sync_all_warp(void) {
  __syncwarp();
  if (gshmemi_lane() == 0) gshmem_sync_all();
  __syncwarp();
}

// gshmemi_broadcast_g, _fcollect_g, _alltoall_g: gshmem.cuh's block forms
// in any scope.
template <int S>
static __device__ __forceinline__ int gshmemi_broadcast_g(gshmem_team_t team, void *dest, const void *source,
                                                         size_t nelems, int root) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  gshmemi_team_sync_g<S>(team);
  if (t->me != root || dest != source)
    gshmemi_copy(dest, gshmemi_peer(source, t->members[root]), nelems, gshmemi_scope_tid<S>(),
                 gshmemi_scope_size<S>());
  gshmemi_team_sync_g<S>(team);
  return 0;
}
template <int S>
static __device__ __forceinline__ int gshmemi_fcollect_g(gshmem_team_t team, void *dest, const void *source,
                                                        size_t nelems) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  gshmemi_team_sync_g<S>(team);
  for (int i = 1; i <= t->np; i++) {
    int p = (t->me + i) % t->np;
    gshmemi_copy((char *)dest + (size_t)p * nelems, gshmemi_peer(source, t->members[p]), nelems,
                 gshmemi_scope_tid<S>(), gshmemi_scope_size<S>());
  }
  gshmemi_team_sync_g<S>(team);
  return 0;
}
template <int S>
static __device__ __forceinline__ int gshmemi_alltoall_g(gshmem_team_t team, void *dest, const void *source,
                                                        size_t nelems) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  gshmemi_team_sync_g<S>(team);
  for (int i = 1; i <= t->np; i++) {
    int p = (t->me + i) % t->np;
    gshmemi_copy((char *)dest + (size_t)p * nelems,
                 (const char *)gshmemi_peer(source, t->members[p]) + (size_t)t->me * nelems, nelems,
                 gshmemi_scope_tid<S>(), gshmemi_scope_size<S>());
  }
  gshmemi_team_sync_g<S>(team);
  return 0;
}

GSHMEMI_API(int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root),
            { return gshmemi_broadcast_g<0>(team, dest, source, nelems, PE_root); })
GSHMEMI_API(int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems),
            { return gshmemi_fcollect_g<0>(team, dest, source, nelems); })
GSHMEMI_API(int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems),
            { return gshmemi_alltoall_g<0>(team, dest, source, nelems); })
static __device__ __forceinline__ int gshmemx_broadcastmem_warp(gshmem_team_t team, void *dest, const void *source,
                                                               size_t nelems, int root) {
  return gshmemi_broadcast_g<1>(team, dest, source, nelems, root);
}
static __device__ __forceinline__ int gshmemx_fcollectmem_warp(gshmem_team_t team, void *dest, const void *source,
                                                              size_t nelems) {
  return gshmemi_fcollect_g<1>(team, dest, source, nelems);
}
static __device__ __forceinline__ int gshmemx_alltoallmem_warp(gshmem_team_t team, void *dest, const void *source,
                                                              size_t nelems) {
  return gshmemi_alltoall_g<1>(team, dest, source, nelems);
}

// gshmemi_reduce_g folds, for i < n, element off + i of every member's
// source (in team order) into dest[i], in scope S: off 0 is reduce, off
// me * n reducescatter. Where dest overlaps a source being read, each
// thread folds GSHMEMI_RED_CHUNK elements into registers, the team meets,
// and only then are they stored, so no member reads an element after it
// changed.
#define GSHMEMI_RED_CHUNK 8
template <int S, typename T>
static __device__ __forceinline__ void gshmemi_reduce_g(gshmem_team_t team, int op, T *dest, const T *source,
                                                       size_t n, size_t off, size_t extent) {
  const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;
  int tid = gshmemi_scope_tid<S>(), nt = gshmemi_scope_size<S>(), np = t->np;
  gshmemi_team_sync_g<S>(team);
  bool overlap = dest < source + extent && source < dest + n;
  if (!overlap) {
    for (size_t i = tid; i < n; i += nt) {
      T acc = ((const T *)gshmemi_peer(source, t->members[0]))[off + i];
      for (int p = 1; p < np; p++) acc = gshmemi_fold<T>(op, acc, ((const T *)gshmemi_peer(source, t->members[p]))[off + i]);
      dest[i] = acc;
    }
  } else {
    const size_t step = (size_t)GSHMEMI_RED_CHUNK * nt;
    for (size_t c = 0; c < n; c += step) {
      T buf[GSHMEMI_RED_CHUNK];
#pragma unroll
      for (int k = 0; k < GSHMEMI_RED_CHUNK; k++) {
        size_t i = c + (size_t)k * nt + tid;
        if (i < n) {
          T acc = ((const T *)gshmemi_peer(source, t->members[0]))[off + i];
          for (int p = 1; p < np; p++)
            acc = gshmemi_fold<T>(op, acc, ((const T *)gshmemi_peer(source, t->members[p]))[off + i]);
          buf[k] = acc;
        }
      }
      gshmemi_team_sync_g<S>(team);
#pragma unroll
      for (int k = 0; k < GSHMEMI_RED_CHUNK; k++) {
        size_t i = c + (size_t)k * nt + tid;
        if (i < n) dest[i] = buf[k];
      }
    }
  }
  gshmemi_team_sync_g<S>(team);
}

// The typed forms. Reduce in thread and warp scope (block: gshmem.cuh);
// reducescatter, whose source holds n_pes blocks of nreduce, in all three.
#define GSHMEMI_RED_G(NAME, T, OPNAME, OP)                                                                         \
  GSHMEMI_API(int gshmem_##NAME##_##OPNAME##_reduce(gshmem_team_t team, T *dest, const T *source, size_t nreduce), { \
    gshmemi_reduce_g<0, T>(team, OP, dest, source, nreduce, 0, nreduce);                                          \
    return 0;                                                                                                     \
  })                                                                                                              \
  static __device__ __forceinline__ int gshmemx_##NAME##_##OPNAME##_reduce_warp(gshmem_team_t team, T *dest,      \
                                                                                const T *source, size_t nreduce) { \
    gshmemi_reduce_g<1, T>(team, OP, dest, source, nreduce, 0, nreduce);                                          \
    return 0;                                                                                                     \
  }                                                                                                               \
  GSHMEMI_API(int gshmem_##NAME##_##OPNAME##_reducescatter(gshmem_team_t team, T *dest, const T *source,          \
                                                            size_t nreduce), {                                    \
    const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;                                             \
    gshmemi_reduce_g<0, T>(team, OP, dest, source, nreduce, (size_t)t->me * nreduce, (size_t)t->np * nreduce);    \
    return 0;                                                                                                     \
  })                                                                                                              \
  static __device__ __forceinline__ int gshmemx_##NAME##_##OPNAME##_reducescatter_warp(                           \
      gshmem_team_t team, T *dest, const T *source, size_t nreduce) {                                             \
    const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;                                             \
    gshmemi_reduce_g<1, T>(team, OP, dest, source, nreduce, (size_t)t->me * nreduce, (size_t)t->np * nreduce);    \
    return 0;                                                                                                     \
  }                                                                                                               \
  static __device__ __forceinline__ int gshmemx_##NAME##_##OPNAME##_reducescatter_block(                          \
      gshmem_team_t team, T *dest, const T *source, size_t nreduce) {                                             \
    const gshmemi_team_desc_t *t = (const gshmemi_team_desc_t *)team;                                             \
    gshmemi_reduce_g<2, T>(team, OP, dest, source, nreduce, (size_t)t->me * nreduce, (size_t)t->np * nreduce);    \
    return 0;                                                                                                     \
  }
#define GSHMEMI_RED_G_ARITH(NAME, T)                                                                              \
  GSHMEMI_RED_G(NAME, T, sum, GSHMEMI_RED_SUM)                                                                    \
  GSHMEMI_RED_G(NAME, T, prod, GSHMEMI_RED_PROD)                                                                  \
  GSHMEMI_RED_G(NAME, T, min, GSHMEMI_RED_MIN)                                                                    \
  GSHMEMI_RED_G(NAME, T, max, GSHMEMI_RED_MAX)
#define GSHMEMI_RED_G_BITS(NAME, T)                                                                               \
  GSHMEMI_RED_G(NAME, T, and, GSHMEMI_RED_AND)                                                                    \
  GSHMEMI_RED_G(NAME, T, or, GSHMEMI_RED_OR)                                                                      \
  GSHMEMI_RED_G(NAME, T, xor, GSHMEMI_RED_XOR)
GSHMEMI_RED_G_ARITH(char, char)
GSHMEMI_RED_G_ARITH(schar, signed char)
GSHMEMI_RED_G_ARITH(short, short)
GSHMEMI_RED_G_ARITH(int, int)
GSHMEMI_RED_G_ARITH(long, long)
GSHMEMI_RED_G_ARITH(longlong, long long)
GSHMEMI_RED_G_ARITH(ptrdiff, ptrdiff_t)
GSHMEMI_RED_G_ARITH(uchar, unsigned char)
GSHMEMI_RED_G_ARITH(ushort, unsigned short)
GSHMEMI_RED_G_ARITH(uint, unsigned int)
GSHMEMI_RED_G_ARITH(ulong, unsigned long)
GSHMEMI_RED_G_ARITH(ulonglong, unsigned long long)
GSHMEMI_RED_G_ARITH(int8, int8_t)
GSHMEMI_RED_G_ARITH(int16, int16_t)
GSHMEMI_RED_G_ARITH(int32, int32_t)
GSHMEMI_RED_G_ARITH(int64, int64_t)
GSHMEMI_RED_G_ARITH(uint8, uint8_t)
GSHMEMI_RED_G_ARITH(uint16, uint16_t)
GSHMEMI_RED_G_ARITH(uint32, uint32_t)
GSHMEMI_RED_G_ARITH(uint64, uint64_t)
GSHMEMI_RED_G_ARITH(size, size_t)
GSHMEMI_RED_G_ARITH(float, float)
GSHMEMI_RED_G_ARITH(double, double)
GSHMEMI_RED_G_BITS(uchar, unsigned char)
GSHMEMI_RED_G_BITS(ushort, unsigned short)
GSHMEMI_RED_G_BITS(uint, unsigned int)
GSHMEMI_RED_G_BITS(ulong, unsigned long)
GSHMEMI_RED_G_BITS(ulonglong, unsigned long long)
GSHMEMI_RED_G_BITS(int8, int8_t)
GSHMEMI_RED_G_BITS(int16, int16_t)
GSHMEMI_RED_G_BITS(int32, int32_t)
GSHMEMI_RED_G_BITS(int64, int64_t)
GSHMEMI_RED_G_BITS(uint8, uint8_t)
GSHMEMI_RED_G_BITS(uint16, uint16_t)
GSHMEMI_RED_G_BITS(uint32, uint32_t)
GSHMEMI_RED_G_BITS(uint64, uint64_t)
GSHMEMI_RED_G_BITS(size, size_t)

// Typed broadcast, fcollect and alltoall in thread and warp scope.
#define GSHMEMI_COLL_G(NAME, T)                                                                                   \
  GSHMEMI_API(int gshmem_##NAME##_broadcast(gshmem_team_t team, T *dest, const T *source, size_t nelems,          \
                                            int PE_root),                                                         \
              { return gshmemi_broadcast_g<0>(team, dest, source, nelems * sizeof(T), PE_root); })                \
  GSHMEMI_API(int gshmem_##NAME##_fcollect(gshmem_team_t team, T *dest, const T *source, size_t nelems),          \
              { return gshmemi_fcollect_g<0>(team, dest, source, nelems * sizeof(T)); })                          \
  GSHMEMI_API(int gshmem_##NAME##_alltoall(gshmem_team_t team, T *dest, const T *source, size_t nelems),          \
              { return gshmemi_alltoall_g<0>(team, dest, source, nelems * sizeof(T)); })                          \
  static __device__ __forceinline__ int gshmemx_##NAME##_broadcast_warp(gshmem_team_t team, T *dest,             \
                                                                        const T *source, size_t n, int root) {   \
    return gshmemi_broadcast_g<1>(team, dest, source, n * sizeof(T), root);                                       \
  }                                                                                                               \
  static __device__ __forceinline__ int gshmemx_##NAME##_fcollect_warp(gshmem_team_t team, T *dest,              \
                                                                       const T *source, size_t n) {              \
    return gshmemi_fcollect_g<1>(team, dest, source, n * sizeof(T));                                              \
  }                                                                                                               \
  static __device__ __forceinline__ int gshmemx_##NAME##_alltoall_warp(gshmem_team_t team, T *dest,              \
                                                                       const T *source, size_t n) {              \
    return gshmemi_alltoall_g<1>(team, dest, source, n * sizeof(T));                                              \
  }
GSHMEMI_COLL_G(float, float)
GSHMEMI_COLL_G(double, double)
GSHMEMI_COLL_G(char, char)
GSHMEMI_COLL_G(schar, signed char)
GSHMEMI_COLL_G(short, short)
GSHMEMI_COLL_G(int, int)
GSHMEMI_COLL_G(long, long)
GSHMEMI_COLL_G(longlong, long long)
GSHMEMI_COLL_G(uchar, unsigned char)
GSHMEMI_COLL_G(ushort, unsigned short)
GSHMEMI_COLL_G(uint, unsigned int)
GSHMEMI_COLL_G(ulong, unsigned long)
GSHMEMI_COLL_G(ulonglong, unsigned long long)
GSHMEMI_COLL_G(int8, int8_t)
GSHMEMI_COLL_G(int16, int16_t)
GSHMEMI_COLL_G(int32, int32_t)
GSHMEMI_COLL_G(int64, int64_t)
GSHMEMI_COLL_G(uint8, uint8_t)
GSHMEMI_COLL_G(uint16, uint16_t)
GSHMEMI_COLL_G(uint32, uint32_t)
GSHMEMI_COLL_G(uint64, uint64_t)
GSHMEMI_COLL_G(size, size_t)
GSHMEMI_COLL_G(ptrdiff, ptrdiff_t)

#endif // GSHMEM_COLL_CUH
