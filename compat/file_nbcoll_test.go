package compat_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/internal/petest"
)

// TestFileNonblockingCollective starts nonblocking collective accesses
// that complete only after the members have exchanged messages the
// others wait for: rank 0 starts its write, then sends synchronously to
// rank 1, which receives before it starts its own (MPI-4.1 makes the
// start local, so this may not deadlock). Two accesses are in flight at
// once, a read past the end of the file, over several aggregators and
// rounds, reports the bytes the file held, and a member blocked in a
// receive that waits on another's completion still serves the access.
func TestFileNonblockingCollective(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		const blk, blocks = 3, 40
		me, n := c.Rank(), c.Size()
		dir, done := sharedDir(t, c)
		defer done()
		for _, info := range []compat.Info{
			{"cb_buffer_size": "64", "cb_nodes": "2", "romio_cb_write": "enable", "romio_cb_read": "enable"},
			{"romio_cb_write": "disable", "romio_cb_read": "disable"},
			nil,
		} {
			p := filepath.Join(dir, "nb")
			f, err := compat.OpenFile(c, p, compat.ModeCreate|compat.ModeRdwr|compat.ModeDeleteOnClose, info)
			require.NoError(t, err)
			ft := mpitype.ResizedOf(compat.Contiguous(blk, compat.Int32), 0, blk*4*n)
			require.NoError(t, f.SetView(int64(me*blk*4), compat.Int32, ft, "native", nil))
			data := make([]int32, blk*blocks)
			for i := range data {
				b, k := i/blk, i%blk
				data[i] = int32((b*n+me)*blk + k)
			}
			half := len(data) / 2
			wr := compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}
			token := []int32{42}
			var r1 *compat.Request
			switch me {
			case 0:
				r1, err = compat.FileStart(f, wr, 0, data[:half], half, compat.Int32)
				require.NoError(t, err)
				require.NoError(t, compat.Ssend(c, token, 1, compat.Int32, 1, 9))
			case 1:
				_, err = compat.Recv(c, token, 1, compat.Int32, 0, 9)
				require.NoError(t, err)
				fallthrough
			default:
				r1, err = compat.FileStart(f, wr, 0, data[:half], half, compat.Int32)
				require.NoError(t, err)
			}
			// The second half through the individual file pointer, moved
			// past the first by a seek: two accesses in flight.
			_, err = f.Seek(int64(half), compat.SeekSet)
			require.NoError(t, err)
			r2, err := compat.FileStart(f, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, data[half:], len(data)-half, compat.Int32)
			require.NoError(t, err)
			pos, err := f.Position()
			require.NoError(t, err)
			require.Equal(t, int64(len(data)), pos, "the pointer moves at the start")
			sts := make([]compat.Status, 2)
			require.NoError(t, compat.Waitall([]*compat.Request{r2, r1}, sts))
			require.Equal(t, 4*(len(data)-half), sts[0].Bytes())
			require.Equal(t, 4*half, sts[1].Bytes())
			// Read the whole file, contiguously, past its end; rank 2
			// completes by testing.
			require.NoError(t, f.SetView(0, compat.Int32, compat.Int32, "native", nil))
			all := make([]int32, blk*blocks*n+7)
			r, err := compat.FileStart(f, compat.FileOp{Pos: compat.AtOffset, Collective: true}, 0, all, len(all), compat.Int32)
			require.NoError(t, err)
			var st compat.Status
			if me == 2 {
				for ok := false; !ok; {
					ok, st, err = r.Test()
					require.NoError(t, err)
				}
			} else {
				_, st, err = compat.Waitany([]*compat.Request{nil, r})
				require.NoError(t, err)
			}
			require.Equal(t, 4*blk*blocks*n, st.Bytes(), "a read past the end stops there")
			for i := range blk * blocks * n {
				require.Equal(t, int32(i), all[i], "element %d", i)
			}
			// Rank 0 blocks in a receive that rank 1 satisfies only once
			// its access has completed: rank 0's blocking wait serves
			// the access meanwhile (it gathers the members' spans).
			r, err = compat.FileStart(f, wr, 0, data[:1], 1, compat.Int32)
			require.NoError(t, err)
			switch me {
			case 0:
				_, err = compat.Recv(c, token, 1, compat.Int32, 1, 10)
				require.NoError(t, err)
				_, err = r.Wait()
				require.NoError(t, err)
			case 1:
				_, err = r.Wait()
				require.NoError(t, err)
				require.NoError(t, compat.Send(c, token, 1, compat.Int32, 0, 10))
			default:
				_, err = r.Wait()
				require.NoError(t, err)
			}
			require.NoError(t, f.Close())
		}
	})
}
