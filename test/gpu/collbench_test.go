//go:build cuda

package gpu_test

import (
	"fmt"
	"hash/fnv"
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/kernels"
	kcuda "github.com/gshmem/gshmem/kernels/cuda"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// The measurements of issue 21: team collectives as kernels on device
// heaps, each beside its floor measured in the same sitting. The floor of a
// collective is the bytes the GPU must read and write for it, over all the
// PEs that share the GPU, divided by twice the measured local copy
// bandwidth (a copy of B bytes reads B and writes B): an all-reduce of S
// bytes on np PEs reads every src and writes every dst (2 np S), a
// broadcast reads the root's src once and writes every dst (S + np S), an
// fcollect into S bytes reads every block once and writes every dst (S +
// np S), an alltoall of S bytes per PE reads and writes np S each.

// Set GSHMEM_GPU_COLL=1; GSHMEM_GPU_NPES picks the PE counts.
func TestGPUCollBenchInProcess(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_COLL") != "1" {
		t.Skip("set GSHMEM_GPU_COLL=1 to measure")
	}
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) {
			t.Setenv("GSHMEM_SYMMETRIC_SIZE", benchHeap)
			err := shmem.Run(n, func(w *shmem.World) error { return collBench(w, "in-process", logf) }, shmem.WithDevice())
			require.NoError(t, err)
		})
	}
}

func TestGPUCollBenchProcesses(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_COLL") != "1" {
		t.Skip("set GSHMEM_GPU_COLL=1 to measure")
	}
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) { runJob(t, n, "collbench", benchHeap) })
	}
}

func collBench(w *shmem.World, mode string, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v", w.MyPE(), r)
		}
	}()
	me, np := w.MyPE(), w.NPEs()
	tm := w.TeamWorld()
	mode = fmt.Sprintf("%s np=%d", mode, np)
	const big = 1 << 30
	a := must(shmem.Calloc[byte](w, big))
	b := must(shmem.Calloc[byte](w, big))
	st := must(streams.NewCUDAStream(w))
	defer st.Close()
	ev0, ev1 := must(st.NewCUDAEvent()), must(st.NewCUDAEvent())
	timeOn := func(iters int, body func() error) float64 { // ms per iteration, by events
		must(0, st.Record(ev0))
		for range iters {
			must(0, body())
		}
		must(0, st.Record(ev1))
		must(0, ev1.Synchronize())
		return must(streams.ElapsedMs(ev0, ev1)) / float64(iters)
	}
	report := func(name string, ms, floor float64) {
		if me != 0 {
			return
		}
		if floor > 0 {
			logf("BENCH %s %-40s %10.4f ms  floor %8.4f ms  x%.2f", mode, name, ms, floor, ms/floor)
		} else {
			logf("BENCH %s %-40s %10.4f ms", mode, name, ms)
		}
	}
	sync := func() { must(0, w.BarrierAll()) }
	size := func(s int) string {
		switch {
		case s >= 1<<30:
			return fmt.Sprintf("%dGiB", s>>30)
		case s >= 1<<20:
			return fmt.Sprintf("%dMiB", s>>20)
		case s >= 1<<10:
			return fmt.Sprintf("%dKiB", s>>10)
		}
		return fmt.Sprintf("%dB", s)
	}
	iters := func(s int) int { return max(5, min(1000, (64<<20)/max(s, 1))) }

	// The anchor: PE 0 copies 1 GiB within its heap alone.
	sync()
	var bw float64 // bytes per ms
	if me == 0 {
		must(0, streams.PutOnCUDAStream(st, b, a, me))
		ms := timeOn(10, func() error { return streams.PutOnCUDAStream(st, b, a, me) })
		bw = big / ms
		logf("BENCH %s %-40s %10.1f GB/s", mode, "cuMemcpyDtoDAsync 1GiB local (PE 0 alone)", bw/1e6)
	}
	sync()
	floor := func(bytes float64) float64 { // ms
		if bw == 0 {
			return 0
		}
		return bytes / (2 * bw)
	}
	fnp := float64(np)

	// A team barrier on the stream: one one-block launch.
	{
		ts := func() error { return streams.TeamSyncOnCUDAStream(st, tm) }
		must(0, ts())
		ms := timeOn(1000, ts)
		sync()
		report("team sync on stream (loop of 1000) per call", ms, 0)
	}

	// All-reduce, float32 sum, on a stream and blocking.
	for _, s := range []int{8, 64 << 10, 1 << 20, 16 << 20, 256 << 20, big} {
		fa, fb := must(shmem.View[float32](a.Slice(0, s))), must(shmem.View[float32](b.Slice(0, s)))
		n := s / 4
		red := func() error { return streams.ReduceOnCUDAStream(st, tm, shmem.ReduceSum, fb, fa, n) }
		sync()
		must(0, red())
		must(0, st.Synchronize())
		sync()
		ms := timeOn(iters(s), red)
		sync()
		report("allreduce f32 sum on stream "+size(s), ms, floor(2*fnp*float64(s)))
		t0 := time.Now()
		k := min(iters(s), 200)
		for range k {
			must(0, shmem.Reduce(tm, shmem.ReduceSum, fb, fa, n))
		}
		report("allreduce f32 sum blocking "+size(s), time.Since(t0).Seconds()*1e3/float64(k), floor(2*fnp*float64(s)))
		sync()
	}
	// Broadcast from PE 0, fcollect into s bytes, alltoall of s bytes a PE.
	for _, s := range []int{8, 1 << 20, 256 << 20, big} {
		sa, sb := a.Slice(0, s), b.Slice(0, s)
		bc := func() error { return streams.BroadcastOnCUDAStream(st, tm, sb, sa, s, 0) }
		sync()
		must(0, bc())
		ms := timeOn(iters(s), bc)
		sync()
		report("broadcast on stream "+size(s), ms, floor(float64(s)+fnp*float64(s)))
		if blk := s / np; blk > 0 && blk%8 == 0 {
			fc := func() error { return streams.FCollectOnCUDAStream(st, tm, sb.Slice(0, blk*np), sa.Slice(0, blk), blk) }
			must(0, fc())
			ms := timeOn(iters(s), fc)
			sync()
			report("fcollect on stream into "+size(s), ms, floor(float64(blk*np)+fnp*float64(blk*np)))
			at := func() error {
				return streams.AlltoallOnCUDAStream(st, tm, sb.Slice(0, blk*np), sa.Slice(0, blk*np), blk)
			}
			must(0, at())
			ms = timeOn(iters(s), at)
			sync()
			report("alltoall on stream "+size(blk*np)+" a PE", ms, floor(2*fnp*float64(blk*np)))
		}
	}
	must(0, st.Synchronize())
	sync()

	// An 8-byte all-reduce from inside a kernel, block-scoped, 1000 in a
	// loop (one block on every PE). The module and the team's handle are
	// ready on every PE before any launches: both do stream work, which
	// must not queue behind a peer's kernel that waits for this PE's.
	{
		mod := must(kernels.LoadPTX(w, kcuda.SelfTestPTX))
		k := must(mod.Kernel("gshmemt_reduce_loop"))
		team := must(tm.DeviceHandle())
		sync()
		fa, fb := must(shmem.View[float32](a.Slice(0, 8))), must(shmem.View[float32](b.Slice(0, 8)))
		pa, pb := must(shmem.DevicePtr(fa, me)), must(shmem.DevicePtr(fb, me))
		l := kernels.PTXLaunch{Grid: kernels.PTXDim{X: 1}, Block: kernels.PTXDim{X: 64}, Stream: st.Handle()}
		loop := func(iters int) error { return k.LaunchCollective(l, np, uint64(team), pb, pa, int32(2), int32(iters)) }
		must(0, loop(10))
		must(0, st.Synchronize())
		sync()
		const iters = 1000
		ms := timeOn(1, func() error { return loop(iters) })
		report("allreduce f32 sum 8B in a kernel (block, loop of 1000) per call", ms/iters, 0)
		sync()
		must(0, mod.Close())
	}

	// Correctness at 1 GiB: float32 sum, every element against the host's
	// fold in team order, and the same bits on every PE.
	gen := func(pe, i int) float32 { return float32((i*7+pe*13)%1000)*0.25 + float32(pe)*0.001 }
	n := big / 4
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = gen(me, i)
	}
	fa, fb := must(shmem.View[float32](a)), must(shmem.View[float32](b))
	must(0, shmem.Put(fa, vals, me))
	must(0, w.Quiet())
	sync()
	must(0, shmem.Reduce(tm, shmem.ReduceSum, fb, fa, n))
	got := vals // reused
	must(0, shmem.Get(got, fb, me))
	bad, first := 0, -1
	for i, v := range got {
		want := gen(0, i)
		for p := 1; p < np; p++ {
			want = float32(want + gen(p, i)) // rounded: no fused operation
		}
		if *(*uint32)(unsafe.Pointer(&v)) != *(*uint32)(unsafe.Pointer(&want)) {
			if bad == 0 {
				first = i
			}
			bad++
		}
	}
	h := fnv.New64a()
	h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), big))
	hs := must(shmem.Calloc[uint64](w, 1))
	all := must(shmem.Calloc[uint64](w, np))
	must(0, shmem.Put(hs, []uint64{h.Sum64()}, me))
	must(0, w.Quiet())
	sync()
	must(0, shmem.FCollect(tm, all, hs, 1))
	hv := make([]uint64, np)
	must(0, shmem.Get(hv, all, me))
	same := true
	for _, x := range hv {
		same = same && x == hv[0]
	}
	logf("BENCH %s PE %d: 1GiB f32 sum allreduce: %d wrong elements (first %d) against the host fold; same bits on every PE: %v",
		mode, me, bad, first, same)
	if bad != 0 || !same {
		return fmt.Errorf("PE %d: 1 GiB all-reduce: %d wrong elements, same bits everywhere: %v", me, bad, same)
	}
	return nil
}
