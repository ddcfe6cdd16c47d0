// Command putblock is the first gshmem program: every PE writes a block into
// its right neighbour's symmetric buffer, completes it with Quiet, meets the
// others at a barrier and checks what its left neighbour wrote.
//
//	gshmem run -n 4 ./examples/putblock
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/gshmem/gshmem/examples/internal/exflag"
	"github.com/gshmem/gshmem/shmem"
)

func main() {
	n := flag.Int("elems", 1<<16, "int64 elements per block")
	exflag.Parse(flag.CommandLine, os.Args[1:], func() error {
		if *n < 1 {
			return fmt.Errorf("-elems %d: want at least 1", *n)
		}
		return nil
	})
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "putblock:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	w, err := shmem.Init(context.Background())
	if err != nil {
		return err
	}
	me, npes := w.MyPE(), w.NPEs()
	right, left := (me+1)%npes, (me+npes-1)%npes

	dst, err := shmem.Calloc[int64](w, n)
	if err != nil {
		return err
	}
	src := make([]int64, n)
	for i := range src {
		src[i] = int64(me)<<32 | int64(i)
	}
	if err := shmem.Put(dst, src, right); err != nil {
		return err
	}
	if err := w.Quiet(); err != nil {
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	for i, v := range dst.Local() {
		if want := int64(left)<<32 | int64(i); v != want {
			return fmt.Errorf("PE %d: element %d is %#x, want %#x", me, i, v, want)
		}
	}

	// PE 0 reports once every PE has verified its block.
	ok, err := shmem.Calloc[int32](w, 1)
	if err != nil {
		return err
	}
	if err := shmem.Add(ok, 1, 0); err != nil {
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	if me == 0 {
		fmt.Printf("putblock: %d PEs, each put %d bytes into its right neighbour: verified on %d of %d PEs\n",
			npes, n*8, ok.Local()[0], npes)
	}
	return w.Finalize()
}
