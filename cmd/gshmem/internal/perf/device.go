package perf

import (
	"context"
	"time"

	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// The stream and kernel tests (issue 8): the on-stream and kernel-issued
// forms of a put, each beside the host form measured in the same run, so
// that the row carries what the stream or the kernel adds.
func init() {
	Register(Test{
		Name: "put_on_stream_latency", Kind: Latency, Sweep: true,
		Summary: "on-stream put latency over sizes, beside the host put (NVSHMEM put latency on stream)",
		Measures: "PE 0 enqueues PutOnStream(size bytes to PE 1) + QuietOnStream in a loop on one stream, Synchronize after each burst of up to 100 " +
			"(pipelined: the stream's per-op cost); mean time per put+quiet. In the same run the host Put+Quiet loop: host_latency_us, " +
			"stream_overhead_us (stream - host) and stream_overhead_ratio (stream / host)",
		Run: putOnStreamLatency,
	})
	Register(Test{
		Name: "kernel_put_bw", Kind: Bandwidth, Sweep: true,
		Summary: "kernel-issued block put bandwidth over sizes, beside the host put (NVSHMEM put_bw, block scope)",
		Measures: "PE 0 launches one kernel of one 32-thread block (kernels.Launch) whose threads issue --window block-scope PutNBI of size bytes " +
			"to distinct offsets of PE 1 and a block Quiet, for every iteration, timed inside the kernel; bytes moved / time. In the same run the host " +
			"PutNBI window + Quiet loop: host_bandwidth_gbps and kernel_vs_host (kernel / host bandwidth)",
		Run: kernelPutBW,
	})
}

func putOnStreamLatency(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	sizes := cfg.Sizes(1)
	dst, err := shmem.Alloc[byte](w, sizes[len(sizes)-1])
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	src := private[byte](w, dst.Len())
	var s *streams.Stream
	if w.MyPE() == 0 {
		if s, err = streams.New(w); err != nil {
			return nil, err
		}
		defer s.Close()
	}
	return sweep(ctx, w, cfg, "put_on_stream_latency", sizes, step{
		prepare: func(k, size int) error { fill(src[:min(size, len(src))], pattern[byte](k)); return nil },
		measure: func(k, size int) (Row, error) {
			d, sb := dst.Slice(0, size), src[:size]
			iters, warm := cfg.loops(Latency, size)
			host, err := cfg.measure(ctx, warm, iters, 1, func(int) error {
				if err := shmem.Put(d, sb, 1); err != nil {
					return err
				}
				return w.Quiet()
			})
			if err != nil {
				return Row{}, err
			}
			burst := max(1, min(100, iters/16))
			st, err := cfg.measure(ctx, max(1, warm/burst), max(1, iters/burst), burst, func(int) error {
				for range burst {
					streams.PutOnStream(s, d, sb, 1)
					streams.QuietOnStream(s)
				}
				return s.Synchronize()
			})
			r := latencyRow(size, st)
			h := host.perOp() * 1e6
			r.Extra = map[string]float64{"host_latency_us": h, "stream_overhead_us": r.LatencyUS - h, "stream_overhead_ratio": r.LatencyUS / h}
			return r, err
		},
		check: func(k, size int) error {
			if w.MyPE() != 1 {
				return nil
			}
			return expect("put_on_stream target", dst.Local()[:size], pattern[byte](k))
		},
	})
}

// kernelThreads is the block size of kernel_put_bw: a warp.
const kernelThreads = 32

func kernelPutBW(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	sizes, win := cfg.Sizes(1), cfg.Window
	dst, err := shmem.Alloc[byte](w, win*sizes[len(sizes)-1])
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	src := private[byte](w, dst.Len())
	return sweep(ctx, w, cfg, "kernel_put_bw", sizes, step{
		prepare: func(k, size int) error { fill(src[:min(win*size, len(src))], pattern[byte](k)); return nil },
		measure: func(k, size int) (Row, error) {
			iters, warm := cfg.loops(Bandwidth, size)
			host, err := cfg.measure(ctx, warm, iters, win, func(int) error {
				for j := range win {
					if err := shmem.PutNBI(dst.Slice(j*size, j*size+size), src[j*size:j*size+size], 1); err != nil {
						return err
					}
				}
				return w.Quiet()
			})
			if err != nil {
				return Row{}, err
			}
			var elapsed time.Duration
			err = kernels.Launch(kernels.Dim(1), kernels.Dim(kernelThreads), func(t *kernels.Thread) {
				window := func() {
					for j := range win {
						kernels.PutNBI(t.Block(), dst.Slice(j*size, j*size+size), src[j*size:j*size+size], 1)
					}
					kernels.Quiet(t.Block())
				}
				for range warm {
					window()
				}
				t.SyncThreads()
				start := time.Now()
				for range iters {
					window()
				}
				t.SyncThreads()
				if t.ThreadRank() == 0 {
					elapsed = time.Since(start)
				}
			}, kernels.WithWorld(w))
			if err != nil {
				return Row{}, err
			}
			per := elapsed.Seconds() / float64(iters*win)
			st := stats{ops: iters * win, total: elapsed, batchs: []float64{per}}
			r := bandwidthRow(size, st)
			r.Window = win
			hb := float64(size) / host.perOp() / 1e9
			r.Extra = map[string]float64{"host_bandwidth_gbps": hb, "kernel_vs_host": r.BandwidthGBps / hb,
				"threads": kernelThreads}
			return r, nil
		},
		check: func(k, size int) error {
			if w.MyPE() != 1 {
				return nil
			}
			return expect("kernel_put_bw target", dst.Local()[:win*size], pattern[byte](k))
		},
	})
}
