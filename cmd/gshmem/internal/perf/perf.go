// Package perf is gshmem's perftest suite: the kernels behind `gshmem perf`
// and the `go test -bench` benchmarks, modelled on NVSHMEM's perftests and
// the OSU micro-benchmarks.
//
// Tests live in a registry (name -> Func). Every PE of a job calls Run with
// the same name and Config; PE 0 drives and times the operations against
// PE 1, the other PEs only take part in the barriers, and PE 0 returns the
// rows (the other PEs return none). Later layers (collectives, windows,
// point-to-point, streams) add their tests with Register from an init
// function in their own file.
//
// Conventions, as in OSU and NVSHMEM:
//   - latency tests time a loop of one operation (then Quiet, for the
//     operations that do not complete by themselves) and report the mean
//     time per operation;
//   - bandwidth tests time windows of Window non-blocking operations, each
//     to its own offset (a working set of Window*size bytes on each side),
//     then Quiet; bandwidth is bytes moved / time;
//   - ping-pong tests report half the round trip (one-way latency).
//
// Every test runs its sizes through one loop (sweep): prepare, a barrier
// and Config.Settle of settling (startSize), the measured side on PE 0 or
// on every PE, a barrier, a check of what arrived. The warm-up is OSU's
// count of iterations; the settling before it is gshmem's own (a Go
// process's runtime monitor is busy for milliseconds after a sleep, where
// a C process has nothing to settle).
package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Kind says which figure a test is about: it picks the plotted column.
type Kind int

const (
	// Latency tests report the time of one operation.
	Latency Kind = iota
	// Bandwidth tests report bytes per second.
	Bandwidth
)

// String is the kind's name in the JSON rows.
func (k Kind) String() string {
	if k == Bandwidth {
		return "bandwidth"
	}
	return "latency"
}

// Func runs one test on one PE and returns the rows (on PE 0; nil elsewhere).
type Func func(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error)

// Test is one registered test.
type Test struct {
	Name     string
	Kind     Kind
	MinPEs   int    // fewest PEs the test runs with (default 2)
	Summary  string // one line for the help
	Measures string // what exactly is timed
	// DefaultOp is the --op used when none is given ("" when ops do not apply).
	DefaultOp string
	// Sweep is true when the test runs over --min_size..--max_size; false
	// for tests of one fixed size (atomics, signals, the ping-pong anchor).
	Sweep bool
	Run   Func
}

var (
	regMu    sync.RWMutex
	registry = map[string]Test{}
)

// Register adds a test. It panics on an empty or duplicate name or a nil
// Func: registration happens in init functions, where a mistake is a bug.
func Register(t Test) {
	if t.Name == "" || t.Run == nil {
		panic("perf: Register needs a name and a Func")
	}
	if t.MinPEs == 0 {
		t.MinPEs = 2
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[t.Name]; dup {
		panic("perf: test " + t.Name + " registered twice")
	}
	registry[t.Name] = t
}

// Lookup returns the test registered under name.
func Lookup(name string) (Test, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	t, ok := registry[name]
	return t, ok
}

// Tests returns every registered test, sorted by name.
func Tests() []Test {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Test, 0, len(registry))
	for _, t := range registry {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered test names, sorted.
func Names() []string {
	var n []string
	for _, t := range Tests() {
		n = append(n, t.Name)
	}
	return n
}

// Config holds the flags shared by every test. Zero values mean "the test's
// default" where noted.
type Config struct {
	MinSize  int    // bytes (default 8)
	MaxSize  int    // bytes (default 4 MiB)
	Step     int    // size factor between rows (default 2)
	Iters    int    // timed iterations per size; 0: OSU's defaults by test kind and size
	Warmup   int    // untimed iterations per size; used only when Iters is set (then default Iters/10)
	Datatype string // element type (default int64)
	Op       string // atomic op, or "all"; "" is the test's DefaultOp
	Window   int    // messages per bandwidth window (default 64)
	// WinFlavor is the window flavor of the win_* tests: allocate, create,
	// dynamic or shared ("" is allocate).
	WinFlavor string
	// Sync is the epoch pattern of the win_* tests (mpibench.SyncModes:
	// flush, flush_local, lock, lock_all, fence, pscw; "" is flush).
	Sync string
	// Settle is how long every PE polls its clock, alone, after the
	// barrier that starts each size and before its warm-up (--settle; the
	// command's default 20ms, Config's zero none). A Go process whose
	// threads slept (a wait past its spin, the bootstrap) has its runtime
	// monitor wake every 20 us for about a millisecond, then back off to
	// 10 ms over the next ten or so; on a machine where every CPU runs a PE,
	// each of those wake-ups preempts a PE. Settling first keeps those
	// milliseconds out of the timed loops: the tests report a steady state,
	// as OSU's C processes reach theirs after their 100 warm-up iterations.
	Settle time.Duration
	// Timing is how the timed loops read the clock: "loop" ("" too) reads
	// it around each batch of iterations only; "op" also reads it before
	// and after every iteration, as OSU's one-sided and collective
	// latency loops do with MPI_Wtime (the figure is still the batch's
	// time over its operations, as OSU's is). It makes a figure of this
	// command comparable with such an OSU figure: both then pay two clock
	// reads per operation (here the runtime's monotonic clock, the vDSO
	// clock_gettime that Open MPI's and MPICH's MPI_Wtime read).
	Timing string
	// Progress receives a line per finished size once a sweep has run for
	// a second; nil keeps quiet.
	Progress io.Writer
}

// Defaults returns the Config with every default filled in.
func Defaults() Config {
	return Config{MinSize: 8, MaxSize: 4 << 20, Step: 2, Datatype: "int64", Window: 64, Settle: 20 * time.Millisecond, Timing: "loop"}
}

func (c Config) withDefaults() Config {
	d := Defaults()
	if c.MinSize == 0 {
		c.MinSize = d.MinSize
	}
	if c.MaxSize == 0 {
		c.MaxSize = d.MaxSize
	}
	if c.Step == 0 {
		c.Step = d.Step
	}
	if c.Datatype == "" {
		c.Datatype = d.Datatype
	}
	if c.Window == 0 {
		c.Window = d.Window
	}
	return c
}

// Validate reports a Config no test can run with.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.MinSize < 1 || c.MaxSize < c.MinSize:
		return fmt.Errorf("perf: sizes %d..%d: want 1 <= min_size <= max_size", c.MinSize, c.MaxSize)
	case c.Step < 2:
		return fmt.Errorf("perf: step %d: want a factor of at least 2", c.Step)
	case c.Iters < 0 || c.Warmup < 0:
		return fmt.Errorf("perf: iters %d, warmup %d: want counts >= 0", c.Iters, c.Warmup)
	case c.Settle < 0 || c.Settle > time.Minute:
		return fmt.Errorf("perf: settle %v: want 0 to 1m", c.Settle)
	case c.Window < 1:
		return fmt.Errorf("perf: window %d: want at least 1", c.Window)
	case c.Timing != "" && c.Timing != "loop" && c.Timing != "op":
		return fmt.Errorf("perf: timing %q: want loop or op", c.Timing)
	}
	if _, err := elemSize(c.Datatype); err != nil {
		return err
	}
	if c.WinFlavor != "" {
		if _, err := windows.ParseFlavor(c.WinFlavor); err != nil {
			return fmt.Errorf("perf: --win_flavor: %w", err)
		}
	}
	if c.Sync != "" {
		if _, err := mpibench.ParseSyncMode(c.Sync); err != nil {
			return fmt.Errorf("perf: --sync: %w", err)
		}
	}
	return nil
}

// Sizes returns the message sizes of a sweep: MinSize, MinSize*Step, ...
// up to MaxSize, each rounded down to a whole number of elements of esz
// bytes (at least one element), without repeats.
func (c Config) Sizes(esz int) []int {
	c = c.withDefaults()
	var out []int
	for s := c.MinSize; s <= c.MaxSize; s *= c.Step {
		r := max(s/esz*esz, esz)
		if len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
		if s > c.MaxSize/c.Step {
			break
		}
	}
	return out
}

// loops returns the timed and warm-up iterations for one size: the flags
// when --iters was given, else OSU's defaults (latency 10000/100 up to
// 8 KiB and 1000/10 above; bandwidth 100/10 and 20/2).
func (c Config) loops(kind Kind, size int) (iters, warmup int) {
	if c.Iters > 0 {
		w := c.Warmup
		if w == 0 {
			w = max(c.Iters/10, 1)
		}
		return c.Iters, w
	}
	small := size <= 8192
	switch {
	case kind == Latency && small:
		return 10000, 100
	case kind == Latency:
		return 1000, 10
	case small:
		return 100, 10
	default:
		return 20, 2
	}
}

// Run runs the test name on this PE. Every PE of the job must call it with
// the same arguments; PE 0 gets the rows.
func Run(ctx context.Context, w *shmem.World, name string, cfg Config) ([]Row, error) {
	t, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("perf: unknown test %q; the tests are %v", name, Names())
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if w.NPEs() < t.MinPEs {
		return nil, fmt.Errorf("perf: %s needs at least %d PEs, the job has %d (use -n %d)", name, t.MinPEs, w.NPEs(), t.MinPEs)
	}
	cfg = cfg.withDefaults()
	if cfg.Op == "" {
		cfg.Op = t.DefaultOp
	}
	rows, err := t.Run(ctx, w, cfg)
	if errors.Is(err, shmem.ErrHeapExhausted) {
		err = fmt.Errorf("%w (a bandwidth test needs --window x --max_size bytes of heap: raise GSHMEM_SYMMETRIC_SIZE)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("perf: %s on PE %d: %w", name, w.MyPE(), err)
	}
	for i := range rows {
		if rows[i].Test == "" {
			rows[i].Test = name
		}
		rows[i].PEs = w.NPEs()
		rows[i].Kind = t.Kind.String()
	}
	return rows, nil
}

// progress reports finished sizes of a long sweep.
type progress struct {
	w     io.Writer
	test  string
	n     int
	start time.Time
}

func newProgress(cfg Config, w *shmem.World, test string, n int) *progress {
	p := &progress{test: test, n: n, start: time.Now()}
	if w.MyPE() == 0 && n > 1 {
		p.w = cfg.Progress
	}
	return p
}

func (p *progress) done(i, size int) {
	if p.w == nil || time.Since(p.start) < time.Second {
		return
	}
	fmt.Fprintf(p.w, "perf: %s: size %d done (%d/%d, %.1fs)\n", p.test, size, i+1, p.n, time.Since(p.start).Seconds())
}

// stats are the timings of one measured loop.
type stats struct {
	ops    int           // timed operations
	total  time.Duration // all of them
	batchs []float64     // mean seconds per op of each batch, sorted
}

func (s stats) perOp() float64 { return s.total.Seconds() / float64(max(s.ops, 1)) }
func (s stats) min() float64   { return s.batchs[0] }
func (s stats) median() float64 {
	return s.batchs[len(s.batchs)/2]
}

// startSize begins one size of a sweep on every PE: the barrier, then
// Config.Settle of polling the clock. Each PE ends its settling at the same
// time after the barrier, so the timed loops start together; settling
// before the barrier instead would let a PE delayed by a preemption make
// the others sleep in it, the very thing settling is there to outlast.
func startSize(ctx context.Context, w *shmem.World, cfg Config) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	for t0 := time.Now(); time.Since(t0) < cfg.Settle; {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// measure runs body(i) for warmup untimed and iters timed iterations and
// times the timed ones in up to 16 batches, so that a row carries the
// minimum and median batch as well as the mean (the machine's vCPUs move:
// the mean alone can hide a good or a bad stretch). opsPerIter is how many
// operations one body call performs. It checks ctx between batches. Under
// Timing "op" every timed iteration is bracketed by two clock reads too.
func (c Config) measure(ctx context.Context, warmup, iters, opsPerIter int, body func(i int) error) (stats, error) {
	for i := range warmup {
		if err := body(i); err != nil {
			return stats{}, err
		}
	}
	perOp := c.Timing == "op"
	nb := min(iters, 16)
	st := stats{ops: iters * opsPerIter}
	i := warmup
	for b := range nb {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		n := iters/nb + btoi(b < iters%nb)
		t0 := time.Now()
		for end := i + n; i < end; i++ {
			var err error
			if perOp { // the reads OSU makes; their difference is not used here either
				a := nanotime()
				err = body(i)
				_ = nanotime() - a
			} else {
				err = body(i)
			}
			if err != nil {
				return st, err
			}
		}
		d := time.Since(t0)
		st.total += d
		st.batchs = append(st.batchs, d.Seconds()/float64(n*opsPerIter))
	}
	slices.Sort(st.batchs)
	return st, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// latencyRow is the row of a latency measurement of size bytes.
func latencyRow(size int, st stats) Row {
	lat := st.perOp()
	return Row{
		Size: size, LatencyUS: lat * 1e6, BandwidthGBps: float64(size) / lat / 1e9,
		MsgRate: 1 / lat, Iters: st.ops, MinUS: st.min() * 1e6, MedianUS: st.median() * 1e6,
	}
}

// bandwidthRow is the row of a bandwidth measurement: st.ops messages of
// size bytes.
func bandwidthRow(size int, st stats) Row {
	r := latencyRow(size, st)
	r.MinUS, r.MedianUS = 0, 0
	if st.min() > 0 {
		r.Extra = map[string]float64{"max_bandwidth_gbps": float64(size) / st.min() / 1e9}
	}
	return r
}
