package streams_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

func pattern(pe, n, salt int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(pe*1_000_000 + salt*1000 + i)
	}
	return out
}

// Every on-stream operation leaves the same result as its host form, as
// goroutine PEs and as processes.
func TestOnStreamMatchesHost(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const n = 257
		me, r, l := w.MyPE(), right(w), left(w)
		alloc := func() shmem.Sym[int64] {
			x, err := shmem.Calloc[int64](w, n)
			require.NoError(t, err)
			return x
		}
		host, onStream := alloc(), alloc()
		hostSig, streamSig := func() (shmem.Sym[uint64], shmem.Sym[uint64]) {
			a, err := shmem.Calloc[uint64](w, 2)
			require.NoError(t, err)
			b, err := shmem.Calloc[uint64](w, 2)
			require.NoError(t, err)
			return a, b
		}()
		s := newStream(t, w, streams.WithName(fmt.Sprintf("pe%d", me)))
		sync := func() {
			t.Helper()
			require.NoError(t, s.Synchronize())
			require.NoError(t, w.BarrierAll())
		}
		// same compares, then holds every PE until all have compared, so no
		// PE's next step writes into memory still being checked.
		same := func(what string, extra ...func()) {
			t.Helper()
			assert.Equal(t, host.Local(), onStream.Local(), what)
			assert.Equal(t, hostSig.Local(), streamSig.Local(), what+" (signals)")
			for _, f := range extra {
				f()
			}
			require.NoError(t, w.BarrierAll())
		}

		// Put and PutNBI + Quiet, into parts of the object.
		src := pattern(me, n, 1)
		require.NoError(t, shmem.Put(host.Slice(0, 100), src[:100], r))
		require.NoError(t, shmem.PutNBI(host.Slice(100, n), src[100:], r))
		require.NoError(t, w.Quiet())
		streams.PutOnStream(s, onStream.Slice(0, 100), src[:100], r)
		streams.PutNBIOnStream(s, onStream.Slice(100, n), src[100:], r)
		streams.QuietOnStream(s)
		sync()
		same("put", func() { assert.Equal(t, pattern(l, n, 1), onStream.Local()) })

		// P.
		require.NoError(t, shmem.P(host.At(7), int64(-me), r))
		streams.POnStream(s, onStream.At(7), int64(-me), r)
		sync()
		same("p")

		// Get and GetNBI + Quiet, from the right neighbour.
		hostGot, streamGot := make([]int64, n), make([]int64, n)
		require.NoError(t, shmem.Get(hostGot[:10], host.Slice(0, 10), r))
		require.NoError(t, shmem.GetNBI(hostGot[10:], host.Slice(10, n), r))
		require.NoError(t, w.Quiet())
		streams.GetOnStream(s, streamGot[:10], onStream.Slice(0, 10), r)
		streams.GetNBIOnStream(s, streamGot[10:], onStream.Slice(10, n), r)
		streams.QuietOnStream(s)
		sync()
		assert.Equal(t, hostGot, streamGot, "get")
		require.NoError(t, w.BarrierAll())

		// Strided IPut and IGet.
		require.NoError(t, shmem.IPut(host.Slice(0, 100), src, 3, 2, 30, r))
		streams.IPutOnStream(s, onStream.Slice(0, 100), src, 3, 2, 30, r)
		sync()
		same("iput")
		hostGot2, streamGot2 := make([]int64, 40), make([]int64, 40)
		require.NoError(t, shmem.IGet(hostGot2, host, 2, 5, 20, r))
		streams.IGetOnStream(s, streamGot2, onStream, 2, 5, 20, r)
		sync()
		assert.Equal(t, hostGot2, streamGot2, "iget")
		require.NoError(t, w.BarrierAll())

		// PutSignal / PutSignalNBI with both signal operations.
		src2 := pattern(me, n, 2)
		require.NoError(t, shmem.PutSignal(host.Slice(0, 50), src2[:50], hostSig.At(0), 5, shmem.SignalAdd, r))
		require.NoError(t, shmem.PutSignalNBI(host.Slice(50, n), src2[50:], hostSig.At(1), 9, shmem.SignalSet, r))
		require.NoError(t, w.Quiet())
		streams.PutSignalOnStream(s, onStream.Slice(0, 50), src2[:50], streamSig.At(0), 5, shmem.SignalAdd, r)
		streams.PutSignalNBIOnStream(s, onStream.Slice(50, n), src2[50:], streamSig.At(1), 9, shmem.SignalSet, r)
		streams.QuietOnStream(s)
		sync()
		same("put-signal")

		// SignalOp, set then add.
		require.NoError(t, shmem.SignalOpAt(hostSig.At(0), 100, shmem.SignalSet, l))
		require.NoError(t, shmem.SignalOpAt(hostSig.At(0), uint64(me), shmem.SignalAdd, l))
		streams.SignalOpOnStream(s, streamSig.At(0), 100, shmem.SignalSet, l)
		streams.SignalOpOnStream(s, streamSig.At(0), uint64(me), shmem.SignalAdd, l)
		sync()
		same("signal op", func() { assert.Equal(t, uint64(100+r), streamSig.Local()[0]) })

		// Fence between puts to one target keeps them in order.
		require.NoError(t, shmem.Put(host.At(0), []int64{1}, r))
		require.NoError(t, w.Fence())
		require.NoError(t, shmem.Put(host.At(0), []int64{2}, r))
		streams.PutOnStream(s, onStream.At(0), []int64{1}, r)
		streams.FenceOnStream(s)
		streams.PutOnStream(s, onStream.At(0), []int64{2}, r)
		sync()
		same("fence")

		// SignalWaitUntil: the left neighbour sends data with a signal; the
		// operation issued after the wait sees the data.
		data := pattern(me, 16, 3)
		var seen []int64
		streams.SignalWaitUntilOnStream(s, streamSig.At(1), shmem.CmpEQ, 1000)
		s.Enqueue("read", func(context.Context) error {
			seen = append([]int64(nil), onStream.Local()[:16]...)
			return nil
		})
		require.NoError(t, w.BarrierAll())
		require.NoError(t, shmem.PutSignal(onStream.Slice(0, 16), data, streamSig.At(1), 1000, shmem.SignalSet, r))
		require.NoError(t, s.Synchronize())
		assert.Equal(t, pattern(l, 16, 3), seen)
		v, err := shmem.SignalWaitUntil(streamSig.At(1), shmem.CmpEQ, 1000)
		require.NoError(t, err)
		assert.Equal(t, uint64(1000), v)
		require.NoError(t, w.BarrierAll())

		// WaitUntil, WaitUntilAll (with a status mask) and the vector form.
		flags, err := shmem.Calloc[int32](w, 4)
		require.NoError(t, err)
		streams.WaitUntilOnStream(s, flags.At(0), shmem.CmpGE, int32(3))
		streams.WaitUntilAllOnStream(s, flags, []int{0, 0, 1, 0}, shmem.CmpNE, int32(0))
		streams.WaitUntilAllVectorOnStream(s, flags, nil, shmem.CmpGE, []int32{3, 1, 0, 4})
		var after []int32
		s.Enqueue("read-flags", func(context.Context) error {
			after = append([]int32(nil), flags.Local()...)
			return nil
		})
		require.NoError(t, w.BarrierAll())
		for i, v := range []int32{3, 1, 0, 4} {
			require.NoError(t, shmem.P(flags.At(i), v, r))
		}
		require.NoError(t, s.Synchronize())
		assert.Equal(t, []int32{3, 1, 0, 4}, after)
		for i, v := range []int32{3, 1, 0, 4} { // the host forms agree
			require.NoError(t, shmem.WaitUntil(flags.At(i), shmem.CmpEQ, v))
		}

		// BarrierAll and SyncAll on a stream: what every PE put before the
		// barrier is there after it.
		require.NoError(t, w.BarrierAll())
		streams.PutOnStream(s, onStream.At(1), []int64{int64(me + 500)}, r)
		streams.BarrierAllOnStream(s)
		var got1 int64
		s.Enqueue("read", func(context.Context) error { got1 = onStream.Local()[1]; return nil })
		streams.PutOnStream(s, onStream.At(2), []int64{int64(me + 600)}, r)
		streams.QuietOnStream(s)
		streams.SyncAllOnStream(s)
		var got2 int64
		s.Enqueue("read", func(context.Context) error { got2 = onStream.Local()[2]; return nil })
		require.NoError(t, s.Synchronize())
		assert.Equal(t, int64(l+500), got1)
		assert.Equal(t, int64(l+600), got2)
		require.NoError(t, s.Close())
		require.NoError(t, w.BarrierAll())
	})
}

// A symmetric object of another World is refused, as an object of another
// job would be.
func TestForeignObject(t *testing.T) {
	inproc(t, 1, func(t *petest.T, w *shmem.World) {
		err := shmem.Run(1, func(other *shmem.World) error {
			x, err := shmem.Calloc[int64](other, 1)
			if err != nil {
				return err
			}
			s := newStream(t, w)
			streams.PutOnStream(s, x, []int64{1}, 0)
			err = s.Synchronize()
			assert.ErrorIs(t, err, shmem.ErrNotSymmetric)
			_ = s.Close()
			return nil
		}, shmem.WithSymmetricSize(1<<20))
		require.NoError(t, err)
	})
}
