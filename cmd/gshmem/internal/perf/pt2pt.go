package perf

import (
	"context"

	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/shmem"
)

// The MPI point-to-point and collective tests of the compat layer (issue
// 6), in OSU's shapes: every PE makes a mpibench.Bench (an MPI Env over the
// World) and runs each iteration; PE 0 reports.
func init() {
	Register(Test{
		Name: "pt2pt_latency", Kind: Latency, Sweep: true,
		Summary: "MPI Send/Recv ping-pong latency over sizes (OSU osu_latency)",
		Measures: "rank 0 Sends size bytes to rank 1 and Recvs them back (compat.Send/Recv, Go-allocated buffer as osu_latency's malloc), in a loop; " +
			"latency is half the round trip (one-way), rtt_us the whole",
		Run: pt2ptLatency,
	})
	Register(Test{
		Name: "pt2pt_bw", Kind: Bandwidth, Sweep: true,
		Summary: "MPI Isend/Irecv bandwidth over sizes (OSU osu_bw)",
		Measures: "rank 0 posts --window Isends of size bytes to rank 1 (which posts as many Irecvs), Waitall, then a 4-byte ack back, in a loop; " +
			"bytes moved / time",
		Run: pt2ptBW,
	})
	Register(Test{
		Name: "mpi_allreduce", Kind: Latency, MinPEs: 1, Sweep: true,
		Summary:  "MPI Allreduce latency over sizes (OSU osu_allreduce), float64 sum",
		Measures: "every rank calls compat.Allreduce(size bytes of float64, OpSum) in a loop; PE 0's mean time per call",
		Run:      mpiAllreduce,
	})
	Register(Test{
		Name: "mpi_barrier", Kind: Latency, MinPEs: 1,
		Summary:  "MPI Barrier latency (OSU osu_barrier)",
		Measures: "every rank calls compat's Comm.Barrier on MPI_COMM_WORLD in a loop; PE 0's mean time per call (size 0)",
		Run:      mpiBarrier,
	})
}

// withBench runs body with a mpibench.Bench of maxSize bytes and closes it.
func withBench(w *shmem.World, maxSize int, body func(b *mpibench.Bench) ([]Row, error)) (rows []Row, err error) {
	b, err := mpibench.NewBench(w, maxSize, false)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := b.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	return body(b)
}

// everyPE runs measure(kind) of body on every PE at every size and returns
// PE 0's rows.
func everyPE(ctx context.Context, w *shmem.World, cfg Config, test string, kind Kind, sizes []int, opsPerIter int,
	body func(size int) error, row func(size int, st stats) Row) ([]Row, error) {
	return sweep(ctx, w, cfg, test, sizes, step{every: true,
		measure: func(_, size int) (Row, error) {
			iters, warm := cfg.loops(kind, size)
			st, err := cfg.measure(ctx, warm, iters, opsPerIter, func(int) error { return body(size) })
			return row(size, st), err
		},
	})
}

func pt2ptLatency(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	sizes := cfg.Sizes(1)
	return withBench(w, sizes[len(sizes)-1], func(b *mpibench.Bench) ([]Row, error) {
		return everyPE(ctx, w, cfg, "pt2pt_latency", Latency, sizes, 2, b.PingPong, func(size int, st stats) Row {
			r := latencyRow(size, st)
			r.Extra = map[string]float64{"rtt_us": 2 * r.LatencyUS}
			return r
		})
	})
}

func pt2ptBW(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	sizes, win := cfg.Sizes(1), cfg.Window
	return withBench(w, sizes[len(sizes)-1], func(b *mpibench.Bench) ([]Row, error) {
		return everyPE(ctx, w, cfg, "pt2pt_bw", Bandwidth, sizes, win, func(size int) error { return b.Window(size, win) },
			func(size int, st stats) Row {
				r := bandwidthRow(size, st)
				r.Window = win
				return r
			})
	})
}

func mpiAllreduce(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	sizes := cfg.Sizes(8)
	return withBench(w, 8, func(b *mpibench.Bench) ([]Row, error) {
		rows, err := everyPE(ctx, w, cfg, "mpi_allreduce", Latency, sizes, 1, func(size int) error { return b.Allreduce(size / 8) },
			func(size int, st stats) Row {
				r := latencyRow(size, st)
				r.Datatype, r.Op = "float64", "sum"
				return r
			})
		return rows, err
	})
}

// mpiBarrier is osu_barrier through compat, beside the team barrier of the
// barrier test: what the MPI layer adds (checks, progress owed) to it.
func mpiBarrier(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	return withBench(w, 0, func(b *mpibench.Bench) ([]Row, error) {
		return everyPE(ctx, w, cfg, "mpi_barrier", Latency, []int{0}, 1, func(int) error { return b.Comm.Barrier() }, latencyRow)
	})
}
