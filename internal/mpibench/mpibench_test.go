package mpibench_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

func TestParseSyncMode(t *testing.T) {
	for _, m := range mpibench.SyncModes {
		got, err := mpibench.ParseSyncMode(string(m))
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := mpibench.ParseSyncMode("flushed")
	assert.ErrorIs(t, err, compat.ErrArg)
}

// The point-to-point patterns move the bytes they claim to, from Go memory
// and from AllocMem (which Close must hand back).
func TestBench(t *testing.T) {
	petest.Run(t, 3, func(t *petest.T, w *shmem.World) {
		for _, allocMem := range []bool{false, true} {
			b, err := mpibench.NewBench(w, 256, allocMem)
			require.NoError(t, err)
			buf := b.Buffer()
			require.Len(t, buf, 256)
			want := bytes.Repeat([]byte{0x5a}, 200)
			if b.Comm.Rank() == 0 {
				copy(buf, want)
			}
			require.NoError(t, b.PingPong(200))
			if b.Comm.Rank() <= 1 {
				assert.Equal(t, want, buf[:200], "allocMem %v", allocMem)
			}
			require.NoError(t, b.Window(64, 4))
			require.NoError(t, b.Allreduce(16))
			require.NoError(t, b.Close())
		}
	})
}

// Every sync mode on every flavor delivers the origin's puts to the
// target by the time Loop returns (the barrier it ends with orders them
// before the target's look).
func TestWindowLoop(t *testing.T) {
	petest.Run(t, 2, func(t *petest.T, w *shmem.World) {
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorShared, windows.FlavorCreate, windows.FlavorDynamic} {
			for i, m := range mpibench.SyncModes {
				bw, err := mpibench.NewWindow(w, f, 64)
				require.NoError(t, err, "%v", f)
				require.Len(t, bw.Buf, 64)
				src := []byte{byte(i + 1)}
				d, err := bw.Loop(m, 0, 1, 3, 2, func(epoch, k int) error {
					return windows.Put(bw.Win, src, 1, bw.Disp(1)+epoch*2+k)
				})
				require.NoError(t, err, "%v %s", f, m)
				if w.MyPE() == 0 {
					assert.Positive(t, d)
				} else {
					assert.Zero(t, d)
					// Go memory (create, dynamic) is the private copy of a
					// separate-model window: reconcile before reading it.
					require.NoError(t, bw.Win.Sync())
					assert.Equal(t, bytes.Repeat(src, 6), bw.Buf[:6], "%v %s", f, m)
				}
				require.NoError(t, w.BarrierAll())
				require.NoError(t, bw.Free())
			}
		}
		env, err := compat.New(w)
		require.NoError(t, err)
		win, err := windows.Allocate(env.CommWorld(), 8, 1, nil)
		require.NoError(t, err)
		_, err = mpibench.NewPattern(win, mpibench.SyncFlush, 0, 2)
		assert.ErrorIs(t, err, compat.ErrRank)
		_, err = mpibench.NewPattern(win, "x", 0, 1)
		assert.ErrorIs(t, err, compat.ErrArg)
		require.NoError(t, win.Free())
		require.NoError(t, env.Finalize())
	})
}
