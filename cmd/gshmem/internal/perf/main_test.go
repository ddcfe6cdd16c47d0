package perf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/shmem"
)

// The test binary doubles as the PEs of a job: started by the launcher with
// childSpecEnv set, it runs the tests the spec names instead of the Go
// tests, and PE 0 writes the rows to the spec's file.
const childSpecEnv = "GSHMEM_PERF_TEST_SPEC"

// job is what a child runs: tests in order, rows to Out.
type job struct {
	Tests []jobTest `json:"tests"`
	Out   string    `json:"out"`
}

type jobTest struct {
	Name string `json:"name"`
	Cfg  Config `json:"cfg"`
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(childSpecEnv); spec != "" {
		if err := runChild(spec); err != nil {
			fmt.Fprintln(os.Stderr, "perf child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(spec string) error {
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	w, err := shmem.Init(ctx)
	if err != nil {
		return err
	}
	var all []Row
	for _, t := range j.Tests {
		rows, err := Run(ctx, w, t.Name, t.Cfg)
		if err != nil {
			return err
		}
		all = append(all, rows...)
	}
	if w.MyPE() == 0 {
		if err := WriteJSONFile(j.Out, all); err != nil {
			return err
		}
	}
	return w.Finalize()
}

// runProcs runs the tests as a job of n processes (this binary) and
// returns PE 0's rows.
func runProcs(tb testing.TB, n int, tests ...jobTest) []Row {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	out := tb.TempDir() + "/rows.json"
	spec, err := json.Marshal(job{Tests: tests, Out: out})
	if err != nil {
		tb.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	code, err := launcher.Run(ctx, launcher.Config{
		N: n, Argv: []string{exe, "-test.run=^$"},
		Env: append(os.Environ(), childSpecEnv+"="+string(spec), "GORACE=atexit_sleep_ms=0",
			"GSHMEM_SYMMETRIC_SIZE="+fmt.Sprint(heapFor(tests))),
		Stdout: &log, Stderr: &log, TagOutput: true,
	})
	if err != nil || code != 0 {
		tb.Fatalf("PEs failed (exit %d, %v):\n%s", code, err, log.String())
	}
	f, err := os.Open(out)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadJSON(f)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// heapFor is a heap that holds the largest bandwidth window of tests.
func heapFor(tests []jobTest) uint64 {
	need := uint64(64 << 20)
	for _, t := range tests {
		c := t.Cfg.withDefaults()
		need = max(need, uint64(c.Window)*uint64(c.MaxSize)+64<<20)
	}
	return need
}
