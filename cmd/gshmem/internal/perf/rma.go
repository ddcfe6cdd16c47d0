package perf

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

func init() {
	Register(Test{
		Name: "put_latency", Kind: Latency, Sweep: true,
		Summary:  "blocking put latency over sizes",
		Measures: "PE 0 calls Put(size bytes to PE 1) then Quiet, in a loop; mean time per put+quiet (OSU osu_put_latency with flush)",
		Run:      byDatatype(typed{putLatency[int32], putLatency[int64], putLatency[uint32], putLatency[uint64], putLatency[float32], putLatency[float64]}),
	})
	Register(Test{
		Name: "get_latency", Kind: Latency, Sweep: true,
		Summary:  "blocking get latency over sizes",
		Measures: "PE 0 calls Get(size bytes from PE 1) in a loop; mean time per get (OSU osu_get_latency with flush)",
		Run:      byDatatype(typed{getLatency[int32], getLatency[int64], getLatency[uint32], getLatency[uint64], getLatency[float32], getLatency[float64]}),
	})
	Register(Test{
		Name: "put_bw", Kind: Bandwidth, Sweep: true,
		Summary:  "put bandwidth over sizes, windows of non-blocking puts",
		Measures: "PE 0 issues --window PutNBI of size bytes to distinct offsets of PE 1, then Quiet, in a loop; bytes moved / time (OSU osu_put_bw with flush)",
		Run:      byDatatype(typed{putBW[int32], putBW[int64], putBW[uint32], putBW[uint64], putBW[float32], putBW[float64]}),
	})
	Register(Test{
		Name: "get_bw", Kind: Bandwidth, Sweep: true,
		Summary:  "get bandwidth over sizes, windows of non-blocking gets",
		Measures: "PE 0 issues --window GetNBI of size bytes from distinct offsets of PE 1, then Quiet, in a loop; bytes moved / time (OSU osu_get_bw with flush)",
		Run:      byDatatype(typed{getBW[int32], getBW[int64], getBW[uint32], getBW[uint64], getBW[float32], getBW[float64]}),
	})
	Register(Test{
		Name: "p_latency", Kind: Latency,
		Summary:  "single-element put (P) latency",
		Measures: "PE 0 calls P(one element to PE 1) then Quiet, in a loop; mean time per p+quiet",
		Run:      byDatatype(typed{pLatency[int32], pLatency[int64], pLatency[uint32], pLatency[uint64], pLatency[float32], pLatency[float64]}),
	})
	Register(Test{
		Name: "g_latency", Kind: Latency,
		Summary:  "single-element get (G) latency",
		Measures: "PE 0 calls G(one element of PE 1) in a loop; mean time per g",
		Run:      byDatatype(typed{gLatency[int32], gLatency[int64], gLatency[uint32], gLatency[uint64], gLatency[float32], gLatency[float64]}),
	})
}

func sizeOf[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// step is one test's work at one size. Every PE calls prepare; all meet
// (startSize); PE 0 runs measure, whose row is the size's, while PE 1 runs
// partner (the other side of a ping-pong; nil when PE 1 stays passive). With
// every set, every PE runs measure instead (a collective, or both sides of
// an MPI pattern); with serve set, every PE but 0 runs partner (the targets
// of window epochs). All meet again, and every PE calls check (which
// verifies what the operations delivered).
type step struct {
	prepare func(k, size int) error
	measure func(k, size int) (Row, error)
	partner func(k, size int) error
	every   bool
	serve   bool
	check   func(k, size int) error
}

// sweep runs s at every size and returns PE 0's rows: the one loop of
// every test, so that each size starts, settles and ends alike.
func sweep(ctx context.Context, w *shmem.World, cfg Config, test string, sizes []int, s step) ([]Row, error) {
	prog := newProgress(cfg, w, test, len(sizes))
	me := w.MyPE()
	var rows []Row
	for k, size := range sizes {
		if s.prepare != nil {
			if err := s.prepare(k, size); err != nil {
				return nil, err
			}
		}
		if err := startSize(ctx, w, cfg); err != nil {
			return nil, err
		}
		switch {
		case me == 0 || s.every:
			r, err := s.measure(k, size)
			if err != nil {
				return nil, err
			}
			if me == 0 {
				r.Test = test
				rows = append(rows, r)
			}
		case s.partner != nil && (me == 1 || s.serve):
			if err := s.partner(k, size); err != nil {
				return nil, err
			}
		}
		if err := w.BarrierAll(); err != nil {
			return nil, err
		}
		if s.check != nil {
			if err := s.check(k, size); err != nil {
				return nil, err
			}
		}
		prog.done(k, size)
	}
	return rows, nil
}

// private returns PE 0's private buffer of n elements (the source of its
// puts, the destination of its gets); the passive PEs get none.
func private[T any](w *shmem.World, n int) []T {
	if w.MyPE() != 0 {
		return nil
	}
	return make([]T, n)
}

// pattern is the value written at the k-th size, so that a stale buffer
// from an earlier size is caught.
func pattern[T number | ~uint8](k int) T { return T(k%100 + 1) }

func fill[T number | ~uint8](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// expect checks the first and last element of got.
func expect[T number | ~uint8](what string, got []T, want T) error {
	if len(got) == 0 {
		return nil
	}
	if got[0] != want || got[len(got)-1] != want {
		return fmt.Errorf("%s holds %v..%v, want %v: the data did not arrive", what, got[0], got[len(got)-1], want)
	}
	return nil
}

func putLatency[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz := sizeOf[T]()
	sizes := cfg.Sizes(esz)
	dst, err := shmem.Alloc[T](w, sizes[len(sizes)-1]/esz)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	src := private[T](w, dst.Len())
	return sweep(ctx, w, cfg, "put_latency", sizes, step{
		prepare: func(k, size int) error { fill(src[:min(size/esz, len(src))], pattern[T](k)); return nil },
		measure: func(k, size int) (Row, error) {
			s := src[:size/esz]
			iters, warm := cfg.loops(Latency, size)
			st, err := cfg.measure(ctx, warm, iters, 1, func(int) error {
				if err := shmem.Put(dst, s, 1); err != nil {
					return err
				}
				return w.Quiet()
			})
			return latencyRow(size, st), err
		},
		check: func(k, size int) error {
			if w.MyPE() != 1 {
				return nil
			}
			return expect("put target", dst.Local()[:size/esz], pattern[T](k))
		},
	})
}

func getLatency[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz := sizeOf[T]()
	sizes := cfg.Sizes(esz)
	src, err := shmem.Alloc[T](w, sizes[len(sizes)-1]/esz)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(src)
	dst := private[T](w, src.Len())
	return sweep(ctx, w, cfg, "get_latency", sizes, step{
		prepare: func(k, size int) error { fill(src.Local()[:size/esz], pattern[T](k)); return nil },
		measure: func(k, size int) (Row, error) {
			d := dst[:size/esz]
			iters, warm := cfg.loops(Latency, size)
			st, err := cfg.measure(ctx, warm, iters, 1, func(int) error { return shmem.Get(d, src, 1) })
			if err == nil {
				err = expect("get buffer", d, pattern[T](k))
			}
			return latencyRow(size, st), err
		},
	})
}

func putBW[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz, win := sizeOf[T](), cfg.Window
	sizes := cfg.Sizes(esz)
	dst, err := shmem.Alloc[T](w, win*sizes[len(sizes)-1]/esz)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	src := private[T](w, dst.Len())
	return sweep(ctx, w, cfg, "put_bw", sizes, step{
		prepare: func(k, size int) error { fill(src[:min(win*size/esz, len(src))], pattern[T](k)); return nil },
		measure: func(k, size int) (Row, error) {
			n := size / esz
			iters, warm := cfg.loops(Bandwidth, size)
			st, err := cfg.measure(ctx, warm, iters, win, func(int) error {
				for j := range win {
					if err := shmem.PutNBI(dst.Slice(j*n, j*n+n), src[j*n:j*n+n], 1); err != nil {
						return err
					}
				}
				return w.Quiet()
			})
			r := bandwidthRow(size, st)
			r.Window = win
			return r, err
		},
		check: func(k, size int) error {
			if w.MyPE() != 1 {
				return nil
			}
			return expect("put_bw target", dst.Local()[:win*size/esz], pattern[T](k))
		},
	})
}

func getBW[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz, win := sizeOf[T](), cfg.Window
	sizes := cfg.Sizes(esz)
	src, err := shmem.Alloc[T](w, win*sizes[len(sizes)-1]/esz)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(src)
	dst := private[T](w, src.Len())
	return sweep(ctx, w, cfg, "get_bw", sizes, step{
		prepare: func(k, size int) error { fill(src.Local()[:win*size/esz], pattern[T](k)); return nil },
		measure: func(k, size int) (Row, error) {
			n := size / esz
			iters, warm := cfg.loops(Bandwidth, size)
			st, err := cfg.measure(ctx, warm, iters, win, func(int) error {
				for j := range win {
					if err := shmem.GetNBI(dst[j*n:j*n+n], src.Slice(j*n, j*n+n), 1); err != nil {
						return err
					}
				}
				return w.Quiet()
			})
			if err == nil {
				err = expect("get_bw buffer", dst[:win*n], pattern[T](k))
			}
			r := bandwidthRow(size, st)
			r.Window = win
			return r, err
		},
	})
}

func pLatency[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	dst, err := shmem.Calloc[T](w, 1)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	esz := sizeOf[T]()
	return sweep(ctx, w, cfg, "p_latency", []int{esz}, step{
		measure: func(_, size int) (Row, error) {
			iters, warm := cfg.loops(Latency, size)
			st, err := cfg.measure(ctx, warm, iters, 1, func(i int) error {
				if err := shmem.P(dst, T(i%1000+1), 1); err != nil {
					return err
				}
				return w.Quiet()
			})
			return latencyRow(size, st), err
		},
		check: func(int, int) error {
			// The target was zeroed and every value P wrote is non-zero.
			if w.MyPE() != 1 {
				return nil
			}
			if got := dst.Local()[0]; got == 0 {
				return fmt.Errorf("p target still 0 after the loop")
			}
			return nil
		},
	})
}

func gLatency[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	src, err := shmem.Alloc[T](w, 1)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(src)
	src.Local()[0] = T(7)
	var got T
	return sweep(ctx, w, cfg, "g_latency", []int{sizeOf[T]()}, step{
		measure: func(_, size int) (Row, error) {
			iters, warm := cfg.loops(Latency, size)
			st, err := cfg.measure(ctx, warm, iters, 1, func(int) error {
				var err error
				got, err = shmem.G(src, 1)
				return err
			})
			if err == nil && got != T(7) {
				err = fmt.Errorf("g read %v, want 7", got)
			}
			return latencyRow(size, st), err
		},
	})
}
