package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePrefix is an installation as far as findPrefix looks: lib/libmpi_abi.so.1.
func fakePrefix(t *testing.T) string {
	p := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(p, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p, "lib", abiLib), nil, 0o644))
	return p
}

// query runs a wrapper command with args and returns what it printed.
func query(t *testing.T, w *wrapper, p string, args ...string) string {
	t.Helper()
	c := mpiLangCmd(w)
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetArgs(append([]string{"--prefix", p}, args...))
	require.NoError(t, c.Execute(), "%s %s", w.name, strings.Join(args, " "))
	return out.String()
}

// TestWrapperQueries checks every query the build systems ask, with one
// dash and two.
func TestWrapperQueries(t *testing.T) {
	t.Setenv("GSHMEM_CC", "")
	t.Setenv("GSHMEM_CXX", "")
	p := fakePrefix(t)
	inc, lib := filepath.Join(p, "include"), filepath.Join(p, "lib")
	link := "-L" + lib + " -Wl,-rpath," + lib + " -lmpi_abi"
	want := map[string]string{
		"-show":             "cc -I" + inc + " " + link,
		"-showme":           "cc -I" + inc + " " + link,
		"-showme:compile":   "-I" + inc,
		"-showme:link":      link,
		"-showme:incdirs":   inc,
		"-showme:libdirs":   lib,
		"-showme:libs":      "mpi_abi",
		"-showme:command":   "cc",
		"-showme:version":   "mpicc: gshmem (devel), libmpi_abi.so.1, MPI 5.0.0 standard ABI (Language: C)",
		"-compile_info":     "cc -I" + inc,
		"-compile-info":     "cc -I" + inc,
		"-link_info":        "cc -I" + inc + " " + link,
		"-link-info":        "cc -I" + inc + " " + link,
		"-show -o x x.c":    "cc -I" + inc + " -o x x.c " + link,
		"-o x -show x.c":    "cc -I" + inc + " -o x x.c " + link,
		"-show -c x.c":      "cc -I" + inc + " -c x.c",
		"-compile_info x.c": "cc -I" + inc + " x.c",
	}
	for args, line := range want {
		for _, dashes := range []string{"", "-"} {
			a := strings.Fields(args)
			a[0] = dashes + a[0]
			if a[0] == "--o" {
				continue
			}
			assert.Equal(t, line+"\n", query(t, mpiccWrapper, p, a...), "mpicc %s", strings.Join(a, " "))
		}
	}
	assert.Equal(t, "c++ -I"+inc+" y.cpp "+link+"\n", query(t, mpicxxWrapper, p, "-show", "y.cpp"))
	assert.Contains(t, query(t, mpicxxWrapper, p, "--showme:version"), "(Language: C++)")
	// GSHMEM_CC chooses the compiler, words and all.
	t.Setenv("GSHMEM_CC", "ccache gcc")
	assert.Equal(t, "ccache gcc\n", query(t, mpiccWrapper, p, "-showme:command"))
	assert.Equal(t, "ccache gcc -I"+inc+" "+link+"\n", query(t, mpiccWrapper, p, "-show"))
}

// TestWrapperVersionRuns checks that --version and -v print the wrapper's
// line and then run the compiler (here sh, which answers --version).
func TestWrapperVersionRuns(t *testing.T) {
	p := fakePrefix(t)
	bin := t.TempDir()
	fake := filepath.Join(bin, "fakecc")
	log := filepath.Join(bin, "log")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >>"+log+"\n"), 0o755))
	t.Setenv("GSHMEM_CC", fake)
	assert.Contains(t, query(t, mpiccWrapper, p, "--version"), "mpicc: gshmem")
	assert.Contains(t, query(t, mpiccWrapper, p, "-v"), "mpicc: gshmem")
	assert.Contains(t, query(t, mpiccWrapper, p, "-v", "-o", "x", "x.c"), "mpicc: gshmem")
	got, err := os.ReadFile(log)
	require.NoError(t, err)
	lib := filepath.Join(p, "lib")
	assert.Equal(t, "--version\n-v\n-I"+filepath.Join(p, "include")+" -v -o x x.c -L"+lib+" -Wl,-rpath,"+lib+" -lmpi_abi\n", string(got))
}
