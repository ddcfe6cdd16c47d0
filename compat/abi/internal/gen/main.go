// Command gen writes the generated files of libmpi_abi.so.1 from the ABI
// tables in abi.txt and from the code of compat/abi:
//
//	compat/abi/include/mpi.h        the header, every constant at its ABI value
//	compat/abi/zprotos.h            prototypes of the C implementations (abic_X)
//	compat/abi/zsymbols.c           every PMPI_X, strong, with a weak MPI_X alias
//	porting-guide/abi-status.md     what is implemented, in C, in Go, or a stub
//	compat/abi/include/gshmem.h     the symmetric heap's C host API (gshmem.go)
//	compat/abi/zgshmem.c            its typed functions over shm.h's cores
//	compat/abi/include/shmem.h      OpenSHMEM 1.5 (+ pshmem.h, shmemx.h; gshmem_openshmem.go)
//	compat/abi/include/nvshmem.h    NVSHMEM 3.4 (+ nvshmemx.h, nvshmemx_error.h, znvshmem.c; gshmem_nvshmem.go)
//	compat/abi/zshmem.c             its typed routines and the shmem_ aliases
//
// Each PMPI_X calls abic_X when a hand-written C file of compat/abi defines
// it (the hot paths, callbacks, the variadic MPI_Pcontrol), else abigo_X
// when a Go file exports it (//export abigo_X), else it is a stub that
// raises MPI_ERR_UNSUPPORTED_OPERATION through the error handler. Adding a
// call is therefore: write abigo_X (or abic_X), run go generate.
//
// Run from compat/abi (go generate ./compat/abi); with -check it writes
// nothing and fails when a generated file is not current.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	check := flag.Bool("check", false, "fail if a generated file differs instead of writing it")
	dir := flag.String("dir", ".", "the compat/abi directory")
	flag.Parse()
	files, err := generate(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	stale, err := apply(*dir, files, *check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if len(stale) > 0 {
		fmt.Fprintln(os.Stderr, "gen: not current (run go generate ./compat/abi):", strings.Join(stale, ", "))
		os.Exit(1)
	}
}

// apply writes files (paths relative to dir), or with check only lists
// those whose content differs.
func apply(dir string, files map[string][]byte, check bool) ([]string, error) {
	var stale []string
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, files[n]) {
			continue
		}
		if check {
			stale = append(stale, n)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// impl says where an entry point is implemented.
type impl int

const (
	stub impl = iota
	inGo
	inC
	inShim // X_c (or MPI-3's X_x), a large-count form, over an implemented X (shim.go)
)

var (
	goExportRE = regexp.MustCompile(`(?m)^//export abigo_(\w+)$`)
	cDefRE     = regexp.MustCompile(`(?m)^(?:int|double|MPI_\w+) abic_(\w+)\(.*[^;]$`)
)

// implementations scans the package's hand-written Go and C files.
func implementations(dir string) (goImpl, cImpl map[string]bool, err error) {
	goImpl, cImpl = map[string]bool{}, map[string]bool{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, "z") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		var re *regexp.Regexp
		var set map[string]bool
		switch filepath.Ext(n) {
		case ".go":
			re, set = goExportRE, goImpl
		case ".c":
			re, set = cDefRE, cImpl
		default:
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, nil, err
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			set[string(m[1])] = true
		}
	}
	return goImpl, cImpl, nil
}

// parseTablesFile reads dir/internal/gen/abi.txt.
func parseTablesFile(dir string) (*tables, error) {
	data, err := os.ReadFile(filepath.Join(dir, "internal", "gen", "abi.txt"))
	if err != nil {
		return nil, err
	}
	return parseTables(data)
}

func generate(dir string) (map[string][]byte, error) {
	t, err := parseTablesFile(dir)
	if err != nil {
		return nil, err
	}
	goImpl, cImpl, err := implementations(dir)
	if err != nil {
		return nil, err
	}
	where := map[string]impl{}
	known := map[string]bool{}
	for _, f := range t.funcs {
		known[f.name] = true
		switch {
		case cImpl[f.name]:
			where[f.name] = inC
		case goImpl[f.name]:
			where[f.name] = inGo
		case f.ret != "int":
			return nil, fmt.Errorf("MPI_%s returns %s: it cannot be a stub; implement abic_%s or abigo_%s", f.name, f.ret, f.name, f.name)
		}
	}
	byName := map[string]*function{}
	for _, f := range t.funcs {
		byName[f.name] = f
	}
	for _, f := range t.funcs {
		if base, ok := largeCountBase(f.name); ok && where[f.name] == stub && where[base] != stub && shimmable(f, byName[base]) {
			where[f.name] = inShim
		}
	}
	for n := range goImpl {
		if !known[n] {
			return nil, fmt.Errorf("//export abigo_%s: no MPI_%s in the ABI tables", n, n)
		}
	}
	for n := range cImpl {
		if !known[n] {
			return nil, fmt.Errorf("abic_%s: no MPI_%s in the ABI tables", n, n)
		}
	}
	ffiles, err := fortranFiles(t)
	if err != nil {
		return nil, err
	}
	cuh, err := readCuh(dir)
	if err != nil {
		return nil, err
	}
	typed := deviceTyped(deviceNames(cuh))
	files := map[string][]byte{
		filepath.Join("..", "..", "kernels", "cuda", "gshmem_typed.cuh"): typed,
		"include/nvshmem.h":                nvshmemHeader(append(cuh, typed...)),
		"include/nvshmemx.h":               []byte(nvshmemxHeader),
		"include/nvshmemx_error.h":         []byte(nvshmemxErrorHeader),
		"include/non_abi/nvshmemx_error.h": []byte(nvshmemxErrorNonABI),
		"znvshmem.c":                       nvshmemSymbols(),
		"include/mpi.h":                    header(t),
		"zprotos.h":                        protos(t, where),
		"zsymbols.c":                       symbols(t, where, byName),
		"include/gshmem.h":                 gshmemHeader(),
		"zgshmem.c":                        gshmemTyped(),
		"include/shmem.h":                  shmemHeader(),
		"include/pshmem.h":                 pshmemHeader(),
		"include/shmemx.h":                 []byte(shmemxHeader),
		"zshmem.c":                         shmemTyped(),
		"zshmem_alias.h":                   shmemAliases(),
		filepath.Join("..", "..", "porting-guide", "abi-status.md"): status(t, where),
	}
	for n, b := range ffiles {
		files[n] = b
	}
	return files, nil
}
