package perf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/shmem"
)

// The tests issue 4 asks for; later layers add theirs.
var wantTests = []string{"put_bw", "get_bw", "put_latency", "get_latency", "p_latency", "g_latency",
	"atomic_latency", "atomic_bw", "put_signal_latency", "signal_latency", "memcpy_bw", "shm_pingpong",
	// issue 3: collectives
	"barrier", "reduction", "broadcast", "fcollect", "alltoall",
	// issue 5: windows
	"win_put_latency", "win_get_latency", "win_put_bw", "win_get_bw", "win_acc_latency", "win_fop_latency", "win_cas_latency",
	// issue 6: compat point-to-point and collective
	"pt2pt_latency", "pt2pt_bw", "mpi_allreduce", "mpi_barrier",
	// issue 8: streams and kernels
	"put_on_stream_latency", "kernel_put_bw",
	// issue 20: contexts
	"ctx_put_bw", "ctx_shared_put_bw"}

func TestRegistry(t *testing.T) {
	names := Names()
	for _, n := range wantTests {
		assert.Contains(t, names, n)
		tt, ok := Lookup(n)
		require.True(t, ok, n)
		assert.NotEmpty(t, tt.Summary, n)
		assert.NotEmpty(t, tt.Measures, n)
		assert.GreaterOrEqual(t, tt.MinPEs, 1, n)
	}
	assert.IsIncreasing(t, names)
	_, ok := Lookup("no_such_test")
	assert.False(t, ok)

	assert.Panics(t, func() { Register(Test{Name: "put_bw", Run: putBW[int64]}) }, "duplicate")
	assert.Panics(t, func() { Register(Test{Name: "x"}) }, "no Func")

	// A later layer registers its own test and Run finds it.
	Register(Test{Name: "zz_registered_by_test", Run: func(context.Context, *shmem.World, Config) ([]Row, error) {
		return []Row{{Size: 1, LatencyUS: 1}}, nil
	}})
	defer unregister("zz_registered_by_test")
	tt, _ := Lookup("zz_registered_by_test")
	assert.Equal(t, 2, tt.MinPEs, "MinPEs defaults to 2")
	require.NoError(t, shmem.Run(2, func(w *shmem.World) error {
		rows, err := Run(context.Background(), w, "zz_registered_by_test", Config{})
		if err == nil {
			assert.Equal(t, []Row{{Test: "zz_registered_by_test", Kind: "latency", Size: 1, LatencyUS: 1, PEs: 2}}, rows)
		}
		return err
	}, shmem.WithSymmetricSize(1<<20)))
}

func unregister(name string) {
	regMu.Lock()
	defer regMu.Unlock()
	delete(registry, name)
}

func TestFlags(t *testing.T) {
	var c CLI
	fs := pflag.NewFlagSet("perf", pflag.ContinueOnError)
	c.Bind(fs)
	require.NoError(t, fs.Parse(nil))
	assert.Equal(t, Defaults(), c.Config)
	assert.Equal(t, Config{MinSize: 8, MaxSize: 4 << 20, Step: 2, Datatype: "int64", Window: 64, Settle: 20 * time.Millisecond, Timing: "loop"}, c.Config)

	require.NoError(t, fs.Parse([]string{"--min_size", "4k", "-e", "1m", "--step", "4", "--iters", "50",
		"--warmup_iters", "5", "--datatype", "int32", "--op", "fetch_xor", "--window", "16",
		"--json", "out.json", "--plot", "out.png", "-n", "3", "--cpuprofile", "cpu.out", "--settle", "0", "--timing", "op"}))
	assert.Equal(t, CLI{
		Config: Config{MinSize: 4096, MaxSize: 1 << 20, Step: 4, Iters: 50, Warmup: 5, Datatype: "int32", Op: "fetch_xor", Window: 16, Timing: "op"},
		NPEs:   3, JSON: "out.json", Plot: "out.png", CPUProfile: "cpu.out",
	}, c)

	fs = pflag.NewFlagSet("perf", pflag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	c.Bind(fs)
	assert.Error(t, fs.Parse([]string{"--min_size", "lots"}))
	assert.Error(t, fs.Parse([]string{"--max_size", "0"}))

	// --window takes a count or, as issue 5 spells it, a window flavor.
	for _, tc := range []struct {
		args   []string
		window int
		flavor string
		sync   string
	}{
		{[]string{"--window", "8"}, 8, "", ""},
		{[]string{"--window", "create", "--sync", "pscw"}, 64, "create", "pscw"},
		{[]string{"--window=dynamic", "--window", "16"}, 16, "dynamic", ""},
		{[]string{"--win_flavor", "allocate", "--sync", "lock_all"}, 64, "allocate", "lock_all"},
	} {
		var c CLI
		fs := pflag.NewFlagSet("perf", pflag.ContinueOnError)
		c.Bind(fs)
		require.NoError(t, fs.Parse(tc.args), "%q", tc.args)
		assert.Equal(t, tc.window, c.Window, "%q", tc.args)
		assert.Equal(t, tc.flavor, c.WinFlavor, "%q", tc.args)
		assert.Equal(t, tc.sync, c.Sync, "%q", tc.args)
		assert.NoError(t, c.Validate())
	}
	fs = pflag.NewFlagSet("perf", pflag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	c.Bind(fs)
	assert.Error(t, fs.Parse([]string{"--window", "huge"}))
	assert.Error(t, Config{Sync: "epoch"}.Validate())
	assert.Error(t, Config{WinFlavor: "heap"}.Validate())
}

func TestStripNPEs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"perf", "put_bw", "-n", "2", "--iters", "5"}, []string{"perf", "put_bw", "--iters", "5"}},
		{[]string{"perf", "-n4", "put_bw"}, []string{"perf", "put_bw"}},
		{[]string{"perf", "-n=4", "put_bw", "--npes", "3", "--npes=2"}, []string{"perf", "put_bw"}},
		{[]string{"perf", "put_bw", "--json", "-n.json"}, []string{"perf", "put_bw", "--json", "-n.json"}},
		{[]string{"perf", "put_bw", "--", "-n", "2"}, []string{"perf", "put_bw", "--", "-n", "2"}},
		{[]string{"perf", "put_bw"}, []string{"perf", "put_bw"}},
	} {
		assert.Equal(t, tc.want, StripNPEs(tc.in), "%q", tc.in)
	}
}

func TestConfig(t *testing.T) {
	assert.NoError(t, Config{}.Validate())
	for _, bad := range []Config{{MinSize: 8, MaxSize: 4}, {Step: 1}, {Iters: -1}, {Window: -1}, {Datatype: "int8"}, {MinSize: -1}, {Settle: -time.Second}, {Settle: time.Hour}, {Timing: "wall"}} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	assert.Equal(t, []int{8, 16, 32, 64}, Config{MinSize: 8, MaxSize: 64}.Sizes(8))
	assert.Equal(t, []int{8, 64, 512}, Config{MinSize: 1, MaxSize: 512, Step: 8}.Sizes(8), "rounded to whole elements, no repeats")
	assert.Equal(t, []int{4, 16, 64}, Config{MinSize: 4, MaxSize: 100, Step: 4}.Sizes(4))
	assert.Len(t, Config{}.Sizes(8), 20, "8 B to 4 MiB")

	// Every PE settles after the barrier that starts a size: none leaves
	// startSize before Settle has passed since it left the barrier.
	require.NoError(t, shmem.Run(2, func(w *shmem.World) error {
		t0 := time.Now()
		if err := startSize(context.Background(), w, Config{Settle: 30 * time.Millisecond}); err != nil {
			return err
		}
		assert.GreaterOrEqual(t, time.Since(t0), 30*time.Millisecond)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, startSize(ctx, w, Config{}), context.Canceled)
		return nil
	}, shmem.WithSymmetricSize(1<<20)))

	it, w := Config{}.loops(Latency, 8)
	assert.Equal(t, [2]int{10000, 100}, [2]int{it, w})
	it, w = Config{}.loops(Bandwidth, 1<<20)
	assert.Equal(t, [2]int{20, 2}, [2]int{it, w})
	it, w = Config{Iters: 30}.loops(Bandwidth, 8)
	assert.Equal(t, [2]int{30, 3}, [2]int{it, w})
}

// TestMeasure checks the timed loop's bookkeeping in both timings: every
// warm-up and timed iteration runs once, in order, and the batches cover
// the timed ones.
func TestMeasure(t *testing.T) {
	for _, timing := range []string{"loop", "op"} {
		var seen []int
		st, err := Config{Timing: timing}.measure(context.Background(), 3, 37, 2, func(i int) error {
			seen = append(seen, i)
			return nil
		})
		require.NoError(t, err, timing)
		require.Len(t, seen, 40, timing)
		for i, v := range seen {
			assert.Equal(t, i, v, timing)
		}
		assert.Equal(t, 74, st.ops, timing)
		assert.Len(t, st.batchs, 16, timing)
		assert.True(t, slices.IsSorted(st.batchs), timing)

		boom := errors.New("boom")
		_, err = Config{Timing: timing}.measure(context.Background(), 0, 10, 1, func(i int) error {
			if i == 4 {
				return boom
			}
			return nil
		})
		assert.ErrorIs(t, err, boom, timing)
	}
}

func TestRowJSON(t *testing.T) {
	rows := []Row{
		{Test: "put_latency", Size: 8, LatencyUS: 0.05, BandwidthGBps: 0.16, MsgRate: 2e7, PEs: 2, Iters: 100,
			Datatype: "int64", MinUS: 0.04, MedianUS: 0.05},
		{Test: "signal_latency", Size: 8, LatencyUS: 0.1, PEs: 2, Extra: map[string]float64{"rtt_us": 0.2}},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, rows))
	var raw []map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &raw), "one JSON array")
	require.Len(t, raw, 2)
	for _, k := range []string{"test", "size", "latency_us", "bandwidth_gbps", "pes"} {
		assert.Contains(t, raw[0], k)
		assert.Contains(t, raw[1], k)
	}
	assert.Equal(t, "put_latency", raw[0]["test"])
	assert.Equal(t, 8.0, raw[0]["size"])
	assert.Equal(t, 0.05, raw[0]["latency_us"])
	assert.Equal(t, 0.16, raw[0]["bandwidth_gbps"])
	assert.Equal(t, 2.0, raw[0]["pes"])
	assert.Equal(t, 0.2, raw[1]["rtt_us"], "extra keys are flat")
	assert.NotContains(t, raw[1], "op", "empty optional keys are left out")

	back, err := ReadJSON(&buf)
	require.NoError(t, err)
	assert.Equal(t, rows, back)

	buf.Reset()
	require.NoError(t, WriteJSON(&buf, nil))
	assert.JSONEq(t, "[]", buf.String())
}

func TestTable(t *testing.T) {
	rows := []Row{
		{Test: "put_bw", Size: 8, LatencyUS: 0.01, BandwidthGBps: 0.8, MsgRate: 1e8, PEs: 2, Window: 64},
		{Test: "put_bw", Size: 1 << 20, LatencyUS: 50, BandwidthGBps: 21, MsgRate: 2e4, PEs: 2, Window: 64},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rows))
	assert.Contains(t, buf.String(), "# put_bw, 2 PEs, window 64")
	assert.Regexp(t, `size \(B\)\s+latency \(us\)\s+bandwidth \(GB/s\)\s+messages/s`, buf.String())
	assert.Regexp(t, `1048576\s+50.000\s+21.000\s+20.00k`, buf.String())
}

// quick is a configuration small enough for -race on two cores.
var quick = Config{MinSize: 8, MaxSize: 64, Step: 8, Iters: 20, Warmup: 2, Window: 4}

// TestEveryTestInProcess runs every registered test with 2 goroutine PEs at
// tiny sizes and checks the rows.
func TestEveryTestInProcess(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			cfg := quick
			if name == "atomic_latency" || name == "atomic_bw" {
				cfg.Op = "all"
			}
			rows := runInProcess(t, name, cfg)
			checkRows(t, name, cfg, rows)
			if name == "atomic_latency" {
				assert.Len(t, rows, len(AtomicOps), "one row per op")
			}
		})
	}
}

func TestDatatypes(t *testing.T) {
	for _, dt := range Datatypes {
		t.Run(dt, func(t *testing.T) {
			cfg := quick
			cfg.Datatype, cfg.Op = dt, "all"
			rows := runInProcess(t, "atomic_latency", cfg)
			want := len(AtomicOps)
			if dt == "float32" || dt == "float64" {
				want = 3 // fetch, set, swap
			}
			assert.Len(t, rows, want)
			rows = runInProcess(t, "put_signal_latency", cfg)
			checkRows(t, "put_signal_latency", cfg, rows)
			assert.Equal(t, dt, rows[0].Datatype)
		})
	}
}

// TestWindowModes runs the window tests in every flavor and sync mode.
func TestWindowModes(t *testing.T) {
	for _, fl := range []string{"allocate", "create", "dynamic"} {
		for _, m := range mpibench.SyncModes {
			t.Run(fl+"/"+string(m), func(t *testing.T) {
				cfg := quick
				cfg.WinFlavor, cfg.Sync, cfg.MaxSize = fl, string(m), 8
				if fl == "dynamic" {
					cfg.Timing = "op" // OSU's shape: the clock read around every operation
				}
				for _, name := range []string{"win_put_latency", "win_get_bw", "win_cas_latency"} {
					rows := runInProcess(t, name, cfg)
					checkRows(t, name, cfg, rows)
					assert.Equal(t, fl, rows[0].WinFlavor)
					assert.Equal(t, string(m), rows[0].Sync)
					var buf bytes.Buffer
					require.NoError(t, WriteTable(&buf, rows))
					assert.Contains(t, buf.String(), fmt.Sprintf("# %s, 2 PEs, %s window, sync %s, ", name, fl, m))
					if name == "win_cas_latency" {
						assert.Contains(t, buf.String(), ", "+cfg.withDefaults().Datatype+"\n")
					} else {
						assert.NotContains(t, buf.String(), "op ")
					}
				}
			})
		}
	}
}

// TestCollectives runs the collectives with every datatype and 3 PEs (a
// team that is not a power of two).
func TestCollectives(t *testing.T) {
	for _, dt := range Datatypes {
		for _, name := range []string{"reduction", "broadcast", "fcollect", "alltoall"} {
			cfg := quick
			cfg.Datatype = dt
			rows := runInProcessN(t, 3, name, cfg)
			require.Len(t, rows, len(cfg.Sizes(func() int { n, _ := elemSize(dt); return n }())), "%s %s", name, dt)
			assert.Equal(t, 3, rows[0].PEs)
		}
	}
	for _, op := range ReduceOps {
		cfg := quick
		cfg.Op = op
		rows := runInProcessN(t, 3, "reduction", cfg)
		assert.Equal(t, op, rows[0].Op)
	}
	err := shmem.Run(2, func(w *shmem.World) error {
		_, err := Run(context.Background(), w, "reduction", Config{Op: "xor", Datatype: "float32", MaxSize: 8})
		return err
	}, shmem.WithSymmetricSize(8<<20))
	assert.ErrorContains(t, err, "integer")
}

func TestErrors(t *testing.T) {
	err := shmem.Run(1, func(w *shmem.World) error {
		_, err := Run(context.Background(), w, "put_bw", quick)
		assert.ErrorContains(t, err, "at least 2 PEs")
		_, err = Run(context.Background(), w, "nope", quick)
		assert.ErrorContains(t, err, "unknown test")
		_, err = Run(context.Background(), w, "memcpy_bw", quick)
		assert.NoError(t, err, "memcpy_bw runs on one PE")
		return nil
	}, shmem.WithSymmetricSize(8<<20))
	require.NoError(t, err)
	for _, c := range []Config{{Op: "fetch_sub"}, {Op: "add", Datatype: "float64"}} {
		err := shmem.Run(2, func(w *shmem.World) error {
			_, err := Run(context.Background(), w, "atomic_latency", c)
			return err
		}, shmem.WithSymmetricSize(8<<20))
		assert.Error(t, err, "%+v", c)
	}
}

// TestProcesses runs tests between two processes, as the benchmarks and
// gshmem perf do.
func TestProcesses(t *testing.T) {
	rows := runProcs(t, 2,
		jobTest{Name: "put_latency", Cfg: Config{MinSize: 8, MaxSize: 8, Iters: 100}},
		jobTest{Name: "get_bw", Cfg: Config{MinSize: 4096, MaxSize: 4096, Iters: 5, Window: 4}},
		jobTest{Name: "shm_pingpong", Cfg: Config{Iters: 100}},
	)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.Equal(t, 2, r.PEs)
		assert.Positive(t, r.LatencyUS, r.Test)
	}
	assert.Equal(t, []string{"put_latency", "get_bw", "shm_pingpong"}, []string{rows[0].Test, rows[1].Test, rows[2].Test})
}

func runInProcess(t *testing.T, name string, cfg Config) []Row {
	t.Helper()
	return runInProcessN(t, 2, name, cfg)
}

func runInProcessN(t *testing.T, n int, name string, cfg Config) []Row {
	t.Helper()
	var mu sync.Mutex
	var rows []Row
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := shmem.RunContext(ctx, n, func(w *shmem.World) error {
		r, err := Run(ctx, w, name, cfg)
		if err != nil {
			return err
		}
		if w.MyPE() != 0 && len(r) > 0 {
			t.Errorf("PE %d returned rows", w.MyPE())
		}
		mu.Lock()
		rows = append(rows, r...)
		mu.Unlock()
		return nil
	}, shmem.WithSymmetricSize(8<<20))
	require.NoError(t, err)
	return rows
}

func checkRows(t *testing.T, name string, cfg Config, rows []Row) {
	t.Helper()
	require.NotEmpty(t, rows, name)
	tt, _ := Lookup(name)
	if tt.Sweep {
		esz, _ := elemSize(cfg.withDefaults().Datatype)
		assert.Len(t, rows, len(cfg.Sizes(esz)), "%s: one row per size", name)
	}
	for _, r := range rows {
		assert.Equal(t, name, r.Test)
		assert.Equal(t, 2, r.PEs)
		assert.Positive(t, r.Iters)
		figures := []float64{r.LatencyUS, r.BandwidthGBps, r.MsgRate}
		if name == "barrier" || name == "mpi_barrier" {
			// A barrier moves no data: size 0, bandwidth 0.
			assert.Zero(t, r.Size)
			assert.Zero(t, r.BandwidthGBps)
			figures = figures[:1]
		} else {
			assert.Positive(t, r.Size)
		}
		for _, v := range figures {
			assert.True(t, v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v), "%s: %+v", name, r)
		}
		assert.InDelta(t, float64(r.Size)/r.LatencyUS/1e3, r.BandwidthGBps, r.BandwidthGBps*1e-9, "bandwidth = size/latency")
		if tt.Kind == Bandwidth {
			assert.Equal(t, cfg.withDefaults().Window, r.Window)
		}
		assert.Equal(t, tt.Kind.String(), r.Kind, "the kind gshmem-plot picks the column by")
	}
}
