//go:build cuda

package gpu_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/shmem"
)

// childVar makes the test binary act as one PE of a process job:
// "suite" runs the correctness suite, "bench" the measurements.
const childVar = "GSHMEM_GPU_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childVar); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

func logf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}

// child is one PE of a process job started by gshmem's launcher.
func child(mode string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w, err := shmem.Init(ctx, shmem.WithDevice())
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		return 1
	}
	switch mode {
	case "suite":
		err = suite(w, logf)
	case "compat":
		err = compatSuite(w, logf)
	case "p2p":
		err = p2pSuite(w, logf)
	case "p2pbench":
		err = p2pBench(w, "processes"+mpsTag(), logf)
	case "compatbench":
		err = compatBench(w, "processes"+mpsTag(), logf)
	case "collbench":
		err = collBench(w, "processes"+mpsTag(), logf)
	case "bench":
		var res []result
		// Both PEs' kernels must be resident at once for the ping-pong:
		// under MPS on one GPU, or with one PE per GPU (GSHMEM_GPU_PINGPONG).
		pingpong := os.Getenv("GSHMEM_GPU_MPS") == "1" || os.Getenv("GSHMEM_GPU_PINGPONG") == "1"
		res, err = bench(w, "processes"+mpsTag(), pingpong, logf)
		if w.MyPE() == 0 {
			printTable(res)
		}
	default:
		err = fmt.Errorf("unknown child mode %q", mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "PE %d: %v\n", w.MyPE(), err)
		w.GlobalExit(1)
	}
	if err := w.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "finalize:", err)
		return 1
	}
	return 0
}

func mpsTag() string {
	if os.Getenv("GSHMEM_GPU_MPS") == "1" {
		return "+MPS"
	}
	return ""
}

func needGPU(t *testing.T) {
	t.Helper()
	if err := shmem.DeviceSupport(); err != nil {
		t.Skipf("no usable GPU here (%v): the GPU tests run on the GPU machine (test/gpu/run.sh)", err)
	}
}

func npes() []int {
	var ns []int
	for _, f := range strings.Split(os.Getenv("GSHMEM_GPU_NPES"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		ns = []int{2}
	}
	return ns
}

const suiteHeap = "64m"

// PEs as goroutines of this process, sharing the GPU's primary context.
func TestGPUSuiteInProcess(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) {
			t.Setenv("GSHMEM_SYMMETRIC_SIZE", suiteHeap)
			err := shmem.Run(n, func(w *shmem.World) error { return suite(w, logf) }, shmem.WithDevice())
			require.NoError(t, err)
		})
	}
}

// PEs as processes (gshmem's launcher), mapping each other's heaps by CUDA IPC.
func TestGPUSuiteProcesses(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) {
			runJob(t, n, "suite", suiteHeap)
		})
	}
}

func runJob(t *testing.T, n int, mode, heap string) {
	var out strings.Builder
	env := append(os.Environ(), childVar+"="+mode, "GSHMEM_SYMMETRIC_SIZE="+heap, "GSHMEM_HEAP=device")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	code, err := launcher.Run(ctx, launcher.Config{
		N: n, Argv: []string{os.Args[0]}, Env: env, TagOutput: true, Stdout: &out, Stderr: &out,
	})
	t.Log("\n" + out.String())
	fmt.Print(out.String())
	require.NoError(t, err)
	require.Equal(t, 0, code, "job exit code")
}

const benchHeap = "2200m"

// The measurements of issue 9, with 2 PEs in this process (no MPS needed:
// one context). Set GSHMEM_GPU_BENCH=1.
func TestGPUBenchInProcess(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_BENCH=1 to measure")
	}
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", benchHeap)
	var res []result
	err := shmem.Run(2, func(w *shmem.World) error {
		r, err := bench(w, "in-process"+mpsTag(), true, logf)
		if w.MyPE() == 0 {
			res = r
		}
		return err
	}, shmem.WithDevice())
	printTable(res)
	require.NoError(t, err)
}

// The same with 2 processes; the ping-pong runs only under MPS
// (GSHMEM_GPU_MPS=1), since without it the processes' kernels take turns on
// one GPU, or when each PE has a GPU of its own (GSHMEM_GPU_PINGPONG=1).
func TestGPUBenchProcesses(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_BENCH=1 to measure")
	}
	runJob(t, 2, "bench", benchHeap)
}
