package compat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// A rank asleep in a receive, a rendezvous or a collective (past its spin,
// with sleeps that never time out) is woken by the peer's send, whichever
// way the send reaches it: stores into the mapped ring or shmem calls
// (WithNoDirect), as goroutine PEs and as processes. A broken wake-up
// hangs the run until petest's deadline fails it.
func TestSleepingRankWokenBySend(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []compat.Option
	}{{"mapped", nil}, {"through shmem", []compat.Option{compat.WithNoDirect()}}} {
		t.Run(c.name, func(t *testing.T) {
			petest.RunConfig(t, petest.Config{N: 2, HeapSize: 64 << 20, Timeout: 60 * time.Second}, func(t *petest.T, w *shmem.World) {
				require.NoError(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: 0, YieldEvery: 1, MaxSleep: time.Hour}))
				e, err := compat.New(w, c.opts...)
				require.NoError(t, err)
				comm := e.CommWorld()
				me := comm.Rank()
				big := fill(4*e.EagerLimit()+100, 7)
				for _, n := range []int{8, len(big)} { // eager, then rendezvous
					if me == 0 {
						buf := make([]byte, n)
						_, err := compat.Recv(comm, buf, n, compat.Byte, 1, 3)
						require.NoError(t, err)
						require.Equal(t, big[:n], buf)
					} else {
						time.Sleep(20 * time.Millisecond)
						require.NoError(t, compat.Send(comm, big[:n], n, compat.Byte, 0, 3))
					}
				}
				// A nonblocking receive completed while its rank sleeps in Wait.
				if me == 0 {
					buf := make([]byte, 8)
					r, err := compat.Irecv(comm, buf, 8, compat.Byte, 1, 4)
					require.NoError(t, err)
					_, err = r.Wait()
					require.NoError(t, err)
					require.Equal(t, big[:8], buf)
				} else {
					time.Sleep(20 * time.Millisecond)
					require.NoError(t, compat.Send(comm, big[:8], 8, compat.Byte, 0, 4))
				}
				// A collective: rank 0 sleeps in the barrier until rank 1 arrives.
				if me == 1 {
					time.Sleep(20 * time.Millisecond)
				}
				require.NoError(t, comm.Barrier())
				sum := make([]int64, 1)
				require.NoError(t, compat.Allreduce(comm, []int64{int64(me + 1)}, sum, 1, compat.Int64, compat.OpSum))
				require.Equal(t, int64(3), sum[0])
				require.NoError(t, e.Finalize())
			})
		})
	}
}
