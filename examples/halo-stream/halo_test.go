package main

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// The halo exchange as host calls, as stage 3 (on a stream) and as stage 4
// (from inside a collective kernel) ends with bitwise the same cells, which
// are also those of the whole line computed serially; as goroutine PEs and
// as processes, with a cell count that leaves a short last block.
func TestStagesAgree(t *testing.T) {
	const cells, sweeps = 300, 60
	for _, npes := range []int{1, 4} {
		t.Run(fmt.Sprintf("%dPEs", npes), func(tt *testing.T) { runStages(tt, npes, cells, sweeps) })
	}
}

func runStages(t *testing.T, npes, cells, sweeps int) {
	petest.RunConfig(t, petest.Config{N: npes, HeapSize: 4 << 20}, func(t *petest.T, w *shmem.World) {
		want := Serial(w.NPEs(), cells, sweeps)[w.MyPE()*cells : (w.MyPE()+1)*cells]
		for _, stage := range Stages {
			got, err := RunStage(w, stage, cells, sweeps)
			require.NoError(t, err, stage)
			for i := range got {
				require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%s: cell %d: %v != %v", stage, i, got[i], want[i])
			}
		}
		sum, err := checksum(w, want)
		require.NoError(t, err)
		assert.False(t, math.IsNaN(sum))
	})
}
