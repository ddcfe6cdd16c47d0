package compat_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/internal/petest"
)

// sharedDir returns a directory every member names alike: rank 0 makes it
// and broadcasts its name (process PEs each have their own t.TempDir).
func sharedDir(t *petest.T, c *compat.Comm) (string, func()) {
	name := make([]byte, 512)
	if c.Rank() == 0 {
		d, err := os.MkdirTemp("", "gshmem-file-")
		require.NoError(t, err)
		copy(name, d)
	}
	require.NoError(t, compat.Bcast(c, name, len(name), compat.Byte, 0))
	d := strings.TrimRight(string(name), "\x00")
	return d, func() {
		c.Barrier()
		if c.Rank() == 0 {
			os.RemoveAll(d)
		}
	}
}

func TestFileOpenErrors(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		dir, done := sharedDir(t, c)
		defer done()
		p := filepath.Join(dir, "f")
		_, err := compat.OpenFile(c, p, compat.ModeRdonly, nil)
		require.ErrorIs(t, err, compat.ErrNoSuchFile)
		for _, bad := range []int{compat.ModeRdonly | compat.ModeCreate, compat.ModeRdwr | compat.ModeWronly, compat.ModeCreate, compat.ModeRdwr | compat.ModeSequential} {
			_, err = compat.OpenFile(c, p, bad, nil)
			require.ErrorIs(t, err, compat.ErrAmode, "amode %#x", bad)
		}
		f, err := compat.OpenFile(c, p, compat.ModeCreate|compat.ModeWronly, nil)
		require.NoError(t, err)
		_, err = compat.FileRead(f, make([]byte, 4), 4, compat.Byte)
		require.ErrorIs(t, err, compat.ErrAccess)
		require.NoError(t, f.Close())
		_, err = compat.OpenFile(c, p, compat.ModeCreate|compat.ModeExcl|compat.ModeRdwr, nil)
		require.ErrorIs(t, err, compat.ErrFileExists)
		f, err = compat.OpenFile(c, p, compat.ModeRdonly, nil)
		require.NoError(t, err)
		_, err = compat.FileWriteAt(f, 0, []int32{1}, 1, compat.Int32)
		require.ErrorIs(t, err, compat.ErrReadOnly)
		// A filetype whose tiles overlap reads bytes twice from a
		// read-only file; decreasing displacements are ErrIO anywhere.
		twice := mpitype.ResizedOf(compat.Contiguous(4, compat.Int32), 0, 8)
		require.NoError(t, f.SetView(0, compat.Int32, twice, "native", nil))
		bad := compat.Indexed([]compat.Block{{Count: 1, Disp: 4, Old: compat.Int32}, {Count: 1, Disp: 0, Old: compat.Int32}})
		require.ErrorIs(t, f.SetView(0, compat.Int32, bad, "native", nil), compat.ErrIO)
		require.ErrorIs(t, f.SetView(0, compat.Int32, compat.Int32, "xdr", nil), compat.ErrUnsupportedDatarep)
		require.NoError(t, f.Close())
		_, err = compat.FileReadAt(f, 0, make([]byte, 1), 1, compat.Byte)
		require.ErrorIs(t, err, compat.ErrFile)
		c.Barrier()
		if c.Rank() == 0 {
			require.NoError(t, compat.DeleteFile(p))
			require.ErrorIs(t, compat.DeleteFile(p), compat.ErrNoSuchFile)
		}
	})
}

// TestFileViewsCollective writes a file of n*blocks int32s collectively
// through interleaved vector views, then reads it back with each kind of
// access and another view.
func TestFileViewsCollective(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		const blk, blocks = 3, 50
		me, n := c.Rank(), c.Size()
		dir, done := sharedDir(t, c)
		defer done()
		for _, hint := range []string{"enable", "disable"} {
			p := filepath.Join(dir, "coll-"+hint)
			info := compat.Info{"romio_cb_write": hint, "romio_cb_read": hint, "cb_buffer_size": "64"}
			f, err := compat.OpenFile(c, p, compat.ModeCreate|compat.ModeRdwr, info)
			require.NoError(t, err)
			ft := mpitype.ResizedOf(compat.Contiguous(blk, compat.Int32), 0, blk*4*n)
			require.NoError(t, f.SetView(int64(me*blk*4), compat.Int32, ft, "native", nil))
			data := make([]int32, blk*blocks)
			for i := range data {
				b, k := i/blk, i%blk
				data[i] = int32((b*n+me)*blk + k)
			}
			st, err := compat.FileWriteAll(f, data, len(data), compat.Int32)
			require.NoError(t, err)
			require.Equal(t, 4*len(data), st.Bytes())
			pos, err := f.Position()
			require.NoError(t, err)
			require.Equal(t, int64(len(data)), pos)
			require.NoError(t, f.Sync())
			// Read back through the same view, collectively and not.
			got := make([]int32, len(data))
			_, err = compat.FileReadAtAll(f, 0, got, len(got), compat.Int32)
			require.NoError(t, err)
			require.Equal(t, data, got)
			clear(got)
			_, err = compat.FileReadAt(f, 0, got, len(got), compat.Int32)
			require.NoError(t, err)
			require.Equal(t, data, got)
			// The whole file, contiguously: element i holds i.
			require.NoError(t, f.SetView(0, compat.Int32, compat.Int32, "native", nil))
			all := make([]int32, blk*blocks*n+5)
			st, err = compat.FileReadAtAll(f, 0, all, len(all), compat.Int32)
			require.NoError(t, err)
			require.Equal(t, 4*blk*blocks*n, st.Bytes(), "a read past the end stops there")
			for i := range blk * blocks * n {
				require.Equal(t, int32(i), all[i], "element %d", i)
			}
			size, err := f.Size()
			require.NoError(t, err)
			require.Equal(t, int64(4*blk*blocks*n), size)
			require.NoError(t, f.Close())
		}
	})
}

func TestFileSharedAndOrdered(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, n := c.Rank(), c.Size()
		dir, done := sharedDir(t, c)
		defer done()
		p := filepath.Join(dir, "shared")
		f, err := compat.OpenFile(c, p, compat.ModeCreate|compat.ModeRdwr|compat.ModeDeleteOnClose, nil)
		require.NoError(t, err)
		require.NoError(t, f.SetView(0, compat.Int64, compat.Int64, "native", nil))
		// Ordered: rank r's 2 elements at 2r.
		_, err = compat.FileWriteOrdered(f, []int64{int64(10 * me), int64(10*me + 1)}, 2, compat.Int64)
		require.NoError(t, err)
		sp, err := f.PositionShared()
		require.NoError(t, err)
		require.Equal(t, int64(2*n), sp)
		require.NoError(t, c.Barrier()) // everyone read it before anyone moves it
		// Shared, independently: each element once, in some order.
		_, err = compat.FileWriteShared(f, []int64{int64(100 + me)}, 1, compat.Int64)
		require.NoError(t, err)
		require.NoError(t, c.Barrier())
		all := make([]int64, 3*n)
		_, err = compat.FileReadAt(f, 0, all, len(all), compat.Int64)
		require.NoError(t, err)
		for r := range n {
			require.Equal(t, []int64{int64(10 * r), int64(10*r + 1)}, all[2*r:2*r+2])
		}
		require.ElementsMatch(t, []int64{100, 101, 102}, all[2*n:])
		require.NoError(t, f.SeekShared(0, compat.SeekSet))
		got := make([]int64, 2)
		_, err = compat.FileReadOrdered(f, got, 2, compat.Int64)
		require.NoError(t, err)
		require.Equal(t, []int64{int64(10 * me), int64(10*me + 1)}, got)
		require.NoError(t, f.Close())
		c.Barrier()
		_, err = os.Stat(p)
		require.True(t, os.IsNotExist(err), "DeleteOnClose")
	})
}

func TestFileAtomicExternal32Nonblocking(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me := c.Rank()
		dir, done := sharedDir(t, c)
		defer done()
		p := filepath.Join(dir, "atomic")
		f, err := compat.OpenFile(c, p, compat.ModeCreate|compat.ModeRdwr, nil)
		require.NoError(t, err)
		require.NoError(t, f.SetAtomicity(true))
		on, err := f.Atomicity()
		require.NoError(t, err)
		require.True(t, on)
		// Overlapping writes of a whole range by both ranks: the file
		// holds one rank's values throughout, never a mix.
		const n = 4096
		mine := make([]int32, n)
		for i := range mine {
			mine[i] = int32(me + 1)
		}
		for range 20 {
			_, err = compat.FileWriteAt(f, 0, mine, n, compat.Int32)
			require.NoError(t, err)
			got := make([]int32, n)
			_, err = compat.FileReadAt(f, 0, got, n, compat.Int32)
			require.NoError(t, err)
			for i := range got {
				require.Equal(t, got[0], got[i], "atomic mode: a mix at %d", i)
			}
		}
		require.NoError(t, c.Barrier())
		// external32 is big-endian in the file.
		require.NoError(t, f.SetView(0, compat.Int32, compat.Int32, "external32", nil))
		if me == 0 {
			_, err = compat.FileWriteAt(f, 0, []int32{0x01020304, -2}, 2, compat.Int32)
			require.NoError(t, err)
		}
		require.NoError(t, f.Sync())
		require.NoError(t, c.Barrier())
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, uint32(0x01020304), binary.BigEndian.Uint32(raw))
		back := make([]int32, 2)
		_, err = compat.FileReadAt(f, 0, back, 2, compat.Int32)
		require.NoError(t, err)
		require.Equal(t, []int32{0x01020304, -2}, back)
		// Nonblocking and split collective forms.
		require.NoError(t, f.SetView(0, compat.Int32, compat.Int32, "native", nil))
		r, err := compat.FileStart(f, compat.FileOp{Pos: compat.AtOffset, Write: true}, int64(100+me), []int32{int32(7 + me)}, 1, compat.Int32)
		require.NoError(t, err)
		_, err = r.Wait()
		require.NoError(t, err)
		require.NoError(t, compat.FileBegin(f, compat.FileOp{Pos: compat.AtOffset, Collective: true}, 100, back, 2, compat.Int32))
		require.Error(t, compat.FileBegin(f, compat.FileOp{Pos: compat.AtOffset, Collective: true}, 100, back, 2, compat.Int32))
		st, err := compat.FileEnd(f, compat.FileOp{Pos: compat.AtOffset, Collective: true})
		require.NoError(t, err)
		require.Equal(t, 8, st.Bytes())
		require.Equal(t, []int32{7, 8}, back)
		_, err = compat.FileEnd(f, compat.FileOp{Pos: compat.AtOffset, Collective: true})
		require.Error(t, err)
		require.NoError(t, f.Close())
	})
}

// TestFileOverlappingTypes writes from a memory type that names one int
// three times (MPI lets a buffer that is only read overlap itself) and
// reads through a filetype with overlapping entries on a read-only file.
func TestFileOverlappingTypes(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		dir, done := sharedDir(t, c)
		defer done()
		p := filepath.Join(dir, "f")
		f, err := compat.OpenFile(c, p, compat.ModeRdwr|compat.ModeCreate, nil)
		require.NoError(t, err)
		thrice := compat.HVector(3, 1, 0, compat.Int32)
		ftype := compat.Indexed([]compat.Block{{Count: 3, Disp: 0, Old: compat.Int32}, {Count: 1, Disp: 4, Old: compat.Int32}})
		require.ErrorIs(t, f.SetView(0, compat.Int32, ftype, "native", nil), compat.ErrIO)
		if c.Rank() == 0 {
			_, err = compat.FileWriteAt(f, 0, []int32{10, 11, 12, 13, 14, 15, 16, 17}, 8, compat.Int32)
			require.NoError(t, err)
			_, err = compat.FileWriteAt(f, 32, []int32{7}, 1, thrice)
			require.NoError(t, err)
		}
		require.NoError(t, f.Close())
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Len(t, raw, 44)
		for i := 0; i < 3; i++ {
			require.EqualValues(t, 7, binary.LittleEndian.Uint32(raw[32+4*i:]))
		}
		f, err = compat.OpenFile(c, p, compat.ModeRdonly, nil)
		require.NoError(t, err)
		require.NoError(t, f.SetView(0, compat.Int32, ftype, "native", nil))
		want := []int32{10, 11, 12, 11, 13, 14, 15, 14}
		got := make([]int32, 8)
		st, err := compat.FileReadAt(f, 0, got, 8, compat.Int32)
		require.NoError(t, err)
		require.Equal(t, 32, st.Bytes())
		require.Equal(t, want, got)
		all := make([]int32, 8)
		_, err = compat.FileReadAtAll(f, 0, all, 8, compat.Int32)
		require.NoError(t, err)
		require.Equal(t, want, all)
		require.NoError(t, f.Close())
	})
}
