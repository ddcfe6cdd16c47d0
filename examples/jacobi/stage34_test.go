package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// Stages 3 (streams) and 4 (kernels) print the same residual and checksum
// as the sequential solver, and so as stages 1 and 2: on 4 PEs as
// goroutines and as processes, and with blocks of uneven and single rows.
func TestStreamAndKernelStages(t *testing.T) {
	p := Problem{N: 67, Iters: 60}
	want, err := Solve(p)
	require.NoError(t, err)
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		for _, s := range []int{1, 3, 4} {
			got, err := Run(env.CommWorld(), s, p, Options{})
			require.NoError(t, err, "stage %d", s)
			require.Equal(t, want.Line(s), got.Line(s), "stage %d", s)
		}
		require.NoError(t, env.Finalize())
	})
}

func TestStreamAndKernelStagesUneven(t *testing.T) {
	p := Problem{N: 9, Iters: 25}
	want, _ := Solve(p)
	petest.RunConfig(t, petest.Config{N: 7, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		for _, s := range []int{3, 4} {
			got, err := Run(env.CommWorld(), s, p, Options{})
			require.NoError(t, err, "stage %d", s)
			require.Equal(t, want, got, "stage %d", s)
		}
		require.NoError(t, env.Finalize())
	})
}
