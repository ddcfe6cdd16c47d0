package compat_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gshmem/gshmem/compat"
)

// pair runs two jobs of na and nb goroutine PEs that meet through a port
// (rank 0 of a accepts, rank 0 of b connects) and runs fa and fb over
// their intercommunicators; then (when not nil) it calls doneA once the
// accepting job has finalized.
func pair(t *testing.T, na, nb int, fa, fb func(e *compat.Env, ic *compat.Comm) error, doneA ...func()) {
	t.Helper()
	names := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		assert.NoError(t, job(na, func(e *compat.Env, w *compat.Comm) error {
			var p *compat.Port
			if w.Rank() == 0 {
				var err error
				if p, err = e.OpenPort(); err != nil {
					return err
				}
				names <- p.Name()
			}
			ic, err := w.Accept(p, 0)
			if err != nil {
				return err
			}
			if p != nil {
				_ = p.Close()
			}
			return fa(e, ic)
		}), "the accepting job")
		for _, f := range doneA {
			f()
		}
	}()
	go func() {
		defer wg.Done()
		assert.NoError(t, job(nb, func(e *compat.Env, w *compat.Comm) error {
			var name string
			if w.Rank() == 0 {
				name = <-names
			}
			ic, err := w.Connect(name, 0)
			if err != nil {
				return err
			}
			return fb(e, ic)
		}), "the connecting job")
	}()
	wg.Wait()
}

// TestDisconnectClosesLinks: the links go with the last communicator
// over them, once it is disconnected (a Free keeps them).
func TestDisconnectClosesLinks(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	side := func(high bool) func(e *compat.Env, ic *compat.Comm) error {
		return func(e *compat.Env, ic *compat.Comm) error {
			want := ic.RemoteSize() // a link to each remote process
			if n := compat.OpenLinks(e); n != want {
				return fmt.Errorf("%d links open after the meeting, want %d", n, want)
			}
			m, err := ic.Merge(high)
			if err != nil {
				return err
			}
			if err := m.Barrier(); err != nil {
				return err
			}
			d, err := ic.Dup()
			if err != nil {
				return err
			}
			if err := ic.Disconnect(); err != nil {
				return err
			}
			if n := compat.OpenLinks(e); n != want {
				return fmt.Errorf("%d links open while a merge and a dup remain, want %d", n, want)
			}
			if err := m.Free(); err != nil { // freed, not disconnected: kept
				return err
			}
			if n := compat.OpenLinks(e); n != want {
				return fmt.Errorf("%d links open after a Free, want %d", n, want)
			}
			if err := d.Disconnect(); err != nil {
				return err
			}
			if n := compat.OpenLinks(e); n != 0 {
				return fmt.Errorf("%d links open after the last disconnect", n)
			}
			return nil
		}
	}
	pair(t, 2, 3, side(false), side(true))
}

// TestLostJobEndsWildcards: a job whose links break ends the other's
// wildcard receives, probes and receives from its ranks with
// ClassProcFailed, pending or posted later, instead of hanging.
func TestLostJobEndsWildcards(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	var broken sync.WaitGroup
	broken.Add(1)
	pair(t, 2, 1, func(e *compat.Env, ic *compat.Comm) error {
		v := []int32{0}
		pending, err := compat.Irecv(ic, v, 1, compat.Int32, compat.AnySource, 1)
		if err != nil {
			return err
		}
		if err := ic.Barrier(); err != nil {
			return err
		}
		broken.Wait()
		if _, err := pending.Wait(); compat.ClassOf(err) != compat.ClassProcFailed {
			return fmt.Errorf("a pending wildcard receive ended with %v", err)
		}
		if _, err := compat.Recv(ic, v, 1, compat.Int32, compat.AnySource, 2); compat.ClassOf(err) != compat.ClassProcFailed {
			return fmt.Errorf("a wildcard receive posted after the loss ended with %v", err)
		}
		if _, err := ic.Probe(compat.AnySource, 3); compat.ClassOf(err) != compat.ClassProcFailed {
			return fmt.Errorf("a wildcard probe ended with %v", err)
		}
		if _, _, err := ic.Mprobe(0, 3); compat.ClassOf(err) != compat.ClassProcFailed {
			return fmt.Errorf("a matched probe ended with %v", err)
		}
		if _, err := compat.Recv(ic, v, 1, compat.Int32, 0, 4); compat.ClassOf(err) != compat.ClassProcFailed {
			return fmt.Errorf("a receive from the lost rank ended with %v", err)
		}
		return ic.Free()
	}, func(e *compat.Env, ic *compat.Comm) error {
		if err := ic.Barrier(); err != nil {
			return err
		}
		compat.BreakLinks(e)
		broken.Done()
		return ic.Free()
	})
}

// TestFinalizeWaitsForConnectedJobs: Finalize is collective over
// connected processes; after a disconnect it is not.
func TestFinalizeWaitsForConnectedJobs(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	for _, disconnect := range []bool{false, true} {
		var late, waited atomic.Bool
		pair(t, 1, 2, func(e *compat.Env, ic *compat.Comm) error {
			if disconnect {
				return ic.Disconnect()
			}
			return ic.Free()
		}, func(e *compat.Env, ic *compat.Comm) error {
			me := ic.Rank()
			if disconnect {
				if err := ic.Disconnect(); err != nil {
					return err
				}
			} else if err := ic.Free(); err != nil {
				return err
			}
			time.Sleep(200 * time.Millisecond)
			if me == 0 {
				late.Store(true)
			}
			return nil
		}, func() { waited.Store(late.Load()) })
		if !disconnect {
			assert.True(t, waited.Load(), "Finalize returned before the connected job's began")
		}
	}
}
