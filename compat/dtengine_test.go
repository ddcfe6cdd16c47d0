package compat_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// TestMixedStructMessages sends a struct {char; double; int[3]} as one
// type map and receives it as another with the same signature: the
// receiver's fields lie in a different order and at a negative
// displacement from its origin, so its buffer starts at the true lower
// bound.
func TestMixedStructMessages(t *testing.T) {
	send := compat.Struct([]compat.Block{{Disp: 0, Count: 1, Old: compat.Int8}, {Disp: 8, Count: 1, Old: compat.Float64}, {Disp: 16, Count: 3, Old: compat.Int32}})
	require.NoError(t, send.Err())
	assert.Equal(t, compat.BasicMixed, send.Basic())
	assert.Equal(t, 21, send.Size())
	assert.Equal(t, 32, send.Extent(), "padded to the double's alignment")
	// The receiver: the char at -4, the double at 16, the ints at 0.
	recv := compat.Indexed([]compat.Block{{Disp: -4, Count: 1, Old: compat.Int8}, {Disp: 16, Count: 1, Old: compat.Float64}, {Disp: 0, Count: 3, Old: compat.Int32}})
	require.NoError(t, recv.Err())
	assert.Equal(t, -4, recv.LB())
	assert.Equal(t, -4, recv.TrueLB())
	assert.Equal(t, 28, recv.TrueExtent())
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		if c.Rank() == 0 {
			b := make([]byte, 64)
			for i := range 2 {
				r := b[i*32:]
				r[0] = byte('a' + i)
				binary.LittleEndian.PutUint64(r[8:], math.Float64bits(1.5+float64(i)))
				for k := range 3 {
					binary.LittleEndian.PutUint32(r[16+4*k:], uint32(10*i+k))
				}
			}
			require.NoError(t, compat.Send(c, b, 2, send, 1, 5))
			return
		}
		// Two instances 28 bytes apart (the receiver's extent), from the
		// true lower bound (-4): the char is b[0], the ints b[4:16], the
		// double b[20:28].
		b := make([]byte, 56)
		st, err := compat.Recv(c, b, 2, recv, 0, 5)
		require.NoError(t, err)
		assert.Equal(t, 42, st.Bytes())
		for i := range 2 {
			r := b[i*recv.Extent():]
			assert.Equal(t, byte('a'+i), r[0])
			assert.Equal(t, uint32(10*i+2), binary.LittleEndian.Uint32(r[12:]))
			assert.Equal(t, 1.5+float64(i), math.Float64frombits(binary.LittleEndian.Uint64(r[20:])))
		}
	})
}

// TestMixedStructRules: a mixed map takes no reduction, and a typed slice
// of another element type does not fit it.
func TestMixedStructRules(t *testing.T) {
	s := compat.Struct([]compat.Block{{Disp: 0, Count: 1, Old: compat.Int32}, {Disp: 8, Count: 1, Old: compat.Float64}})
	a, b := make([]byte, 16), make([]byte, 16)
	assert.ErrorIs(t, compat.ReduceLocal(a, b, 1, s, compat.OpSum), compat.ErrOp)
	f := make([]float64, 2)
	assert.ErrorIs(t, compat.ReduceLocal(f, f, 1, s, compat.OpSum), compat.ErrType)
	// A resized type's bounds stick inside a struct.
	r := compat.Resized(compat.Int32, -4, 16)
	st := compat.Struct([]compat.Block{{Disp: 0, Count: 1, Old: r}, {Disp: 100, Count: 1, Old: compat.Int8}})
	assert.Equal(t, -4, st.LB())
	assert.Equal(t, 16, st.Extent())
	assert.Equal(t, 101, st.TrueExtent())
}
