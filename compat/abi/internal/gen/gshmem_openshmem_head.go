package main

import (
	"fmt"
	"strings"
)

// shmem.h's hand-written head (constants, types) and its C11 type-generic
// macros (oshGenerics, from the specification's type tables).

// shmemHead opens shmem.h: the library constants, the types and the
// deprecated names of the constants. The SYNC sizes and values are the
// implementation's to choose: shmem_coll.c uses the first words of pSync.
const shmemHead = `#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

/* Library constants. */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "gshmem"
#define SHMEM_VENDOR_MAJOR_VERSION 1
#define SHMEM_VENDOR_MINOR_VERSION 0

/* Thread levels: every routine may be called from any thread. */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparisons of the point-to-point synchronization routines (the values
 * of gshmem.h's GSHMEM_CMP_*), and the signal operators. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Work arrays of the deprecated active-set collectives: pSync holds
 * SHMEM_*_SYNC_SIZE longs, each SHMEM_SYNC_VALUE before the first call (and
 * again on return): one word for each round of the barrier inside the
 * collectives (a dissemination barrier, ceil(log2(PE_size)) rounds) and
 * one for collect's element counts. pWrk is not used, and its minimum is
 * that of the specification's formula. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 32
#define SHMEM_BCAST_SYNC_SIZE 32
#define SHMEM_BARRIER_SYNC_SIZE 32
#define SHMEM_COLLECT_SYNC_SIZE 32
#define SHMEM_REDUCE_SYNC_SIZE 32
#define SHMEM_ALLTOALL_SYNC_SIZE 32
#define SHMEM_ALLTOALLS_SYNC_SIZE 32
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* Hints of shmem_malloc_with_hints (advice only: every object takes every
 * operation). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Teams: handles (gshmem.h's gshmem_team_t, the same values). */
typedef unsigned long long shmem_team_t;
#define SHMEM_TEAM_WORLD ((shmem_team_t)0)
#define SHMEM_TEAM_SHARED ((shmem_team_t)1)
#define SHMEM_TEAM_INVALID ((shmem_team_t)-1)
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Communication contexts. The default context is an object of the
 * library; SHMEM_CTX_INVALID is the null handle. */
typedef struct shmemi_ctx *shmem_ctx_t;
extern struct shmemi_ctx shmemi_ctx_default;
#define SHMEM_CTX_DEFAULT (&shmemi_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* The deprecated names of the constants. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define SHMEM_CMP_EQ_DEPRECATED SHMEM_CMP_EQ

#ifdef __cplusplus
extern "C" {
#endif
`

// gType is one C type of a generic selection and the TYPENAME whose
// function it selects.
type gType struct{ c, name string }

var (
	gAll = []gType{{"float", "float"}, {"double", "double"}, {"long double", "longdouble"}, {"char", "char"},
		{"signed char", "schar"}, {"short", "short"}, {"int", "int"}, {"long", "long"}, {"long long", "longlong"},
		{"unsigned char", "uchar"}, {"unsigned short", "ushort"}, {"unsigned int", "uint"}, {"unsigned long", "ulong"},
		{"unsigned long long", "ulonglong"}}
	gStdAMO = []gType{{"int", "int"}, {"long", "long"}, {"long long", "longlong"}, {"unsigned int", "uint"},
		{"unsigned long", "ulong"}, {"unsigned long long", "ulonglong"}}
	gExtAMO = append([]gType{{"float", "float"}, {"double", "double"}}, gStdAMO...)
	gBitAMO = []gType{{"unsigned int", "uint"}, {"unsigned long", "ulong"}, {"unsigned long long", "ulonglong"},
		{"int", "int32"}, {"long", "int64"}}
	gSync = []gType{{"short", "short"}, {"int", "int"}, {"long", "long"}, {"long long", "longlong"},
		{"unsigned short", "ushort"}, {"unsigned int", "uint"}, {"unsigned long", "ulong"}, {"unsigned long long", "ulonglong"}}
	gBitRed = []gType{{"unsigned char", "uchar"}, {"unsigned short", "ushort"}, {"unsigned int", "uint"},
		{"unsigned long", "ulong"}, {"unsigned long long", "ulonglong"}, {"signed char", "int8"}, {"short", "int16"},
		{"int", "int32"}, {"long", "int64"}}
	gMinMax = []gType{{"char", "char"}, {"signed char", "schar"}, {"short", "short"}, {"int", "int"}, {"long", "long"},
		{"long long", "longlong"}, {"unsigned char", "uchar"}, {"unsigned short", "ushort"}, {"unsigned int", "uint"},
		{"unsigned long", "ulong"}, {"unsigned long long", "ulonglong"}, {"float", "float"}, {"double", "double"},
		{"long double", "longdouble"}}
	gSumProd = append(append([]gType{}, gMinMax...), gType{"float _Complex", "complexf"}, gType{"double _Complex", "complexd"})
)

// generic is one type-generic macro: its name, the typed function of a
// TYPENAME, the types, which argument selects (1 or 2, without the
// context), whether a context may come first, and whether the selecting
// argument is const (a const and a plain pointer then both select).
type generic struct {
	name  string
	fn    func(t string) string
	ts    []gType
	arg   int
	ctx   bool
	konst bool
}

func oshGenericList() []generic {
	typed := func(suffix string) func(string) string {
		return func(t string) string { return "shmem_" + t + "_" + suffix }
	}
	var gs []generic
	for _, op := range []string{"put", "get", "put_nbi", "get_nbi", "iput", "iget", "p", "put_signal", "put_signal_nbi"} {
		gs = append(gs, generic{name: op, fn: typed(op), ts: gAll, arg: 1, ctx: true})
	}
	gs = append(gs, generic{name: "g", fn: typed("g"), ts: gAll, arg: 1, ctx: true, konst: true})
	amo := func(op string, ts []gType, konst bool) {
		gs = append(gs, generic{name: "atomic_" + op, fn: typed("atomic_" + op), ts: ts, arg: 1, ctx: true, konst: konst})
	}
	amo("fetch", gExtAMO, true)
	amo("set", gExtAMO, false)
	amo("swap", gExtAMO, false)
	amo("fetch_nbi", gExtAMO, false)
	amo("swap_nbi", gExtAMO, false)
	for _, op := range []string{"compare_swap", "fetch_inc", "inc", "fetch_add", "add", "compare_swap_nbi", "fetch_inc_nbi", "fetch_add_nbi"} {
		amo(op, gStdAMO, false)
	}
	for _, op := range []string{"and", "or", "xor"} {
		amo(op, gBitAMO, false)
		amo("fetch_"+op, gBitAMO, false)
		amo("fetch_"+op+"_nbi", gBitAMO, false)
	}
	for _, w := range []string{"wait_until", "test", "wait_until_all", "wait_until_any", "wait_until_some", "test_all", "test_any", "test_some"} {
		gs = append(gs, generic{name: w, fn: typed(w), ts: gSync, arg: 1})
		if w != "wait_until" && w != "test" {
			gs = append(gs, generic{name: w + "_vector", fn: typed(w + "_vector"), ts: gSync, arg: 1})
		}
	}
	for _, c := range []string{"broadcast", "collect", "fcollect", "alltoall", "alltoalls"} {
		gs = append(gs, generic{name: c, fn: typed(c), ts: gAll, arg: 2})
	}
	red := func(op string, ts []gType) {
		gs = append(gs, generic{name: op + "_reduce", fn: typed(op + "_reduce"), ts: ts, arg: 2})
	}
	for _, op := range []string{"and", "or", "xor"} {
		red(op, gBitRed)
	}
	red("max", gMinMax)
	red("min", gMinMax)
	red("sum", gSumProd)
	red("prod", gSumProd)
	// OpenSHMEM 1.4's deprecated generic atomics.
	dep := func(old, op string, ts []gType, konst bool) {
		gs = append(gs, generic{name: old, fn: typed("atomic_" + op), ts: ts, arg: 1, konst: konst})
	}
	dep("swap", "swap", gExtAMO, false)
	dep("cswap", "compare_swap", gStdAMO, false)
	dep("fadd", "fetch_add", gStdAMO, false)
	dep("finc", "fetch_inc", gStdAMO, false)
	dep("add", "add", gStdAMO, false)
	dep("inc", "inc", gStdAMO, false)
	dep("fetch", "fetch", gExtAMO, true)
	dep("set", "set", gExtAMO, false)
	return gs
}

// selection is one _Generic over the argument sel with the typed names
// of g (ctx: the context forms).
func (g generic) selection(sel string, ctx bool) string {
	var as []string
	for _, t := range g.ts {
		f := g.fn(t.name)
		if ctx {
			f = "shmem_ctx_" + strings.TrimPrefix(f, "shmem_")
		}
		as = append(as, fmt.Sprintf("%s *: %s", t.c, f))
		if g.konst {
			as = append(as, fmt.Sprintf("const %s *: %s", t.c, f))
		}
	}
	as = append(as, "default: shmemi_generic_unsupported")
	return fmt.Sprintf("_Generic(%s, %s)", sel, strings.Join(as, ", "))
}

// oshGenerics is shmem.h's C11 type-generic macros. A macro whose routine
// takes a context selects the context form when its first argument is a
// shmem_ctx_t, so shmem_put(dest, src, n, pe) and shmem_put(ctx, dest,
// src, n, pe) both work, as the specification writes them.
func oshGenerics() string {
	var b strings.Builder
	b.WriteString(`
/* C11 type-generic routines (not in C++, as the specification says). A
 * type no routine takes selects shmemi_generic_unsupported, which takes no
 * arguments: the call does not compile. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus) && !defined(SHMEMI_NO_GENERICS)
void shmemi_generic_unsupported(void);
#define SHMEMI_ARG1(a, ...) a
#define SHMEMI_ARG2(a, b, ...) b
`)
	for _, g := range oshGenericList() {
		sel := fmt.Sprintf("SHMEMI_ARG%d(__VA_ARGS__, 0, 0)", g.arg)
		e := g.selection(sel, false)
		if g.ctx {
			e = fmt.Sprintf("_Generic(SHMEMI_ARG1(__VA_ARGS__, 0), shmem_ctx_t: %s, default: %s)",
				g.selection("SHMEMI_ARG2(__VA_ARGS__, 0, 0)", true), e)
		}
		fmt.Fprintf(&b, "#define shmem_%s(...) %s(__VA_ARGS__)\n", g.name, e)
	}
	b.WriteString(`/* shmem_sync(team) is shmem_team_sync; shmem_sync with four arguments the
 * deprecated active-set form. */
#define SHMEMI_ARG5(a, b, c, d, e, ...) e
#define shmem_sync(...) SHMEMI_ARG5(__VA_ARGS__, shmem_sync, shmemi_generic_unsupported, shmemi_generic_unsupported, shmem_team_sync, 0)(__VA_ARGS__)
#endif
#ifdef __cplusplus
/* C++: shmem_sync(team) as an overload. */
static inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }
#endif
`)
	return b.String()
}
