//go:build cgo

package main

import "testing"

// TestConformanceFixes runs conform.c: what MPICH's own test programs,
// built unmodified with mpicc, found wrong (info key order, a failed
// MPI_Comm_dup's MPI_COMM_NULL, reductions-scatter with user ops, a
// transpose through RMA).
func TestConformanceFixes(t *testing.T) {
	exe := compile(t, "conform.c")
	runOK(t, 1, exe, "conform ok")
	runOK(t, 3, exe, "conform ok")
}
