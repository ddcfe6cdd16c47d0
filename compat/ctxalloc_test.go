package compat_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// Goroutines create communicators at once, each from its own parent
// (MPI_THREAD_MULTIPLE allows it): Dup, Split, Create, CreateGroup and
// IntercommCreate+Merge interleave, every new communicator's context id
// differs from every other one this PE holds, and an Allreduce and a
// message with one tag on each reach only that communicator's members.
func TestConcurrentCommCreation(t *testing.T) {
	const nt, iters = 4, 24
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			run(t, n, func(t *petest.T, e *compat.Env, c *compat.Comm) {
				me := c.Rank()
				base := make([]*compat.Comm, nt)
				for g := range base {
					var err error
					base[g], err = c.Dup()
					require.NoError(t, err)
				}
				var mu sync.Mutex
				ctxs := map[uint32]string{}
				for _, x := range []*compat.Comm{c, e.CommSelf()} {
					ctxs[x.Context()] = x.Name()
				}
				keep := func(x *compat.Comm, what string) error {
					mu.Lock()
					defer mu.Unlock()
					if old, dup := ctxs[x.Context()]; dup {
						return fmt.Errorf("%s has context %d, as %s has", what, x.Context(), old)
					}
					ctxs[x.Context()] = what
					return nil
				}
				errs := make(chan error, nt)
				var wg sync.WaitGroup
				for g := range nt {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs <- creator(e, base[g], g, iters, me, keep)
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				for _, b := range base {
					require.NoError(t, b.Free())
				}
			}, compat.WithThreadMultiple())
		})
	}
}

// creator is one goroutine of TestConcurrentCommCreation.
func creator(e *compat.Env, p *compat.Comm, g, iters, me int, keep func(*compat.Comm, string) error) error {
	n := p.Size()
	grp, err := p.Group()
	if err != nil {
		return err
	}
	var made []*compat.Comm
	defer func() {
		for _, x := range made {
			_ = x.Free()
		}
	}()
	for i := range iters {
		var d *compat.Comm
		what := fmt.Sprintf("goroutine %d's communicator %d", g, i)
		switch i % 5 {
		case 0:
			d, err = p.Dup()
		case 1:
			d, err = p.Split(0, -me) // one color, ranks reversed
		case 2:
			d, err = p.Create(grp)
		case 3:
			d, err = p.CreateGroup(grp, 7)
		case 4:
			// Each PE alone against the others, merged back.
			var half, inter *compat.Comm
			color := min(me, 1)
			if half, err = p.Split(color, me); err != nil {
				return err
			}
			made = append(made, half)
			if inter, err = half.IntercommCreate(0, p, 1-color, 9); err != nil {
				return err
			}
			made = append(made, inter)
			if err = keep(inter, what+" (inter)"); err != nil {
				return err
			}
			d, err = inter.Merge(color == 1)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		made = append(made, d)
		if err := keep(d, what); err != nil {
			return err
		}
		in, out := []int64{int64(1000*g + i + d.Rank())}, []int64{0}
		if err := compat.Allreduce(d, in, out, 1, compat.Int64, compat.OpSum); err != nil {
			return fmt.Errorf("%s: Allreduce: %w", what, err)
		}
		if want := int64(n*(1000*g+i) + n*(n-1)/2); out[0] != want {
			return fmt.Errorf("%s: Allreduce gave %d, not %d", what, out[0], want)
		}
		r := d.Rank()
		v := []int64{int64(g), int64(i), int64(r)}
		w := make([]int64, 3)
		if _, err := compat.Sendrecv(d, v, 3, compat.Int64, (r+1)%n, 0, w, 3, compat.Int64, (r+n-1)%n, 0); err != nil {
			return fmt.Errorf("%s: Sendrecv: %w", what, err)
		}
		if w[0] != int64(g) || w[1] != int64(i) || w[2] != int64((r+n-1)%n) {
			return fmt.Errorf("%s: got %v from rank %d", what, w, (r+n-1)%n)
		}
	}
	return nil
}

// Goroutines run DupAsync (MPI_Comm_idup) at once, each on its own parent
// and on a duplicate of it: every new communicator's context is the same
// on all its members (their Allreduce of it by min and max agree) and
// differs from every other one this PE holds.
func TestConcurrentDupAsync(t *testing.T) {
	const nt, iters = 4, 30
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			run(t, n, func(t *petest.T, e *compat.Env, c *compat.Comm) {
				var mu sync.Mutex
				ctxs := map[uint32]string{}
				keep := func(x *compat.Comm, what string) error {
					mu.Lock()
					defer mu.Unlock()
					if old, dup := ctxs[x.Context()]; dup {
						return fmt.Errorf("%s has context %d, as %s has", what, x.Context(), old)
					}
					ctxs[x.Context()] = what
					return nil
				}
				base := make([]*compat.Comm, 2*nt)
				for g := range base {
					var err error
					base[g], err = c.Dup()
					require.NoError(t, err)
					require.NoError(t, keep(base[g], fmt.Sprint("parent ", g)))
				}
				errs := make(chan error, 2*nt)
				var wg sync.WaitGroup
				for g := range base {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs <- asyncDuper(base[g], g, iters, keep)
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				for _, b := range base {
					require.NoError(t, b.Free())
				}
			}, compat.WithThreadMultiple())
		})
	}
}

// asyncDuper is one goroutine of TestConcurrentDupAsync.
func asyncDuper(p *compat.Comm, g, iters int, keep func(*compat.Comm, string) error) error {
	var made []*compat.Comm
	defer func() {
		for _, x := range made {
			_ = x.Free()
		}
	}()
	for i := range iters {
		what := fmt.Sprintf("goroutine %d's duplicate %d", g, i)
		d, err := p.DupAsync()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		made = append(made, d)
		if err := keep(d, what); err != nil {
			return err
		}
		ctx := []int64{int64(d.Context())}
		lo, hi := []int64{0}, []int64{0}
		if err := compat.Allreduce(d, ctx, lo, 1, compat.Int64, compat.OpMin); err != nil {
			return fmt.Errorf("%s: Allreduce: %w", what, err)
		}
		if err := compat.Allreduce(d, ctx, hi, 1, compat.Int64, compat.OpMax); err != nil {
			return fmt.Errorf("%s: Allreduce: %w", what, err)
		}
		if lo[0] != ctx[0] || hi[0] != ctx[0] {
			return fmt.Errorf("%s: context %d here, %d..%d on its members", what, ctx[0], lo[0], hi[0])
		}
	}
	return nil
}
