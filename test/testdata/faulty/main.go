// Command faulty is the program of the fault-injection tests
// (test/faults_test.go). Every PE sets up compat, a window and a few
// symmetric objects; then PE -victim kills (SIGKILL) or stops (SIGSTOP)
// itself at the point -at names while the other PEs are in the matching
// operation, and each survivor reports how its operation ended:
//
//	faulty: fault pe N how UNIXNANO         the victim, just before the signal
//	faulty: lost pe N at UNIXNANO: ERROR    a survivor whose operation failed with shmem.ErrPeerLost
//	faulty: error pe N: ERROR               any other error (exit status 1)
//
// A survivor exits with status 3 after an ErrPeerLost, 1 after anything
// else, 2 when its operation succeeded where it could not have.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// settle is how long the victim lets the survivors get into their
// operation before it strikes.
const settle = 300 * time.Millisecond

func main() {
	at := flag.String("at", "barrier", "where the victim strikes: barrier, put, atomic, atomic-live, quiet, winlock, lock, rendezvous, bootstrap")
	victim := flag.Int("victim", 1, "the PE that kills or stops itself")
	how := flag.String("how", "kill", "kill (SIGKILL) or stop (SIGSTOP)")
	flag.Parse()
	rank, _ := strconv.Atoi(os.Getenv("GSHMEM_RANK"))
	npes, _ := strconv.Atoi(os.Getenv("GSHMEM_NPES"))
	sig := syscall.SIGKILL
	if *how == "stop" {
		sig = syscall.SIGSTOP
	}
	strike := func() {
		fmt.Printf("faulty: fault pe %d %s %d\n", rank, *how, time.Now().UnixNano())
		_ = syscall.Kill(os.Getpid(), sig)
		select {} // stopped, then continued: wait for the test's SIGKILL
	}
	if *at == "bootstrap" {
		switch {
		case rank == *victim:
			go func() { time.Sleep(settle); strike() }()
		case rank == npes-1:
			// The last PE comes late, so that the others are in the
			// rendezvous, waiting, when the victim strikes.
			time.Sleep(3 * settle)
		}
	}
	err := run(*at, *victim, rank, strike)
	switch {
	case err == nil:
		fmt.Printf("faulty: error pe %d: the operation succeeded although PE %d was gone\n", rank, *victim)
		os.Exit(2)
	case errors.Is(err, shmem.ErrPeerLost):
		fmt.Printf("faulty: lost pe %d at %d: %v\n", rank, time.Now().UnixNano(), err)
		os.Exit(3)
	default:
		fmt.Printf("faulty: error pe %d: %v\n", rank, err)
		os.Exit(1)
	}
}

// run sets the job up and runs the survivor's operation until it fails.
func run(at string, victim, rank int, strike func()) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := compat.Init(ctx)
	if err != nil {
		return err
	}
	w := env.World()
	comm := env.CommWorld()
	me, n := w.MyPE(), w.NPEs()
	buf, err := shmem.Calloc[byte](w, 64<<10)
	if err != nil {
		return err
	}
	ctr, err := shmem.Calloc[uint64](w, 8)
	if err != nil {
		return err
	}
	win, _, err := windows.AllocateOf[int64](comm, 8, nil)
	if err != nil {
		return err
	}
	lock, err := shmem.Calloc[int64](w, 1)
	if err != nil {
		return err
	}
	if at == "winlock" && me == victim {
		if err := win.Lock(windows.LockExclusive, 0, 0); err != nil {
			return err
		}
	}
	if at == "lock" && me == victim {
		if err := shmem.SetLock(lock); err != nil {
			return err
		}
	}
	if err := w.BarrierAll(); err != nil { // everyone is set up (and the victim holds the lock)
		return err
	}
	if me == victim {
		time.Sleep(settle)
		strike()
	}
	src := make([]byte, len(buf.Local()))
	switch at {
	case "bootstrap", "barrier":
		for {
			if err := w.BarrierAll(); err != nil {
				return err
			}
		}
	case "put":
		for i := 0; ; i++ {
			if err := shmem.PutNBI(buf, src, victim); err != nil {
				return err
			}
			if i%16 == 0 {
				if err := w.Quiet(); err != nil {
					return err
				}
			}
		}
	case "atomic":
		for {
			if _, err := shmem.FetchAdd(ctr.At(0), 1, victim); err != nil {
				return err
			}
		}
	case "atomic-live":
		// Atomics to a survivor only: the loss must reach this PE
		// through the atomics themselves.
		peer := (me + 1) % n
		if peer == victim {
			peer = (peer + 1) % n
		}
		for {
			if _, err := shmem.FetchAdd(ctr.At(0), 1, peer); err != nil {
				return err
			}
		}
	case "quiet":
		// One put, then Quiet until the loss shows: a PE that only
		// does RMA, and not to the victim alone.
		if err := shmem.Put(buf, src[:8], (me+1)%n); err != nil {
			return err
		}
		for {
			if err := w.Quiet(); err != nil {
				return err
			}
			time.Sleep(time.Millisecond)
		}
	case "winlock":
		// Rank 0's window is locked by the victim.
		if err := win.Lock(windows.LockExclusive, 0, 0); err != nil {
			return err
		}
		return win.Unlock(0)
	case "lock":
		// The victim holds the distributed lock: every survivor queues
		// for it behind the victim's ticket.
		return shmem.SetLock(lock)
	case "rendezvous":
		big := make([]byte, 1<<20) // well above the eager limit
		return compat.Send(comm, big, len(big), compat.Byte, victim, 7)
	}
	return fmt.Errorf("unknown -at %q", at)
}
