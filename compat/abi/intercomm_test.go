//go:build cgo

package main

import "testing"

// TestIntercommunicators runs testdata/intercomm.c on even and uneven
// halves: intercommunicators, their collectives and the communicators
// made over a group's members only.
func TestIntercommunicators(t *testing.T) {
	exe := compile(t, "intercomm.c")
	runOK(t, 4, exe, "intercomm ok")
	runOK(t, 3, exe, "intercomm ok")
	runOK(t, 2, exe, "intercomm ok")
}
