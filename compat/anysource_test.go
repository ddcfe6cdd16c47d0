package compat_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// TestAnySourceArraysWithoutLoss: with every member alive, Testall,
// Waitall, Waitany and Testany over receives from AnySource behave as
// before the loss rules (anysource.go): Testall and Testany report false
// and no error until the messages come, then every request completes;
// as goroutine PEs and as processes. (A loss ends a run of goroutine PEs,
// so the pending state itself is TestAnySourcePendingAfterLoss's.)
func TestAnySourceArraysWithoutLoss(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		if c.Rank() != 0 {
			_, err := compat.Recv(c, []int32{0}, 1, compat.Int32, 0, 9)
			require.NoError(t, err)
			require.NoError(t, compat.Send(c, []int32{int32(10 + c.Rank())}, 1, compat.Int32, 0, 7))
			require.NoError(t, compat.Send(c, []int32{int32(20 + c.Rank())}, 1, compat.Int32, 0, 8))
			return
		}
		a, b := []int32{-1}, []int32{-1}
		ra, err := compat.Irecv(c, a, 1, compat.Int32, compat.AnySource, 7)
		require.NoError(t, err)
		rb, err := compat.Irecv(c, b, 1, compat.Int32, compat.AnySource, 8)
		require.NoError(t, err)
		reqs := []*compat.Request{nil, ra, rb}
		sts := make([]compat.Status, 3)
		ok, err := compat.Testall(reqs, sts)
		require.NoError(t, err)
		assert.False(t, ok)
		idx, ok, _, err := compat.Testany(reqs)
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Equal(t, compat.Undefined, idx)
		for _, r := range []int{1, 2} {
			require.NoError(t, compat.Send(c, []int32{1}, 1, compat.Int32, r, 9))
		}
		idx, st, err := compat.Waitany(reqs)
		require.NoError(t, err)
		require.Contains(t, []int{1, 2}, idx)
		assert.Contains(t, []int{1, 2}, st.Source)
		require.NoError(t, compat.Waitall(reqs, sts))
		assert.Equal(t, int32(10+sts[1].Source), a[0])
		assert.Equal(t, int32(20+sts[2].Source), b[0])
		for range 2 { // the other sender's two messages
			r, err := compat.Irecv(c, a, 1, compat.Int32, compat.AnySource, compat.AnyTag)
			require.NoError(t, err)
			require.NoError(t, compat.Waitall([]*compat.Request{r}, nil))
		}
	})
}

const anyLossChild = "GSHMEM_TEST_ANYSOURCE_LOSS"

// TestAnySourcePendingAfterLoss: PE 1 of 3 processes kills itself, and PE
// 0's receives from AnySource stay pending (anysource.go): Waitall and
// Testall (true) return ErrInStatus with each Status.Err
// ErrProcFailedPending, Waitany and Testany its index with it, all
// errors.Is-testable, the requests still in flight; probes from AnySource
// fail with ErrProcFailed; AckFailed(0) counts none, AckFailed(5) the one
// loss, and then the same requests complete with PE 2's messages and a
// probe from AnySource waits for its third. Both
// survivors shrink and finish an Allreduce.
func TestAnySourcePendingAfterLoss(t *testing.T) {
	if os.Getenv(anyLossChild) != "" {
		anyLossPE(t)
		return
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, err := launcher.Run(ctx, launcher.Config{
		N:    3,
		Argv: []string{exe, "-test.run=^TestAnySourcePendingAfterLoss$", "-test.count=1", "-test.v"},
		Env: append(os.Environ(), anyLossChild+"=1",
			"GSHMEM_SYMMETRIC_SIZE="+strconv.Itoa(32<<20)),
		KeepGoing: true, TagOutput: true, Stdout: &out, Stderr: &out,
	})
	t.Logf("launcher: exit %d, %v", code, err)
	for _, r := range []int{0, 2} {
		assert.Contains(t, out.String(), fmt.Sprintf("anysource pending ok %d\n", r), "PE %d; output:\n%s", r, out.String())
	}
	assert.NotEqual(t, 0, code, "the job's status is the victim's")
}

// anyLossPE is one process of TestAnySourcePendingAfterLoss.
func anyLossPE(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, err := shmem.Init(ctx)
	require.NoError(t, err)
	e, err := compat.New(w)
	require.NoError(t, err)
	c := e.CommWorld()
	require.NoError(t, c.Barrier())
	switch c.Rank() {
	case 1:
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case 2:
		deadline := time.Now().Add(30 * time.Second)
		for {
			g, err := c.GetFailed()
			require.NoError(t, err)
			if g.Size() == 1 {
				break
			}
			require.True(t, time.Now().Before(deadline), "PE 1's loss was never reported")
			time.Sleep(10 * time.Millisecond)
		}
		require.NoError(t, c.FailureAck())
		_, err := compat.Recv(c, []int32{0}, 1, compat.Int32, 0, 9)
		require.NoError(t, err)
		require.NoError(t, compat.Send(c, []int32{42}, 1, compat.Int32, 0, 7))
		require.NoError(t, compat.Send(c, []int32{43}, 1, compat.Int32, 0, 8))
		require.NoError(t, compat.Send(c, []int32{44}, 1, compat.Int32, 0, 10))
	case 0:
		anyLossRoot(t, c)
	}
	s, err := c.Shrink()
	require.NoError(t, err)
	out := []int64{0}
	require.NoError(t, compat.Allreduce(s, []int64{int64(c.Rank())}, out, 1, compat.Int64, compat.OpSum))
	assert.Equal(t, int64(2), out[0])
	require.NoError(t, s.Free())
	require.NoError(t, e.Finalize())
	_ = w.Finalize()
	require.False(t, t.Failed())
	fmt.Printf("anysource pending ok %d\n", c.Rank())
}

// anyLossRoot is PE 0's part: the pending receives and probes.
func anyLossRoot(t *testing.T, c *compat.Comm) {
	a, b := []int32{-1}, []int32{-1}
	ra, err := compat.Irecv(c, a, 1, compat.Int32, compat.AnySource, 7)
	require.NoError(t, err)
	rb, err := compat.Irecv(c, b, 1, compat.Int32, compat.AnySource, 8)
	require.NoError(t, err)
	reqs := []*compat.Request{nil, ra, rb}
	sts := make([]compat.Status, 3)
	err = compat.Waitall(reqs, sts) // ends once PE 1 is found lost
	require.ErrorIs(t, err, compat.ErrInStatus)
	assert.ErrorIs(t, err, compat.ErrProcFailedPending)
	for i := 1; i < 3; i++ {
		assert.ErrorIs(t, sts[i].Err, compat.ErrProcFailedPending, "request %d", i)
		assert.Contains(t, fmt.Sprint(sts[i].Err), "world rank 1 ")
	}
	assert.False(t, ra.Done())
	assert.False(t, rb.Done())

	ok, err := compat.Testall(reqs, sts)
	assert.True(t, ok, "a pending request is settled, as in Waitall")
	assert.ErrorIs(t, err, compat.ErrInStatus)
	assert.ErrorIs(t, sts[2].Err, compat.ErrProcFailedPending)
	idx, _, err := compat.Waitany(reqs)
	assert.Equal(t, 1, idx)
	assert.ErrorIs(t, err, compat.ErrProcFailedPending)
	idx, ok, _, err = compat.Testany(reqs)
	assert.Equal(t, 1, idx)
	assert.False(t, ok)
	assert.ErrorIs(t, err, compat.ErrProcFailedPending)
	_, err = ra.Wait()
	assert.ErrorIs(t, err, compat.ErrProcFailedPending)

	_, _, err = c.Iprobe(compat.AnySource, 12)
	assert.ErrorIs(t, err, compat.ErrProcFailed)
	_, err = c.Probe(compat.AnySource, 12)
	assert.ErrorIs(t, err, compat.ErrProcFailed)
	_, _, _, err = c.Improbe(compat.AnySource, 12)
	assert.ErrorIs(t, err, compat.ErrProcFailed)
	_, _, err = c.Mprobe(compat.AnySource, 12)
	assert.ErrorIs(t, err, compat.ErrProcFailed)
	_, err = c.Probe(1, 12)
	assert.ErrorIs(t, err, compat.ErrProcFailed)

	n, err := c.AckFailed(0)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	_, err = c.AckFailed(-1)
	assert.ErrorIs(t, err, compat.ErrArg)
	n, err = c.AckFailed(5)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	g, err := c.FailureGetAcked()
	require.NoError(t, err)
	assert.Equal(t, 1, g.Size())

	require.NoError(t, compat.Send(c, []int32{1}, 1, compat.Int32, 2, 9))
	require.NoError(t, compat.Waitall(reqs, sts))
	assert.Equal(t, []int32{42}, a)
	assert.Equal(t, []int32{43}, b)
	assert.Equal(t, 2, sts[1].Source)
	assert.True(t, ra.Done() && rb.Done())
	st, err := c.Probe(compat.AnySource, 10) // acknowledged: it waits
	require.NoError(t, err)
	assert.Equal(t, 2, st.Source)
	_, err = compat.Recv(c, a, 1, compat.Int32, compat.AnySource, 10)
	require.NoError(t, err)
	assert.Equal(t, []int32{44}, a)
}
