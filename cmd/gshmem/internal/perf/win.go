package perf

import (
	"context"
	"fmt"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// The MPI window tests (issue 5): OSU's one-sided benchmarks through the
// windows package, with the window flavor of --win_flavor (or --window
// NAME) and the epoch pattern of --sync. PE 0 is the origin, PE 1 the
// target; every PE takes part in the epochs the mode makes collective
// (fence) and PE 1 in those it serves (pscw).
func init() {
	const how = "; window flavor --win_flavor (allocate, create, dynamic, shared; default allocate), epochs --sync " +
		"(flush: Lock once, op+Flush per epoch; flush_local; lock: Lock, op, Unlock; lock_all; fence; pscw; default flush)"
	Register(Test{
		Name: "win_put_latency", Kind: Latency, Sweep: true,
		Summary:  "MPI window put latency over sizes (OSU osu_put_latency)",
		Measures: "PE 0 runs an epoch of one windows.Put of size bytes to PE 1 in a loop; mean time per epoch" + how,
		Run:      winRMA("win_put_latency", false, false),
	})
	Register(Test{
		Name: "win_get_latency", Kind: Latency, Sweep: true,
		Summary:  "MPI window get latency over sizes (OSU osu_get_latency)",
		Measures: "PE 0 runs an epoch of one windows.Get of size bytes from PE 1 in a loop; mean time per epoch" + how,
		Run:      winRMA("win_get_latency", true, false),
	})
	Register(Test{
		Name: "win_put_bw", Kind: Bandwidth, Sweep: true,
		Summary:  "MPI window put bandwidth over sizes (OSU osu_put_bw)",
		Measures: "PE 0 runs epochs of --window windows.Put of size bytes to distinct offsets of PE 1; bytes moved / time" + how,
		Run:      winRMA("win_put_bw", false, true),
	})
	Register(Test{
		Name: "win_get_bw", Kind: Bandwidth, Sweep: true,
		Summary:  "MPI window get bandwidth over sizes (OSU osu_get_bw)",
		Measures: "PE 0 runs epochs of --window windows.Get of size bytes from distinct offsets of PE 1; bytes moved / time" + how,
		Run:      winRMA("win_get_bw", true, true),
	})
	Register(Test{
		Name: "win_acc_latency", Kind: Latency, Sweep: true,
		Summary:  "MPI window accumulate (sum) latency over sizes (OSU osu_acc_latency)",
		Measures: "PE 0 runs an epoch of one windows.Accumulate(OpSum) of size bytes of --datatype to PE 1 in a loop; mean time per epoch" + how,
		Run:      byDatatype(typed{winAcc[int32], winAcc[int64], winAcc[uint32], winAcc[uint64], winAcc[float32], winAcc[float64]}),
	})
	Register(Test{
		Name: "win_fop_latency", Kind: Latency,
		Summary:  "MPI window fetch-and-op (sum) latency (OSU osu_fop_latency)",
		Measures: "PE 0 runs an epoch of one windows.FetchAndOp(OpSum) on one --datatype element of PE 1 in a loop; mean time per epoch" + how,
		Run:      byDatatype(typed{winFop[int32], winFop[int64], winFop[uint32], winFop[uint64], winFop[float32], winFop[float64]}),
	})
	Register(Test{
		Name: "win_cas_latency", Kind: Latency,
		Summary:  "MPI window compare-and-swap latency (OSU osu_cas_latency)",
		Measures: "PE 0 runs an epoch of one windows.CompareAndSwap on one integer --datatype element of PE 1 in a loop; mean time per epoch" + how,
		Run:      byDatatype(typed{i32: winCas[int32], i64: winCas[int64], u32: winCas[uint32], u64: winCas[uint64]}),
	})
}

// winSetup reads the flavor and the mode of cfg.
func winSetup(cfg Config) (windows.Flavor, mpibench.SyncMode, error) {
	fl, mode := cfg.WinFlavor, cfg.Sync
	if fl == "" {
		fl = "allocate"
	}
	if mode == "" {
		mode = string(mpibench.SyncFlush)
	}
	f, err := windows.ParseFlavor(fl)
	if err != nil {
		return 0, "", err
	}
	m, err := mpibench.ParseSyncMode(mode)
	return f, m, err
}

// winStep is one window test's work at one size: every PE calls prepare,
// PE 0 runs epochs of ops (perEpoch operations each) while the other PEs
// serve theirs, then every PE calls check.
type winStep struct {
	prepare  func(k, size int) error
	ops      func(k, size, i int) error // the operations of PE 0's epoch i
	perEpoch int
	check    func(k, size int) error
}

// winSweep runs s at every size over bw in mode and returns PE 0's rows.
func winSweep(ctx context.Context, w *shmem.World, cfg Config, test string, kind Kind, bw *mpibench.Window,
	mode mpibench.SyncMode, sizes []int, s winStep) ([]Row, error) {
	pat, err := mpibench.NewPattern(bw.Win, mode, 0, 1)
	if err != nil {
		return nil, err
	}
	// epochs opens the pattern's epochs at one size, runs body and closes
	// them: the same on PE 0 and on the PEs serving it.
	epochs := func(body func() error) error {
		if err := pat.Open(); err != nil {
			return err
		}
		if err := body(); err != nil {
			return err
		}
		return pat.Close()
	}
	return sweep(ctx, w, cfg, test, sizes, step{prepare: s.prepare, check: s.check, serve: true,
		measure: func(k, size int) (r Row, err error) {
			iters, warm := cfg.loops(kind, size)
			err = epochs(func() error {
				st, err := cfg.measure(ctx, warm, iters, s.perEpoch, func(i int) error {
					return pat.Epoch(func() error { return s.ops(k, size, i) })
				})
				if kind == Bandwidth {
					r = bandwidthRow(size, st)
					r.Window = s.perEpoch
				} else {
					r = latencyRow(size, st)
				}
				return err
			})
			return r, err
		},
		partner: func(_, size int) error {
			iters, warm := cfg.loops(kind, size)
			return epochs(func() error {
				for range warm + iters {
					if err := pat.Serve(); err != nil {
						return err
					}
				}
				return nil
			})
		},
	})
}

// newWin makes the mpibench.Window of cfg's flavor with size bytes on every PE.
func newWin(w *shmem.World, cfg Config, size int) (*mpibench.Window, mpibench.SyncMode, error) {
	f, m, err := winSetup(cfg)
	if err != nil {
		return nil, "", err
	}
	bw, err := mpibench.NewWindow(w, f, size)
	return bw, m, err
}

// tagWin names the window flavor, the sync mode and the element type of
// the rows (and the accumulate's op, as OSU's tests use MPI_SUM).
func tagWin(rows []Row, cfg Config, dt, op string) []Row {
	f, m, _ := winSetup(cfg)
	for i := range rows {
		rows[i].WinFlavor, rows[i].Sync = f.String(), string(m)
		rows[i].Datatype, rows[i].Op = dt, op
	}
	return rows
}

// winRMA is the put or get test, latency (one op per epoch) or bandwidth
// (--window ops per epoch), on bytes.
func winRMA(test string, get, bandwidth bool) Func {
	return func(ctx context.Context, w *shmem.World, cfg Config) (rows []Row, err error) {
		sizes := cfg.Sizes(1)
		per, kind := 1, Latency
		if bandwidth {
			per, kind = cfg.Window, Bandwidth
		}
		maxSize := sizes[len(sizes)-1]
		bw, mode, err := newWin(w, cfg, per*maxSize)
		if err != nil {
			return nil, err
		}
		defer func() {
			if ferr := bw.Free(); err == nil && ferr != nil {
				err = ferr
			}
		}()
		// Only an allocate window's memory is the memory peers reach
		// (unified model); the others reconcile a public copy at epochs
		// the passive target does not open, so data is checked there only.
		flavor, _, _ := winSetup(cfg)
		checked := flavor == windows.FlavorAllocate || flavor == windows.FlavorShared
		local := private[byte](w, per*maxSize)
		disp := bw.Disp(1)
		s := winStep{perEpoch: per}
		s.prepare = func(k, size int) error {
			switch {
			case get && w.MyPE() == 1 && checked:
				fill(bw.Buf[:per*size], pattern[byte](k))
			case !get && w.MyPE() == 0:
				fill(local[:per*size], pattern[byte](k))
			}
			return nil
		}
		s.ops = func(_, size, _ int) error {
			for j := range per {
				var err error
				if get {
					err = windows.Get(bw.Win, local[j*size:j*size+size], 1, disp+j*size)
				} else {
					err = windows.Put(bw.Win, local[j*size:j*size+size], 1, disp+j*size)
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
		s.check = func(k, size int) error {
			switch {
			case !checked:
			case get && w.MyPE() == 0:
				return expect(test+" buffer", local[:per*size], pattern[byte](k))
			case !get && w.MyPE() == 1:
				return expect(test+" target", bw.Buf[:per*size], pattern[byte](k))
			}
			return nil
		}
		rows, err = winSweep(ctx, w, cfg, test, kind, bw, mode, sizes, s)
		return tagWin(rows, cfg, "bytes", ""), err
	}
}

func winAcc[T number](ctx context.Context, w *shmem.World, cfg Config) (rows []Row, err error) {
	esz := sizeOf[T]()
	sizes := cfg.Sizes(esz)
	maxSize := sizes[len(sizes)-1]
	bw, mode, err := newWin(w, cfg, maxSize)
	if err != nil {
		return nil, err
	}
	defer func() {
		if ferr := bw.Free(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	one := make([]T, maxSize/esz)
	fill(one, T(1))
	disp := bw.Disp(1)
	rows, err = winSweep(ctx, w, cfg, "win_acc_latency", Latency, bw, mode, sizes, winStep{
		perEpoch: 1,
		ops: func(_, size, _ int) error {
			return windows.Accumulate(bw.Win, one[:size/esz], 1, disp, compat.OpSum)
		},
	})
	return tagWin(rows, cfg, cfg.Datatype, "sum"), err
}

func winFop[T number](ctx context.Context, w *shmem.World, cfg Config) (rows []Row, err error) {
	esz := sizeOf[T]()
	bw, mode, err := newWin(w, cfg, esz)
	if err != nil {
		return nil, err
	}
	defer func() {
		if ferr := bw.Free(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	disp := bw.Disp(1)
	rows, err = winSweep(ctx, w, cfg, "win_fop_latency", Latency, bw, mode, []int{esz}, winStep{
		perEpoch: 1,
		ops: func(int, int, int) error {
			_, err := windows.FetchAndOp(bw.Win, T(1), 1, disp, compat.OpSum)
			return err
		},
	})
	return tagWin(rows, cfg, cfg.Datatype, "sum"), err
}

func winCas[T number](ctx context.Context, w *shmem.World, cfg Config) (rows []Row, err error) {
	esz := sizeOf[T]()
	bw, mode, err := newWin(w, cfg, esz)
	if err != nil {
		return nil, err
	}
	defer func() {
		if ferr := bw.Free(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	disp := bw.Disp(1)
	// Each call swaps the value the last one found for its successor:
	// after the first call every swap succeeds (PE 0 is the only writer).
	var next T
	swaps := 0
	rows, err = winSweep(ctx, w, cfg, "win_cas_latency", Latency, bw, mode, []int{esz}, winStep{
		perEpoch: 1,
		ops: func(int, int, int) error {
			old, err := windows.CompareAndSwap(bw.Win, next, next+1, 1, disp)
			if err != nil {
				return err
			}
			if old == next {
				swaps++
				next++
			} else {
				next = old
			}
			return nil
		},
	})
	if err == nil && w.MyPE() == 0 && swaps == 0 {
		err = fmt.Errorf("win_cas_latency: no compare-and-swap succeeded")
	}
	return tagWin(rows, cfg, cfg.Datatype, ""), err
}
