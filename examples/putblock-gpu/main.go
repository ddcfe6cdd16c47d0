//go:build cuda

// Command putblock-gpu is putblock on GPU memory, in the shape of NVSHMEM's
// put-block example: the symmetric heap is device memory, and a kernel
// whose blocks each put a piece of this PE's buffer into the right
// neighbour's buffer (and signal it) does the communication. The host
// waits for the signals, then checks what arrived from the left neighbour.
//
//	go build -tags cuda -o putblock-gpu ./examples/putblock-gpu
//	gshmem run -n 2 ./putblock-gpu            # processes (CUDA IPC; start MPS first for concurrency)
//	./putblock-gpu -inproc 2                   # goroutine PEs sharing one CUDA context
//
// The kernel is putblock.cu, compiled to putblock.ptx by `go generate`
// and embedded in the binary.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"

	"github.com/gshmem/gshmem/examples/internal/exflag"
	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

//go:embed putblock.ptx
var ptx string

func main() {
	elems := flag.Int("elems", 1<<22, "int32 elements per PE")
	blocks := flag.Int("blocks", 32, "thread blocks of the kernel")
	inproc := flag.Int("inproc", 0, "run this many PEs as goroutines of this process instead of joining a job")
	exflag.Parse(flag.CommandLine, os.Args[1:], func() error {
		if *elems < 1 || *blocks < 1 || *inproc < 0 {
			return fmt.Errorf("-elems %d, -blocks %d, -inproc %d: want at least 1, 1 and 0", *elems, *blocks, *inproc)
		}
		return nil
	})
	if err := shmem.DeviceSupport(); err != nil {
		fmt.Fprintln(os.Stderr, "putblock-gpu:", err)
		os.Exit(2)
	}
	var err error
	if *inproc > 0 {
		err = shmem.Run(*inproc, func(w *shmem.World) error { return run(w, *elems, *blocks) }, shmem.WithDevice())
	} else {
		var w *shmem.World
		if w, err = shmem.Init(context.Background(), shmem.WithDevice()); err == nil {
			if err = run(w, *elems, *blocks); err == nil {
				err = w.Finalize()
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "putblock-gpu:", err)
		os.Exit(1)
	}
}

func run(w *shmem.World, n, blocks int) error {
	me, npes := w.MyPE(), w.NPEs()
	left := (me + npes - 1) % npes
	dst, err := shmem.Calloc[int32](w, n)
	if err != nil {
		return err
	}
	src, err := shmem.Alloc[int32](w, n)
	if err != nil {
		return err
	}
	flags, err := shmem.Calloc[uint64](w, blocks)
	if err != nil {
		return err
	}
	host := make([]int32, n)
	for i := range host {
		host[i] = int32(me<<24 | i&0xffffff)
	}
	if err := shmem.Put(src, host, me); err != nil { // host -> this PE's device heap
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}

	mod, err := kernels.LoadPTX(w, ptx)
	if err != nil {
		return err
	}
	defer mod.Close()
	k, err := mod.Kernel("putblock")
	if err != nil {
		return err
	}
	st, err := streams.NewCUDAStream(w)
	if err != nil {
		return err
	}
	defer st.Close()
	dp, _ := shmem.DevicePtr(dst, me) // symmetric addresses: the kernel maps them to the neighbour's
	sp, _ := shmem.DevicePtr(src, me)
	fp, _ := shmem.DevicePtr(flags, me)
	l := kernels.PTXLaunch{Grid: kernels.PTXDim{X: blocks}, Block: kernels.PTXDim{X: 256}, Stream: st.Handle()}
	if err := k.Launch(l, dp, sp, fp, uint64(n)); err != nil {
		return err
	}
	if err := st.Synchronize(); err != nil {
		return err
	}
	// Every block of the left neighbour has signalled: its data is here.
	if err := shmem.WaitUntilAll(flags, nil, shmem.CmpEQ, 1); err != nil {
		return err
	}
	got := make([]int32, n)
	if err := shmem.Get(got, dst, me); err != nil {
		return err
	}
	for i, v := range got {
		if want := int32(left<<24 | i&0xffffff); v != want {
			return fmt.Errorf("PE %d: element %d is %#x, want %#x", me, i, v, want)
		}
	}
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
		v, err := shmem.G(ok, 0)
		if err != nil {
			return err
		}
		fmt.Printf("putblock-gpu: %d PEs on GPU, %d blocks each put %d bytes into the right neighbour: verified on %d of %d PEs\n",
			npes, blocks, n*4, v, npes)
	}
	return nil
}
