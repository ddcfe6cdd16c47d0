package shmem_test

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func TestChooseWaitPolicy(t *testing.T) {
	for _, c := range []struct {
		name          string
		nodePEs, cpus int
		process       bool
		spin          int
		want          shmem.WaitPolicy
	}{
		{"process PE with its CPU", 2, 2, true, 0, shmem.WaitPolicy{Spin: 1 << 16, YieldEvery: 4096, Yields: 256, MaxSleep: 50 * time.Millisecond}},
		{"goroutine PEs with their CPUs", 4, 8, false, 0, shmem.WaitPolicy{Spin: 4096, YieldEvery: 4096, Yields: 256, MaxSleep: 50 * time.Millisecond}},
		{"crowded processes", 8, 2, true, 0, shmem.WaitPolicy{Spin: 4, YieldEvery: 16, Yields: 0, OSYields: 100, MaxSleep: 50 * time.Millisecond}},
		{"crowded goroutines", 8, 2, false, 0, shmem.WaitPolicy{Spin: 64, YieldEvery: 16, Yields: 0, MaxSleep: 50 * time.Millisecond}},
		{"GSHMEM_SPIN on a process", 2, 2, true, 100, shmem.WaitPolicy{Spin: 100, YieldEvery: 4096, Yields: 256, MaxSleep: 50 * time.Millisecond}},
		{"GSHMEM_SPIN when crowded", 8, 2, true, 5000, shmem.WaitPolicy{Spin: 5000, YieldEvery: 16, Yields: 0, OSYields: 100, MaxSleep: 50 * time.Millisecond}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, shmem.ChooseWaitPolicy(c.nodePEs, c.cpus, c.process, c.spin))
		})
	}
}

// SpinTime is what the policy's spin polls take: about 300 us for a
// process PE with a CPU of its own, next to nothing on a crowded node, so
// that a poller outside the wait loop (ucx's, in C) burns no CPU there.
func TestWaitPolicySpinTime(t *testing.T) {
	own := shmem.ChooseWaitPolicy(1, 2, true, 0).SpinTime()
	require.InDelta(t, 288e3, float64(own.Nanoseconds()), 1e3)
	require.Equal(t, 18*time.Microsecond, shmem.ChooseWaitPolicy(2, 8, false, 0).SpinTime())
	require.Less(t, shmem.ChooseWaitPolicy(8, 2, true, 0).SpinTime(), time.Microsecond)
	require.Zero(t, shmem.WaitPolicy{}.SpinTime())
}

// The World's policy follows GSHMEM_SPIN (Options.Spin), and bad policies
// are refused.
func TestWorldWaitPolicy(t *testing.T) {
	require.NoError(t, shmem.Run(2, func(w *shmem.World) error {
		p := w.WaitPolicy()
		require.Equal(t, 77, p.Spin)
		require.ErrorIs(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: 1, YieldEvery: 3, MaxSleep: time.Second}), shmem.ErrInvalid)
		require.ErrorIs(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: -1, MaxSleep: time.Second}), shmem.ErrInvalid)
		require.ErrorIs(t, w.SetWaitPolicy(shmem.WaitPolicy{}), shmem.ErrInvalid)
		require.NoError(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: 3, MaxSleep: time.Second}))
		require.Equal(t, shmem.WaitPolicy{Spin: 3, YieldEvery: 1, MaxSleep: time.Second}, w.WaitPolicy())
		require.ErrorIs(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: 3, MaxSleep: time.Second, MaxSpin: -1}), shmem.ErrInvalid)
		grow := shmem.WaitPolicy{Spin: 3, YieldEvery: 1, MaxSleep: time.Second, MaxSpin: 1 << 20}
		require.NoError(t, w.SetWaitPolicy(grow))
		require.Equal(t, grow, w.WaitPolicy())
		return nil
	}, shmem.WithSpin(77)))
}

// sleepOnly makes every wait of w sleep at once and never time out: a wait
// then ends only when a write path rings the doorbell it sleeps on (or the
// test's deadline fails the run).
func sleepOnly(t *petest.T, w *shmem.World) {
	require.NoError(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: 0, YieldEvery: 1, MaxSleep: time.Hour}))
}

var wakeCfg = petest.Config{N: 2, Timeout: 30 * time.Second}

// A PE asleep in a wait (past its spin) is woken by every write path of
// the core into its heap: a put, a put with signal, an atomic, and a
// layer's store through Mapped (or its plain copy and Wake) when the heap
// is mapped. The writer pauses first so that the waiter is asleep.
func TestSleepingWaiterWokenByEveryWritePath(t *testing.T) {
	petest.RunConfig(t, wakeCfg, func(t *petest.T, w *shmem.World) {
		sleepOnly(t, w)
		me := w.MyPE()
		words, err := shmem.Calloc[uint64](w, 8)
		require.NoError(t, err)
		data, err := shmem.Calloc[uint64](w, 4)
		require.NoError(t, err)
		writes := []struct {
			name  string
			write func() error
		}{
			{"put", func() error { return shmem.Put(words.Slice(0, 1), []uint64{1}, 0) }},
			{"put with signal", func() error {
				return shmem.PutSignal(data, []uint64{5, 6, 7, 8}, words.At(1), 1, shmem.SignalSet, 0)
			}},
			{"atomic add", func() error { return shmem.Add(words.At(2), 1, 0) }},
			{"mapped store", func() error {
				m := w.Mapped(0)
				p := shmem.Ptr(words, 0)
				if !m.Valid() || p == nil {
					return shmem.Store(words.At(3), 1, 0) // not mapped: the remote atomic
				}
				m.StoreUint64(&p[3], 1)
				return nil
			}},
			{"mapped add", func() error {
				m := w.Mapped(0)
				p := shmem.Ptr(words, 0)
				if !m.Valid() || p == nil {
					return shmem.Add(words.At(4), 1, 0)
				}
				m.AddUint64(&p[4], 1)
				return nil
			}},
			{"mapped apply", func() error {
				m := w.Mapped(0)
				p := shmem.Ptr(words, 0)
				if !m.Valid() || p == nil {
					return shmem.Or(words.At(5), 1, 0)
				}
				_, err := m.Apply(unsafe.Pointer(&p[5]), 8, shmem.AtomicOr, 1, 0)
				return err
			}},
			{"mapped copy and wake", func() error {
				m := w.Mapped(0)
				p := shmem.Ptr(words, 0)
				if !m.Valid() || p == nil {
					return shmem.Put(words.Slice(6, 7), []uint64{1}, 0)
				}
				p[6] = 1 // a plain store, as a layer's copy
				m.Wake()
				return nil
			}},
		}
		for i, c := range writes {
			require.NoError(t, w.BarrierAll())
			if me == 0 {
				if i == 1 {
					v, err := shmem.SignalWaitUntil(words.At(1), shmem.CmpEQ, 1)
					require.NoError(t, err, c.name)
					require.Equal(t, uint64(1), v)
					require.Equal(t, []uint64{5, 6, 7, 8}, data.Local(), c.name)
					continue
				}
				require.NoError(t, shmem.WaitUntil(words.At(i), shmem.CmpEQ, 1), c.name)
			} else {
				time.Sleep(20 * time.Millisecond)
				require.NoError(t, c.write(), c.name)
			}
		}
		// Await on a peer's heap: PE 1 sleeps on PE 0's doorbell and is
		// woken by PE 0's own store into it.
		require.NoError(t, w.BarrierAll())
		if me == 1 {
			require.NoError(t, w.Await(0, func() (bool, error) {
				v, err := shmem.Load(words.At(7), 0)
				return v == 1, err
			}))
		} else {
			time.Sleep(20 * time.Millisecond)
			m := w.Mapped(0)
			m.StoreUint64(&words.Local()[7], 1)
		}
		require.NoError(t, w.BarrierAll())
	})
}

// Await's condition may fail, and the World's end wakes a sleeper at once.
func TestAwaitEnds(t *testing.T) {
	require.NoError(t, shmem.Run(1, func(w *shmem.World) error {
		require.NoError(t, w.SetWaitPolicy(shmem.WaitPolicy{MaxSleep: time.Hour}))
		n := 0
		err := w.Await(shmem.AnyPE, func() (bool, error) { n++; return false, shmem.ErrTimeout })
		require.ErrorIs(t, err, shmem.ErrTimeout)
		require.Equal(t, 1, n)
		require.ErrorIs(t, w.Await(5, func() (bool, error) { return false, nil }), shmem.ErrBadPE)
		var flag atomic.Bool
		go func() {
			time.Sleep(10 * time.Millisecond)
			flag.Store(true)
			w.Mapped(0).Wake()
		}()
		require.NoError(t, w.Await(0, func() (bool, error) { return flag.Load(), nil }))
		return nil
	}))
}
