//go:build cgo

package main

import "testing"

// TestDynamicProcesses runs testdata/dynproc.c: MPI_Comm_get_parent of a
// job without parent, MPI_Comm_disconnect of inter- and
// intracommunicators and its refusals, and the name service of
// MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name.
func TestDynamicProcesses(t *testing.T) {
	exe := compile(t, "dynproc.c")
	runOK(t, 2, exe, "dynproc ok")
	runOK(t, 3, exe, "dynproc ok")
}
