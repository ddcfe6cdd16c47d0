package perf

import (
	"context"

	"github.com/gshmem/gshmem/shmem"
)

func init() {
	Register(Test{
		Name: "put_signal_latency", Kind: Latency, Sweep: true,
		Summary: "put-with-signal ping-pong over sizes",
		Measures: "PE 0 calls PutSignal(size bytes + signal set) to PE 1 and SignalWaitUntil on its own signal; PE 1 waits and answers alike; " +
			"latency is half the round trip (one-way), rtt_us the whole",
		Run: byDatatype(typed{putSignalLatency[int32], putSignalLatency[int64], putSignalLatency[uint32], putSignalLatency[uint64],
			putSignalLatency[float32], putSignalLatency[float64]}),
	})
	Register(Test{
		Name: "signal_latency", Kind: Latency,
		Summary: "signal ping-pong (SignalOpAt + SignalWaitUntil)",
		Measures: "PE 0 sets PE 1's signal word with SignalOpAt and SignalWaitUntil on its own; PE 1 waits and answers alike; " +
			"latency is half the round trip (one-way), rtt_us the whole",
		Run: signalLatency,
	})
}

// pingPong runs PE 0's side of a ping-pong at one size: send(v) to PE 1,
// then wait for v back. The round trip counts as two operations, so the
// row's latency is one way.
func pingPong(ctx context.Context, cfg Config, size int, base *uint64, send func(v uint64, pe int) error, wait func(v uint64) error) (Row, error) {
	iters, warm := cfg.loops(Latency, size)
	b := *base
	*base += uint64(iters + warm)
	st, err := cfg.measure(ctx, warm, iters, 2, func(i int) error {
		v := b + uint64(i) + 1
		if err := send(v, 1); err != nil {
			return err
		}
		return wait(v)
	})
	r := latencyRow(size, st)
	r.Extra = map[string]float64{"rtt_us": 2 * r.LatencyUS}
	return r, err
}

// pongs is PE 1's side: wait for each value, send it back to PE 0.
func pongs(cfg Config, size int, base *uint64, send func(v uint64, pe int) error, wait func(v uint64) error) error {
	iters, warm := cfg.loops(Latency, size)
	b := *base
	*base += uint64(iters + warm)
	for i := range iters + warm {
		v := b + uint64(i) + 1
		if err := wait(v); err != nil {
			return err
		}
		if err := send(v, 0); err != nil {
			return err
		}
	}
	return nil
}

func putSignalLatency[T number](ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz := sizeOf[T]()
	sizes := cfg.Sizes(esz)
	dst, err := shmem.Alloc[T](w, sizes[len(sizes)-1]/esz)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	sig, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(sig)
	src := make([]T, dst.Len())
	var base uint64
	var n int
	send := func(v uint64, pe int) error { return shmem.PutSignal(dst, src[:n], sig, v, shmem.SignalSet, pe) }
	wait := func(v uint64) error { _, err := shmem.SignalWaitUntil(sig, shmem.CmpGE, v); return err }
	return sweep(ctx, w, cfg, "put_signal_latency", sizes, step{
		prepare: func(k, size int) error { n = size / esz; fill(src[:n], pattern[T](k)); return nil },
		measure: func(_, size int) (Row, error) { return pingPong(ctx, cfg, size, &base, send, wait) },
		partner: func(_, size int) error { return pongs(cfg, size, &base, send, wait) },
		check: func(k, size int) error {
			if w.MyPE() > 1 {
				return nil
			}
			return expect("put_signal target", dst.Local()[:size/esz], pattern[T](k))
		},
	})
}

func signalLatency(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	sig, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(sig)
	var base uint64
	send := func(v uint64, pe int) error { return shmem.SignalOpAt(sig, v, shmem.SignalSet, pe) }
	wait := func(v uint64) error { _, err := shmem.SignalWaitUntil(sig, shmem.CmpGE, v); return err }
	rows, err := sweep(ctx, w, cfg, "signal_latency", []int{8}, step{
		measure: func(_, size int) (Row, error) { return pingPong(ctx, cfg, size, &base, send, wait) },
		partner: func(_, size int) error { return pongs(cfg, size, &base, send, wait) },
	})
	for i := range rows {
		rows[i].Datatype = "uint64"
	}
	return rows, err
}
