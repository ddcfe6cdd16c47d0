//go:build cuda

package gpu_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// The Go API's side of the C ABI's stream figures (test/gpu/run.sh cabi,
// compat/abi/testdata/gshmem_stream.c perf): the same two measurements in
// the same shape, with streams.CUDAStream: an on-stream put of 8 B (events
// around 1000 puts and a quiet; host wall over bursts of 100 put+quiet)
// and a put-with-signal ping-pong of 8 B on the two PEs' streams, one way.
// Set GSHMEM_GPU_CABI=1; it runs as 2 processes (under MPS in run.sh).

const cabiChildVar = "GSHMEM_GPU_CABI_CHILD"

func init() {
	// A PE of TestGPUStreamFiguresProcesses' job; TestMain's child modes
	// are gpu_test.go's.
	if os.Getenv(cabiChildVar) == "1" {
		os.Exit(cabiChild())
	}
}

func TestGPUStreamFiguresProcesses(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_CABI") != "1" {
		t.Skip("set GSHMEM_GPU_CABI=1 to measure")
	}
	var out strings.Builder
	env := append(os.Environ(), cabiChildVar+"=1", "GSHMEM_SYMMETRIC_SIZE=64m", "GSHMEM_HEAP=device")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, err := launcher.Run(ctx, launcher.Config{
		N: 2, Argv: []string{os.Args[0]}, Env: env, TagOutput: true, Stdout: &out, Stderr: &out,
	})
	fmt.Print(out.String())
	require.NoError(t, err)
	require.Equal(t, 0, code, "job exit code")
}

func cabiChild() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := shmem.Init(ctx, shmem.WithDevice())
	if err == nil {
		err = streamFigures(w)
		if err != nil {
			fmt.Fprintf(os.Stderr, "PE %d: %v\n", w.MyPE(), err)
			w.GlobalExit(1)
		}
		err = w.Finalize()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func streamFigures(w *shmem.World) error {
	me := w.MyPE()
	dst, err := shmem.Calloc[byte](w, 64)
	if err != nil {
		return err
	}
	src, err := shmem.Calloc[byte](w, 64)
	if err != nil {
		return err
	}
	sig, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return err
	}
	st, err := streams.NewCUDAStream(w)
	if err != nil {
		return err
	}
	defer st.Close()
	a, err := st.NewCUDAEvent()
	if err != nil {
		return err
	}
	b, err := st.NewCUDAEvent()
	if err != nil {
		return err
	}
	timed := func(body func() error) (float64, error) {
		if err := st.Record(a); err != nil {
			return 0, err
		}
		if err := body(); err != nil {
			return 0, err
		}
		if err := st.Record(b); err != nil {
			return 0, err
		}
		if err := b.Synchronize(); err != nil {
			return 0, err
		}
		return streams.ElapsedMs(a, b)
	}
	d8, s8 := dst.Slice(0, 8), src.Slice(0, 8)
	if err := w.BarrierAll(); err != nil {
		return err
	}
	if me == 0 {
		if err := streams.PutOnCUDAStream(st, d8, s8, 1); err != nil {
			return err
		}
		if err := st.Synchronize(); err != nil {
			return err
		}
		ms, err := timed(func() error {
			for range 1000 {
				if err := streams.PutOnCUDAStream(st, d8, s8, 1); err != nil {
					return err
				}
			}
			return st.Quiet()
		})
		if err != nil {
			return err
		}
		fmt.Printf("BENCH go PutOnCUDAStream 8 B (events, 1000 puts): %.2f us/op\n", ms*1e3/1000)
		t0 := time.Now()
		for range 20 {
			for range 100 {
				if err := streams.PutOnCUDAStream(st, d8, s8, 1); err != nil {
					return err
				}
				if err := st.Quiet(); err != nil {
					return err
				}
			}
			if err := st.Synchronize(); err != nil {
				return err
			}
		}
		fmt.Printf("BENCH go PutOnCUDAStream 8 B (host wall, bursts of 100 put+quiet): %.2f us/op\n", time.Since(t0).Seconds()*1e6/2000)
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	const iters = 1000
	for round := range 2 {
		if err := shmem.P(sig, 0, me); err != nil {
			return err
		}
		if err := w.Quiet(); err != nil {
			return err
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		t0 := time.Now()
		ms, err := timed(func() error {
			for i := uint64(1); i <= iters; i++ {
				switch me {
				case 0:
					if err := streams.PutSignalOnCUDAStream(st, d8, s8, sig, i, shmem.SignalSet, 1); err != nil {
						return err
					}
					if err := st.WaitUntil(sig, shmem.CmpGE, i); err != nil {
						return err
					}
				case 1:
					if err := st.WaitUntil(sig, shmem.CmpGE, i); err != nil {
						return err
					}
					if err := streams.PutSignalOnCUDAStream(st, d8, s8, sig, i, shmem.SignalSet, 0); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		wall := time.Since(t0).Seconds() * 1e6
		if me == 0 && round == 1 { // the first round warms up
			fmt.Printf("BENCH go PutSignalOnCUDAStream ping-pong 8 B one way (%d round trips): %.2f us (events), %.2f us (host wall)\n",
				iters, ms*1e3/iters/2, wall/iters/2)
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
	}
	return nil
}
