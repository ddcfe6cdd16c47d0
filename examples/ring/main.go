// Command ring passes a token around the PEs with put-with-signal: each PE
// waits for its signal, reads the token and puts token+1, with the next
// signal, into its right neighbour. PE 0 checks the token after every lap.
//
//	gshmem run -n 8 ./examples/ring -laps 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gshmem/gshmem/examples/internal/exflag"
	"github.com/gshmem/gshmem/shmem"
)

func main() {
	laps := flag.Int("laps", 1000, "times the token goes around the ring")
	exflag.Parse(flag.CommandLine, os.Args[1:], func() error {
		if *laps < 1 {
			return fmt.Errorf("-laps %d: want at least 1", *laps)
		}
		return nil
	})
	if err := run(uint64(*laps)); err != nil {
		fmt.Fprintln(os.Stderr, "ring:", err)
		os.Exit(1)
	}
}

func run(laps uint64) error {
	w, err := shmem.Init(context.Background())
	if err != nil {
		return err
	}
	me, npes := w.MyPE(), uint64(w.NPEs())
	right := (me + 1) % w.NPEs()
	tok, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return err
	}
	sig, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	start := time.Now()
	for lap := uint64(1); lap <= laps; lap++ {
		var next uint64
		if me == 0 {
			next = (lap-1)*npes + 1
		} else {
			if _, err := shmem.SignalWaitUntil(sig, shmem.CmpGE, lap); err != nil {
				return err
			}
			next = tok.Local()[0] + 1
		}
		if err := shmem.PutSignal(tok, []uint64{next}, sig, lap, shmem.SignalSet, right); err != nil {
			return err
		}
		if me == 0 {
			if _, err := shmem.SignalWaitUntil(sig, shmem.CmpGE, lap); err != nil {
				return err
			}
			if got := tok.Local()[0]; got != lap*npes {
				return fmt.Errorf("lap %d: token is %d, want %d", lap, got, lap*npes)
			}
		}
	}
	if me == 0 {
		d := time.Since(start)
		hops := laps * npes
		fmt.Printf("ring: %d PEs, %d laps, %d hops in %v (%.2f us per hop): token verified\n",
			npes, laps, hops, d.Round(time.Millisecond), float64(d.Microseconds())/float64(hops))
	}
	return w.Finalize()
}
