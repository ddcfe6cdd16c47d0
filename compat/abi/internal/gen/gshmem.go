package main

import (
	"bytes"
	"fmt"
	"strings"
)

// The symmetric heap's C host API: include/gshmem.h and zgshmem.c, the
// typed families of NVSHMEM's (and OpenSHMEM 1.5's) host API over the
// untyped cores of shm.h, one line of C each. The type lists are
// OpenSHMEM 1.5's tables, less long double (as NVSHMEM) and the complex
// reductions.

// shmType is one TYPENAME of the tables: its C type and kind: a float,
// a signed or unsigned integer, char (whose signedness the platform
// sets), or a 2-byte float (h: NVSHMEM's half and bfloat16, whose C
// types gshmem.h's head defines, CUDA's where cuda_fp16.h and cuda_bf16.h
// are and 2-byte elements in the library, which is compiled as C).
type shmType struct {
	name, c, kind string
}

func types(names ...string) []shmType {
	all := map[string]shmType{}
	for _, t := range []shmType{
		{"float", "float", "f"}, {"double", "double", "f"}, {"longdouble", "long double", "f"},
		{"char", "char", "c"}, {"schar", "signed char", "s"}, {"short", "short", "s"},
		{"int", "int", "s"}, {"long", "long", "s"}, {"longlong", "long long", "s"},
		{"uchar", "unsigned char", "u"}, {"ushort", "unsigned short", "u"}, {"uint", "unsigned int", "u"},
		{"ulong", "unsigned long", "u"}, {"ulonglong", "unsigned long long", "u"},
		{"int8", "int8_t", "s"}, {"int16", "int16_t", "s"}, {"int32", "int32_t", "s"}, {"int64", "int64_t", "s"},
		{"uint8", "uint8_t", "u"}, {"uint16", "uint16_t", "u"}, {"uint32", "uint32_t", "u"}, {"uint64", "uint64_t", "u"},
		{"size", "size_t", "u"}, {"ptrdiff", "ptrdiff_t", "s"},
		{"half", "gshmemi_half_t", "h"}, {"bfloat16", "gshmemi_bfloat16_t", "h"},
	} {
		all[t.name] = t
	}
	out := make([]shmType, len(names))
	for i, n := range names {
		t, ok := all[n]
		if !ok {
			panic("gen: no shmem type " + n)
		}
		out[i] = t
	}
	return out
}

var (
	// rmaTypes: put, get, p, g (+ nbi), put_signal, broadcast, fcollect, alltoall.
	rmaTypes = types("float", "double", "char", "schar", "short", "int", "long", "longlong", "uchar", "ushort",
		"uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
		"size", "ptrdiff", "half", "bfloat16")
	// amoTypes: the standard atomics, and and/or/xor (OpenSHMEM's bitwise
	// table less the signed int, long and long long, which NVSHMEM offers).
	amoTypes = types("int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64",
		"size", "ptrdiff")
	// extTypes: fetch, set and swap take the floats too.
	extTypes = append(types("float", "double"), amoTypes...)
	// syncTypes: wait_until and test.
	syncTypes = types("short", "int", "long", "longlong", "ushort", "uint", "ulong", "ulonglong", "int32", "int64",
		"uint32", "uint64", "size", "ptrdiff")
	// bitTypes: and, or and xor reductions.
	bitTypes = types("uchar", "ushort", "uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64", "uint8",
		"uint16", "uint32", "uint64", "size")
	// arithTypes: min, max, sum and prod reductions.
	arithTypes = types("char", "schar", "short", "int", "long", "longlong", "ptrdiff", "uchar", "ushort", "uint",
		"ulong", "ulonglong", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "size",
		"float", "double")
)

// arith2 is arithTypes and the 2-byte floats of rmaTs (gshmem.h's, not
// shmem.h's): their min, max, sum and prod reductions.
func arith2(rmaTs []shmType) []shmType {
	out := append([]shmType{}, arithTypes...)
	for _, t := range rmaTs {
		if t.kind == "h" {
			out = append(out, t)
		}
	}
	return out
}

// nbiFlag is the nbi argument of a core for a name's suffix.
func nbiFlag(suffix string) int { return cFlag(suffix == "_nbi") }

// cFlag is a C int for b.
func cFlag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kindOf is the C expression of a type's kind (shm.h's ABI_SHM_*).
func (t shmType) kindOf() string {
	if t.kind == "h" { // the 2-byte floats by their format
		return "ABI_SHM_" + strings.ToUpper(t.name)
	}
	return map[string]string{"f": "ABI_SHM_FLOAT", "s": "ABI_SHM_SINT", "u": "ABI_SHM_UINT", "c": "ABI_SHM_CHAR"}[t.kind]
}

// shmFunc is one typed function: its prototype and its body.
type shmFunc struct {
	proto, body string
}

// typedFuncs is the typed host families over rmaTs (the RMA and collective
// types; OpenSHMEM's shmem.h adds long double to gshmem's), with the
// stream-ordered families when streams is set.
func typedFuncs(rmaTs []shmType, streams bool) (groups []string, funcs map[string][]shmFunc) {
	funcs = map[string][]shmFunc{}
	add := func(g string, proto, body string, a ...any) {
		if _, ok := funcs[g]; !ok {
			groups = append(groups, g)
		}
		funcs[g] = append(funcs[g], shmFunc{proto, fmt.Sprintf(body, a...)})
	}
	const rma = "Remote memory access: TYPENAME_put, get, p, g and their _nbi forms"
	for _, t := range rmaTs {
		n, c := t.name, t.c
		for _, nbi := range []string{"", "_nbi"} {
			f := "gshmem_" + n + "_put" + nbi
			add(rma, fmt.Sprintf("void %s(%s *dest, const %s *source, size_t nelems, int pe)", f, c, c),
				`shm_put("%s", dest, source, nelems, sizeof(%s), pe, %d);`, f, c, nbiFlag(nbi))
			f = "gshmem_" + n + "_get" + nbi
			add(rma, fmt.Sprintf("void %s(%s *dest, const %s *source, size_t nelems, int pe)", f, c, c),
				`shm_get("%s", dest, source, nelems, sizeof(%s), pe, %d);`, f, c, nbiFlag(nbi))
		}
		f := "gshmem_" + n + "_p"
		add(rma, fmt.Sprintf("void %s(%s *dest, %s value, int pe)", f, c, c),
			`shm_put("%s", dest, &value, 1, sizeof(%s), pe, 0);`, f, c)
		f = "gshmem_" + n + "_g"
		add(rma, fmt.Sprintf("%s %s(const %s *source, int pe)", c, f, c),
			`%s v; shm_get("%s", &v, source, 1, sizeof(%s), pe, 0); return v;`, c, f, c)
	}
	const sized = "Remote memory access by element size: putSIZE, getSIZE (+ _nbi)"
	for _, bits := range []int{8, 16, 32, 64, 128} {
		for _, nbi := range []string{"", "_nbi"} {
			for _, dir := range []string{"put", "get"} {
				f := fmt.Sprintf("gshmem_%s%d%s", dir, bits, nbi)
				add(sized, fmt.Sprintf("void %s(void *dest, const void *source, size_t nelems, int pe)", f),
					`shm_%s("%s", dest, source, nelems, %d, pe, %d);`, dir, f, bits/8, nbiFlag(nbi))
			}
		}
	}
	const strided = "Strided remote memory access: TYPENAME_iput, iget, iputSIZE, igetSIZE"
	for _, t := range rmaTs {
		for _, dir := range []string{"put", "get"} {
			f := "gshmem_" + t.name + "_i" + dir
			add(strided, fmt.Sprintf("void %s(%s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", f, t.c, t.c),
				`shm_istride("%s", dest, source, dst, sst, nelems, sizeof(%s), pe, %d);`, f, t.c, cFlag(dir == "put"))
		}
	}
	for _, bits := range []int{8, 16, 32, 64, 128} {
		for _, dir := range []string{"put", "get"} {
			f := fmt.Sprintf("gshmem_i%s%d", dir, bits)
			add(strided, fmt.Sprintf("void %s(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)", f),
				`shm_istride("%s", dest, source, dst, sst, nelems, %d, pe, %d);`, f, bits/8, cFlag(dir == "put"))
		}
	}
	const sig = "Put with signal: TYPENAME_put_signal (+ _nbi)"
	for _, t := range rmaTs {
		for _, nbi := range []string{"", "_nbi"} {
			f := "gshmem_" + t.name + "_put_signal" + nbi
			add(sig, fmt.Sprintf("void %s(%s *dest, const %s *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)", f, t.c, t.c),
				`shm_put_signal("%s", dest, source, nelems, sizeof(%s), sig_addr, signal, sig_op, pe, %d);`, f, t.c, nbiFlag(nbi))
		}
	}
	const amo = "Atomic memory operations: TYPENAME_atomic_*"
	// fetching atomic: returns the old value.
	fetching := func(t shmType, op, proto, opc, v, cmp string) {
		f := "gshmem_" + t.name + "_atomic_" + op
		add(amo, fmt.Sprintf("%s %s(%s)", t.c, f, strings.ReplaceAll(proto, "TYPE", t.c)),
			`%s r; uint64_t b = shm_amo("%s", (void *)dest, sizeof(%s), %s, %s, %s, pe); memcpy(&r, &b, sizeof r); return r;`,
			t.c, f, t.c, opc, v, cmp)
	}
	plain := func(t shmType, op, proto, opc, v string) {
		f := "gshmem_" + t.name + "_atomic_" + op
		add(amo, fmt.Sprintf("void %s(%s)", f, strings.ReplaceAll(proto, "TYPE", t.c)),
			`shm_amo("%s", dest, sizeof(%s), %s, %s, 0, pe);`, f, t.c, opc, v)
	}
	for _, t := range extTypes {
		fetching(t, "fetch", "const TYPE *dest, int pe", "ABI_AMO_FETCH", "0", "0")
		plain(t, "set", "TYPE *dest, TYPE value, int pe", "ABI_AMO_SET", "shm_bits(&value, sizeof value)")
		fetching(t, "swap", "TYPE *dest, TYPE value, int pe", "ABI_AMO_SWAP", "shm_bits(&value, sizeof value)", "0")
	}
	for _, t := range amoTypes {
		fetching(t, "compare_swap", "TYPE *dest, TYPE cond, TYPE value, int pe", "ABI_AMO_CSWAP",
			"shm_bits(&value, sizeof value)", "shm_bits(&cond, sizeof cond)")
		fetching(t, "fetch_inc", "TYPE *dest, int pe", "ABI_AMO_ADD", "1", "0")
		plain(t, "inc", "TYPE *dest, int pe", "ABI_AMO_ADD", "1")
		fetching(t, "fetch_add", "TYPE *dest, TYPE value, int pe", "ABI_AMO_ADD", "shm_bits(&value, sizeof value)", "0")
		plain(t, "add", "TYPE *dest, TYPE value, int pe", "ABI_AMO_ADD", "shm_bits(&value, sizeof value)")
		for _, op := range []string{"and", "or", "xor"} {
			opc := "ABI_AMO_" + strings.ToUpper(op)
			fetching(t, "fetch_"+op, "TYPE *dest, TYPE value, int pe", opc, "shm_bits(&value, sizeof value)", "0")
			plain(t, op, "TYPE *dest, TYPE value, int pe", opc, "shm_bits(&value, sizeof value)")
		}
	}
	// The _nbi atomics fetch at once: the value is there before the
	// quiet OpenSHMEM waits for.
	const amoNBI = "Non-blocking fetching atomics: TYPENAME_atomic_*_nbi (complete on return)"
	nbiForm := func(t shmType, op, params, args string) {
		f := "gshmem_" + t.name + "_atomic_" + op + "_nbi"
		add(amoNBI, fmt.Sprintf("void %s(%s *fetch, %s)", f, t.c, strings.ReplaceAll(params, "TYPE", t.c)),
			`*fetch = gshmem_%s_atomic_%s(%s);`, t.name, op, args)
	}
	for _, t := range extTypes {
		nbiForm(t, "fetch", "const TYPE *dest, int pe", "dest, pe")
		nbiForm(t, "swap", "TYPE *dest, TYPE value, int pe", "dest, value, pe")
	}
	for _, t := range amoTypes {
		nbiForm(t, "compare_swap", "TYPE *dest, TYPE cond, TYPE value, int pe", "dest, cond, value, pe")
		nbiForm(t, "fetch_inc", "TYPE *dest, int pe", "dest, pe")
		for _, op := range []string{"add", "and", "or", "xor"} {
			nbiForm(t, "fetch_"+op, "TYPE *dest, TYPE value, int pe", "dest, value, pe")
		}
	}
	const wait = "Point-to-point synchronization: TYPENAME_wait_until, TYPENAME_test"
	for _, t := range syncTypes {
		f := "gshmem_" + t.name + "_wait_until"
		add(wait, fmt.Sprintf("void %s(%s *ivar, int cmp, %s cmp_value)", f, t.c, t.c),
			`shm_wait("%s", ivar, sizeof(%s), %s, cmp, shm_bits(&cmp_value, sizeof cmp_value));`, f, t.c, t.kindOf())
		f = "gshmem_" + t.name + "_test"
		add(wait, fmt.Sprintf("int %s(%s *ivar, int cmp, %s cmp_value)", f, t.c, t.c),
			`return shm_test("%s", ivar, sizeof(%s), %s, cmp, shm_bits(&cmp_value, sizeof cmp_value));`, f, t.c, t.kindOf())
	}
	const sets = "Waits and tests on arrays: TYPENAME_wait_until_all, _any, _some, test_all, _any, _some (+ _vector)"
	for _, t := range syncTypes {
		for _, form := range []struct{ name, ret, retExpr, mode string }{
			{"all", "void", "", "ABI_SET_ALL"}, {"any", "size_t", "return ", "ABI_SET_ANY"}, {"some", "size_t", "return ", "ABI_SET_SOME"},
		} {
			for _, vec := range []bool{false, true} {
				for _, wait := range []bool{true, false} {
					f, ret, retExpr := "gshmem_"+t.name+"_wait_until_"+form.name, form.ret, form.retExpr
					if !wait {
						f = "gshmem_" + t.name + "_test_" + form.name
						if form.name == "all" {
							ret, retExpr = "int", "return (int)"
						}
					}
					idx, idxArg := "", "NULL"
					if form.name == "some" {
						idx, idxArg = "size_t *indices, ", "indices"
					}
					val, valArg, valsArg := t.c+" cmp_value", "shm_bits(&cmp_value, sizeof cmp_value)", "NULL"
					if vec {
						f += "_vector"
						val, valArg, valsArg = t.c+" *cmp_values", "0", "cmp_values"
					}
					add(sets, fmt.Sprintf("%s %s(%s *ivars, size_t nelems, %sconst int *status, int cmp, %s)", ret, f, t.c, idx, val),
						`%sshm_wait_set("%s", ivars, nelems, %s, status, sizeof(%s), %s, cmp, %s, %s, %s, %d);`,
						retExpr, f, idxArg, t.c, t.kindOf(), valArg, valsArg, form.mode, cFlag(wait))
				}
			}
		}
	}
	const coll = "Collectives over a team: TYPENAME_broadcast, fcollect, collect, alltoall(s), TYPENAME_OP_reduce, TYPENAME_OP_reducescatter"
	for _, t := range rmaTs {
		f := "gshmem_" + t.name + "_broadcast"
		add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nelems, int PE_root)", f, t.c, t.c),
			`return shm_coll("%s", ABI_COLL_BROADCAST, team, dest, source, nelems, sizeof(%s), %s, 0, PE_root);`, f, t.c, t.kindOf())
		for _, k := range []string{"fcollect", "collect", "alltoall"} {
			f := "gshmem_" + t.name + "_" + k
			add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nelems)", f, t.c, t.c),
				`return shm_coll("%s", ABI_COLL_%s, team, dest, source, nelems, sizeof(%s), %s, 0, 0);`, f, strings.ToUpper(k), t.c, t.kindOf())
		}
	}
	for _, t := range rmaTs {
		f := "gshmem_" + t.name + "_alltoalls"
		add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)", f, t.c, t.c),
			`return shm_alltoalls("%s", team, dest, source, dst, sst, nelems, sizeof(%s));`, f, t.c)
	}
	reduce := func(ts []shmType, ops ...string) {
		for _, t := range ts {
			for _, op := range ops {
				for _, k := range []string{"reduce", "reducescatter"} {
					f := "gshmem_" + t.name + "_" + op + "_" + k
					add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nreduce)", f, t.c, t.c),
						`return shm_coll("%s", ABI_COLL_%s, team, dest, source, nreduce, sizeof(%s), %s, ABI_RED_%s, 0);`,
						f, strings.ToUpper(k), t.c, t.kindOf(), strings.ToUpper(op))
				}
			}
		}
	}
	reduce(bitTypes, "and", "or", "xor")
	reduce(arith2(rmaTs), "max", "min", "sum", "prod")
	if streams {
		streamTyped(add)
	}
	return groups, funcs
}

// gshmemHeader writes include/gshmem.h.
func gshmemHeader() []byte {
	var b bytes.Buffer
	b.WriteString("/* gshmem.h: the symmetric heap's C host API, in NVSHMEM's shape (nvshmem_X is\n")
	b.WriteString(" * gshmem_X, nvshmemx_X is gshmemx_X), in libmpi_abi.so.1 beside MPI.\n")
	fmt.Fprintf(&b, " * %s */\n", strings.Replace(banner, "abi.txt", "gshmem.go", 1))
	b.WriteString(gshmemHead)
	b.WriteString(streamHead)
	b.WriteString(gshmemKernHead)
	groups, funcs := typedFuncs(rmaTypes, true)
	// The half and bfloat16 calls come last, declared only where their
	// types are (GSHMEMI_HAVE_HALF), as NVSHMEM's.
	for _, half := range []bool{false, true} {
		if half {
			b.WriteString("\n#ifdef GSHMEMI_HAVE_HALF\n/* The half and bfloat16 forms of the families above. */\n")
		}
		for _, g := range groups {
			var ps []string
			for _, f := range funcs[g] {
				if halfProto(f.proto) == half {
					ps = append(ps, f.proto)
				}
			}
			if len(ps) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n/* %s. */\n", g)
			for _, p := range ps {
				fmt.Fprintf(&b, "%s;\n", p)
			}
		}
		if half {
			b.WriteString("#endif /* GSHMEMI_HAVE_HALF */\n")
		}
	}
	b.WriteString("\n#ifdef __cplusplus\n}\n#endif\n")
	b.WriteString(gshmemDeviceTail)
	b.WriteString("\n#endif /* GSHMEM_H */\n")
	return b.Bytes()
}

// halfProto says whether a prototype takes a 2-byte float type.
func halfProto(proto string) bool {
	for _, t := range types("half", "bfloat16") {
		if strings.Contains(proto, t.c) {
			return true
		}
	}
	return false
}

// gshmemDeviceTail brings the device API into a file nvcc compiles, as
// NVSHMEM's nvshmem.h does, so that a program written for NVSHMEM that
// includes only the host header ports by renaming. gshmem.cuh includes
// this header back; the include guards end the cycle.
const gshmemDeviceTail = `
/* Compiled by nvcc: the device API too (gshmem.cuh, installed beside this
 * header; GSHMEM_NO_DEVICE_API leaves it out). */
#if defined(__CUDACC__) && !defined(GSHMEM_NO_DEVICE_API) && defined(__has_include)
#if __has_include("gshmem.cuh")
#include "gshmem.cuh"
#endif
#endif
`

// gshmemTyped writes zgshmem.c, the typed functions.
func gshmemTyped() []byte {
	var b bytes.Buffer
	b.WriteString("//go:build cgo\n\n")
	b.WriteString("/* The typed functions of gshmem.h over shm.h's untyped cores (whose fast\n")
	b.WriteString(" * paths inline here, so a typed put into a mapped PE is a store).\n")
	fmt.Fprintf(&b, " * %s */\n", strings.Replace(banner, "abi.txt", "gshmem.go", 1))
	b.WriteString("#define GSHMEMI_HALF_BITS 1 /* half and bfloat16 as their 2-byte elements */\n")
	b.WriteString("#include <string.h>\n#include \"shm.h\"\n")
	groups, funcs := typedFuncs(rmaTypes, true)
	for _, g := range groups {
		fmt.Fprintf(&b, "\n/* %s. */\n", g)
		for _, f := range funcs[g] {
			fmt.Fprintf(&b, "%s { %s }\n", f.proto, f.body)
		}
	}
	return b.Bytes()
}

// gshmemHead is the hand-written part of gshmem.h: constants, types and
// the untyped calls.
const gshmemHead = `#ifndef GSHMEM_H
#define GSHMEM_H

#include <stddef.h>
#include <stdint.h>

/* NVSHMEM's half and bfloat16 element types: CUDA's half and
 * __nv_bfloat16 where cuda_fp16.h and cuda_bf16.h are (C++ and CUDA); the
 * calls that take them are declared only then (GSHMEMI_HAVE_HALF). The
 * library, compiled as C, defines them over 2-byte elements
 * (GSHMEMI_HALF_BITS): on x86-64 a uint16_t is passed and returned as the
 * one-unsigned-short structs are. */
#if defined(GSHMEMI_HALF_BITS)
typedef uint16_t gshmemi_half_t;
typedef uint16_t gshmemi_bfloat16_t;
#define GSHMEMI_HAVE_HALF 1
#elif (defined(__cplusplus) || defined(__CUDACC__)) && defined(__has_include)
#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef half gshmemi_half_t;
typedef __nv_bfloat16 gshmemi_bfloat16_t;
#define GSHMEMI_HAVE_HALF 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The OpenSHMEM version the API follows. */
#define GSHMEM_MAJOR_VERSION 1
#define GSHMEM_MINOR_VERSION 5

/* Where the heap lives is the build's and GSHMEM_HEAP's to say, at run
 * time: gshmemx_heap_on_device() below. */

/* Shared with kernels/cuda/gshmem.cuh, which defines the same. */
#ifndef GSHMEMI_COMMON_TYPES
#define GSHMEMI_COMMON_TYPES
enum gshmem_cmp { GSHMEM_CMP_EQ = 0, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE };
enum gshmem_signal_op { GSHMEM_SIGNAL_SET = 0, GSHMEM_SIGNAL_ADD = 1 };
typedef unsigned long long gshmem_team_t;
#endif

/* Teams: the world, the PEs that share memory with this one (this node),
 * and NVSHMEM's node team (the same PEs here). */
#define GSHMEM_TEAM_WORLD ((gshmem_team_t)0)
#define GSHMEM_TEAM_SHARED ((gshmem_team_t)1)
#define GSHMEMX_TEAM_NODE ((gshmem_team_t)2)
#define GSHMEM_TEAM_INVALID ((gshmem_team_t)-1)

typedef struct gshmem_team_config {
    int num_contexts;
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* gshmemx_init_attr's flags, NVSHMEM 3.x's values, and its attributes, in
 * NVSHMEM's layout (144 bytes; the initializer is NVSHMEM's version 2).
 * No flag: the job the process was started in (gshmem_init).
 * GSHMEMX_INIT_WITH_MPI_COMM: the processes of *(MPI_Comm *)attr->mpi_comm,
 *   which must be MPI_COMM_WORLD (or a communicator of the same processes
 *   in the same order), after MPI_Init.
 * GSHMEMX_INIT_WITH_UNIQUEID: attr->args.uid_args (set by
 *   gshmemx_set_attr_uniqueid_args): rank myrank of nranks, meeting the
 *   others through the id rank 0 made with gshmemx_get_uniqueid and the
 *   application handed round itself; no launcher is needed. Where MPI_Init
 *   has made this library's MPI job, the id names that job and the ranks
 *   must be its own.
 * GSHMEMX_INIT_WITH_SHMEM: the job shmem_init (shmem.h, this library)
 *   started, which is the same heap.
 * GSHMEMX_INIT_THREAD_PES is refused (NVSHMEM's PEs as threads). */
#define GSHMEMX_INIT_THREAD_PES (1u << 0)
#define GSHMEMX_INIT_WITH_MPI_COMM (1u << 1)
#define GSHMEMX_INIT_WITH_SHMEM (1u << 2)
#define GSHMEMX_INIT_WITH_UNIQUEID (1u << 3)
typedef struct gshmemx_uniqueid {
    int version;
    char internal[124];
} gshmemx_uniqueid_t;
#define GSHMEMX_UNIQUEID_INITIALIZER {(1 << 16) + (int)sizeof(gshmemx_uniqueid_t), {0}}
typedef struct gshmemx_uniqueid_args {
    int version;
    gshmemx_uniqueid_t *id;
    int myrank;
    int nranks;
} gshmemx_uniqueid_args_t;
#define GSHMEMX_UNIQUEID_ARGS_INITIALIZER {(1 << 16) + (int)sizeof(gshmemx_uniqueid_args_t), NULL, -1, -1}
typedef struct gshmemx_init_args {
    int version;
    gshmemx_uniqueid_args_t uid_args;
    int cuda_device_id;
    char content[92];
} gshmemx_init_args_t;
typedef struct gshmemx_init_attr {
    int version;
    void *mpi_comm;
    gshmemx_init_args_t args;
} gshmemx_init_attr_t;
#define GSHMEMX_INIT_ATTR_INITIALIZER                                                             \
    {(2 << 16) + (int)sizeof(gshmemx_init_attr_t), NULL,                                          \
     {(2 << 16) + (int)sizeof(gshmemx_init_args_t), GSHMEMX_UNIQUEID_ARGS_INITIALIZER, -1, {0}}}

/* gshmemx_init_status: how far initialization has come. */
#define GSHMEM_STATUS_NOT_INITIALIZED 0
#define GSHMEM_STATUS_IS_BOOTSTRAPPED 1
#define GSHMEM_STATUS_IS_INITIALIZED 2

/* Thread levels: every call may come from any thread at any time. */
#define GSHMEM_THREAD_SINGLE 0
#define GSHMEM_THREAD_FUNNELED 1
#define GSHMEM_THREAD_SERIALIZED 2
#define GSHMEM_THREAD_MULTIPLE 3

/* Library setup and query. */
void gshmem_init(void);
int gshmem_init_thread(int requested, int *provided);
void gshmem_query_thread(int *provided);
int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr);
int gshmemx_hostlib_init_attr(unsigned int flags, gshmemx_init_attr_t *attr);
void gshmemx_hostlib_finalize(void);
int gshmemx_get_uniqueid(gshmemx_uniqueid_t *uniqueid);
int gshmemx_set_attr_uniqueid_args(const int myrank, const int nranks, const gshmemx_uniqueid_t *uniqueid, gshmemx_init_attr_t *attr);
int gshmemx_set_attr_mpi_comm_args(void *mpi_comm, gshmemx_init_attr_t *attr);
int gshmemx_init_status(void);
void gshmem_finalize(void);
int gshmem_my_pe(void);
int gshmem_n_pes(void);
void gshmem_global_exit(int status);
void gshmem_info_get_version(int *major, int *minor);
void gshmem_info_get_name(char *name);
#define GSHMEM_MAX_NAME_LEN 256
int gshmem_pe_accessible(int pe);
int gshmem_addr_accessible(const void *addr, int pe);
void *gshmem_ptr(const void *dest, int pe);
void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe);

/* The symmetric heap: collective over every PE, same arguments. */
void *gshmem_malloc(size_t size);
void *gshmem_calloc(size_t count, size_t size);
void *gshmem_align(size_t alignment, size_t size);
void *gshmem_realloc(void *ptr, size_t size);
void gshmem_free(void *ptr);

/* Local buffers registered for RMA (NVSHMEM's buffer registration). Any
 * local memory may be an RMA source or destination here, so registration
 * checks and records the range; the symmetric form (a cuMemCreate buffer
 * mapped into every PE's heap) is refused: NULL, with a message. */
int gshmemx_buffer_register(void *addr, size_t length);
int gshmemx_buffer_unregister(void *addr);
void gshmemx_buffer_unregister_all(void);
void *gshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags);
int gshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size);

/* Untyped remote memory access. */
void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

/* Signals. */
void gshmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t gshmem_signal_fetch(const uint64_t *sig_addr);
uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Ordering and synchronization. */
void gshmem_quiet(void);
void gshmem_fence(void);
void gshmem_barrier_all(void);
void gshmem_sync_all(void);
void gshmem_barrier(gshmem_team_t team);
int gshmem_team_sync(gshmem_team_t team);

/* Teams. */
int gshmem_team_my_pe(gshmem_team_t team);
int gshmem_team_n_pes(gshmem_team_t team);
int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team);
int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size, const gshmem_team_config_t *config, long config_mask, gshmem_team_t *new_team);
int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange, const gshmem_team_config_t *xaxis_config, long xaxis_mask, gshmem_team_t *xaxis_team, const gshmem_team_config_t *yaxis_config, long yaxis_mask, gshmem_team_t *yaxis_team);
int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t *config);
void gshmem_team_destroy(gshmem_team_t team);

/* Distributed locking (OpenSHMEM's; a symmetric long, zero at first). */
void gshmem_set_lock(long *lock);
int gshmem_test_lock(long *lock);
void gshmem_clear_lock(long *lock);

/* Untyped collectives (nelems bytes). */
int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems);
int gshmem_collectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems);
int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems);
int gshmem_alltoallsmem(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
`
