package streams_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// Several streams, thousands of operations each, and events between them:
// every stream runs its operations in issue order, and an operation issued
// after WaitEvent sees everything the other stream did before the Record.
func TestOrderingUnderLoad(t *testing.T) {
	inproc(t, 2, func(t *petest.T, w *shmem.World) {
		const nstreams, nops, every = 4, 3000, 100
		ss := make([]*streams.Stream, nstreams)
		for i := range ss {
			ss[i] = newStream(t, w, streams.WithName(fmt.Sprintf("s%d", i)))
		}
		counters := make([]atomic.Int64, nstreams)
		var bad atomic.Int64
		for k := range nops {
			for i, s := range ss {
				s.Enqueue("count", func(context.Context) error {
					if counters[i].Load() != int64(k) {
						bad.Add(1)
					}
					counters[i].Add(1)
					return nil
				})
				if (k+1)%every == 0 {
					ev := streams.NewEvent()
					ev.Record(s)
					next := ss[(i+1)%nstreams]
					next.WaitEvent(ev)
					want := int64(k + 1)
					next.Enqueue("check", func(context.Context) error {
						if got := counters[i].Load(); got < want {
							return fmt.Errorf("stream %d at %d after its event for %d", i, got, want)
						}
						return nil
					})
				}
			}
		}
		for _, s := range ss {
			require.NoError(t, s.Synchronize())
			assert.True(t, s.Query())
		}
		for i := range counters {
			assert.Equal(t, int64(nops), counters[i].Load())
		}
		assert.Zero(t, bad.Load(), "operations ran out of order")
		for _, s := range ss {
			require.NoError(t, s.Close())
		}
	})
}

// Many goroutines issue onto one stream at once: each goroutine's
// operations stay in its order, and real puts between PEs interleave with
// them.
func TestConcurrentIssuers(t *testing.T) {
	inproc(t, 2, func(t *petest.T, w *shmem.World) {
		const issuers, nops = 8, 500
		buf, err := shmem.Calloc[int64](w, issuers)
		require.NoError(t, err)
		s := newStream(t, w)
		last := make([]int, issuers)
		var wg sync.WaitGroup
		for g := range issuers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range nops {
					s.Enqueue("step", func(context.Context) error {
						if last[g] != k {
							return fmt.Errorf("issuer %d: op %d ran after %d", g, k, last[g])
						}
						last[g] = k + 1
						return nil
					})
					streams.POnStream(s, buf.At(g), int64(k+1), right(w))
				}
			}()
		}
		wg.Wait()
		require.NoError(t, s.Synchronize())
		require.NoError(t, s.Close())
		require.NoError(t, w.BarrierAll())
		for g := range issuers {
			assert.Equal(t, nops, last[g])
			assert.Equal(t, int64(nops), buf.Local()[g])
		}
	})
}

// A failing operation stops the stream: later operations do not run,
// Synchronize names the failing operation (sticky), events behind it
// complete with the error, and a stream waiting for such an event fails too.
func TestErrorPropagation(t *testing.T) {
	inproc(t, 2, func(t *petest.T, w *shmem.World) {
		buf, err := shmem.Calloc[int32](w, 4)
		require.NoError(t, err)
		a := newStream(t, w, streams.WithName("a"))
		b := newStream(t, w, streams.WithName("b"))
		var ran atomic.Int32
		a.Enqueue("first", func(context.Context) error { ran.Add(1); return nil })
		streams.PutOnStream(a, buf, []int32{1, 2}, w.NPEs()+3) // bad PE: operation 2
		a.Enqueue("after", func(context.Context) error { ran.Add(100); return nil })
		ev := streams.NewEvent()
		ev.Record(a)
		b.WaitEvent(ev)
		b.Enqueue("after-wait", func(context.Context) error { ran.Add(1000); return nil })

		err = a.Synchronize()
		require.Error(t, err)
		var oe *streams.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "PutOnStream", oe.Op)
		assert.Equal(t, uint64(2), oe.Seq)
		assert.Equal(t, "a", oe.Stream)
		assert.ErrorIs(t, err, shmem.ErrBadPE)
		assert.Contains(t, err.Error(), "PutOnStream")
		assert.Equal(t, err, a.Synchronize(), "the error is sticky")
		assert.Equal(t, err, a.Err())

		assert.ErrorIs(t, ev.Synchronize(), shmem.ErrBadPE, "the event behind the failure fails")
		assert.True(t, ev.Query())
		errB := b.Synchronize()
		require.ErrorAs(t, errB, &oe)
		assert.Equal(t, "WaitEvent", oe.Op)
		assert.ErrorIs(t, errB, shmem.ErrBadPE)
		assert.Equal(t, int32(1), ran.Load(), "nothing behind a failure runs")

		// Issued after the failure: dropped at once.
		a.Enqueue("later", func(context.Context) error { ran.Add(10000); return nil })
		require.ErrorIs(t, a.Synchronize(), shmem.ErrBadPE)
		assert.ErrorIs(t, a.Close(), shmem.ErrBadPE)
		assert.ErrorIs(t, b.Close(), shmem.ErrBadPE)
		assert.Equal(t, int32(1), ran.Load())

		// A panic in an enqueued function fails the stream the same way.
		c := newStream(t, w, streams.WithName("c"))
		c.Enqueue("boom", func(context.Context) error { panic("kaboom") })
		err = c.Synchronize()
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "boom", oe.Op)
		assert.Contains(t, err.Error(), "kaboom")
		assert.Error(t, c.Close())

		// Errors of every kind of input are named, not panics.
		d := newStream(t, w, streams.WithName("d"))
		streams.WaitUntilOnStream(d, shmem.Sym[int64]{}, shmem.CmpEQ, 1)
		err = d.Synchronize()
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "WaitUntilOnStream", oe.Op)
		assert.ErrorIs(t, err, shmem.ErrNotSymmetric)
		_ = d.Close()
	})
}

// A wait that nothing satisfies is ended by Cancel, and Synchronize names
// the interrupted operation; by SynchronizeContext's deadline without
// harming the stream; and by the end of the World's context.
func TestCancelAndDeadlines(t *testing.T) {
	inproc(t, 2, func(t *petest.T, w *shmem.World) {
		sig, err := shmem.Calloc[uint64](w, 1)
		require.NoError(t, err)
		flag, err := shmem.Calloc[int32](w, 1)
		require.NoError(t, err)

		// Deadline: the stream keeps waiting, then completes once signalled.
		s := newStream(t, w)
		streams.SignalWaitUntilOnStream(s, sig, shmem.CmpGE, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		assert.ErrorIs(t, s.SynchronizeContext(ctx), context.DeadlineExceeded)
		cancel()
		assert.False(t, s.Query())
		require.NoError(t, w.BarrierAll())
		require.NoError(t, shmem.SignalOpAt(sig, 1, shmem.SignalSet, left(w)))
		require.NoError(t, s.Synchronize())
		require.NoError(t, s.Close())
		require.NoError(t, w.BarrierAll())

		// Cancel: a wait on a word nobody writes.
		s = newStream(t, w, streams.WithName("stuck"))
		var after atomic.Bool
		streams.PutOnStream(s, flag, []int32{0}, w.MyPE())
		streams.WaitUntilOnStream(s, flag, shmem.CmpEQ, 42)
		s.Enqueue("after", func(context.Context) error { after.Store(true); return nil })
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		s.Cancel()
		err = s.Synchronize()
		require.ErrorIs(t, err, streams.ErrCanceled)
		var oe *streams.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "WaitUntilOnStream", oe.Op)
		assert.Equal(t, uint64(2), oe.Seq)
		assert.ErrorIs(t, s.Close(), streams.ErrCanceled)
		assert.Less(t, time.Since(start), time.Second)
		assert.False(t, after.Load())

		// Cancel of an idle stream, and use after Close.
		s = newStream(t, w)
		s.Cancel()
		assert.ErrorIs(t, s.Synchronize(), streams.ErrCanceled)
		_ = s.Close()
		s = newStream(t, w)
		require.NoError(t, s.Close())
		streams.QuietOnStream(s)
		assert.ErrorIs(t, s.Synchronize(), streams.ErrClosed)
		require.NoError(t, w.BarrierAll())
	})

	// The World's context: a stream waiting when it ends fails with ErrAborted.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := shmem.RunContext(ctx, 1, func(w *shmem.World) error {
		sig, err := shmem.Calloc[uint64](w, 1)
		if err != nil {
			return err
		}
		s, err := streams.New(w)
		if err != nil {
			return err
		}
		streams.SignalWaitUntilOnStream(s, sig, shmem.CmpEQ, 7)
		time.AfterFunc(20*time.Millisecond, cancel)
		err = s.Synchronize()
		_ = s.Close()
		if !errors.Is(err, shmem.ErrAborted) {
			return fmt.Errorf("want ErrAborted, got %v", err)
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Finalize fails once the context is gone; what matters is the stream's error.
	if err != nil {
		assert.ErrorIs(t, err, shmem.ErrAborted)
		assert.NotContains(t, err.Error(), "want ErrAborted")
	}
}

func TestEvents(t *testing.T) {
	inproc(t, 1, func(t *petest.T, w *shmem.World) {
		a := newStream(t, w)
		b := newStream(t, w)
		never := streams.NewEvent()
		assert.True(t, never.Query(), "an event never recorded is complete")
		require.NoError(t, never.Synchronize())
		b.WaitEvent(never) // does not hold b
		require.NoError(t, b.Synchronize())

		gate := make(chan struct{})
		a.Enqueue("gate", func(ctx context.Context) error {
			select {
			case <-gate:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		start, end := streams.NewEvent(), streams.NewEvent()
		start.Record(a)
		a.Enqueue("work", func(context.Context) error { time.Sleep(2 * time.Millisecond); return nil })
		end.Record(a)
		b.WaitEvent(end)
		var bRan atomic.Bool
		b.Enqueue("b", func(context.Context) error { bRan.Store(true); return nil })
		time.Sleep(5 * time.Millisecond)
		assert.False(t, start.Query())
		assert.False(t, bRan.Load(), "b waits for a's event")
		_, err := streams.Elapsed(start, end)
		assert.ErrorIs(t, err, streams.ErrNotRecorded)
		close(gate)
		require.NoError(t, end.Synchronize())
		assert.True(t, start.Query())
		d, err := streams.Elapsed(start, end)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, d, 2*time.Millisecond)
		require.NoError(t, b.Synchronize())
		assert.True(t, bRan.Load())

		// Re-recording: WaitEvent refers to the Record current at the call.
		ev := streams.NewEvent()
		ev.Record(a)
		require.NoError(t, ev.Synchronize())
		gate2 := make(chan struct{})
		a.Enqueue("gate2", func(context.Context) error { <-gate2; return nil })
		b.WaitEvent(ev) // the first record: complete
		require.NoError(t, b.Synchronize())
		ev.Record(a)
		assert.False(t, ev.Query())
		close(gate2)
		require.NoError(t, ev.Synchronize())
		require.NoError(t, a.Close())
		require.NoError(t, b.Close())
	})
}

func TestNewErrors(t *testing.T) {
	assert.Contains(t, streams.Backends(), "host")
	inproc(t, 1, func(t *petest.T, w *shmem.World) {
		_, err := streams.New(w, streams.WithBackend("nope"))
		assert.ErrorIs(t, err, streams.ErrUnknownBackend)
		s := newStream(t, w, streams.WithName("x"))
		assert.Equal(t, "x", s.Name())
		assert.Equal(t, w, s.World())
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "Close twice")
	})
	_, err := streams.New(nil)
	assert.ErrorIs(t, err, shmem.ErrInvalid)
}
