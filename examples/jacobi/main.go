// Command jacobi is a 2-D Jacobi heat solver written at each stage of the
// migration from MPI to gshmem: the grid is split into blocks of rows, each
// sweep exchanges halo rows with the neighbours and combines the residual.
//
//	gshmem run -n 4 ./examples/jacobi -stage 1 -n 512 -iters 200
//	gshmem run -n 4 ./examples/jacobi -stage 2 -n 512 -iters 200
//
// Stage 1 (stage1.go) is the MPI code on compat: Sendrecv and Allreduce.
// Stage 2 (stage2.go) puts the halo rows into the neighbours' RMA windows.
// Stage 3 (stage3.go) issues put-with-signal, waits, the sweep kernel and
// the reduction on a stream; stage 4 (stage4.go) does it all from inside
// one kernel. Each stage is one file that registers itself in stages. The
// grid, the sweep and the verification are shared (grid.go), so every
// stage prints the same last line for the same grid:
//
//	stage=N residual=R checksum=C
//
// R is the largest change of the last sweep and C a checksum of the final
// grid's bits; both are exact, whatever the number of PEs.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/examples/internal/exflag"
)

// Options are the knobs a stage may read.
type Options struct {
	Sync string // stage 2: "fence" or "pscw"
}

type stage struct {
	what string
	run  func(c *compat.Comm, p Problem, o Options) (Result, error)
}

// stages holds every stage written so far; each stage file adds itself.
var stages = map[int]stage{}

// Run runs stage s of the solver on c.
func Run(c *compat.Comm, s int, p Problem, o Options) (Result, error) {
	st, ok := stages[s]
	if !ok {
		var have []int
		for k := range stages {
			have = append(have, k)
		}
		slices.Sort(have)
		return Result{}, fmt.Errorf("jacobi: no stage %d (have %v): see porting-guide/README.md", s, have)
	}
	if o.Sync == "" {
		o.Sync = "fence"
	}
	if o.Sync != "fence" && o.Sync != "pscw" {
		return Result{}, fmt.Errorf("jacobi: -sync %q: want fence or pscw", o.Sync)
	}
	return st.run(c, p, o)
}

func main() {
	if err := cli(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func cli(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("jacobi", flag.ContinueOnError)
	s := fs.Int("stage", 1, "migration stage: 1 (MPI), 2 (RMA windows), 3 (streams), 4 (kernels)")
	n := fs.Int("n", 256, "grid size SIZE: SIZE x SIZE points, boundary included")
	iters := fs.Int("iters", 100, "sweeps")
	sync := fs.String("sync", "fence", "stage 2 synchronization: fence or pscw")
	exflag.Parse(fs, args, func() error {
		if _, ok := stages[*s]; !ok {
			return fmt.Errorf("-stage %d: want 1, 2, 3 or 4 (see porting-guide/README.md)", *s)
		}
		if *sync != "fence" && *sync != "pscw" {
			return fmt.Errorf("-sync %q: want fence or pscw", *sync)
		}
		return Problem{N: *n, Iters: *iters}.check()
	})
	env, err := compat.Init(context.Background())
	if err != nil {
		return err
	}
	c := env.CommWorld()
	p := Problem{N: *n, Iters: *iters}
	t0 := compat.Wtime()
	res, err := Run(c, *s, p, Options{Sync: *sync})
	elapsed := compat.Wtime() - t0
	if err != nil {
		_ = env.Finalize()
		return err
	}
	if c.Rank() == 0 {
		fmt.Fprintf(out, "jacobi: %d x %d grid, %d sweeps on %d PEs, stage %d (%s): %.3f s\n",
			p.N, p.N, p.Iters, c.Size(), *s, stages[*s].what, elapsed)
		fmt.Fprintln(out, res.Line(*s))
	}
	return env.Finalize()
}
