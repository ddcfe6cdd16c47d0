// nvshmem_half.cpp: NVSHMEM's half and bfloat16 host calls from C++ (the
// prototypes nvshmem.h declares where cuda_fp16.h and cuda_bf16.h are)
// into the C library, which takes them as 2-byte elements: p, g, put,
// get (+ _nbi), iput, iget, put_signal and fcollect to and from the next
// PE, and the sum, prod, min and max reductions (and a sum
// reducescatter) of the world, every value checked bit for bit. Prints "half ok" per PE.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstring>

static int failures;

// bits is the 2-byte pattern of a half or bfloat16.
template <typename T> static unsigned short bits(T v) {
  unsigned short u;
  memcpy(&u, &v, 2);
  return u;
}
template <typename T> static void expect(const char *what, int i, T got, T want) {
  if (bits(got) != bits(want)) {
    printf("PE %d: %s[%d] is %#x, want %#x\n", nvshmem_my_pe(), what, i, bits(got), bits(want));
    failures++;
  }
}

// Ops are one type's calls; mk is the value PE pe puts at index i.
template <typename T> struct Ops {
  const char *name;
  T (*mk)(float);
  void (*p)(T *, T, int);
  T (*g)(const T *, int);
  void (*put)(T *, const T *, size_t, int);
  void (*get)(T *, const T *, size_t, int);
  void (*put_nbi)(T *, const T *, size_t, int);
  void (*get_nbi)(T *, const T *, size_t, int);
  void (*iput)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*put_signal)(T *, const T *, size_t, uint64_t *, uint64_t, int, int);
  int (*fcollect)(nvshmem_team_t, T *, const T *, size_t);
  int (*sum)(nvshmem_team_t, T *, const T *, size_t);
  int (*prod)(nvshmem_team_t, T *, const T *, size_t);
  int (*min)(nvshmem_team_t, T *, const T *, size_t);
  int (*max)(nvshmem_team_t, T *, const T *, size_t);
  int (*sum_scatter)(nvshmem_team_t, T *, const T *, size_t);
};

template <typename T> static void check(const Ops<T> &o) {
  const int N = 8;
  int me = nvshmem_my_pe(), n = nvshmem_n_pes(), next = (me + 1) % n, prev = (me + n - 1) % n;
  T *src = (T *)nvshmem_malloc(N * sizeof(T)), *dst = (T *)nvshmem_malloc(4 * N * sizeof(T));
  uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
  T *loc = new T[4 * N];
  auto val = [&](int pe, int i) { return o.mk(pe * 16 + i + 0.5f - (i & 1) * 100.f); };
  for (int i = 0; i < N; i++) src[i] = val(me, i);
  char what[64];

  nvshmem_barrier_all();
  o.put(dst, src, N, next);
  nvshmem_barrier_all();
  snprintf(what, sizeof what, "%s put", o.name);
  for (int i = 0; i < N; i++) expect(what, i, dst[i], val(prev, i));

  o.get(loc, src, N, next);
  snprintf(what, sizeof what, "%s get", o.name);
  for (int i = 0; i < N; i++) expect(what, i, loc[i], val(next, i));

  nvshmem_barrier_all();
  o.put_nbi(dst + N, src, N, next);
  o.get_nbi(loc + N, src, N, prev);
  nvshmem_quiet();
  nvshmem_barrier_all();
  snprintf(what, sizeof what, "%s put_nbi/get_nbi", o.name);
  for (int i = 0; i < N; i++) {
    expect(what, i, dst[N + i], val(prev, i));
    expect(what, i, loc[N + i], val(prev, i));
  }

  o.p(dst + 2 * N, o.mk(-3.25f * (me + 1)), next);
  nvshmem_barrier_all();
  snprintf(what, sizeof what, "%s p/g", o.name);
  expect(what, 0, dst[2 * N], o.mk(-3.25f * (prev + 1)));
  expect(what, 1, o.g(src + 5, next), val(next, 5));

  // iput: src[0..4) to every other element of the next PE's dst; iget:
  // every other element of the next PE's src into loc[0..4).
  nvshmem_barrier_all();
  for (int i = 0; i < 4 * N; i++) dst[i] = o.mk(0);
  nvshmem_barrier_all();
  o.iput(dst, src, 2, 1, 4, next);
  o.iget(loc, src, 1, 2, 4, next);
  nvshmem_barrier_all();
  snprintf(what, sizeof what, "%s iput/iget", o.name);
  for (int i = 0; i < 4; i++) {
    expect(what, 2 * i, dst[2 * i], val(prev, i));
    expect(what, 2 * i + 1, dst[2 * i + 1], o.mk(0));
    expect(what, i, loc[i], val(next, 2 * i));
  }

  o.put_signal(dst + 3 * N, src, N, sig, 1, NVSHMEM_SIGNAL_ADD, next);
  nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
  snprintf(what, sizeof what, "%s put_signal", o.name);
  for (int i = 0; i < N; i++) expect(what, i, dst[3 * N + i], val(prev, i));

  nvshmem_barrier_all();
  T *all = (T *)nvshmem_malloc(n * sizeof(T));
  o.fcollect(NVSHMEM_TEAM_WORLD, all, src + 1, 1);
  snprintf(what, sizeof what, "%s fcollect", o.name);
  for (int p = 0; p < n; p++) expect(what, p, all[p], val(p, 1));

  // Reductions: element i of PE p is (p + 1) * (i + 1) / 2, every result
  // exact in both formats for up to 4 PEs and N elements.
  T *red = (T *)nvshmem_malloc(n * N * sizeof(T)), *out = (T *)nvshmem_malloc(N * sizeof(T));
  for (int i = 0; i < n * N; i++) red[i] = o.mk((me + 1) * (i % N + 1) / 2.f);
  struct {
    const char *op;
    int (*f)(nvshmem_team_t, T *, const T *, size_t);
    float (*want)(int n, int i);
  } reds[] = {
      {"sum", o.sum, [](int n, int i) { return n * (n + 1) / 2 * (i + 1) / 2.f; }},
      {"prod", o.prod, [](int n, int i) { float v = 1; for (int p = 0; p < n; p++) v *= (p + 1) * (i + 1) / 2.f; return v; }},
      {"min", o.min, [](int, int i) { return (i + 1) / 2.f; }},
      {"max", o.max, [](int n, int i) { return n * (i + 1) / 2.f; }},
  };
  for (auto &r : reds) {
    nvshmem_barrier_all();
    r.f(NVSHMEM_TEAM_WORLD, out, red, N);
    snprintf(what, sizeof what, "%s %s_reduce", o.name, r.op);
    for (int i = 0; i < N; i++) expect(what, i, out[i], o.mk(r.want(n, i)));
  }
  // reducescatter: block me of the n * N elements, folded.
  nvshmem_barrier_all();
  for (int i = 0; i < n * N; i++) red[i] = o.mk((me + 1) * (i / N + 1) + i % N);
  o.sum_scatter(NVSHMEM_TEAM_WORLD, out, red, N);
  snprintf(what, sizeof what, "%s sum_reducescatter", o.name);
  for (int i = 0; i < N; i++) expect(what, i, out[i], o.mk(n * (n + 1) / 2 * (me + 1) + n * i));

  nvshmem_barrier_all();
  nvshmem_free(out);
  nvshmem_free(red);
  delete[] loc;
  nvshmem_free(all);
  nvshmem_free(sig);
  nvshmem_free(dst);
  nvshmem_free(src);
}

static half mkh(float f) { return __float2half(f); }
static __nv_bfloat16 mkb(float f) { return __float2bfloat16(f); }

int main() {
  nvshmem_init();
  check(Ops<half>{"half", mkh, nvshmem_half_p, nvshmem_half_g, nvshmem_half_put, nvshmem_half_get,
                  nvshmem_half_put_nbi, nvshmem_half_get_nbi, nvshmem_half_iput, nvshmem_half_iget,
                  nvshmem_half_put_signal, nvshmem_half_fcollect, nvshmem_half_sum_reduce, nvshmem_half_prod_reduce,
                  nvshmem_half_min_reduce, nvshmem_half_max_reduce, nvshmem_half_sum_reducescatter});
  check(Ops<__nv_bfloat16>{"bfloat16", mkb, nvshmem_bfloat16_p, nvshmem_bfloat16_g, nvshmem_bfloat16_put,
                           nvshmem_bfloat16_get, nvshmem_bfloat16_put_nbi, nvshmem_bfloat16_get_nbi,
                           nvshmem_bfloat16_iput, nvshmem_bfloat16_iget, nvshmem_bfloat16_put_signal,
                           nvshmem_bfloat16_fcollect, nvshmem_bfloat16_sum_reduce, nvshmem_bfloat16_prod_reduce,
                           nvshmem_bfloat16_min_reduce, nvshmem_bfloat16_max_reduce,
                           nvshmem_bfloat16_sum_reducescatter});
  if (!failures) printf("half ok %d/%d\n", nvshmem_my_pe(), nvshmem_n_pes());
  nvshmem_finalize();
  return failures != 0;
}
