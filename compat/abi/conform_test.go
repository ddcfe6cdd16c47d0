//go:build cgo

package main

import "testing"

// TestConformanceFixes runs conform.c: what MPICH's own test programs and
// mpi4py's test suite, built unmodified against the library, found wrong
// (info key order, a failed MPI_Comm_dup's MPI_COMM_NULL, reduce-scatter
// with user ops, a transpose through RMA, predefined type names, empty
// v-collective regions, shared queries of other windows, ...).
func TestConformanceFixes(t *testing.T) {
	exe := compile(t, "conform.c")
	runOK(t, 1, exe, "conform ok")
	runOK(t, 3, exe, "conform ok")
}
