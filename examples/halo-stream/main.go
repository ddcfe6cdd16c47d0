// Command halo-stream is a 1-D halo exchange (a Jacobi sweep over a line of
// cells split across the PEs) written three ways, as a code moves from the
// host to the GPU:
//
//   - host: the host thread computes, puts the edge cells into the
//     neighbours with put-with-signal and waits for theirs, sweep by sweep;
//   - stage 3 (streams): every sweep is a kernel launch plus on-stream
//     put-with-signal and signal waits, all issued on one stream up front;
//   - stage 4 (kernels): one collective kernel runs every sweep and makes the
//     puts and the waits itself.
//
// Each stage starts from the same state; the program checks that all three
// end with bitwise the same cells and prints their checksum.
//
//	gshmem run -n 4 ./examples/halo-stream -cells 4096 -sweeps 200
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/gshmem/gshmem/examples/internal/exflag"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

func main() {
	cells := flag.Int("cells", 1024, "cells per PE")
	sweeps := flag.Int("sweeps", 100, "Jacobi sweeps")
	exflag.Parse(flag.CommandLine, os.Args[1:], func() error {
		switch {
		case *cells < 1:
			return fmt.Errorf("-cells %d: want at least 1 cell per PE", *cells)
		case *sweeps < 0:
			return fmt.Errorf("-sweeps %d: want 0 or more", *sweeps)
		}
		return nil
	})
	w, err := shmem.Init(context.Background())
	if err == nil {
		err = run(w, *cells, *sweeps, os.Stdout)
		if ferr := w.Finalize(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "halo-stream:", err)
		os.Exit(1)
	}
}

// Stages lists the three forms, in order.
var Stages = []string{"host", "stage3-streams", "stage4-kernels"}

// RunStage runs one form from the initial state and returns this PE's
// cells at the end.
func RunStage(w *shmem.World, stage string, cells, sweeps int) ([]float64, error) {
	d, err := NewDomain(w, cells)
	if err != nil {
		return nil, err
	}
	switch stage {
	case "host":
		err = d.RunHost(sweeps)
	case "stage3-streams", "stage4-kernels":
		var s *streams.Stream
		s, err = streams.New(w, streams.WithName(stage))
		if err != nil {
			return nil, err
		}
		if stage == "stage3-streams" {
			d.IssueStream(s, sweeps)
		} else {
			d.IssueKernel(s, sweeps)
		}
		err = s.Synchronize()
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	default:
		err = fmt.Errorf("unknown stage %q", stage)
	}
	if err != nil {
		return nil, err
	}
	if err := w.BarrierAll(); err != nil {
		return nil, err
	}
	out := d.Cells(sweeps)
	return out, d.Free()
}

func run(w *shmem.World, cells, sweeps int, out *os.File) error {
	var ref []float64
	for _, stage := range Stages {
		start := time.Now()
		got, err := RunStage(w, stage, cells, sweeps)
		if err != nil {
			return fmt.Errorf("%s: %w", stage, err)
		}
		took := time.Since(start)
		if ref == nil {
			ref = got
		} else {
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
					return fmt.Errorf("PE %d: %s differs from host at cell %d: %v != %v", w.MyPE(), stage, i, got[i], ref[i])
				}
			}
		}
		sum, err := checksum(w, got)
		if err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Fprintf(out, "%-16s %d PEs x %d cells, %d sweeps: checksum %.12f (%v)\n", stage, w.NPEs(), cells, sweeps, sum, took.Round(time.Millisecond))
		}
	}
	return nil
}

// checksum sums every PE's cells in PE order, on every PE.
func checksum(w *shmem.World, cells []float64) (float64, error) {
	all, err := shmem.Calloc[float64](w, len(cells)*w.NPEs())
	if err != nil {
		return 0, err
	}
	mine, err := shmem.Calloc[float64](w, len(cells))
	if err != nil {
		return 0, err
	}
	copy(mine.Local(), cells)
	if err := shmem.FCollect(w.TeamWorld(), all, mine, len(cells)); err != nil {
		return 0, err
	}
	var sum float64
	for _, v := range all.Local() {
		sum += v
	}
	if err := shmem.Free(mine); err != nil {
		return 0, err
	}
	return sum, shmem.Free(all)
}
