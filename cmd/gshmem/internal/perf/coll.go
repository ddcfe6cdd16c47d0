package perf

import (
	"context"
	"fmt"
	"strings"

	"github.com/gshmem/gshmem/shmem"
)

// ReduceOps are the --op values of the reduction test.
var ReduceOps = []string{"sum", "prod", "min", "max", "and", "or", "xor"}

var reduceOpByName = map[string]shmem.ReduceOp{
	"sum": shmem.ReduceSum, "prod": shmem.ReduceProd, "min": shmem.ReduceMin, "max": shmem.ReduceMax,
	"and": shmem.ReduceAnd, "or": shmem.ReduceOr, "xor": shmem.ReduceXor,
}

// The collective tests (issue 3), under NVSHMEM's perftest names: every PE
// runs the timed loop of the collective over TeamWorld, PE 0 reports its
// own mean time per call (OSU reports the mean over the ranks).
func init() {
	Register(Test{
		Name: "barrier", Kind: Latency, MinPEs: 1,
		Summary:  "team barrier latency (NVSHMEM barrier_latency; OSU osu_barrier)",
		Measures: "every PE calls TeamWorld().Barrier in a loop; PE 0's mean time per barrier (size 0)",
		Run:      barrierLatency,
	})
	Register(Test{
		Name: "reduction", Kind: Latency, MinPEs: 1, Sweep: true, DefaultOp: "sum",
		Summary: "all-reduce latency over sizes (NVSHMEM reduction_latency; OSU osu_allreduce)",
		Measures: "every PE calls shmem.Reduce(TeamWorld, --op, size bytes of --datatype) in a loop; PE 0's mean time per call. " +
			"Ops: " + strings.Join(ReduceOps, ", ") + " (and, or, xor on integers only)",
		Run: byDatatype(typed{reduction[int32], reduction[int64], reduction[uint32], reduction[uint64], reduction[float32], reduction[float64]}),
	})
	Register(Test{
		Name: "broadcast", Kind: Latency, MinPEs: 1, Sweep: true,
		Summary:  "broadcast latency over sizes (NVSHMEM broadcast_latency; OSU osu_bcast)",
		Measures: "every PE calls shmem.Broadcast(TeamWorld, size bytes, root 0) in a loop; PE 0's mean time per call",
		Run:      byDatatype(typed{broadcast[int32], broadcast[int64], broadcast[uint32], broadcast[uint64], broadcast[float32], broadcast[float64]}),
	})
	Register(Test{
		Name: "fcollect", Kind: Latency, MinPEs: 1, Sweep: true,
		Summary:  "allgather latency over sizes (NVSHMEM fcollect_latency; OSU osu_allgather)",
		Measures: "every PE calls shmem.FCollect(TeamWorld, size bytes from each PE) in a loop; PE 0's mean time per call; size is one PE's block",
		Run:      byDatatype(typed{fcollect[int32], fcollect[int64], fcollect[uint32], fcollect[uint64], fcollect[float32], fcollect[float64]}),
	})
	Register(Test{
		Name: "alltoall", Kind: Latency, MinPEs: 1, Sweep: true,
		Summary:  "all-to-all latency over sizes (NVSHMEM alltoall_latency; OSU osu_alltoall)",
		Measures: "every PE calls shmem.Alltoall(TeamWorld, blocks of size bytes) in a loop; PE 0's mean time per call; size is one block (as osu_alltoall -m)",
		Run:      byDatatype(typed{alltoall[int32], alltoall[int64], alltoall[uint32], alltoall[uint64], alltoall[float32], alltoall[float64]}),
	})
}

// collStep is one collective test's work at one size: every PE calls
// prepare, all meet in a barrier, every PE times op in a loop, all meet
// again and every PE calls check.
type collStep struct {
	prepare func(k, size int) error
	op      func(k, size int) error
	check   func(k, size int) error
}

// collSweep runs s at every size on every PE and returns PE 0's rows.
func collSweep(ctx context.Context, w *shmem.World, cfg Config, test string, sizes []int, s collStep) ([]Row, error) {
	return sweep(ctx, w, cfg, test, sizes, step{prepare: s.prepare, check: s.check, every: true,
		measure: func(k, size int) (Row, error) {
			iters, warm := cfg.loops(Latency, size)
			st, err := cfg.measure(ctx, warm, iters, 1, func(int) error { return s.op(k, size) })
			return latencyRow(size, st), err
		},
	})
}

func barrierLatency(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	team := w.TeamWorld()
	return collSweep(ctx, w, cfg, "barrier", []int{0}, collStep{
		op: func(int, int) error { return team.Barrier() },
	})
}

func reduction[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	op, ok := reduceOpByName[cfg.Op]
	if !ok {
		return nil, fmt.Errorf("reduction op %q: want one of %s", cfg.Op, strings.Join(ReduceOps, ", "))
	}
	switch any(T(0)).(type) {
	case float32, float64:
		if op >= shmem.ReduceAnd {
			return nil, fmt.Errorf("reduction op %s needs an integer --datatype, not %s", cfg.Op, cfg.Datatype)
		}
	}
	esz := sizeOf[T]()
	src, dst, sizes, release, err := collBuffers[T](w, cfg, 1, 1)
	if err != nil {
		return nil, err
	}
	defer release()
	team, np := w.TeamWorld(), w.NPEs()
	rows, err := collSweep(ctx, w, cfg, "reduction", sizes, collStep{
		prepare: func(k, size int) error { fill(src.Local()[:size/esz], pattern[T](k)); return nil },
		op:      func(_, size int) error { return shmem.Reduce(team, op, dst, src, size/esz) },
		check: func(k, size int) error {
			p := pattern[T](k)
			want := p
			switch op {
			case shmem.ReduceSum:
				want = T(np) * p
			case shmem.ReduceProd:
				want = 1
				for range np {
					want *= p
				}
			case shmem.ReduceXor:
				if np%2 == 0 {
					want = 0
				}
			}
			return expect("reduction result", dst.Local()[:size/esz], want)
		},
	})
	for i := range rows {
		rows[i].Op = cfg.Op
	}
	return rows, err
}

func broadcast[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz := sizeOf[T]()
	src, dst, sizes, release, err := collBuffers[T](w, cfg, 1, 1)
	if err != nil {
		return nil, err
	}
	defer release()
	team := w.TeamWorld()
	return collSweep(ctx, w, cfg, "broadcast", sizes, collStep{
		prepare: func(k, size int) error {
			if w.MyPE() == 0 {
				fill(src.Local()[:size/esz], pattern[T](k))
			}
			return nil
		},
		op:    func(_, size int) error { return shmem.Broadcast(team, dst, src, size/esz, 0) },
		check: func(k, size int) error { return expect("broadcast target", dst.Local()[:size/esz], pattern[T](k)) },
	})
}

// collBuffers allocates a collective's source and destination for the
// largest of cfg's sizes, srcParts and dstParts PE-sized parts each;
// release frees both (collectively, as Free is).
func collBuffers[T number](w *shmem.World, cfg Config, srcParts, dstParts int) (src, dst shmem.Sym[T], sizes []int, release func(), err error) {
	esz := sizeOf[T]()
	sizes = cfg.Sizes(esz)
	maxN := sizes[len(sizes)-1] / esz
	if src, err = shmem.Alloc[T](w, maxN*srcParts); err != nil {
		return
	}
	if dst, err = shmem.Alloc[T](w, maxN*dstParts); err != nil {
		_ = shmem.Free(src)
		return
	}
	return src, dst, sizes, func() { _ = shmem.Free(dst); _ = shmem.Free(src) }, nil
}

// blockValue is the value of block to of from's source at the k-th size.
func blockValue[T number](k, from, to int) T { return T((k*7+from*3+to)%100 + 1) }

func fcollect[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz, np, me := sizeOf[T](), w.NPEs(), w.MyPE()
	src, dst, sizes, release, err := collBuffers[T](w, cfg, 1, np)
	if err != nil {
		return nil, err
	}
	defer release()
	team := w.TeamWorld()
	return collSweep(ctx, w, cfg, "fcollect", sizes, collStep{
		prepare: func(k, size int) error { fill(src.Local()[:size/esz], blockValue[T](k, me, 0)); return nil },
		op:      func(_, size int) error { return shmem.FCollect(team, dst, src, size/esz) },
		check: func(k, size int) error {
			n := size / esz
			for i := range np {
				if err := expect(fmt.Sprintf("fcollect block %d", i), dst.Local()[i*n:i*n+n], blockValue[T](k, i, 0)); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

func alltoall[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz, np, me := sizeOf[T](), w.NPEs(), w.MyPE()
	src, dst, sizes, release, err := collBuffers[T](w, cfg, np, np)
	if err != nil {
		return nil, err
	}
	defer release()
	team := w.TeamWorld()
	return collSweep(ctx, w, cfg, "alltoall", sizes, collStep{
		prepare: func(k, size int) error {
			n := size / esz
			for j := range np {
				fill(src.Local()[j*n:j*n+n], blockValue[T](k, me, j))
			}
			return nil
		},
		op: func(_, size int) error { return shmem.Alltoall(team, dst, src, size/esz) },
		check: func(k, size int) error {
			n := size / esz
			for i := range np {
				if err := expect(fmt.Sprintf("alltoall block from PE %d", i), dst.Local()[i*n:i*n+n], blockValue[T](k, i, me)); err != nil {
					return err
				}
			}
			return nil
		},
	})
}
