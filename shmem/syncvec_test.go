package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func TestSixteenBitSyncAndTestVectors(t *testing.T) {
	petest.RunConfig(t, allModes(3), func(t *petest.T, w *shmem.World) {
		h, err := shmem.Calloc[int16](w, 4)
		require.NoError(t, err)
		u, err := shmem.Calloc[uint16](w, 1)
		require.NoError(t, err)
		ok, err := shmem.TestAllVector(h, nil, shmem.CmpEQ, []int16{0, 0, 0, 0})
		require.NoError(t, err)
		assert.True(t, ok)
		require.NoError(t, w.BarrierAll())
		// The left neighbour sets elements 1 and 3 and the uint16 flag.
		require.NoError(t, shmem.P(h.At(1), -7, right(w)))
		require.NoError(t, shmem.P(h.At(3), 300, right(w)))
		require.NoError(t, w.Fence())
		require.NoError(t, shmem.P(u, 0xfffe, right(w)))
		require.NoError(t, w.Quiet())
		require.NoError(t, shmem.WaitUntil(u, shmem.CmpEQ, 0xfffe))
		require.NoError(t, shmem.WaitUntilAllVector(h, []int{1, 0, 1, 0}, shmem.CmpEQ, []int16{0, -7, 0, 300}))
		ok, err = shmem.TestAllVector(h, nil, shmem.CmpEQ, []int16{0, -7, 0, 300})
		require.NoError(t, err)
		assert.True(t, ok)
		idx, err := shmem.TestAnyVector(h, []int{0, 1, 0, 0}, shmem.CmpLT, []int16{-1, 0, -1, 301})
		require.NoError(t, err)
		assert.Equal(t, 3, idx, "element 1 is excluded, 0 and 2 are not < -1")
		some, err := shmem.TestSomeVector(h, nil, shmem.CmpNE, []int16{1, -7, 0, 0})
		require.NoError(t, err)
		assert.Equal(t, []int{0, 3}, some)
		none, err := shmem.TestAnyVector(h, nil, shmem.CmpGT, []int16{1, 1, 1, 1000})
		require.NoError(t, err)
		assert.Equal(t, -1, none)
		_, err = shmem.TestAllVector(h, nil, shmem.CmpEQ, []int16{1, 2})
		assert.ErrorIs(t, err, shmem.ErrInvalid, "two values for four words")
		_, err = shmem.TestSomeVector(h, []int{0}, shmem.CmpEQ, []int16{1})
		assert.ErrorIs(t, err, shmem.ErrInvalid)
		got, err := shmem.WaitUntilAny(h, nil, shmem.CmpEQ, -7)
		require.NoError(t, err)
		assert.Equal(t, 1, got)
		// The vector waits: one value per element, status excluding some.
		got, err = shmem.WaitUntilAnyVector(h, []int{0, 1, 0, 0}, shmem.CmpEQ, []int16{1, -7, 1, 300})
		require.NoError(t, err)
		assert.Equal(t, 3, got, "element 1 matches but is excluded")
		got, err = shmem.WaitUntilAnyVector(h, []int{1, 1, 1, 1}, shmem.CmpEQ, []int16{0, 0, 0, 0})
		require.NoError(t, err)
		assert.Equal(t, -1, got, "every element excluded: at once")
		some, err = shmem.WaitUntilSomeVector(h, nil, shmem.CmpGE, []int16{0, 0, 1, 300})
		require.NoError(t, err)
		assert.Equal(t, []int{0, 3}, some)
		some, err = shmem.WaitUntilSomeVector(h, []int{1, 1, 1, 1}, shmem.CmpEQ, []int16{0, 0, 0, 0})
		require.NoError(t, err)
		assert.Empty(t, some)
		_, err = shmem.WaitUntilSomeVector(h, nil, shmem.CmpEQ, []int16{1, 2})
		assert.ErrorIs(t, err, shmem.ErrInvalid, "two values for four words")
		require.NoError(t, w.BarrierAll())
	})
}
