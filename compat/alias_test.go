package compat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

func TestAliasedBuffers(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		buf := make([]int64, 8)
		for i := range buf {
			buf[i] = int64(c.Rank() + 1)
		}
		bad := []error{
			compat.Allreduce(c, buf, buf, 8, compat.Int64, compat.OpSum),
			compat.Allreduce(c, buf[:4], buf[3:7], 4, compat.Int64, compat.OpSum),
			compat.Reduce(c, buf, buf, 8, compat.Int64, compat.OpSum, c.Rank()),
			compat.Scan(c, buf, buf, 8, compat.Int64, compat.OpSum),
			compat.Allgather(c, buf[:4], 4, compat.Int64, buf, 4, compat.Int64),
			compat.Alltoall(c, buf, 4, compat.Int64, buf[4:], 2, compat.Int64),
			compat.ReduceScatterBlock(c, buf, buf[2:], 4, compat.Int64, compat.OpSum),
		}
		for i, err := range bad {
			assert.ErrorIs(t, err, compat.ErrBuffer, "call %d", i)
		}
		_, err := compat.Sendrecv(c, buf, 4, compat.Int64, 1-c.Rank(), 0, buf[2:], 4, compat.Int64, 1-c.Rank(), 0)
		assert.ErrorIs(t, err, compat.ErrBuffer)
		// Adjacent, not overlapping: fine; InPlace: fine.
		require.NoError(t, compat.Allreduce(c, buf[:4], buf[4:], 4, compat.Int64, compat.OpSum))
		assert.Equal(t, []int64{3, 3, 3, 3}, buf[4:])
		require.NoError(t, compat.Allreduce(c, compat.InPlace[int64](), buf[:4], 4, compat.Int64, compat.OpSum))
		assert.Equal(t, []int64{3, 3, 3, 3}, buf[:4])
	})
}
