package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// kernels/cuda/gshmem_typed.cuh: the typed device families of NVSHMEM's
// device API that gshmem.cuh does not write out, over its primitives
// (gshmemi_p/g, gshmem_putmem_signal, gshmemi_cmp, the warp and block
// copies). A family gshmem.h also declares for the host is defined with
// GSHMEMI_API and gshmem.h's own prototype (one name, the library's on the
// host and the inline body in a kernel); the warp and block scopes are
// device-only.

// devFamily is one typed device call: the op after gshmem_<type>_ and how
// its body reads, with the prototype's parameter names.
type devFamily struct {
	op, body string
	amo      bool // only on the types gshmem.cuh's atomics take (amoCTypes)
}

// amoCTypes are the C types gshmemi_amo_t maps to a hardware atomic.
var amoCTypes = map[string]bool{"int": true, "unsigned int": true, "long": true, "unsigned long": true, "long long": true,
	"unsigned long long": true, "int32_t": true, "uint32_t": true, "int64_t": true, "uint64_t": true, "size_t": true,
	"ptrdiff_t": true}

// hostDevFamilies are the typed host calls that get a device body.
var hostDevFamilies = []devFamily{
	{"atomic_fetch", "return gshmemi_fetch<TYPE>(dest, pe);", false},
	{"atomic_set", "gshmemi_set<TYPE>(dest, value, pe);", false},
	{"atomic_swap", "return gshmemi_swap<TYPE>(dest, value, pe);", true},
	{"atomic_compare_swap", "return gshmemi_cswap<TYPE>(dest, cond, value, pe);", true},
	{"atomic_fetch_add", "return gshmemi_fetch_add<TYPE>(dest, value, pe);", true},
	{"atomic_add", "gshmemi_fetch_add<TYPE>(dest, value, pe);", true},
	{"atomic_fetch_inc", "return gshmemi_fetch_add<TYPE>(dest, (TYPE)1, pe);", true},
	{"atomic_inc", "gshmemi_fetch_add<TYPE>(dest, (TYPE)1, pe);", true},
	{"atomic_fetch_and", "return gshmemi_fetch_and<TYPE>(dest, value, pe);", true},
	{"atomic_and", "gshmemi_fetch_and<TYPE>(dest, value, pe);", true},
	{"atomic_fetch_or", "return gshmemi_fetch_or<TYPE>(dest, value, pe);", true},
	{"atomic_or", "gshmemi_fetch_or<TYPE>(dest, value, pe);", true},
	{"atomic_fetch_xor", "return gshmemi_fetch_xor<TYPE>(dest, value, pe);", true},
	{"atomic_xor", "gshmemi_fetch_xor<TYPE>(dest, value, pe);", true},
	{"iput", "gshmemi_iput(dest, source, dst, sst, nelems, pe, 0, 1);", false},
	{"iget", "gshmemi_iget(dest, source, dst, sst, nelems, pe, 0, 1);", false},
	{"put_signal", "gshmem_putmem_signal(dest, source, nelems * sizeof(*dest), sig_addr, signal, sig_op, pe);", false},
	{"put_signal_nbi", "gshmem_putmem_signal_nbi(dest, source, nelems * sizeof(*dest), sig_addr, signal, sig_op, pe);", false},
	{"wait_until", "gshmemi_wait_all(ivar, 1, 0, cmp, (const TYPE *)0, cmp_value);", false},
	{"test", "return gshmemi_test_all(ivar, 1, 0, cmp, (const TYPE *)0, cmp_value);", false},
	{"wait_until_all", "gshmemi_wait_all(ivars, nelems, status, cmp, (const TYPE *)0, cmp_value);", false},
	{"wait_until_all_vector", "gshmemi_wait_all(ivars, nelems, status, cmp, (const TYPE *)cmp_values, (TYPE)0);", false},
	{"test_all", "return gshmemi_test_all(ivars, nelems, status, cmp, (const TYPE *)0, cmp_value);", false},
	{"test_all_vector", "return gshmemi_test_all(ivars, nelems, status, cmp, (const TYPE *)cmp_values, (TYPE)0);", false},
	{"wait_until_any", "return gshmemi_wait_any(ivars, nelems, status, cmp, (const TYPE *)0, cmp_value);", false},
	{"wait_until_any_vector", "return gshmemi_wait_any(ivars, nelems, status, cmp, (const TYPE *)cmp_values, (TYPE)0);", false},
	{"test_any", "return gshmemi_test_any(ivars, nelems, status, cmp, (const TYPE *)0, cmp_value);", false},
	{"test_any_vector", "return gshmemi_test_any(ivars, nelems, status, cmp, (const TYPE *)cmp_values, (TYPE)0);", false},
	{"wait_until_some", "return gshmemi_wait_some(ivars, nelems, indices, status, cmp, (const TYPE *)0, cmp_value);", false},
	{"wait_until_some_vector", "return gshmemi_wait_some(ivars, nelems, indices, status, cmp, (const TYPE *)cmp_values, (TYPE)0);", false},
	{"test_some", "return gshmemi_test_some(ivars, nelems, indices, status, cmp, (const TYPE *)0, cmp_value);", false},
	{"test_some_vector", "return gshmemi_test_some(ivars, nelems, indices, status, cmp, (const TYPE *)cmp_values, (TYPE)0);", false},
}

// scopes are the warp and block forms: the group's barrier before (what
// any thread of it wrote is what moves) and after, and the copy split
// over the group.
var scopes = []struct{ name, sync, tid, nt string }{
	{"warp", "__syncwarp()", "gshmemi_lane()", "32"},
	{"block", "__syncthreads()", "gshmemi_block_tid()", "gshmemi_block_size()"},
}

var typedProtoRE = regexp.MustCompile(`^gshmem_([a-z0-9]+)_(.+)$`)

// protoRMATypes is gshmem.h's RMA types: TYPENAME -> C type, from gshmem_T_p.
func protoRMATypes(protos []gshmemProto) (names []string, ctype map[string]string) {
	ctype = map[string]string{}
	for _, p := range protos {
		m := typedProtoRE.FindStringSubmatch(p.name)
		if m == nil || m[2] != "p" || len(p.params) != 3 {
			continue
		}
		names = append(names, m[1])
		ctype[m[1]] = strings.TrimSpace(strings.TrimSuffix(p.params[0], "*dest"))
	}
	return names, ctype
}

// deviceTyped is gshmem_typed.cuh, given gshmem.cuh's own device names.
func deviceTyped(have []string) []byte {
	done := map[string]bool{}
	for _, n := range have {
		done[n] = true
	}
	protos := gshmemProtos()
	names, ctype := protoRMATypes(protos)
	var b bytes.Buffer
	b.WriteString(devTypedHead)
	b.WriteString("\n// The types gshmem.cuh's own families do not list, through those families.\n")
	for _, n := range names {
		for _, f := range []struct{ have, macro string }{
			{"gshmem_%s_p", "GSHMEMI_RMA"}, {"gshmem_%s_broadcast", "GSHMEMI_COLL_G"},
		} {
			if !done[fmt.Sprintf(f.have, n)] {
				fmt.Fprintf(&b, "%s(%s, %s)\n", f.macro, n, ctype[n])
			}
		}
	}
	for _, r := range []struct {
		ts                []shmType
		op, thread, block string
	}{{arith2(rmaTypes), "sum", "GSHMEMI_RED_G_ARITH", "GSHMEMI_RED_ARITH"}, {bitTypes, "and", "GSHMEMI_RED_G_BITS", "GSHMEMI_RED_BITS"}} {
		for _, t := range r.ts {
			if !done["gshmem_"+t.name+"_"+r.op+"_reduce"] {
				fmt.Fprintf(&b, "%s(%s, %s)\n", r.thread, t.name, t.c)
			}
			if !done["gshmemx_"+t.name+"_"+r.op+"_reduce_block"] {
				fmt.Fprintf(&b, "%s(%s, %s)\n", r.block, t.name, t.c)
			}
		}
	}
	b.WriteString("\n// Host and device: the typed calls of gshmem.h.\n")
	fam := map[string]devFamily{}
	for _, f := range hostDevFamilies {
		fam[f.op] = f
	}
	for _, p := range protos {
		m := typedProtoRE.FindStringSubmatch(p.name)
		if m == nil || done[p.name] {
			continue
		}
		if f, ok := fam[m[2]]; ok {
			decl := fmt.Sprintf("%s%s%s(%s)", p.ret, map[bool]string{true: "", false: " "}[strings.HasSuffix(p.ret, "*")], p.name, strings.Join(p.params, ", "))
			t := ctype[m[1]]
			if t == "" { // a sync-only type: its C type is the first parameter's
				t = strings.TrimSpace(p.params[0][:strings.LastIndex(p.params[0], "*")])
			}
			if f.amo && !amoCTypes[t] {
				continue
			}
			fmt.Fprintf(&b, "GSHMEMI_API(%s, { %s })\n", decl, strings.ReplaceAll(f.body, "TYPE", t))
		}
	}
	b.WriteString("\n// Device only: the warp and block scopes.\n")
	for _, s := range scopes {
		if done["gshmemx_putmem_signal_nbi_"+s.name] {
			continue
		}
		fmt.Fprintf(&b, "static __device__ __forceinline__ void gshmemx_putmem_signal_nbi_%s(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { gshmemx_putmem_signal_%s(dest, source, nelems, sig_addr, signal, sig_op, pe); }\n", s.name, s.name)
	}
	for _, n := range names {
		t := ctype[n]
		// Block-scope collectives of every RMA type, over the mem forms.
		for _, c := range []struct{ op, params, args string }{
			{"broadcast", ", int PE_root", ", PE_root"}, {"fcollect", "", ""}, {"alltoall", "", ""}} {
			if name := fmt.Sprintf("gshmemx_%s_%s_block", n, c.op); !done[name] {
				fmt.Fprintf(&b, "static __device__ __forceinline__ int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nelems%s) { return gshmemx_%smem_block(team, dest, source, nelems * sizeof(%s)%s); }\n",
					name, t, t, c.params, c.op, t, c.args)
			}
		}
		for _, s := range scopes {
			pre := fmt.Sprintf("static __device__ __forceinline__ void gshmemx_%s_", n)
			strided := fmt.Sprintf("(%s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", t, t)
			fmt.Fprintf(&b, "%siput_%s%s { %s; gshmemi_iput(dest, source, dst, sst, nelems, pe, %s, %s); %s; }\n", pre, s.name, strided, s.sync, s.tid, s.nt, s.sync)
			fmt.Fprintf(&b, "%siget_%s%s { %s; gshmemi_iget(dest, source, dst, sst, nelems, pe, %s, %s); %s; }\n", pre, s.name, strided, s.sync, s.tid, s.nt, s.sync)
			for _, nbi := range []string{"", "_nbi"} {
				fmt.Fprintf(&b, "%sput_signal%s_%s(%s *dest, const %s *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { gshmemx_putmem_signal%s_%s(dest, source, nelems * sizeof(%s), sig_addr, signal, sig_op, pe); }\n",
					pre, nbi, s.name, t, t, nbi, s.name, t)
			}
		}
	}
	b.WriteString("\n#endif // GSHMEM_TYPED_CUH\n")
	return b.Bytes()
}

// devTypedHead opens gshmem_typed.cuh: the generic bodies the typed calls
// share.
const devTypedHead = `// gshmem_typed.cuh: typed device calls of NVSHMEM's device API over
// gshmem.cuh's primitives; included by gshmem.cuh, not on its own.
// Generated by compat/abi/internal/gen from gshmem_nvshmem_dev.go. DO NOT EDIT.
#ifndef GSHMEM_TYPED_CUH
#define GSHMEM_TYPED_CUH

// gshmemi_ld_sync reads this PE's own word with acquire order, any size
// (the 1- and 2-byte ones by a volatile load and a fence).
template <typename T> static __device__ __forceinline__ T gshmemi_ld_sync(const T *p) {
  if (sizeof(T) == 4 || sizeof(T) == 8) return gshmemi_ld_acquire(p);
  T v = *(const volatile T *)p;
  __threadfence_system();
  return v;
}
// Strided copies, element i of this thread's share (tid, tid+nt, ...).
template <typename T>
static __device__ __forceinline__ void gshmemi_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                                    int pe, int tid, int nt) {
  for (size_t i = tid; i < n; i += nt) gshmemi_p<T>(dest + i * dst, source[i * sst], pe);
}
template <typename T>
static __device__ __forceinline__ void gshmemi_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                                    int pe, int tid, int nt) {
  for (size_t i = tid; i < n; i += nt) dest[i * dst] = gshmemi_g<T>(source + i * sst, pe);
}
// The point-to-point tests over ivars[0..n) whose status is 0 (all when
// status is NULL), against vals[i] when vals is not NULL, else val.
template <typename T>
static __device__ __forceinline__ bool gshmemi_sat(const T *ivars, size_t i, int cmp, const T *vals, T val) {
  return gshmemi_cmp(gshmemi_ld_sync(ivars + i), cmp, vals ? vals[i] : val);
}
template <typename T>
static __device__ __forceinline__ int gshmemi_test_all(const T *ivars, size_t n, const int *status, int cmp,
                                                       const T *vals, T val) {
  for (size_t i = 0; i < n; i++)
    if ((!status || !status[i]) && !gshmemi_sat(ivars, i, cmp, vals, val)) return 0;
  return 1;
}
template <typename T>
static __device__ __forceinline__ size_t gshmemi_test_any(const T *ivars, size_t n, const int *status, int cmp,
                                                          const T *vals, T val) {
  for (size_t i = 0; i < n; i++)
    if ((!status || !status[i]) && gshmemi_sat(ivars, i, cmp, vals, val)) return i;
  return SIZE_MAX;
}
template <typename T>
static __device__ __forceinline__ size_t gshmemi_test_some(const T *ivars, size_t n, size_t *indices,
                                                           const int *status, int cmp, const T *vals, T val) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if ((!status || !status[i]) && gshmemi_sat(ivars, i, cmp, vals, val)) indices[k++] = i;
  return k;
}
// gshmemi_live says whether any of the n words takes part.
static __device__ __forceinline__ bool gshmemi_live(size_t n, const int *status) {
  for (size_t i = 0; i < n; i++)
    if (!status || !status[i]) return true;
  return false;
}
template <typename T>
static __device__ __forceinline__ void gshmemi_wait_all(const T *ivars, size_t n, const int *status, int cmp,
                                                        const T *vals, T val) {
  while (!gshmemi_test_all(ivars, n, status, cmp, vals, val)) {
  }
}
// The any and some waits return at once (SIZE_MAX, 0) when every word is
// excluded, as NVSHMEM's do.
template <typename T>
static __device__ __forceinline__ size_t gshmemi_wait_any(const T *ivars, size_t n, const int *status, int cmp,
                                                          const T *vals, T val) {
  if (!gshmemi_live(n, status)) return SIZE_MAX;
  size_t i;
  while ((i = gshmemi_test_any(ivars, n, status, cmp, vals, val)) == SIZE_MAX) {
  }
  return i;
}
template <typename T>
static __device__ __forceinline__ size_t gshmemi_wait_some(const T *ivars, size_t n, size_t *indices,
                                                           const int *status, int cmp, const T *vals, T val) {
  if (!gshmemi_live(n, status)) return 0;
  size_t k;
  while ((k = gshmemi_test_some(ivars, n, indices, status, cmp, vals, val)) == 0) {
  }
  return k;
}
`
