//go:build cgo

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntercommunicators runs testdata/intercomm.c on even and uneven
// halves: intercommunicators, their collectives and the communicators
// made over a group's members only.
func TestIntercommunicators(t *testing.T) {
	exe := compile(t, "intercomm.c")
	runOK(t, 4, exe, "intercomm ok")
	runOK(t, 3, exe, "intercomm ok")
	runOK(t, 2, exe, "intercomm ok")
}

// TestCommRegressions runs testdata/commfix.c: issue 36's wrong
// behaviours (a receive pending on a freed communicator, MPI_Win_free
// after its communicator's, MPI_Win_set_info with MPI_Win_get_info's info,
// null handles' names, MPI_Comm_split_type's kinds, MPI_IN_PLACE in
// MPI_Alltoallw and MPI_Ialltoall, MPI_Finalize deleting MPI_COMM_SELF's
// attributes first) and window attributes.
func TestCommRegressions(t *testing.T) {
	exe := compile(t, "commfix.c")
	runOK(t, 1, exe, "commfix ok")
	runOK(t, 3, exe, "commfix ok")
}

// TestCommFreeLocal runs testdata/commfree.c: MPI_Comm_free is local, so
// members free in any order and at any time (MPICH's comm/cmfree and
// cmfree2 deadlocked when it destroyed the team collectively), and a
// dup/free loop runs to the end.
func TestCommFreeLocal(t *testing.T) {
	exe := compile(t, "commfree.c")
	runOK(t, 2, exe, "commfree ok")
	runOK(t, 4, exe, "commfree ok")
}

// TestSessions runs testdata/session.c without MPI_Init and beside it.
func TestSessions(t *testing.T) {
	exe := compile(t, "session.c")
	runOK(t, 2, exe, "session ok")
	runOK(t, 1, exe, "session ok")
	r := runArgs(t, 3, exe, "init")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 3, strings.Count(r.stdout, "session ok"), r.stdout)
}
