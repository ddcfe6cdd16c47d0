// Team collectives on device heaps (included by builtin.cu). Every member
// runs the same kernels on its own stream and reads its peers' heaps
// through their mappings in its context (the same pointer for a PE of this
// process, CUDA IPC for another process, peer access for another GPU).
//
// Synchronization: each team owns, in every member's device heap at
// sync_off, one 64-bit counter per member, which only grows: a barrier adds
// one to counter "me" at every member and waits until its own counters all
// reach the barrier's epoch. The host counts a team's device barriers
// identically on every member and passes the epoch, so nothing is reset
// while the team lives. Kernels that spin in a barrier are one block, so
// that every member's can be resident at once (a multi-block kernel that
// waited for a peer's could occupy the SMs the peer's needs); large
// collectives are a barrier kernel, a multi-block kernel that never waits,
// and a barrier kernel.
#ifndef GSHMEMI_COLL_CUH
#define GSHMEMI_COLL_CUH

#define GSHMEMI_TEAM_MAX 64

typedef struct gshmemi_team {
  unsigned long long base[GSHMEMI_TEAM_MAX]; // member heaps as mapped here
  unsigned long long sync_off;               // the team's counters, in every member's heap
  unsigned long long epoch;                  // epoch of the launch's first barrier
  int np, me;
  int sys; // a member is on another GPU: synchronize at system scope, else GPU scope
} gshmemi_team_t;

// The pieces of a gathering copy: piece i copies n[i] bytes from member
// peer[i]'s heap at src[i] into this PE's heap at dst[i].
typedef struct gshmemi_pieces {
  unsigned long long src[GSHMEMI_TEAM_MAX];
  unsigned long long dst[GSHMEMI_TEAM_MAX];
  unsigned long long n[GSHMEMI_TEAM_MAX];
  int peer[GSHMEMI_TEAM_MAX];
  int count;
} gshmemi_pieces_t;

// The team's bases in shared memory: a kernel parameter indexed by a
// run-time value would be copied to every thread's local memory.
static __device__ __forceinline__ void gshmemi_load_bases(const gshmemi_team_t &t, unsigned long long *sb) {
  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < GSHMEMI_TEAM_MAX; i++) sb[i] = t.base[i];
  }
  __syncthreads();
}

// Release and acquire at GPU scope when every member is on this GPU (its
// L2 is the point of coherence: far cheaper than system scope), else at
// system scope.
static __device__ __forceinline__ void gshmemi_fence_scoped(int sys) {
  if (sys) {
    asm volatile("fence.sc.sys;" ::: "memory");
  } else {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
  }
}
static __device__ __forceinline__ void gshmemi_red_add_scoped(unsigned long long *p, int sys) {
  if (sys) {
    asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
  } else {
    asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
  }
}
static __device__ __forceinline__ unsigned long long gshmemi_ld_scoped(const unsigned long long *p, int sys) {
  unsigned long long v;
  if (sys) {
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  } else {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  }
  return v;
}

// A barrier of the team's members, called by every thread of one block:
// the block's earlier writes are visible at every member afterwards, and
// every member's writes before its barrier are visible here.
static __device__ __forceinline__ void gshmemi_team_sync(const unsigned long long *sb, unsigned long long sync_off,
                                                         int np, int me, unsigned long long epoch, int sys) {
  __syncthreads();
  if (threadIdx.x == 0) gshmemi_fence_scoped(sys);
  __syncthreads();
  for (int p = threadIdx.x; p < np; p += blockDim.x)
    gshmemi_red_add_scoped((unsigned long long *)(sb[p] + sync_off) + me, sys);
  const unsigned long long *own = (const unsigned long long *)(sb[me] + sync_off);
  for (int p = threadIdx.x; p < np; p += blockDim.x)
    while (gshmemi_ld_scoped(own + p, sys) < epoch) {
    }
  __syncthreads();
}

// A team barrier as a kernel (one block).
extern "C" __global__ void gshmemi_coll_sync(gshmemi_team_t t) {
  __shared__ unsigned long long sb[GSHMEMI_TEAM_MAX];
  gshmemi_load_bases(t, sb);
  gshmemi_team_sync(sb, t.sync_off, t.np, t.me, t.epoch, t.sys);
}

// ------------------------------------------------------------ reductions ---

// Type codes, as the Go side passes them (the operation codes are
// gshmem.cuh's GSHMEMI_RED_*).
#define GSHMEMI_T_I8 0
#define GSHMEMI_T_I16 1
#define GSHMEMI_T_I32 2
#define GSHMEMI_T_I64 3
#define GSHMEMI_T_U8 4
#define GSHMEMI_T_U16 5
#define GSHMEMI_T_U32 6
#define GSHMEMI_T_U64 7
#define GSHMEMI_T_F32 8
#define GSHMEMI_T_F64 9

// 16 bytes of elements.
template <typename T> union gshmemi_vec {
  uint4 v;
  T e[16 / sizeof(T)];
};

#define GSHMEMI_RED_UNROLL 2

// Folds elements [lo, hi) of every member's src (at src_off) in team
// order and stores each result at dst_off + (i - shift) elements in every
// member's dst (all_dst) or in this PE's. Threads tid = 0..nt-1 share the
// work; with vec, lo's and hi's byte offsets and every address are 16-byte
// aligned and the work goes 16 bytes at a time, GSHMEMI_RED_UNROLL vectors
// in flight per thread. A thread loads every input of an element before it
// stores the result, so dst may be src when each element is folded by one
// PE only.
template <typename T>
static __device__ __forceinline__ void gshmemi_reduce_range(const unsigned long long *sb, int np, int me, int op,
                                                            unsigned long long dst_off, unsigned long long src_off,
                                                            unsigned long long lo, unsigned long long hi,
                                                            unsigned long long shift, int all_dst, int vec,
                                                            int src_pe, unsigned long long tid, unsigned long long nt) {
  const unsigned long long *in0 = src_pe < 0 ? sb : sb + src_pe;
  int nsrc = src_pe < 0 ? np : 1;
  const unsigned long long per = 16 / sizeof(T);
  unsigned long long i0 = lo;
  if (vec) {
    typedef gshmemi_vec<T> V;
    unsigned long long nv = (hi - lo) / per;
    unsigned long long v = tid;
    for (; v + (GSHMEMI_RED_UNROLL - 1) * nt < nv; v += GSHMEMI_RED_UNROLL * nt) {
      V acc[GSHMEMI_RED_UNROLL];
#pragma unroll
      for (int u = 0; u < GSHMEMI_RED_UNROLL; u++)
        acc[u].v = ((const uint4 *)(in0[0] + src_off + lo * sizeof(T)))[v + u * nt];
      for (int p = 1; p < nsrc; p++) {
        const uint4 *s = (const uint4 *)(sb[p] + src_off + lo * sizeof(T));
        V in[GSHMEMI_RED_UNROLL];
#pragma unroll
        for (int u = 0; u < GSHMEMI_RED_UNROLL; u++) in[u].v = s[v + u * nt];
#pragma unroll
        for (int u = 0; u < GSHMEMI_RED_UNROLL; u++)
#pragma unroll
          for (int k = 0; k < (int)per; k++) acc[u].e[k] = gshmemi_fold<T>(op, acc[u].e[k], in[u].e[k]);
      }
      for (int q = all_dst ? 0 : me; q < (all_dst ? np : me + 1); q++) {
        int p = all_dst ? (me + q) % np : me;
        uint4 *d = (uint4 *)(sb[p] + dst_off + (lo - shift) * sizeof(T));
#pragma unroll
        for (int u = 0; u < GSHMEMI_RED_UNROLL; u++) d[v + u * nt] = acc[u].v;
      }
    }
    for (; v < nv; v += nt) {
      V acc;
      acc.v = ((const uint4 *)(in0[0] + src_off + lo * sizeof(T)))[v];
      for (int p = 1; p < nsrc; p++) {
        V in;
        in.v = ((const uint4 *)(sb[p] + src_off + lo * sizeof(T)))[v];
#pragma unroll
        for (int k = 0; k < (int)per; k++) acc.e[k] = gshmemi_fold<T>(op, acc.e[k], in.e[k]);
      }
      for (int q = all_dst ? 0 : me; q < (all_dst ? np : me + 1); q++) {
        int p = all_dst ? (me + q) % np : me;
        ((uint4 *)(sb[p] + dst_off + (lo - shift) * sizeof(T)))[v] = acc.v;
      }
    }
    i0 = lo + nv * per;
  }
  for (unsigned long long i = i0 + tid; i < hi; i += nt) {
    T acc = ((const T *)(in0[0] + src_off))[i];
    for (int p = 1; p < nsrc; p++) acc = gshmemi_fold<T>(op, acc, ((const T *)(sb[p] + src_off))[i]);
    for (int q = all_dst ? 0 : me; q < (all_dst ? np : me + 1); q++) {
      int p = all_dst ? (me + q) % np : me;
      ((T *)(sb[p] + dst_off))[i - shift] = acc;
    }
  }
}

#define GSHMEMI_BY_TYPE(typ, CALL)                                                                                \
  switch (typ) {                                                                                                  \
  case GSHMEMI_T_I8: CALL(signed char); break;                                                                    \
  case GSHMEMI_T_I16: CALL(short); break;                                                                         \
  case GSHMEMI_T_I32: CALL(int); break;                                                                           \
  case GSHMEMI_T_I64: CALL(long long); break;                                                                     \
  case GSHMEMI_T_U8: CALL(unsigned char); break;                                                                  \
  case GSHMEMI_T_U16: CALL(unsigned short); break;                                                                \
  case GSHMEMI_T_U32: CALL(unsigned int); break;                                                                  \
  case GSHMEMI_T_U64: CALL(unsigned long long); break;                                                            \
  case GSHMEMI_T_F32: CALL(float); break;                                                                         \
  case GSHMEMI_T_F64: CALL(double); break;                                                                        \
  }

// The large collectives' middle kernel (any grid, no waiting): this PE
// folds its slice [lo, hi) of every member's src (src_pe < 0) and stores it
// into every member's dst (all_dst; an all-reduce, whose reduce-scatter and
// allgather are one pass), or only into its own (a reduce-scatter). With
// src_pe >= 0 it copies the slice of that member's src instead (broadcast,
// fcollect: each byte is read once and written to every member).
extern "C" __global__ void gshmemi_coll_reduce(gshmemi_team_t t, unsigned long long dst_off, unsigned long long src_off,
                                               unsigned long long lo, unsigned long long hi, unsigned long long shift,
                                               int typ, int op, int all_dst, int vec, int src_pe) {
  __shared__ unsigned long long sb[GSHMEMI_TEAM_MAX];
  gshmemi_load_bases(t, sb);
  unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long nt = (unsigned long long)gridDim.x * blockDim.x;
#define GSHMEMI_R(T)                                                                                                \
  gshmemi_reduce_range<T>(sb, t.np, t.me, op, dst_off, src_off, lo, hi, shift, all_dst, vec, src_pe, tid, nt)
  GSHMEMI_BY_TYPE(typ, GSHMEMI_R)
#undef GSHMEMI_R
}

// A small reduction in one launch (one block; n elements of size elem fit
// the dynamic shared memory): barrier, every PE folds elements [lo, hi) of
// all members' src into shared memory in team order, barrier (no member
// reads a src any more: dst may be src), then each stores them into its own
// dst at dst_off.
extern "C" __global__ void gshmemi_coll_reduce_small(gshmemi_team_t t, unsigned long long dst_off,
                                                     unsigned long long src_off, unsigned long long lo,
                                                     unsigned long long hi, int typ, int op, int elem) {
  __shared__ unsigned long long sb[GSHMEMI_TEAM_MAX];
  extern __shared__ uint4 gshmemi_red_buf[];
  gshmemi_load_bases(t, sb);
  gshmemi_team_sync(sb, t.sync_off, t.np, t.me, t.epoch, t.sys);
  unsigned long long n = hi - lo;
  // The fold into shared memory: an all-reduce's code path with this PE's
  // "dst" being the buffer, reached as an offset from sb[me].
  unsigned long long buf = (unsigned long long)gshmemi_red_buf;
#define GSHMEMI_R(T)                                                                                                \
  for (unsigned long long i = lo + threadIdx.x; i < hi; i += blockDim.x) {                                       \
    T acc = ((const T *)(sb[0] + src_off))[i];                                                                   \
    for (int p = 1; p < t.np; p++) acc = gshmemi_fold<T>(op, acc, ((const T *)(sb[p] + src_off))[i]);            \
    ((T *)buf)[i - lo] = acc;                                                                                    \
  }
  GSHMEMI_BY_TYPE(typ, GSHMEMI_R)
#undef GSHMEMI_R
  gshmemi_team_sync(sb, t.sync_off, t.np, t.me, t.epoch + 1, t.sys);
  gshmemi_copy((void *)(sb[t.me] + dst_off), (const void *)buf, n * elem, threadIdx.x, blockDim.x);
}

// A reduction of up to 64 bytes on up to 8 members in one round
// (gshmem.cuh's gshmemi_reduce_ll, on the team's device handle): each
// member sends its src to every member's landing slot with a flag, waits
// for every member's and folds them. It shares the handle's call count and
// slots with the kernels' block-scoped reductions of the team.
extern "C" __global__ void gshmemi_coll_reduce_ll(gshmem_team_t team, unsigned long long dst, unsigned long long src,
                                                  int n, int typ, int op) {
#define GSHMEMI_R(T) gshmemi_reduce_ll<T>(team, op, (T *)dst, (const T *)src, n)
  GSHMEMI_BY_TYPE(typ, GSHMEMI_R)
#undef GSHMEMI_R
}

// ---------------------------------------------------------------- copies ---

// Gathering copies (broadcast, fcollect, collect, alltoall): this PE pulls
// every piece into its own heap. With sync (one block), the launch opens and
// closes with a team barrier; otherwise any grid, no waiting.
extern "C" __global__ void gshmemi_coll_pull(gshmemi_team_t t, gshmemi_pieces_t ps, int sync) {
  __shared__ unsigned long long sb[GSHMEMI_TEAM_MAX];
  __shared__ gshmemi_pieces_t sp;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < GSHMEMI_TEAM_MAX; i++) {
      sp.src[i] = ps.src[i];
      sp.dst[i] = ps.dst[i];
      sp.n[i] = ps.n[i];
      sp.peer[i] = ps.peer[i];
    }
    sp.count = ps.count;
  }
  gshmemi_load_bases(t, sb);
  if (sync) gshmemi_team_sync(sb, t.sync_off, t.np, t.me, t.epoch, t.sys);
  int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
  int count = sp.count < GSHMEMI_TEAM_MAX ? sp.count : GSHMEMI_TEAM_MAX;
#pragma unroll 1
  for (int i = 0; i < count; i++) {
    unsigned long long n = sp.n[i];
    if (n == 0) continue;
    gshmemi_copy((void *)(sb[t.me] + sp.dst[i]), (const void *)(sb[sp.peer[i]] + sp.src[i]), n, tid, nt);
  }
  if (sync) gshmemi_team_sync(sb, t.sync_off, t.np, t.me, t.epoch + 1, t.sys);
}

#endif // GSHMEMI_COLL_CUH
