//go:build cgo

package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestFinalizeAfterLoss: under gshmem run --disable-auto-cleanup, rank 1
// of 3 is killed (SIGKILL by itself) or stopped past GSHMEM_PEER_TIMEOUT,
// and the survivors call MPI_Finalize at once, after an MPI_Barrier that
// reports the loss, or after shrinking MPI_COMM_WORLD (testdata/finloss.c,
// with and without GSHMEM_MPI_FT=ulfm). MPI_Finalize returns, with the
// lost rank's class or MPI_SUCCESS after the shrink, every survivor
// returns from main, and the launcher says once that the others go on,
// ends a victim left stopped, and exits with the victim's status, all
// well within the test's bound.
func TestFinalizeAfterLoss(t *testing.T) {
	exe := compile(t, "finloss.c")
	for _, how := range []string{"kill", "stop"} {
		for _, mode := range []string{"finalize", "barrier", "shrink"} {
			for _, ft := range []string{"", "ulfm"} {
				if ft == "ulfm" && mode != "shrink" {
					continue
				}
				t.Run(how+"/"+mode+"/"+ft, func(t *testing.T) {
					env := []string{"GSHMEM_PEER_TIMEOUT=1s"}
					var flags []string
					if ft != "" {
						env = append(env, "GSHMEM_MPI_FT="+ft) // implies --disable-auto-cleanup
					} else {
						flags = []string{"--disable-auto-cleanup"}
					}
					t0 := time.Now()
					res := runLaunched(t, 3, env, flags, exe, how, mode)
					took := time.Since(t0)
					for _, r := range []int{0, 2} {
						assert.Contains(t, res.stdout, fmt.Sprintf("finloss ok %d\n", r), "rank %d\nstdout:\n%s\nstderr:\n%s", r, res.stdout, res.stderr)
					}
					assert.Equal(t, 137, res.code, "the job's status is the victim's\n%s", res.stderr)
					if how == "kill" {
						assert.Contains(t, res.stderr, "go on (--disable-auto-cleanup)")
					} else {
						assert.Contains(t, res.stderr, "is stopped and every other PE has exited")
					}
					assert.Less(t, took, 30*time.Second)
				})
			}
		}
	}
}

// TestRevokePropagates: rank 0 revokes a communicator while the other
// three are blocked on it in MPI_Recv, MPI_Barrier and MPI_Bcast; each
// returns MPIX_ERR_REVOKED, and all four shrink it and finalize
// (testdata/revoke.c).
func TestRevokePropagates(t *testing.T) {
	exe := compile(t, "revoke.c")
	res := run(t, 4, exe)
	for r := range 4 {
		assert.Contains(t, res.stdout, fmt.Sprintf("revoke ok %d\n", r), "rank %d\nstdout:\n%s\nstderr:\n%s", r, res.stdout, res.stderr)
	}
	assert.Equal(t, 0, res.code, res.stderr)
}

// TestAnySourceAfterLoss: receives from MPI_ANY_SOURCE after rank 1 of 3
// is killed follow ULFM (testdata/anysrc.c): a nonblocking one stays
// pending with MPIX_ERR_PROC_FAILED_PENDING until MPIX_Comm_failure_ack,
// then completes with a survivor's message; a blocking one fails with
// MPIX_ERR_PROC_FAILED and takes nothing.
func TestAnySourceAfterLoss(t *testing.T) {
	exe := compile(t, "anysrc.c")
	res := runLaunched(t, 3, []string{"GSHMEM_MPI_FT=ulfm"}, nil, exe)
	for _, r := range []int{0, 2} {
		assert.Contains(t, res.stdout, fmt.Sprintf("anysrc ok %d\n", r), "rank %d\nstdout:\n%s\nstderr:\n%s", r, res.stdout, res.stderr)
	}
	assert.Equal(t, 137, res.code, "the job's status is the victim's\n%s", res.stderr)
}
