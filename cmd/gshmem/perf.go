package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gshmem/gshmem/cmd/gshmem/internal/perf"
	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/internal/launchwire"
	"github.com/gshmem/gshmem/shmem"
)

func perfCmd() *cobra.Command {
	var cli perf.CLI
	c := &cobra.Command{
		Use:       "perf TEST [flags]",
		Short:     "run a perftest (put_bw, put_latency, atomic_latency, ...) and print its table",
		Long:      perfLong(),
		Example:   perfExamples,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: perf.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return listTests(cmd.OutOrStdout())
			}
			return runPerf(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], cli)
		},
	}
	cli.Bind(c.Flags())
	return c
}

// perfExamples are the help's examples. Each finishes within seconds on a
// loaded 2-CPU machine (TestPerfHelpExamples runs them): OSU's default
// iteration counts over a full sweep take minutes there, and the epochs of
// the window tests can take milliseconds each when PEs share CPUs.
const perfExamples = `  gshmem perf put_latency --max_size 64k --iters 1000
  gshmem perf reduction -n 4 --datatype float32 --op sum --max_size 64k --iters 100
  gshmem perf win_put_latency --window create --sync pscw --max_size 1k --iters 200
  gshmem perf put_bw -n 2 --max_size 1m --iters 10 --json put_bw.json --plot put_bw.png
  gshmem perf atomic_latency --op all --datatype int32 --iters 1000
  gshmem run -n 2 gshmem perf get_bw --min_size 64k --max_size 1m --iters 10`

// listTests answers `gshmem perf` without a test.
func listTests(out io.Writer) error {
	fmt.Fprintln(out, "usage: gshmem perf TEST [flags]   (gshmem perf --help for the flags and what each test times)")
	fmt.Fprintln(out, "\ntests:")
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	for _, t := range perf.Tests() {
		fmt.Fprintf(tw, "  %s\t%s\n", t.Name, t.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nexamples:\n%s\n", perfExamples)
	return nil
}

func perfLong() string {
	var b strings.Builder
	b.WriteString(`perf runs one of gshmem's perftests, modelled on NVSHMEM's perftests and the
OSU micro-benchmarks, and PE 0 prints a table: size, latency (us), bandwidth
(GB/s), messages/s. PE 0 drives the operations against PE 1; further PEs only
join the barriers, except in the collective tests (barrier, reduction,
broadcast, fcollect, alltoall, as NVSHMEM's perftests name them, and
mpi_allreduce and mpi_barrier), where every PE runs the timed loop and PE 0 reports its own
mean time per call.

The win_* tests (MPI windows, OSU's one-sided tests) take --win_flavor
allocate|create|dynamic|shared and --sync flush|flush_local|lock|lock_all|
fence|pscw; --window also accepts a flavor name (--window create): a number
is still the bandwidth window's message count.

Started by itself, perf starts -n PEs (default 2) of its own binary through
the launcher; under gshmem run (or any launcher gshmem joins) it runs as the
PE it was started as. Latency is the mean time per operation; --json rows
also carry the fastest and the median of 16 batches of the timed loop.

Tests and what they time:
`)
	for _, t := range perf.Tests() {
		fmt.Fprintf(&b, "\n  %s: %s.\n      %s.\n", t.Name, t.Summary, t.Measures)
	}
	return b.String()
}

func runPerf(ctx context.Context, stdout, stderr io.Writer, test string, cli perf.CLI) error {
	if ctx == nil {
		ctx = context.Background()
	}
	t, ok := perf.Lookup(test)
	if !ok {
		return fmt.Errorf("perf: unknown test %q; the tests are: %s", test, strings.Join(perf.Names(), ", "))
	}
	if err := cli.Validate(); err != nil {
		return err
	}
	if err := checkPlot(ctx, cli.Plot); err != nil {
		return err
	}
	if !underLauncher() {
		return launchPerf(ctx, t, cli)
	}
	w, err := shmem.Init(ctx)
	if err != nil {
		return err
	}
	if cli.CPUProfile != "" {
		stop, err := startProfile(cli.CPUProfile, w.MyPE())
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg := cli.Config
	cfg.Progress = stderr
	rows, err := perf.Run(ctx, w, test, cfg)
	if err != nil {
		// No Finalize: it is collective and the peers may be stuck; the
		// launcher stops them when this PE exits.
		return err
	}
	if w.MyPE() == 0 {
		if err := report(stdout, rows, cli); err != nil {
			return err
		}
	}
	return w.Finalize()
}

func report(stdout io.Writer, rows []perf.Row, cli perf.CLI) error {
	if err := perf.WriteTable(stdout, rows); err != nil {
		return err
	}
	if cli.JSON != "" {
		if err := perf.WriteJSONFile(cli.JSON, rows); err != nil {
			return fmt.Errorf("perf: --json: %w", err)
		}
	}
	if cli.Plot != "" {
		return plot(cli, rows)
	}
	return nil
}

func startProfile(file string, pe int) (stop func(), err error) {
	if pe > 0 {
		file += fmt.Sprintf(".pe%d", pe)
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("perf: --cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("perf: --cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// underLauncher says whether this process is a PE of a launcher's job
// (gshmem run, mpiexec.hydra, srun --mpi=pmi2, mpirun with a rendezvous
// address), which perf joins instead of starting PEs of its own: measuring
// between nodes needs the launcher that placed the PEs there.
func underLauncher() bool {
	if os.Getenv(launchwire.EnvLocalAddr) != "" {
		return true
	}
	name, _, err := shmem.DetectBootstrap()
	return err != nil || name != "singleton"
}

// launchPerf re-executes this binary with the same arguments (less -n) as
// the PEs of a job, as gshmem run would.
func launchPerf(ctx context.Context, t perf.Test, cli perf.CLI) error {
	n := cli.NPEs
	if n == 0 {
		n = max(2, t.MinPEs)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("perf: finding this binary to start the PEs: %w", err)
	}
	env := os.Environ()
	if need := heapNeed(cli.Config); os.Getenv("GSHMEM_SYMMETRIC_SIZE") == "" && need > 1<<30 {
		env = append(env, "GSHMEM_SYMMETRIC_SIZE="+strconv.FormatUint(need, 10))
	}
	code, err := launcher.Run(ctx, launcher.Config{
		N: n, Argv: append([]string{exe}, perf.StripNPEs(os.Args[1:])...), Env: env,
	})
	if err != nil {
		return err
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// heapNeed is a heap size that holds a bandwidth test's window at the
// largest size, with room to spare.
func heapNeed(c perf.Config) uint64 {
	win := uint64(max(c.Window, 1))
	return win*uint64(c.MaxSize) + 64<<20
}
