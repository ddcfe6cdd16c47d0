//go:build cgo

package main

import "testing"

// TestToolsInterface runs testdata/mpit.c: the MPI_T control variables,
// categories, events and sources before MPI_Init, and performance
// variables that count exactly the messages, bytes and RMA operations the
// program causes.
func TestToolsInterface(t *testing.T) {
	exe := compile(t, "mpit.c")
	runOK(t, 2, exe, "mpit ok")
}
