package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// NVSHMEM's C and CUDA API under its own names: include/nvshmem.h,
// nvshmemx.h, nvshmemx_error.h (also as non_abi/nvshmemx_error.h), and
// znvshmem.c, the library's nvshmem_X/nvshmemx_X symbols.
//
// One table: every name gshmem has. The host names are gshmem.h's
// prototypes; the device names are kernels/cuda/gshmem.cuh's, its typed
// macro families expanded. In nvshmem.h each nvshmem_X is a macro naming
// gshmem_X, so one spelling reaches the library on the host and
// gshmem.cuh's inline body in a kernel, as NVSHMEM's __host__ __device__
// calls do; znvshmem.c also exports every host call under its NVSHMEM name
// (a forwarding function), so a program compiled against NVSHMEM's own
// headers and linked with libnvshmem_host's names resolves against
// libmpi_abi.so.1.

// nvshmemName is the NVSHMEM name of a gshmem name (gshmem_X, gshmemx_X).
func nvshmemName(g string) string { return "nv" + strings.TrimPrefix(g, "g") }

// gshmemProto is one host prototype of gshmem.h.
type gshmemProto struct {
	ret, name string
	params    []string // each "type name", or nil for (void)
}

var protoRE = regexp.MustCompile(`(?m)^([A-Za-z_][\w \*]*?[\s\*])(gshmemx?_\w+)\((.*)\);$`)

// gshmemProtos is every prototype of gshmem.h, in order.
func gshmemProtos() []gshmemProto {
	var out []gshmemProto
	for _, m := range protoRE.FindAllStringSubmatch(string(gshmemHeader()), -1) {
		p := gshmemProto{ret: strings.TrimSpace(m[1]), name: m[2]}
		if m[3] != "void" {
			p.params = strings.Split(m[3], ", ")
		}
		out = append(out, p)
	}
	return out
}

// paramName is the name a prototype's parameter declares.
func paramName(p string) string {
	p = strings.TrimSpace(p)
	if i := strings.Index(p, "["); i >= 0 {
		p = p[:i]
	}
	return p[strings.LastIndexAny(p, " *")+1:]
}

var (
	cuhDirectRE = regexp.MustCompile(`\b(gshmemx?_[a-z][a-z0-9_]*)\s*\(`)
	cuhMacroRE  = regexp.MustCompile(`(?m)^#define (GSHMEMI_[A-Z_]+)\(([^)]*)\)((?:.*\\\n)*.*)$`)
	cuhUseRE    = regexp.MustCompile(`\b(GSHMEMI_[A-Z_]+)\(([^()]*)\)`)
	cuhTopRE    = regexp.MustCompile(`(?m)^(GSHMEMI_[A-Z_]+)\(([^()]*)\)`)
	cuhDefRE    = regexp.MustCompile(`(?m)^#define (gshmemx?_[a-z][a-z0-9_]*) gshmemx?_`)
	cuhPasteRE  = regexp.MustCompile(`gshmemx?_(?:##\w+##|\w)[\w#]*`)
)

// deviceNames is every call gshmem.cuh defines: the named ones, the
// aliases, and the expansions of its typed macro families (GSHMEMI_RMA,
// GSHMEMI_AMO, ... with the arguments each is used with).
func deviceNames(cuh []byte) []string {
	set := map[string]bool{}
	src := string(cuh)
	for _, m := range cuhDirectRE.FindAllStringSubmatch(src, -1) {
		if !strings.HasPrefix(m[1], "gshmemi_") && m[1] != "gshmem_team_t" {
			set[m[1]] = true
		}
	}
	for _, m := range cuhDefRE.FindAllStringSubmatch(src, -1) {
		set[m[1]] = true
	}
	type macro struct {
		params []string
		body   string
	}
	macros := map[string]macro{}
	for _, m := range cuhMacroRE.FindAllStringSubmatch(src, -1) {
		var ps []string
		for _, p := range strings.Split(m[2], ",") {
			ps = append(ps, strings.TrimSpace(p))
		}
		macros[m[1]] = macro{ps, m[3]}
	}
	var expand func(name string, args []string)
	expand = func(name string, args []string) {
		mc, ok := macros[name]
		if !ok || len(args) < len(mc.params) {
			return
		}
		body := mc.body
		for i, p := range mc.params {
			body = regexp.MustCompile(`##`+p+`##|##`+p+`\b|\b`+p+`##`).ReplaceAllString(body, args[i])
		}
		for _, n := range cuhPasteRE.FindAllString(body, -1) {
			if !strings.Contains(n, "#") {
				set[n] = true
			}
		}
		for _, u := range cuhUseRE.FindAllStringSubmatch(strings.ReplaceAll(body, "\\\n", "\n"), -1) {
			var as []string
			for _, a := range strings.Split(u[2], ",") {
				a = strings.TrimSpace(a)
				for i, p := range mc.params {
					if a == p {
						a = args[i]
					}
				}
				as = append(as, a)
			}
			expand(u[1], as)
		}
	}
	for _, u := range cuhTopRE.FindAllStringSubmatch(src, -1) {
		if _, ok := macros[u[1]]; !ok {
			continue
		}
		var as []string
		for _, a := range strings.Split(u[2], ",") {
			as = append(as, strings.TrimSpace(a))
		}
		expand(u[1], as)
	}
	delete(set, "gshmem_team_t")
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// readCuh is kernels/cuda/gshmem.cuh and gshmem_coll.cuh (which it
// includes), from compat/abi (dir).
func readCuh(dir string) ([]byte, error) {
	var all []byte
	for _, f := range []string{"gshmem.cuh", "gshmem_coll.cuh"} {
		b, err := os.ReadFile(filepath.Join(dir, "..", "..", "kernels", "cuda", f))
		if err != nil {
			return nil, err
		}
		all = append(all, b...)
	}
	return all, nil
}

// nvshmemNames is the table: every gshmem host and device name, sorted.
func nvshmemNames(cuh []byte) []string {
	set := map[string]bool{}
	for _, p := range gshmemProtos() {
		set[p.name] = true
	}
	for _, n := range deviceNames(cuh) {
		set[n] = true
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// nvshmemHeader is include/nvshmem.h.
func nvshmemHeader(cuh []byte) []byte {
	var b bytes.Buffer
	b.WriteString(nvshmemHead)
	b.WriteString("\n/* Every call: nvshmem_X is gshmem_X (the library's on the host,\n * gshmem.cuh's in device code). */\n")
	for _, n := range nvshmemNames(cuh) {
		fmt.Fprintf(&b, "#define %s %s\n", nvshmemName(n), n)
	}
	b.WriteString("\n#endif /* NVSHMEM_H */\n")
	return b.Bytes()
}

// nvshmemSymbols is znvshmem.c: every host call under its NVSHMEM name.
func nvshmemSymbols() []byte {
	var b bytes.Buffer
	b.WriteString(`//go:build cgo

/* znvshmem.c: the library's NVSHMEM names, nvshmem_X (and nvshmemx_X)
 * forwarding to gshmem_X, for programs compiled against NVSHMEM's own
 * headers and linked with libnvshmem_host's names.
 * Generated by compat/abi/internal/gen from gshmem_nvshmem.go. DO NOT EDIT. */
#define GSHMEMI_HALF_BITS 1 /* half and bfloat16 as their 2-byte elements */
#include "include/gshmem.h"

`)
	for _, p := range gshmemProtos() {
		var args []string
		for _, q := range p.params {
			args = append(args, paramName(q))
		}
		params := "void"
		if p.params != nil {
			params = strings.Join(p.params, ", ")
		}
		ret := "return "
		if p.ret == "void" {
			ret = ""
		}
		sep := " "
		if strings.HasSuffix(p.ret, "*") {
			sep = ""
		}
		fmt.Fprintf(&b, "%s%s%s(%s) { %s%s(%s); }\n", p.ret, sep, nvshmemName(p.name), params, ret, p.name, strings.Join(args, ", "))
	}
	return b.Bytes()
}
