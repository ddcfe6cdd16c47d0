package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// OpenSHMEM 1.5's C API: include/shmem.h, pshmem.h and shmemx.h, and
// zshmem.c, its typed functions. Every routine is pshmem_X (the profiling
// name) with shmem_X a weak alias of it, as the specification's profiling
// interface asks. The typed families are gshmem.h's (typedFuncs, over the
// same cores of shm.h) under OpenSHMEM's names, with long double added to
// the RMA types, a context form (shmem_ctx_X) of every RMA, signal and
// atomic call, and the routines gshmem.h lacks: long double and complex
// reductions, the deprecated active-set collectives and 1.3 atomics.

// oshRMATypes is OpenSHMEM 1.5's standard RMA types table.
var oshRMATypes = types("float", "double", "longdouble", "char", "schar", "short", "int", "long", "longlong", "uchar",
	"ushort", "uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"size", "ptrdiff")

// oshFunc is one function of shmem.h: its prototype under the shmem_
// name, and its body (nil for a hand-written one in shmem*.c).
type oshFunc struct {
	proto, body string
}

// name is the function's name in its prototype.
func (f oshFunc) name() string {
	p := f.proto[:strings.Index(f.proto, "(")]
	return strings.TrimLeft(p[strings.LastIndexAny(p, " *")+1:], "*")
}

// profName is the profiling name of an OpenSHMEM routine.
func profName(n string) string { return "p" + n }

// withName is proto with the function's name replaced.
func withName(proto, old, name string) string {
	i := strings.Index(proto, old+"(")
	return proto[:i] + name + proto[i+len(old):]
}

// ctxFamily says whether a gshmem.h group has context forms.
func ctxFamily(group string) bool {
	for _, p := range []string{"Remote memory access", "Strided", "Put with signal", "Atomic memory", "Non-blocking fetching"} {
		if strings.HasPrefix(group, p) {
			return true
		}
	}
	return false
}

// oshTyped is the typed functions of shmem.h by group, in order.
func oshTyped() (groups []string, funcs map[string][]oshFunc) {
	funcs = map[string][]oshFunc{}
	add := func(g string, f oshFunc) {
		if _, ok := funcs[g]; !ok {
			groups = append(groups, g)
		}
		funcs[g] = append(funcs[g], f)
	}
	gg, gf := typedFuncs(oshRMATypes, false)
	for _, g := range gg {
		for _, f := range gf[g] {
			proto := strings.ReplaceAll(strings.ReplaceAll(f.proto, "gshmem_team_t", "shmem_team_t"), "gshmem_", "shmem_")
			body := strings.ReplaceAll(strings.ReplaceAll(f.body, `"gshmem_`, `"shmem_`), "gshmem_", "pshmem_")
			add(g, oshFunc{proto, body})
			if ctxFamily(g) {
				o := oshFunc{proto, body}.name()
				n := "shmem_ctx_" + strings.TrimPrefix(o, "shmem_")
				cp := strings.Replace(withName(proto, o, n), "(", "(shmem_ctx_t ctx, ", 1)
				cb := fmt.Sprintf(`pe = oshi_pe("%s", ctx, pe); %s`, n, strings.ReplaceAll(body, `"`+o+`"`, `"`+n+`"`))
				add("Context forms: "+g, oshFunc{cp, cb})
			}
		}
	}
	const sig = "Put with signal by element size: putSIZE_signal (+ _nbi)"
	for _, bits := range []int{8, 16, 32, 64, 128} {
		for _, nbi := range []string{"", "_nbi"} {
			for _, ctx := range []bool{false, true} {
				n, params, pre := fmt.Sprintf("shmem_put%d_signal%s", bits, nbi), "", ""
				if ctx {
					n, params, pre = fmt.Sprintf("shmem_ctx_put%d_signal%s", bits, nbi), "shmem_ctx_t ctx, ", fmt.Sprintf(`pe = oshi_pe("shmem_ctx_put%d_signal%s", ctx, pe); `, bits, nbi)
				}
				add(sig, oshFunc{fmt.Sprintf("void %s(%svoid *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", n, params),
					fmt.Sprintf(`%sshm_put_signal("%s", dest, source, nelems, %d, sig_addr, signal, sig_op, pe, %d);`, pre, n, bits/8, nbiFlag(nbi))})
			}
		}
	}
	oshReductions(add)
	oshDeprecated(add)
	return groups, funcs
}

// oshCType is a reduction's type: OpenSHMEM's TYPENAME and C type, and
// whether it is an integer (bitwise ops; wrapping arithmetic).
type oshCType struct {
	name, c string
	integer bool
}

var (
	oshLongDouble = oshCType{"longdouble", "long double", false}
	oshComplexF   = oshCType{"complexf", "float _Complex", false}
	oshComplexD   = oshCType{"complexd", "double _Complex", false}
)

// oshReducer is the C reduction function of op over t (zshmem.c).
func oshReducer(t oshCType, op string) string { return "oshi_red_" + t.name + "_" + op }

// oshReducerBody is the body of oshReducer: acc[i] = acc[i] op in[i].
func oshReducerBody(t oshCType, op string) string {
	var e string
	switch {
	case op == "max":
		e = "a[i] = b[i] > a[i] ? b[i] : a[i];"
	case op == "min":
		e = "a[i] = b[i] < a[i] ? b[i] : a[i];"
	case t.integer && (op == "sum" || op == "prod"): // wrapping, as the hardware's
		sym := map[string]string{"sum": "+", "prod": "*"}[op]
		e = fmt.Sprintf("a[i] = (%s)((unsigned long long)a[i] %s (unsigned long long)b[i]);", t.c, sym)
	default:
		sym := map[string]string{"sum": "+", "prod": "*", "and": "&", "or": "|", "xor": "^"}[op]
		e = fmt.Sprintf("a[i] = a[i] %s b[i];", sym)
	}
	return fmt.Sprintf("static void %s(void *acc, const void *in, size_t n)\n{\n    %s *a = acc;\n    const %s *b = in;\n    for (size_t i = 0; i < n; i++)\n        %s\n}\n",
		oshReducer(t, op), t.c, t.c, e)
}

// oshReducers is every (type, op) the C reductions need, in order.
func oshReducers() (ts []oshCType, ops [][]string) {
	ints := []string{"and", "or", "xor", "max", "min", "sum", "prod"}
	floats := []string{"max", "min", "sum", "prod"}
	for _, t := range []oshCType{{"short", "short", true}, {"int", "int", true}, {"long", "long", true}, {"longlong", "long long", true}} {
		ts, ops = append(ts, t), append(ops, ints)
	}
	for _, t := range []oshCType{{"float", "float", false}, {"double", "double", false}, oshLongDouble} {
		ts, ops = append(ts, t), append(ops, floats)
	}
	for _, t := range []oshCType{oshComplexF, oshComplexD} {
		ts, ops = append(ts, t), append(ops, []string{"sum", "prod"})
	}
	return ts, ops
}

// oshReductions adds the team reductions gshmem.h lacks (long double;
// complex sum and prod) and the deprecated active-set TYPE_OP_to_all, all
// over shmem_coll.c's reductions.
func oshReductions(add func(string, oshFunc)) {
	const team = "Team reductions over long double and complex types: TYPENAME_OP_reduce"
	for _, t := range []oshCType{oshLongDouble, oshComplexF, oshComplexD} {
		ops := []string{"max", "min", "sum", "prod"}
		if t != oshLongDouble {
			ops = []string{"sum", "prod"}
		}
		for _, op := range ops {
			n := "shmem_" + t.name + "_" + op + "_reduce"
			add(team, oshFunc{fmt.Sprintf("int %s(shmem_team_t team, %s *dest, const %s *source, size_t nreduce)", n, t.c, t.c),
				fmt.Sprintf(`return oshi_reduce_team("%s", team, dest, source, nreduce, sizeof(%s), %s);`, n, t.c, oshReducer(t, op))})
		}
	}
	const toAll = "Deprecated active-set reductions: TYPENAME_OP_to_all"
	ts, ops := oshReducers()
	for i, t := range ts {
		for _, op := range ops[i] {
			n := "shmem_" + t.name + "_" + op + "_to_all"
			add(toAll, oshFunc{fmt.Sprintf("void %s(%s *dest, const %s *source, int nreduce, int PE_start, int logPE_stride, int PE_size, %s *pWrk, long *pSync)", n, t.c, t.c, t.c),
				fmt.Sprintf(`(void)pWrk; oshi_reduce_set("%s", PE_start, logPE_stride, PE_size, pSync, dest, source, nreduce, sizeof(%s), %s);`, n, t.c, oshReducer(t, op))})
		}
	}
}

// oshDeprecated adds the typed deprecated calls: TYPE_wait and the
// atomics under their OpenSHMEM 1.3 names.
func oshDeprecated(add func(string, oshFunc)) {
	const wait = "Deprecated waits: TYPENAME_wait (until *ivar differs from cmp_value)"
	for _, t := range types("short", "int", "long", "longlong") {
		n := "shmem_" + t.name + "_wait"
		add(wait, oshFunc{fmt.Sprintf("void %s(%s *ivar, %s cmp_value)", n, t.c, t.c),
			fmt.Sprintf(`shm_wait("%s", ivar, sizeof(%s), %s, GSHMEM_CMP_NE, shm_bits(&cmp_value, sizeof cmp_value));`, n, t.c, t.kindOf())})
	}
	const amo = "Deprecated atomics (OpenSHMEM 1.3 names, over 1.4's types): TYPENAME_swap, cswap, fadd, finc, add, inc, fetch, set"
	for _, t := range extTypes {
		float := t.kind == "f"
		type dep struct{ old, ret, params, call, args string }
		list := []dep{
			{"swap", t.c, "TYPE *target, TYPE value, int pe", "atomic_swap", "target, value, pe"},
			{"fetch", t.c, "const TYPE *target, int pe", "atomic_fetch", "target, pe"},
			{"set", "void", "TYPE *target, TYPE value, int pe", "atomic_set", "target, value, pe"},
		}
		if !float {
			list = append(list,
				dep{"cswap", t.c, "TYPE *target, TYPE cond, TYPE value, int pe", "atomic_compare_swap", "target, cond, value, pe"},
				dep{"fadd", t.c, "TYPE *target, TYPE value, int pe", "atomic_fetch_add", "target, value, pe"},
				dep{"finc", t.c, "TYPE *target, int pe", "atomic_fetch_inc", "target, pe"},
				dep{"add", "void", "TYPE *target, TYPE value, int pe", "atomic_add", "target, value, pe"},
				dep{"inc", "void", "TYPE *target, int pe", "atomic_inc", "target, pe"})
		}
		for _, d := range list {
			ret := "return "
			if d.ret == "void" {
				ret = ""
			}
			add(amo, oshFunc{fmt.Sprintf("%s shmem_%s_%s(%s)", d.ret, t.name, d.old, strings.ReplaceAll(d.params, "TYPE", t.c)),
				fmt.Sprintf("%spshmem_%s_%s(%s);", ret, t.name, d.call, d.args)})
		}
	}
}

// oshUntyped is the hand-written routines (shmem.c, shmem_coll.c) by
// group: their prototypes under the shmem_ names.
var oshUntyped = []struct {
	group, file string // file: the C file that defines them
	protos      []string
}{
	{"Library setup, exit and query", "shmem.c", []string{
		"void shmem_init(void)",
		"int shmem_init_thread(int requested, int *provided)",
		"void shmem_query_thread(int *provided)",
		"void shmem_finalize(void)",
		"int shmem_my_pe(void)",
		"int shmem_n_pes(void)",
		"void shmem_global_exit(int status)",
		"int shmem_pe_accessible(int pe)",
		"int shmem_addr_accessible(const void *addr, int pe)",
		"void *shmem_ptr(const void *dest, int pe)",
		"void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)",
		"void shmem_info_get_version(int *major, int *minor)",
		"void shmem_info_get_name(char *name)",
	}},
	{"Memory management (collective)", "shmem.c", []string{
		"void *shmem_malloc(size_t size)",
		"void shmem_free(void *ptr)",
		"void *shmem_realloc(void *ptr, size_t size)",
		"void *shmem_align(size_t alignment, size_t size)",
		"void *shmem_malloc_with_hints(size_t size, long hints)",
		"void *shmem_calloc(size_t count, size_t size)",
	}},
	{"Teams", "shmem.c", []string{
		"int shmem_team_my_pe(shmem_team_t team)",
		"int shmem_team_n_pes(shmem_team_t team)",
		"int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)",
		"int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)",
		"int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)",
		"int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team)",
		"void shmem_team_destroy(shmem_team_t team)",
	}},
	{"Communication contexts", "shmem.c", []string{
		"int shmem_ctx_create(long options, shmem_ctx_t *ctx)",
		"int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)",
		"void shmem_ctx_destroy(shmem_ctx_t ctx)",
		"int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)",
	}},
	{"Untyped remote memory access (and their context forms)", "shmem.c", []string{
		"void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)",
		"void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)",
	}},
	{"Signaling", "shmem.c", []string{
		"void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)",
		"void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)",
		"void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)",
		"void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)",
		"uint64_t shmem_signal_fetch(const uint64_t *sig_addr)",
		"uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)",
	}},
	{"Collectives over teams", "shmem.c", []string{
		"void shmem_barrier_all(void)",
		"void shmem_sync_all(void)",
		"int shmem_team_sync(shmem_team_t team)",
		"int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)",
		"int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)",
		"int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)",
		"int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)",
		"int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)",
	}},
	{"Deprecated: collectives over active sets, with pSync", "shmem_coll.c", []string{
		"void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
		"void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
	}},
	{"Memory ordering", "shmem.c", []string{
		"void shmem_fence(void)",
		"void shmem_ctx_fence(shmem_ctx_t ctx)",
		"void shmem_quiet(void)",
		"void shmem_ctx_quiet(shmem_ctx_t ctx)",
	}},
	{"Distributed locking", "shmem.c", []string{
		"void shmem_set_lock(long *lock)",
		"void shmem_clear_lock(long *lock)",
		"int shmem_test_lock(long *lock)",
	}},
	{"Profiling control", "shmem.c", []string{
		"void shmem_pcontrol(const int level, ...)",
	}},
	{"Deprecated: cache management (no-ops: the memory is coherent)", "shmem.c", []string{
		"void shmem_clear_cache_inv(void)",
		"void shmem_set_cache_inv(void)",
		"void shmem_clear_cache_line_inv(void *dest)",
		"void shmem_set_cache_line_inv(void *dest)",
		"void shmem_udcflush(void)",
		"void shmem_udcflush_line(void *dest)",
	}},
	{"Deprecated: setup, query, memory and waits of OpenSHMEM 1.0-1.2", "shmem.c", []string{
		"void start_pes(int npes)",
		"int _my_pe(void)",
		"int _num_pes(void)",
		"void *shmalloc(size_t size)",
		"void shfree(void *ptr)",
		"void *shrealloc(void *ptr, size_t size)",
		"void *shmemalign(size_t alignment, size_t size)",
		"void shmem_wait(long *ivar, long cmp_value)",
		"void shmem_wait_until(long *ivar, int cmp, long cmp_value)",
		"long shmem_swap(long *target, long value, int pe)",
	}},
}

// oshAll is every routine of shmem.h: group, prototype and (typed) body.
func oshAll() (groups []string, funcs map[string][]oshFunc) {
	groups, funcs = nil, map[string][]oshFunc{}
	for _, g := range oshUntyped {
		groups = append(groups, g.group)
		for _, p := range g.protos {
			funcs[g.group] = append(funcs[g.group], oshFunc{proto: p})
		}
	}
	tg, tf := oshTyped()
	for _, g := range tg {
		groups = append(groups, g)
		funcs[g] = tf[g]
	}
	return groups, funcs
}

// oshDecls writes the declarations of every routine, under its shmem_
// name or (prof) its pshmem_ name.
func oshDecls(b *bytes.Buffer, prof bool) {
	groups, funcs := oshAll()
	for _, g := range groups {
		fmt.Fprintf(b, "\n/* %s. */\n", g)
		for _, f := range funcs[g] {
			p := f.proto
			if prof {
				p = withName(p, f.name(), profName(f.name()))
			}
			fmt.Fprintf(b, "%s;\n", p)
		}
	}
}

// oshBanner is the generated files' banner.
func oshBanner() string { return strings.Replace(banner, "abi.txt", "gshmem_openshmem.go", 1) }

// shmemHeader writes include/shmem.h.
func shmemHeader() []byte {
	var b bytes.Buffer
	b.WriteString("/* shmem.h: OpenSHMEM 1.5's C API, in libmpi_abi.so.1 beside MPI and gshmem.h\n")
	b.WriteString(" * (one engine, one symmetric heap). Every routine is also pshmem_X\n")
	b.WriteString(" * (pshmem.h); shmem_X is a weak alias of it, for profiling tools.\n")
	fmt.Fprintf(&b, " * %s */\n", oshBanner())
	b.WriteString(shmemHead)
	oshDecls(&b, false)
	b.WriteString("\n#ifdef __cplusplus\n}\n#endif\n")
	b.WriteString(oshGenerics())
	b.WriteString("\n#endif /* SHMEM_H */\n")
	return b.Bytes()
}

// pshmemHeader writes include/pshmem.h.
func pshmemHeader() []byte {
	var b bytes.Buffer
	b.WriteString("/* pshmem.h: OpenSHMEM 1.5's profiling interface: every routine of shmem.h\n")
	b.WriteString(" * under its pshmem_ name (the implementation; shmem_X is a weak alias).\n")
	fmt.Fprintf(&b, " * %s */\n", oshBanner())
	b.WriteString("#ifndef PSHMEM_H\n#define PSHMEM_H\n\n#include \"shmem.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
	oshDecls(&b, true)
	b.WriteString("\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* PSHMEM_H */\n")
	return b.Bytes()
}

// shmemxHeader is include/shmemx.h: the extensions, of which there are
// none beyond shmem.h yet (gshmem.h's gshmemx_ calls serve the same heap).
const shmemxHeader = `/* shmemx.h: OpenSHMEM's place for an implementation's extensions. gshmem's
 * are in gshmem.h (gshmemx_*), which a program may include beside shmem.h:
 * both reach the same heap. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"

#endif /* SHMEMX_H */
`

// shmemTyped writes zshmem.c: the generated definitions and every
// routine's weak shmem_ alias.
func shmemTyped() []byte {
	var b bytes.Buffer
	b.WriteString("//go:build cgo\n\n")
	b.WriteString("/* OpenSHMEM 1.5's typed routines over shm.h's cores, and the weak shmem_X\n")
	b.WriteString(" * alias of every pshmem_X.\n")
	fmt.Fprintf(&b, " * %s */\n", oshBanner())
	b.WriteString("#include <string.h>\n#include \"oshmem.h\"\n")
	ts, ops := oshReducers()
	b.WriteString("\n/* The C reductions (acc[i] = acc[i] op in[i]). */\n")
	for i, t := range ts {
		for _, op := range ops[i] {
			b.WriteString(oshReducerBody(t, op))
		}
	}
	groups, funcs := oshAll()
	for _, g := range groups {
		fmt.Fprintf(&b, "\n/* %s. */\n", g)
		for _, f := range funcs[g] {
			if f.body != "" {
				n := f.name()
				fmt.Fprintf(&b, "%s { %s }\n", withName(f.proto, n, profName(n)), f.body)
				b.WriteString(oshAlias(n))
			}
		}
	}
	return b.Bytes()
}

// oshAlias makes shmem_X the weak alias of pshmem_X (in pshmem_X's file).
func oshAlias(n string) string {
	return fmt.Sprintf("extern __typeof__(%s) %s __attribute__((weak, alias(\"%s\")));\n", profName(n), n, profName(n))
}

// shmemAliases writes zshmem_alias.h: the weak aliases of the
// hand-written routines, which a C file defining them includes at its end
// with OSHI_ALIASES_<FILE> defined (an alias must be in its target's file).
func shmemAliases() []byte {
	var b bytes.Buffer
	b.WriteString("/* zshmem_alias.h: the weak shmem_X aliases of the hand-written pshmem_X.\n")
	fmt.Fprintf(&b, " * %s */\n", oshBanner())
	files := map[string][]string{}
	var order []string
	for _, g := range oshUntyped {
		if _, ok := files[g.file]; !ok {
			order = append(order, g.file)
		}
		for _, p := range g.protos {
			files[g.file] = append(files[g.file], oshFunc{proto: p}.name())
		}
	}
	for _, f := range order {
		fmt.Fprintf(&b, "\n#ifdef OSHI_ALIASES_%s\n", strings.ToUpper(strings.NewReplacer(".", "_").Replace(f)))
		for _, n := range files[f] {
			b.WriteString(oshAlias(n))
		}
		b.WriteString("#endif\n")
	}
	return b.Bytes()
}

// oshRoutineNames is every routine's shmem_ name, sorted (for the tests).
func oshRoutineNames() []string {
	groups, funcs := oshAll()
	var out []string
	for _, g := range groups {
		for _, f := range funcs[g] {
			out = append(out, f.name())
		}
	}
	sort.Strings(out)
	return out
}
