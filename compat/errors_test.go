package compat_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// TestErrorClasses provokes every error class compat reports and checks
// that it comes back as that class, never as a panic, and leaves the
// communicator usable.
func TestErrorClasses(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, HeapSize: 16 << 20, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		e, err := compat.New(w, compat.WithPoolSize(1<<20))
		require.NoError(t, err)
		c := e.CommWorld()
		buf := make([]float64, 4)
		rbuf := make([]float64, 4) // apart from buf: aliased buffers are ErrBuffer
		is := func(want *compat.Error, err error, what string) {
			t.Helper()
			require.Error(t, err, what)
			assert.ErrorIs(t, err, want, what)
			assert.Equal(t, want.Class, compat.ClassOf(err), what)
			assert.Contains(t, err.Error(), want.Class.String(), what)
		}

		is(compat.ErrBuffer, compat.Send(c, buf, 5, compat.Float64, 1, 0), "short send buffer")
		_, err = compat.Recv(c, buf, 1, compat.Vector(3, 1, 2, compat.Float64), 1, 0)
		is(compat.ErrBuffer, err, "vector past the end")
		is(compat.ErrBuffer, compat.Reduce(c, compat.InPlace[float64](), buf, 1, compat.Float64, compat.OpSum, 1-c.Rank()), "InPlace off the root")

		is(compat.ErrCount, compat.Send(c, buf, -1, compat.Float64, 1, 0), "negative count")
		if c.Rank() == 0 { // counts matter at the root only: the others would send
			is(compat.ErrCount, compat.Gatherv(c, buf, 1, compat.Float64, rbuf, []int{1}, []int{0, 1}, compat.Float64, 0), "counts of the wrong length")
		}
		is(compat.ErrCount, compat.Alltoallv(c, buf, []int{1, -1}, []int{0, 1}, compat.Float64, rbuf, []int{1, 1}, []int{0, 1}, compat.Float64), "negative v count")

		is(compat.ErrType, compat.Send(c, buf, 1, compat.Int32, 1, 0), "datatype of another element type")
		is(compat.ErrType, compat.Send(c, buf, 1, compat.Datatype{}, 1, 0), "zero datatype")
		// An overlapping datatype may describe a send buffer (MPI only
		// reads it), never a receive buffer.
		_, err = compat.Recv(c, buf, 1, compat.Vector(2, 3, 1, compat.Float64), 1, 0)
		is(compat.ErrType, err, "overlapping vector receive")
		dt := compat.Contiguous(2, compat.Float64)
		require.NoError(t, dt.Free())
		is(compat.ErrType, compat.Send(c, buf, 1, dt, 1, 0), "freed datatype")
		is(compat.ErrType, compat.Float64.Free(), "freeing a predefined datatype")

		is(compat.ErrTag, compat.Send(c, buf, 1, compat.Float64, 1, -3), "negative tag")
		is(compat.ErrTag, compat.Send(c, buf, 1, compat.Float64, 1, compat.AnyTag), "AnyTag on a send")
		is(compat.ErrTag, compat.Send(c, buf, 1, compat.Float64, 1, compat.TagUB+1), "tag above TagUB")
		_, err = compat.Irecv(c, buf, 1, compat.Float64, 0, -5)
		is(compat.ErrTag, err, "bad receive tag")

		is(compat.ErrComm, compat.Send((*compat.Comm)(nil), buf, 1, compat.Float64, 1, 0), "nil communicator")
		is(compat.ErrComm, c.Free(), "freeing CommWorld")
		d, err := c.Dup()
		require.NoError(t, err)
		require.NoError(t, d.Free())
		is(compat.ErrComm, d.Barrier(), "freed communicator")

		is(compat.ErrRank, compat.Send(c, buf, 1, compat.Float64, 2, 0), "rank past the end")
		is(compat.ErrRank, compat.Send(c, buf, 1, compat.Float64, compat.AnySource, 0), "AnySource on a send")
		_, err = c.Probe(-7, 0)
		is(compat.ErrRank, err, "probe of a bad rank")
		g, err := c.Group()
		require.NoError(t, err)
		_, err = g.Incl([]int{0, 0})
		is(compat.ErrRank, err, "a rank twice in Incl")
		_, err = compat.TranslateRanks(g, []int{5}, g)
		is(compat.ErrRank, err, "TranslateRanks of a bad rank")

		_, err = (*compat.Request)(nil).Wait()
		is(compat.ErrRequest, err, "Wait on nil")
		_, _, err = (*compat.Request)(nil).Test()
		is(compat.ErrRequest, err, "Test on nil")

		is(compat.ErrRoot, compat.Bcast(c, buf, 1, compat.Float64, 2), "root past the end")
		is(compat.ErrRoot, compat.Gather(c, buf, 1, compat.Float64, buf, 1, compat.Float64, -1), "negative root")

		_, err = c.Create(nil)
		is(compat.ErrGroup, err, "Create with a nil group")
		_, err = compat.TranslateRanks(nil, []int{0}, g)
		is(compat.ErrGroup, err, "TranslateRanks of a nil group")
		self, err := e.CommSelf().Group()
		require.NoError(t, err)
		_, err = e.CommSelf().Create(g)
		is(compat.ErrGroup, err, "Create with members outside the communicator")
		_ = self

		is(compat.ErrOp, compat.Allreduce(c, []complex128{1}, make([]complex128, 1), 1, compat.Complex128, compat.OpMax), "MAX on complex")
		is(compat.ErrOp, compat.Allreduce(c, buf, make([]float64, 4), 1, compat.Float64, compat.OpBand), "BAND on float")
		is(compat.ErrOp, compat.Allreduce(c, buf, make([]float64, 4), 1, compat.Float64, compat.OpReplace), "REPLACE in a reduction")
		is(compat.ErrOp, compat.ReduceLocal(buf, buf, 1, compat.Float64, compat.OpNull), "OP_NULL")
		is(compat.ErrOp, compat.Allreduce(c, buf, make([]float64, 4), 1, compat.Float64, compat.OpMaxloc), "MAXLOC on a plain type")

		_, err = compat.New(nil)
		is(compat.ErrArg, err, "New(nil)")
		_, err = c.Split(-5, 0)
		is(compat.ErrArg, err, "negative color")
		is(compat.ErrArg, compat.FreeMem(e, buf), "FreeMem of Go memory")
		is(compat.ErrArg, compat.Waitall(make([]*compat.Request, 2), make([]compat.Status, 1)), "statuses of the wrong length")

		_, err = e.AllocMem(2 << 20)
		is(compat.ErrNoMem, err, "AllocMem beyond the pool")
		_, err = compat.AllocMemOf[float64](e, 1<<61)
		is(compat.ErrNoMem, err, "AllocMem of an absurd count")
		_, err = e.AllocMem(-1)
		is(compat.ErrArg, err, "AllocMem of a negative count")
		z, err := e.AllocMem(0)
		require.NoError(t, err)
		require.NoError(t, compat.FreeMem(e, z))
		m, err := compat.AllocMemOf[int32](e, 1000)
		require.NoError(t, err)
		require.NoError(t, compat.FreeMem(e, m))
		is(compat.ErrArg, compat.FreeMem(e, m), "FreeMem twice")

		// Truncation and a failed request in Waitall.
		if c.Rank() == 0 {
			require.NoError(t, compat.Send(c, []float64{1, 2, 3}, 3, compat.Float64, 1, 11))
			require.NoError(t, compat.Send(c, []float64{4}, 1, compat.Float64, 1, 12))
		} else {
			small := make([]float64, 2)
			r1, err := compat.Irecv(c, small, 2, compat.Float64, 0, 11)
			require.NoError(t, err)
			r2, err := compat.Irecv(c, make([]float64, 1), 1, compat.Float64, 0, 12)
			require.NoError(t, err)
			sts := make([]compat.Status, 3)
			err = compat.Waitall([]*compat.Request{r1, nil, r2}, sts)
			is(compat.ErrInStatus, err, "Waitall with a truncated receive")
			assert.ErrorIs(t, err, compat.ErrTruncate)
			assert.ErrorIs(t, sts[0].Err, compat.ErrTruncate)
			assert.NoError(t, sts[2].Err)
			assert.Equal(t, compat.ProcNull, sts[1].Source)
			assert.Equal(t, []float64{1, 2}, small)
		}

		// Still usable after all of that.
		out := make([]float64, 1)
		require.NoError(t, compat.Allreduce(c, []float64{1}, out, 1, compat.Float64, compat.OpSum))
		require.Equal(t, 2.0, out[0])

		require.NoError(t, e.Finalize())
		is(compat.ErrOther, e.Finalize(), "Finalize twice")
		is(compat.ErrComm, c.Barrier(), "after Finalize")
		_, err = e.AllocMem(8)
		is(compat.ErrOther, err, "AllocMem after Finalize")
	})
}

// TestConfigErrors: invalid options and a heap too small for the mailboxes.
func TestConfigErrors(t *testing.T) {
	err := shmem.Run(1, func(w *shmem.World) error {
		_, err := compat.New(w, compat.WithRingSize(100))
		assert.ErrorIs(t, err, compat.ErrArg)
		_, err = compat.New(w, compat.WithEagerLimit(1<<30))
		assert.ErrorIs(t, err, compat.ErrArg)
		_, err = compat.New(w, compat.WithStaging(1000, 5000))
		assert.ErrorIs(t, err, compat.ErrArg)
		_, err = compat.New(w, compat.WithPoolSize(1<<30))
		assert.ErrorIs(t, err, compat.ErrNoMem)
		return nil
	}, shmem.WithSymmetricSize(8<<20))
	require.NoError(t, err)
}

// TestAbortWhileWaiting: a rank blocked in Recv when the job stops gets
// ErrOther wrapping shmem.ErrAborted, not a hang.
func TestAbortWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make([]error, 2)
	_ = shmem.RunContext(ctx, 2, func(w *shmem.World) error {
		e, err := compat.New(w)
		if err != nil {
			return err
		}
		if w.MyPE() == 1 {
			time.Sleep(100 * time.Millisecond)
			cancel()
			return nil
		}
		_, errs[0] = compat.Recv(e.CommWorld(), make([]byte, 1), 1, compat.Byte, 1, 0)
		return nil
	}, shmem.WithSymmetricSize(8<<20))
	require.Error(t, errs[0])
	assert.ErrorIs(t, errs[0], compat.ErrOther)
	assert.True(t, errors.Is(errs[0], shmem.ErrAborted), "%v", errs[0])
	assert.Equal(t, "MPI_ERR_TRUNCATE", compat.ClassTruncate.String())
	assert.Equal(t, compat.ClassSuccess, compat.ClassOf(nil))
	assert.Equal(t, compat.ClassOther, compat.ClassOf(errors.New("x")))
}
