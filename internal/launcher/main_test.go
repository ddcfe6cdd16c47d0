package launcher

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gshmem/gshmem/internal/guard/outsider"
	"github.com/gshmem/gshmem/internal/launchwire"
)

// childModeVar makes the test binary act as a PE for the tests that run
// real processes.
const childModeVar = "GSHMEM_LAUNCHER_TEST_CHILD"

func TestMain(m *testing.M) {
	outsider.Main()
	if mode := os.Getenv(childModeVar); mode != "" {
		os.Exit(childMain(mode))
	}
	os.Exit(m.Run())
}

func childMain(mode string) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "child: "+format+"\n", args...)
		return 99
	}
	switch mode {
	case "sleep":
		time.Sleep(time.Minute)
		return 0
	case "signal":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGUSR1)
		fmt.Println("ready")
		select {
		case <-sigs:
			return 0
		case <-time.After(20 * time.Second):
			return fail("no SIGUSR1")
		}
	case "builddir":
		dir, _, err := newBuildDir()
		if err != nil {
			return fail("build dir: %v", err)
		}
		fmt.Println(dir)
		time.Sleep(time.Minute) // until SIGKILLed
		return 0
	case "launch":
		// A launcher of PEs that print their pid and sleep, for a test to
		// kill.
		n, _ := strconv.Atoi(os.Getenv("GSHMEM_TEST_LAUNCH_N"))
		code, err := Run(context.Background(), Config{N: n, Argv: []string{"sh", "-c", "echo $$; exec sleep 60"}})
		return fail("launcher returned %d, %v", code, err)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
	case "output":
		fmt.Printf("out %s\nsecond line\n", os.Getenv(launchwire.EnvRank))
		fmt.Fprintf(os.Stderr, "err %s\n", os.Getenv(launchwire.EnvRank))
		fmt.Print("partial")
		return 0
	}

	e, ok, err := launchwire.EnvFromEnviron(os.Getenv)
	if err != nil || !ok {
		return fail("env: ok=%v err=%v", ok, err)
	}
	if mode == "lossabort" && e.Rank == 0 || mode == "abortloss" && e.Rank <= 1 {
		// Before anyone can die: these outlive the launcher's SIGTERM.
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "late1" && e.Rank == 1 {
		time.Sleep(time.Minute) // never joins; the launcher must stop it
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := launchwire.Dial(ctx, e)
	if err != nil {
		return fail("%v", err)
	}
	switch {
	case mode == "exit3on1" && e.Rank == 1, mode == "stubborn" && e.Rank == 1:
		time.Sleep(50 * time.Millisecond)
		return 3
	case mode == "nobye" && e.Rank == 1:
		return 0
	case mode == "sigkill1" && e.Rank == 1:
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case mode == "survive" && e.Rank == 1: // the others outlive it and exit 0
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case mode == "stop1" && e.Rank == 1:
		// Stopped again whenever continued: the kernel continues a
		// stopped process whose process group its keeper's exit orphans.
		for {
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		}
	case mode == "stopwait" && e.Rank == 1, mode == "stopall":
		fmt.Println("ready")
		for {
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		}
	case mode == "stopwait":
		fmt.Println("ready") // then waits in the barrier below
	case mode == "deaf":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Minute) // only a SIGKILL ends it
		return 0
	case mode == "lossabort" && e.Rank == 1, mode == "abortloss" && e.Rank == 1:
		c.Barrier(ctx)           // once every PE ignores SIGTERM as it should
		if mode == "abortloss" { // outlives the stop for PE 0's exit, then is killed from outside
			time.Sleep(300 * time.Millisecond)
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case mode == "lossabort" && e.Rank == 0, mode == "abortloss" && e.Rank == 0:
		// A survivor that asks for its own code after the loss (as
		// MPI_Abort from an error handler does): it outlives the stop
		// long enough to ask.
		code, _ := strconv.Atoi(os.Getenv("GSHMEM_TEST_ABORT_CODE"))
		c.Barrier(ctx)
		if mode == "lossabort" {
			time.Sleep(300 * time.Millisecond)
		}
		c.Abort(code, "after the loss")
		return code // as World.GlobalExit does
	case mode == "survive", mode == "stop1":
		time.Sleep(500 * time.Millisecond)
		fmt.Printf("pe %d survived\n", e.Rank)
		c.Close()
		return 0
	case mode == "abort" && e.Rank == 0:
		c.Abort(7, "boom")
		time.Sleep(time.Minute) // the launcher must stop it
	case mode == "abort0" && e.Rank == 0:
		c.Abort(0, "")
		c.Close()
		return 0
	case mode == "ok":
		for round := range 3 {
			mine := []byte(strconv.Itoa(e.Rank * (round + 1)))
			all, err := c.Allgather(ctx, mine)
			if err != nil {
				return fail("%v", err)
			}
			for r, got := range all {
				if want := strconv.Itoa(r * (round + 1)); !bytes.Equal(got, []byte(want)) {
					return fail("round %d: rank %d sent %q, want %q", round, r, got, want)
				}
			}
		}
		if err := c.Barrier(ctx); err != nil {
			return fail("%v", err)
		}
		if err := c.Close(); err != nil {
			return fail("%v", err)
		}
		fmt.Printf("pe %d of %d ok\n", e.Rank, e.NPEs)
		return 0
	}
	// Everyone else waits in a collective that cannot complete, as PEs of
	// a failing job would.
	if mode == "lossabort" || mode == "abortloss" {
		c.Barrier(ctx) // the one that lets the others go on
	}
	err = c.Barrier(ctx)
	return fail("barrier returned: %v", err)
}
