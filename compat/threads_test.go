package compat_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// Goroutines share one Env made WithThreadMultiple, as MPI_THREAD_MULTIPLE's
// threads do: per-goroutine tags keep each pair's messages in order,
// AnySource receivers in every goroutine get every message once, matched
// probes take the message they found, collectives run at once on
// per-goroutine duplicated communicators, and one goroutine completes
// another's request. Run under -race, it checks the engine's lock too.
func TestThreadMultipleGoroutines(t *testing.T) {
	const nt, msgs = 4, 60
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, n := c.Rank(), c.Size()
		peer := 1 - me
		comms := make([]*compat.Comm, nt)
		for g := range comms {
			var err error
			comms[g], err = c.Dup()
			require.NoError(t, err)
		}
		var seen sync.Map
		reqs := make(chan *compat.Request, nt)
		var wg sync.WaitGroup
		errs := make(chan error, nt*8)
		check := func(err error) bool {
			if err != nil {
				errs <- err
				return false
			}
			return true
		}
		for g := range nt {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Pairs with per-goroutine tags, eager and rendezvous sizes.
				for i := range msgs {
					size := 8 + i*97
					if i%10 == 0 {
						size = 4*e.EagerLimit() + i
					}
					out := fill(size, me*1000+g*100+i)
					in := make([]byte, size)
					r, err := compat.Irecv(c, in, size, compat.Byte, peer, g)
					if !check(err) || !check(compat.Send(c, out, size, compat.Byte, peer, g)) {
						return
					}
					if _, err := r.Wait(); !check(err) {
						return
					}
					if string(in) != string(fill(size, peer*1000+g*100+i)) {
						check(fmt.Errorf("goroutine %d: message %d differs", g, i))
						return
					}
				}
				// AnySource receivers: every message once, each sender's in order.
				for i := range msgs {
					if !check(compat.Send(c, []int32{int32(me), int32(g), int32(i)}, 3, compat.Int32, peer, 100)) {
						return
					}
				}
				last := map[[2]int32]int32{}
				for range msgs {
					v := make([]int32, 3)
					st, err := compat.Recv(c, v, 3, compat.Int32, compat.AnySource, 100)
					if !check(err) {
						return
					}
					k := [2]int32{v[0], v[1]}
					if prev, ok := last[k]; (ok && v[2] <= prev) || st.Source != int(v[0]) {
						check(fmt.Errorf("goroutine %d: wrong message", g))
						return
					}
					last[k] = v[2]
					if _, dup := seen.LoadOrStore([3]int32{v[0], v[1], v[2]}, true); dup {
						check(fmt.Errorf("goroutine %d: wrong message", g))
						return
					}
				}
				// Matched probes racing on one tag.
				for i := range msgs {
					if !check(compat.Send(c, fill(16+i, g*1000+i), 16+i, compat.Byte, peer, 200)) {
						return
					}
				}
				for range msgs {
					r, st, err := c.Mprobe(compat.AnySource, 200)
					if !check(err) {
						return
					}
					if _, err := r.Wait(); !check(err) || len(r.Data()) != st.Bytes() {
						return
					}
				}
				// Collectives on this goroutine's own communicator.
				for i := range 20 {
					in, out := []int64{int64(me + g + i)}, []int64{0}
					if !check(compat.Allreduce(comms[g], in, out, 1, compat.Int64, compat.OpSum)) {
						return
					}
					if out[0] != int64(n*(g+i)+n*(n-1)/2) {
						check(fmt.Errorf("goroutine %d: wrong message", g))
						return
					}
					if !check(comms[g].Barrier()) {
						return
					}
				}
				// A request made here, completed by the next goroutine.
				buf := make([]byte, 32)
				r, err := compat.Irecv(c, buf, 32, compat.Byte, peer, 300+g)
				if !check(err) {
					return
				}
				reqs <- r
				other := <-reqs
				if !check(compat.Send(c, fill(32, me*10+g), 32, compat.Byte, peer, 300+g)) {
					return
				}
				_, err = other.Wait()
				check(err)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		for _, cm := range comms {
			require.NoError(t, cm.Free())
		}
	}, compat.WithThreadMultiple())
}
