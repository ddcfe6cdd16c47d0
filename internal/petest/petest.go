// Package petest runs one test body as several PEs, twice: as goroutines of
// the test process (shmem.Run) and as processes (the test binary re-executes
// itself under the launcher, one process per PE). The same assertions run in
// both, so the two ways of being a PE are held to the same semantics.
//
//	func TestPut(t *testing.T) {
//		petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
//			...
//			require.NoError(t, shmem.Put(dst, src, peer))
//		})
//	}
//
// T implements testify's TestingT; require's FailNow stops only the failing
// PE, and the job is then aborted so that the others do not wait forever.
package petest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/shmem"
)

const childEnv = "GSHMEM_PETEST_CHILD"

// Config says how to run a test body.
type Config struct {
	N        int
	HeapSize uint64        // default 32 MiB
	Timeout  time.Duration // whole run, default 2 minutes
	// Modes to run: "inproc", "procs" (default both), and "tcp": processes
	// that each pose as a node of their own (GSHMEM_NODE_ID=%r), so that
	// every peer is reached over tcp on the loopback interface.
	Modes []string
}

// T is a PE's view of the test.
type T struct {
	t      *testing.T
	pe     int
	mu     sync.Mutex
	failed bool
}

type failNow struct{}

// Errorf records a failure of this PE.
func (p *T) Errorf(format string, args ...any) {
	p.mu.Lock()
	p.failed = true
	p.mu.Unlock()
	p.t.Errorf("PE %d: "+format, append([]any{p.pe}, args...)...)
}

// FailNow stops this PE.
func (p *T) FailNow() { panic(failNow{}) }

// Helper marks the caller as a helper.
func (p *T) Helper() { p.t.Helper() }

// Logf logs with the PE number.
func (p *T) Logf(format string, args ...any) {
	p.t.Logf("PE %d: "+format, append([]any{p.pe}, args...)...)
}

// Failed reports whether this PE failed.
func (p *T) Failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

// PE returns the PE number.
func (p *T) PE() int { return p.pe }

// Run runs fn as n PEs, in-process and as processes.
func Run(t *testing.T, n int, fn func(t *T, w *shmem.World)) {
	t.Helper()
	RunConfig(t, Config{N: n}, fn)
}

// RunConfig is Run with a Config.
func RunConfig(t *testing.T, c Config, fn func(t *T, w *shmem.World)) {
	t.Helper()
	if c.HeapSize == 0 {
		c.HeapSize = 32 << 20
	}
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{"inproc", "procs"}
	}
	for _, m := range c.Modes {
		switch m {
		case "inproc":
			t.Run("inproc", func(t *testing.T) { runInproc(t, c, fn) })
		case "procs":
			t.Run("procs", func(t *testing.T) { runProcs(t, c, fn, nil) })
		case "tcp":
			t.Run("tcp", func(t *testing.T) {
				runProcs(t, c, fn, []string{"GSHMEM_NODE_ID=%r", "GSHMEM_TCP_ADDR=127.0.0.1"})
			})
		default:
			t.Fatalf("petest: unknown mode %q", m)
		}
	}
}

// call runs fn for one PE, turning FailNow into an error.
func call(p *T, w *shmem.World, fn func(*T, *shmem.World)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(failNow); !ok {
				panic(r)
			}
			err = fmt.Errorf("PE %d failed", p.pe)
		}
	}()
	fn(p, w)
	if p.Failed() {
		return fmt.Errorf("PE %d failed", p.pe)
	}
	return nil
}

func runInproc(t *testing.T, c Config, fn func(*T, *shmem.World)) {
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	err := shmem.RunContext(ctx, c.N, func(w *shmem.World) error {
		return call(&T{t: t, pe: w.MyPE()}, w, fn)
	}, shmem.WithSymmetricSize(c.HeapSize))
	if err != nil && !t.Failed() {
		t.Errorf("shmem.Run: %v", err)
	}
}

// AllModes is every way of being a PE: goroutines, processes over shared
// memory, processes over tcp.
var AllModes = []string{"inproc", "procs", "tcp"}

func runProcs(t *testing.T, c Config, fn func(*T, *shmem.World), env []string) {
	if os.Getenv(childEnv) != "" {
		runChild(t, c, fn)
		return
	}
	var pat []string
	for _, part := range strings.Split(t.Name(), "/") {
		pat = append(pat, "^"+regexp.QuoteMeta(part)+"$")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("petest: %v", err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	code, err := launcher.Run(ctx, launcher.Config{
		N:    c.N,
		Argv: []string{exe, "-test.run=" + strings.Join(pat, "/"), "-test.count=1", "-test.v", "-test.timeout=" + c.Timeout.String()},
		Env: append(append(os.Environ(), childEnv+"=1",
			"GSHMEM_SYMMETRIC_SIZE="+strconv.FormatUint(c.HeapSize, 10)), env...),
		TagOutput: true, Stdout: &out, Stderr: &out,
	})
	if err != nil || code != 0 {
		t.Errorf("PEs as processes failed (exit %d, %v); their output:\n%s", code, err, out.String())
	} else if !strings.Contains(out.String(), "--- PASS") {
		t.Errorf("PEs as processes ran no test; their output:\n%s", out.String())
	}
}

func runChild(t *testing.T, c Config, fn func(*T, *shmem.World)) {
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	w, err := shmem.Init(ctx)
	if err != nil {
		t.Fatalf("shmem.Init: %v", err)
	}
	p := &T{t: t, pe: w.MyPE()}
	if err := call(p, w, fn); err != nil {
		// Leave without Finalize: the launcher sees this PE fail and stops the others.
		t.FailNow()
	}
	if err := w.Finalize(); err != nil && !errors.Is(err, shmem.ErrFinalized) {
		t.Fatalf("Finalize: %v", err)
	}
}
