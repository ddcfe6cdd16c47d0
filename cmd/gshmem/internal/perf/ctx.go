package perf

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

// ctxStreams is the number of goroutines of PE 0 that stream puts in the
// ctx_* tests.
const ctxStreams = 2

func init() {
	Register(Test{
		Name: "ctx_put_bw", Kind: Bandwidth, Sweep: true,
		Summary: "put bandwidth of two goroutines, each on its own context",
		Measures: "two goroutines of PE 0, each with a context of its own, issue --window CtxPutNBI of size bytes to PE 1 and then " +
			"Quiet that context, in a loop; bytes moved by both / wall time. Compare ctx_shared_put_bw: over tcp a context's Quiet " +
			"waits for its own puts only",
		Run: ctxPutBW(false),
	})
	Register(Test{
		Name: "ctx_shared_put_bw", Kind: Bandwidth, Sweep: true,
		Summary:  "put bandwidth of two goroutines sharing one context",
		Measures: "ctx_put_bw with both goroutines on one shared context, so each Quiet also waits for the other goroutine's puts",
		Run:      ctxPutBW(true),
	})
}

// ctxPutBW measures ctxStreams goroutines streaming puts to PE 1, on a
// context each or on one they share.
func ctxPutBW(shared bool) Func {
	name := "ctx_put_bw"
	if shared {
		name = "ctx_shared_put_bw"
	}
	return func(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
		win := cfg.Window
		sizes := cfg.Sizes(1)
		span := win * sizes[len(sizes)-1] // one goroutine's part of dst
		dst, err := shmem.Alloc[byte](w, ctxStreams*span)
		if err != nil {
			return nil, err
		}
		defer shmem.Free(dst)
		var ctxs [ctxStreams]*shmem.Ctx
		if w.MyPE() == 0 {
			for i := range ctxs {
				switch {
				case shared && i > 0:
					ctxs[i] = ctxs[0]
					continue
				case shared:
					ctxs[i], err = w.CtxCreate(0) // used by several goroutines at once
				default:
					ctxs[i], err = w.CtxCreate(shmem.CtxSerialized)
				}
				if err != nil {
					return nil, err
				}
				defer ctxs[i].Destroy()
			}
		}
		src := private[byte](w, dst.Len())
		// stream runs n rounds on every goroutine and returns the wall time.
		stream := func(n, size int) (time.Duration, error) {
			var wg sync.WaitGroup
			var errs [ctxStreams]error
			start := time.Now()
			for g := range ctxStreams {
				wg.Go(func() {
					c := ctxs[g]
					for range n {
						if errs[g] = ctx.Err(); errs[g] != nil {
							return
						}
						for j := range win {
							off := g*span + j*size
							if errs[g] = shmem.CtxPutNBI(c, dst.Slice(off, off+size), src[off:off+size], 1); errs[g] != nil {
								return
							}
						}
						if errs[g] = c.Quiet(); errs[g] != nil {
							return
						}
					}
				})
			}
			wg.Wait()
			return time.Since(start), errors.Join(errs[:]...)
		}
		return sweep(ctx, w, cfg, name, sizes, step{
			prepare: func(k, _ int) error { fill(src, pattern[byte](k)); return nil },
			measure: func(_, size int) (Row, error) {
				iters, warm := cfg.loops(Bandwidth, size)
				if _, err := stream(warm, size); err != nil {
					return Row{}, err
				}
				d, err := stream(iters, size)
				ops := ctxStreams * iters * win
				st := stats{ops: ops, total: d, batchs: []float64{d.Seconds() / float64(ops)}}
				r := bandwidthRow(size, st)
				r.Window = win
				return r, err
			},
			check: func(k, size int) error {
				if w.MyPE() != 1 {
					return nil
				}
				for g := range ctxStreams {
					if err := expect(name+" target", dst.Local()[g*span:g*span+win*size], pattern[byte](k)); err != nil {
						return err
					}
				}
				return nil
			},
		})
	}
}
