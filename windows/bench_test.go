package windows_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Latency benchmarks with 2 in-process PEs: PE 0 issues 8-byte operations
// to PE 1. The raw forms are the shmem calls a window operation maps to
// (Put+Quiet, Get, FetchAdd, CompareAndSwap); the win forms go through a
// window in flush mode (Lock once; per operation: op, Flush), as
// osu_put_latency -s flush does. Compare ns/op to see the window layer's
// overhead; the other sync modes show the cost of each epoch pattern.

func inPEs(b *testing.B, fn func(w *shmem.World) error) {
	b.Helper()
	if err := shmem.Run(2, fn, shmem.WithSymmetricSize(8<<20)); err != nil {
		b.Fatal(err)
	}
}

// measure runs body(b.N) on PE 0 while PE 1 polls a flag (rather than
// sleeping in a barrier, which would make every raw shmem call ring its
// doorbell with a futex wake).
func measure(b *testing.B, w *shmem.World, body func(n int) error) error {
	flag, err := shmem.Calloc[int64](w, 1)
	if err != nil {
		return err
	}
	if w.MyPE() == 0 {
		b.ResetTimer()
		err = body(b.N)
		b.StopTimer()
		if perr := shmem.P(flag, 1, 1); err == nil {
			err = perr
		}
	} else {
		for {
			if ok, err := shmem.Test(flag, shmem.CmpNE, 0); err != nil || ok {
				break
			}
			runtime.Gosched()
		}
	}
	if berr := w.BarrierAll(); err == nil {
		err = berr
	}
	return err
}

func BenchmarkRawPutQuiet(b *testing.B) {
	inPEs(b, func(w *shmem.World) error {
		s, err := shmem.Calloc[byte](w, 64)
		if err != nil {
			return err
		}
		src := make([]byte, 8)
		dst := s.Slice(0, 8)
		return measure(b, w, func(n int) error {
			for range n {
				if err := shmem.Put(dst, src, 1); err != nil {
					return err
				}
				if err := w.Quiet(); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func BenchmarkRawGetQuiet(b *testing.B) {
	inPEs(b, func(w *shmem.World) error {
		s, err := shmem.Calloc[byte](w, 64)
		if err != nil {
			return err
		}
		dst := make([]byte, 8)
		src := s.Slice(0, 8)
		return measure(b, w, func(n int) error {
			for range n {
				if err := shmem.Get(dst, src, 1); err != nil {
					return err
				}
				if err := w.Quiet(); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func BenchmarkRawFetchAdd(b *testing.B) {
	inPEs(b, func(w *shmem.World) error {
		s, err := shmem.Calloc[int64](w, 8)
		if err != nil {
			return err
		}
		return measure(b, w, func(n int) error {
			for range n {
				if _, err := shmem.FetchAdd(s.At(0), 1, 1); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func BenchmarkRawCompareAndSwap(b *testing.B) {
	inPEs(b, func(w *shmem.World) error {
		s, err := shmem.Calloc[int64](w, 8)
		if err != nil {
			return err
		}
		return measure(b, w, func(n int) error {
			for i := range n {
				if _, err := shmem.CompareAndSwap(s.At(0), int64(i), int64(i+1), 1); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// flushLoop runs op n times from PE 0 to PE 1 through a window of the
// flavor in flush mode: Lock(shared) once, then op and Flush per iteration.
func flushLoop(b *testing.B, f windows.Flavor, op func(win *windows.Win, disp, i int) error) {
	inPEs(b, func(w *shmem.World) error {
		bw, err := mpibench.NewWindow(w, f, 64)
		if err != nil {
			return err
		}
		win, disp := bw.Win, bw.Disp(1)
		err = measure(b, w, func(n int) error {
			if err := win.Lock(windows.LockShared, 1, 0); err != nil {
				return err
			}
			for i := range n {
				if err := op(win, disp, i); err != nil {
					return err
				}
				if err := win.Flush(1); err != nil {
					return err
				}
			}
			return win.Unlock(1)
		})
		if err != nil {
			return err
		}
		return bw.Free()
	})
}

func BenchmarkWinPutFlush(b *testing.B) {
	for _, f := range flavors {
		b.Run(f.String(), func(b *testing.B) {
			src := make([]byte, 8)
			flushLoop(b, f, func(win *windows.Win, disp, _ int) error { return windows.Put(win, src, 1, disp) })
		})
	}
}

func BenchmarkWinGetFlush(b *testing.B) {
	for _, f := range flavors {
		b.Run(f.String(), func(b *testing.B) {
			dst := make([]byte, 8)
			flushLoop(b, f, func(win *windows.Win, disp, _ int) error { return windows.Get(win, dst, 1, disp) })
		})
	}
}

func BenchmarkWinAtomicsFlush(b *testing.B) {
	one := []int64{1}
	b.Run("acc", func(b *testing.B) {
		flushLoop(b, windows.FlavorAllocate, func(win *windows.Win, disp, _ int) error {
			return windows.Accumulate(win, one, 1, disp, compat.OpSum)
		})
	})
	b.Run("fop", func(b *testing.B) {
		flushLoop(b, windows.FlavorAllocate, func(win *windows.Win, disp, _ int) error {
			_, err := windows.FetchAndOp(win, int64(1), 1, disp, compat.OpSum)
			return err
		})
	})
	b.Run("cas", func(b *testing.B) {
		flushLoop(b, windows.FlavorAllocate, func(win *windows.Win, disp, i int) error {
			_, err := windows.CompareAndSwap(win, int64(i), int64(i+1), 1, disp)
			return err
		})
	})
}

// BenchmarkWinPutSync is an 8-byte put per epoch in every sync mode
// (allocate flavor), through mpibench.Window.Loop as gshmem perf runs it.
func BenchmarkWinPutSync(b *testing.B) {
	for _, m := range mpibench.SyncModes {
		b.Run(string(m), func(b *testing.B) {
			inPEs(b, func(w *shmem.World) error {
				bw, err := mpibench.NewWindow(w, windows.FlavorAllocate, 64)
				if err != nil {
					return err
				}
				src := make([]byte, 8)
				if w.MyPE() == 0 {
					b.ResetTimer()
				}
				_, err = bw.Loop(m, 0, 1, b.N, 1, func(_, _ int) error { return windows.Put(bw.Win, src, 1, 0) })
				if w.MyPE() == 0 {
					b.StopTimer()
				}
				if err != nil {
					return err
				}
				return bw.Free()
			})
		})
	}
}

// BenchmarkOverhead times a window operation in flush mode (allocate
// flavor) against the raw shmem call it maps to, in alternating batches
// of one run, and reports the fastest batch of each and their ratio
// (win/raw): the placement of the two PEs' threads moves both alike.
func BenchmarkOverhead(b *testing.B) {
	type pair struct {
		name     string
		raw, win func(s shmem.Sym[int64], win *windows.Win, i int) error
	}
	var one = []int64{1}
	buf := make([]int64, 1)
	cases := []pair{
		{"put", func(s shmem.Sym[int64], _ *windows.Win, _ int) error {
			if err := shmem.Put(s, one, 1); err != nil {
				return err
			}
			return s.World().Quiet()
		}, func(_ shmem.Sym[int64], win *windows.Win, _ int) error {
			if err := windows.Put(win, one, 1, 0); err != nil {
				return err
			}
			return win.Flush(1)
		}},
		{"get", func(s shmem.Sym[int64], _ *windows.Win, _ int) error {
			if err := shmem.Get(buf, s, 1); err != nil {
				return err
			}
			return s.World().Quiet()
		}, func(_ shmem.Sym[int64], win *windows.Win, _ int) error {
			if err := windows.Get(win, buf, 1, 0); err != nil {
				return err
			}
			return win.Flush(1)
		}},
		{"fetch_add", func(s shmem.Sym[int64], _ *windows.Win, _ int) error {
			_, err := shmem.FetchAdd(s, 1, 1)
			return err
		}, func(_ shmem.Sym[int64], win *windows.Win, _ int) error {
			_, err := windows.FetchAndOp(win, int64(1), 1, 0, compat.OpSum)
			return err
		}},
		{"accumulate", func(s shmem.Sym[int64], _ *windows.Win, _ int) error {
			return shmem.Add(s, 1, 1)
		}, func(_ shmem.Sym[int64], win *windows.Win, _ int) error {
			return windows.Accumulate(win, one, 1, 0, compat.OpSum)
		}},
		{"cas", func(s shmem.Sym[int64], _ *windows.Win, i int) error {
			_, err := shmem.CompareAndSwap(s, int64(i), int64(i+1), 1)
			return err
		}, func(_ shmem.Sym[int64], win *windows.Win, i int) error {
			_, err := windows.CompareAndSwap(win, int64(i), int64(i+1), 1, 0)
			return err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			inPEs(b, func(w *shmem.World) error {
				s, err := shmem.Calloc[int64](w, 8)
				if err != nil {
					return err
				}
				comm, err := worldComm(w)
				if err != nil {
					return err
				}
				win, _, err := windows.AllocateOf[int64](comm, 8, nil)
				if err != nil {
					return err
				}
				err = measure(b, w, func(n int) error {
					if err := win.Lock(windows.LockShared, 1, 0); err != nil {
						return err
					}
					const batch = 10000
					rawMin, winMin := time.Duration(1<<62), time.Duration(1<<62)
					for range max(1, n/(2*batch)) {
						t0 := time.Now()
						for i := range batch {
							if err := c.raw(s.At(0), win, i); err != nil {
								return err
							}
						}
						t1 := time.Now()
						for i := range batch {
							if err := c.win(s.At(0), win, i); err != nil {
								return err
							}
						}
						rawMin, winMin = min(rawMin, t1.Sub(t0)), min(winMin, time.Since(t1))
					}
					r, wn := float64(rawMin.Nanoseconds())/batch, float64(winMin.Nanoseconds())/batch
					b.ReportMetric(r, "raw-ns/op")
					b.ReportMetric(wn, "win-ns/op")
					b.ReportMetric(wn/r, "win/raw")
					return win.Unlock(1)
				})
				if err != nil {
					return err
				}
				return win.Free()
			})
		})
	}
}

// BenchmarkPSCWSelf is one PSCW epoch of a PE with itself (Post, Start,
// an 8-byte Put, Complete, Wait): the software cost of the five calls,
// with no cache line crossing to another core.
func BenchmarkPSCWSelf(b *testing.B) {
	err := shmem.Run(1, func(w *shmem.World) error {
		bw, err := mpibench.NewWindow(w, windows.FlavorAllocate, 64)
		if err != nil {
			return err
		}
		win, src := bw.Win, make([]byte, 8)
		wg, err := win.Group()
		if err != nil {
			return err
		}
		g, err := wg.Incl([]int{0})
		if err != nil {
			return err
		}
		b.ResetTimer()
		for range b.N {
			if err := win.Post(g, 0); err != nil {
				return err
			}
			if err := win.Start(g, 0); err != nil {
				return err
			}
			if err := windows.Put(win, src, 0, 0); err != nil {
				return err
			}
			if err := win.Complete(); err != nil {
				return err
			}
			if err := win.Wait(); err != nil {
				return err
			}
		}
		b.StopTimer()
		return bw.Free()
	}, shmem.WithSymmetricSize(8<<20))
	if err != nil {
		b.Fatal(err)
	}
}
