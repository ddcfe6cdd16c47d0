package main

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// The test binary doubles as the jacobi command, so that the launcher can
// start it as PEs without a separate build.
const asMain = "JACOBI_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stageNumbers returns the stages written so far, in order.
func stageNumbers() []int {
	var ns []int
	for s := range stages {
		ns = append(ns, s)
	}
	slices.Sort(ns)
	return ns
}

// TestStagesAgree runs stages 1 and 2 (with both stage 2 synchronizations)
// on the same grid, on 4 PEs as goroutines and as processes, and checks each
// against the sequential solver.
func TestStagesAgree(t *testing.T) {
	p := Problem{N: 67, Iters: 60}
	want, err := Solve(p)
	require.NoError(t, err)
	require.NotZero(t, want.Residual)
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		for _, s := range []int{1, 2} { // 3 and 4: stage34_test.go and TestCommandLine
			for _, sync := range []string{"fence", "pscw"} {
				if s != 2 && sync == "pscw" {
					continue
				}
				got, err := Run(env.CommWorld(), s, p, Options{Sync: sync})
				require.NoError(t, err, "stage %d %s", s, sync)
				require.Equal(t, want.Line(s), got.Line(s), "stage %d (%s)", s, sync)
			}
		}
		_, err = Run(env.CommWorld(), 7, p, Options{})
		require.Error(t, err)
		require.NoError(t, env.Finalize())
	})
}

// TestUnevenBlocks: more PEs than divide the rows, down to one row each.
func TestUnevenBlocks(t *testing.T) {
	p := Problem{N: 9, Iters: 25}
	want, _ := Solve(p)
	petest.RunConfig(t, petest.Config{N: 7, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		for _, s := range []int{1, 2} {
			got, err := Run(env.CommWorld(), s, p, Options{Sync: "pscw"})
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
		_, err = Run(env.CommWorld(), 1, Problem{N: 5, Iters: 1}, Options{})
		require.Error(t, err, "more PEs than interior rows")
		require.NoError(t, env.Finalize())
	})
}

// TestCommandLine starts `jacobi -stage N` for every stage as 3 processes
// under the launcher, as `gshmem run` does, and checks that the stages'
// last lines agree with the sequential solver's.
func TestCommandLine(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	var lines []string
	for _, n := range stageNumbers() {
		s := strconv.Itoa(n)
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		code, err := launcher.Run(ctx, launcher.Config{
			N:      3,
			Argv:   []string{exe, "-stage", s, "-n", "50", "-iters", "40"},
			Env:    append(os.Environ(), asMain+"=1", "GSHMEM_SYMMETRIC_SIZE=64m"),
			Stdout: &out, Stderr: &out,
		})
		cancel()
		require.NoError(t, err, "%s", out.String())
		require.Zero(t, code, "%s", out.String())
		got := strings.Split(strings.TrimSpace(out.String()), "\n")
		last := got[len(got)-1]
		require.True(t, strings.HasPrefix(last, "stage="+s+" residual="), "%s", out.String())
		lines = append(lines, strings.TrimPrefix(last, "stage="+s))
	}
	want, _ := Solve(Problem{N: 50, Iters: 40})
	for i, l := range lines {
		require.Equal(t, want.Line(1), "stage=1"+l, "stage %d", stageNumbers()[i])
	}
}

// TestStagesOnSubCommunicators: the halves of 4 PEs solve two problems at
// once, stages 1 and 2 on a communicator of two (stage 2's windows over the
// sub-communicator).
func TestStagesOnSubCommunicators(t *testing.T) {
	probs := []Problem{{N: 33, Iters: 40}, {N: 41, Iters: 30}}
	var wants [2]Result
	for i, p := range probs {
		var err error
		wants[i], err = Solve(p)
		require.NoError(t, err)
	}
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		h := w.MyPE() / 2
		half, err := env.CommWorld().Split(h, 0)
		require.NoError(t, err)
		for _, s := range []int{1, 2} {
			for _, sync := range []string{"fence", "pscw"} {
				got, err := Run(half, s, probs[h], Options{Sync: sync})
				require.NoError(t, err, "stage %d %s", s, sync)
				require.Equal(t, wants[h].Line(s), got.Line(s), "half %d, stage %d (%s)", h, s, sync)
			}
		}
		require.NoError(t, half.Free())
		require.NoError(t, env.Finalize())
	})
}
