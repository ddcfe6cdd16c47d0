package perf

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gshmem/gshmem/shmem"
)

// AtomicOps are the --op values of the atomic tests, in NVSHMEM's names.
// Every op runs on the integer datatypes; fetch, set and swap also on the
// floats. "all" runs each op the datatype supports, one row apiece.
var AtomicOps = []string{"fetch", "set", "swap", "compare_swap", "inc", "fetch_inc",
	"add", "fetch_add", "and", "fetch_and", "or", "fetch_or", "xor", "fetch_xor"}

func init() {
	Register(Test{
		Name: "atomic_latency", Kind: Latency, DefaultOp: "fetch_add",
		Summary: "remote atomic latency, every AMO via --op",
		Measures: "PE 0 runs the atomic --op on one --datatype word of PE 1 in a loop (non-fetching ops followed by Quiet); " +
			"mean time per op (OSU osu_fop_latency / osu_cas_latency / osu_acc_latency with flush)",
		Run: byDatatype(typed{atomicLatency[int32], atomicLatency[int64], atomicLatency[uint32], atomicLatency[uint64],
			floatAtomicLatency[float32], floatAtomicLatency[float64]}),
	})
	Register(Test{
		Name: "atomic_bw", Kind: Bandwidth, DefaultOp: "add",
		Summary:  "remote atomic rate: windows of atomics then Quiet",
		Measures: "PE 0 issues --window atomics --op on one word of PE 1, then Quiet, in a loop; operations per second (and their bytes)",
		Run: byDatatype(typed{atomicBW[int32], atomicBW[int64], atomicBW[uint32], atomicBW[uint64],
			floatAtomicBW[float32], floatAtomicBW[float64]}),
	})
}

// amo is one atomic operation on word t of PE pe; i numbers the call so
// that values change; a compare-and-swap that counts up from zero succeeds
// every time when it is the only writer.
type amo[T number] struct {
	fetching bool
	do       func(t shmem.Sym[T], i, pe int) error
}

// The element types of the atomic tests: floats take fetch, set and swap,
// integers every op.
type (
	atomicNumber interface {
		shmem.Atomic
		number
	}
	intNumber interface {
		shmem.Integer
		number
	}
	floatNumber interface {
		~float32 | ~float64
		number
	}
)

func floatOps[T atomicNumber]() map[string]amo[T] {
	return map[string]amo[T]{
		"fetch": {true, func(t shmem.Sym[T], _, pe int) error { _, err := shmem.Load(t, pe); return err }},
		"set":   {false, func(t shmem.Sym[T], i, pe int) error { return shmem.Store(t, T(i), pe) }},
		"swap":  {true, func(t shmem.Sym[T], i, pe int) error { _, err := shmem.Swap(t, T(i), pe); return err }},
	}
}

func intOps[T intNumber]() map[string]amo[T] {
	m := floatOps[T]()
	fetch := func(f func(shmem.Sym[T], T, int) (T, error), v T) amo[T] {
		return amo[T]{true, func(t shmem.Sym[T], _, pe int) error { _, err := f(t, v, pe); return err }}
	}
	plain := func(f func(shmem.Sym[T], T, int) error, v T) amo[T] {
		return amo[T]{false, func(t shmem.Sym[T], _, pe int) error { return f(t, v, pe) }}
	}
	m["compare_swap"] = amo[T]{true, func(t shmem.Sym[T], i, pe int) error {
		old, err := shmem.CompareAndSwap(t, T(i), T(i+1), pe)
		if err == nil && old != T(i) {
			err = fmt.Errorf("compare_swap found %v, want %v", old, T(i))
		}
		return err
	}}
	m["inc"] = amo[T]{false, func(t shmem.Sym[T], _, pe int) error { return shmem.Inc(t, pe) }}
	m["fetch_inc"] = amo[T]{true, func(t shmem.Sym[T], _, pe int) error { _, err := shmem.FetchInc(t, pe); return err }}
	m["add"] = plain(shmem.Add[T], 1)
	m["fetch_add"] = fetch(shmem.FetchAdd[T], 1)
	m["and"] = plain(shmem.And[T], ^T(0))
	m["fetch_and"] = fetch(shmem.FetchAnd[T], ^T(0))
	m["or"] = plain(shmem.Or[T], 0)
	m["fetch_or"] = fetch(shmem.FetchOr[T], 0)
	m["xor"] = plain(shmem.Xor[T], 1)
	m["fetch_xor"] = fetch(shmem.FetchXor[T], 1)
	return m
}

// opList resolves --op against the ops a datatype supports.
func opList[T number](op string, ops map[string]amo[T], dt string) ([]string, error) {
	if op == "all" {
		var out []string
		for _, o := range AtomicOps {
			if _, ok := ops[o]; ok {
				out = append(out, o)
			}
		}
		return out, nil
	}
	if _, ok := ops[op]; ok {
		return []string{op}, nil
	}
	if slices.Contains(AtomicOps, op) {
		return nil, fmt.Errorf("op %s is not defined on %s (floats take fetch, set and swap)", op, dt)
	}
	return nil, fmt.Errorf("op %q: want all or one of %s", op, strings.Join(AtomicOps, ", "))
}

func atomicLatency[T intNumber](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	return runAtomic(ctx, w, cfg, "atomic_latency", intOps[T](), 1)
}

func floatAtomicLatency[T floatNumber](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	return runAtomic(ctx, w, cfg, "atomic_latency", floatOps[T](), 1)
}

func atomicBW[T intNumber](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	return runAtomic(ctx, w, cfg, "atomic_bw", intOps[T](), cfg.Window)
}

func floatAtomicBW[T floatNumber](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	return runAtomic(ctx, w, cfg, "atomic_bw", floatOps[T](), cfg.Window)
}

// runAtomic measures each requested op. window 1 is the latency test (a
// non-fetching op is followed by Quiet); a larger window issues that many
// ops and then one Quiet, and reports the rate.
func runAtomic[T number](ctx context.Context, w *shmem.World, cfg Config, test string, ops map[string]amo[T], window int) ([]Row, error) {
	names, err := opList(cfg.Op, ops, cfg.Datatype)
	if err != nil {
		return nil, err
	}
	target, err := shmem.Calloc[T](w, 1)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(target)
	esz := sizeOf[T]()
	var rows []Row
	for k, name := range names {
		op := ops[name]
		r, err := sweep(ctx, w, cfg, test, []int{esz}, step{
			prepare: func(int, int) error {
				if w.MyPE() == 1 {
					return shmem.Store(target, 0, 1)
				}
				return nil
			},
			measure: func(_, size int) (Row, error) {
				kind := Latency
				if window > 1 {
					kind = Bandwidth
				}
				iters, warm := cfg.loops(kind, size)
				var st stats
				var err error
				if window == 1 {
					st, err = cfg.measure(ctx, warm, iters, 1, func(i int) error {
						if err := op.do(target, i, 1); err != nil || op.fetching {
							return err
						}
						return w.Quiet()
					})
				} else {
					st, err = cfg.measure(ctx, warm, iters, window, func(i int) error {
						for j := range window {
							if err := op.do(target, i*window+j, 1); err != nil {
								return err
							}
						}
						return w.Quiet()
					})
				}
				var row Row
				if window == 1 {
					row = latencyRow(size, st)
				} else {
					row = bandwidthRow(size, st)
					row.Window = window
				}
				row.Op = name
				return row, err
			},
		})
		if err != nil {
			return nil, fmt.Errorf("op %s (%d of %d): %w", name, k+1, len(names), err)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
