package perf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// CLI is the command line of `gshmem perf TEST`: the Config plus what the
// command does with the rows and how many PEs it starts itself.
type CLI struct {
	Config
	NPEs int    // -n: PEs to start when not already under a launcher (0: 2)
	JSON string // --json FILE
	Plot string // --plot FILE.png
	// CPUProfile is --cpuprofile FILE: PE 0 writes a pprof CPU profile to
	// FILE, PE k to FILE.peK.
	CPUProfile string
}

// Bind defines the flags on fs, with the defaults of Defaults. Names follow
// NVSHMEM's perftests (--min_size, --max_size, --step, --iters,
// --warmup_iters, --datatype, --op); sizes take k, m and g suffixes.
func (c *CLI) Bind(fs *pflag.FlagSet) {
	c.Config = Defaults()
	fs.VarP((*sizeFlag)(&c.MinSize), "min_size", "b", "smallest message size in bytes (k, m suffixes)")
	fs.VarP((*sizeFlag)(&c.MaxSize), "max_size", "e", "largest message size in bytes (k, m suffixes)")
	fs.IntVarP(&c.Step, "step", "f", c.Step, "factor between successive message sizes")
	fs.IntVar(&c.Iters, "iters", 0, "timed iterations per size (0: OSU's defaults: latency 10000, or 1000 above 8 KiB; bandwidth 100 windows, or 20 above 8 KiB)")
	fs.IntVar(&c.Warmup, "warmup_iters", 0, "untimed iterations per size (0: a tenth of --iters, or OSU's defaults)")
	fs.DurationVar(&c.Settle, "settle", c.Settle, "how long every PE polls its clock alone before each size's warm-up, so that the Go runtime's monitor has backed off (0: none)")
	fs.StringVar(&c.Timing, "timing", "loop", "how the timed loops read the clock: loop (around batches of iterations) or op (also before and after every iteration, as OSU's one-sided and collective latency loops read MPI_Wtime: for like-for-like figures beside theirs)")
	fs.StringVarP(&c.Datatype, "datatype", "d", c.Datatype, "element type: "+strings.Join(Datatypes, ", "))
	fs.StringVarP(&c.Op, "op", "o", "", "atomic op for atomic_latency/atomic_bw: all, "+strings.Join(AtomicOps, ", ")+
		" (default fetch_add for latency, add for bw); reduction op for reduction: "+strings.Join(ReduceOps, ", ")+" (default sum)")
	fs.Var(&windowFlag{&c.Window, &c.WinFlavor}, "window", "messages per bandwidth window before Quiet (OSU's default 64); "+
		"a name instead of a number is the window flavor of the win_* tests, as --win_flavor")
	fs.StringVar(&c.WinFlavor, "win_flavor", "", "window flavor of the win_* tests: allocate, create, dynamic or shared (default allocate)")
	fs.StringVar(&c.Sync, "sync", "", "epoch pattern of the win_* tests (osu_put_latency -s): flush, flush_local, lock, lock_all, fence or pscw (default flush)")
	fs.StringVar(&c.JSON, "json", "", "write the rows to `FILE` as one JSON array")
	fs.StringVar(&c.Plot, "plot", "", "draw the curve over sizes into `FILE` (.png, .svg or .pdf)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a pprof CPU profile of PE 0 to `FILE` (PE k: FILE.peK)")
	fs.IntVarP(&c.NPEs, "npes", "n", 0, "start N PEs of this command (default 2; ignored under gshmem run)")
}

// sizeFlag is a byte count flag that accepts shmem.ParseSize's suffixes.
type sizeFlag int

func (s *sizeFlag) String() string { return strconv.Itoa(int(*s)) }
func (s *sizeFlag) Type() string   { return "size" }
func (s *sizeFlag) Set(v string) error {
	n, err := shmem.ParseSize(v)
	if err != nil {
		return err
	}
	if n < 1 || n > 1<<40 {
		return fmt.Errorf("size %d out of range", n)
	}
	*s = sizeFlag(n)
	return nil
}

// windowFlag is --window: digits set the bandwidth window, a name the
// window flavor (issue 5 asks for --window allocate|create|dynamic, and
// --window was already the OSU window count).
type windowFlag struct {
	n      *int
	flavor *string
}

func (f *windowFlag) String() string {
	if f.n == nil {
		return "0"
	}
	return strconv.Itoa(*f.n)
}
func (f *windowFlag) Type() string { return "N|flavor" }
func (f *windowFlag) Set(v string) error {
	if isDigits(v) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		*f.n = n
		return nil
	}
	if _, err := windows.ParseFlavor(v); err != nil {
		return fmt.Errorf("want a message count or a window flavor (allocate, create, dynamic, shared): %w", err)
	}
	*f.flavor = v
	return nil
}

// StripNPEs returns args without the -n / --npes flag and its value, for a
// command that re-executes itself as the PEs of a job.
func StripNPEs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "-n" || a == "--npes":
			i++ // and its value
		case strings.HasPrefix(a, "--npes="), strings.HasPrefix(a, "-n="):
		case strings.HasPrefix(a, "-n") && len(a) > 2 && isDigits(a[2:]):
		default:
			out = append(out, a)
		}
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
