//go:build cuda

package gpu_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// result is one measured figure.
type result struct {
	name  string
	value float64
	unit  string
}

// bench measures, with PE 0 issuing and PE 1 the target (2 PEs on one GPU):
// device-initiated bulk put against cuMemcpyDtoDAsync, on-stream puts,
// host-initiated blocking puts, and the device put + wait-until ping-pong.
// pingpong is false where the PEs' kernels cannot run at once (processes
// without MPS).
func bench(w *shmem.World, mode string, pingpong bool, logf func(string, ...any)) (res []result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v", w.MyPE(), r)
		}
	}()
	me := w.MyPE()
	if w.NPEs() != 2 {
		return nil, fmt.Errorf("the benchmark runs on 2 PEs, not %d", w.NPEs())
	}
	peer := 1 - me
	add := func(name string, v float64, unit string) {
		res = append(res, result{mode + " " + name, v, unit})
		logf("BENCH %s %-44s %10.3f %s", mode, name, v, unit)
	}
	const big = 1 << 30
	bm := must(kernels.LoadBuiltin(w))
	defer bm.Close()
	putBlock := must(bm.Kernel("gshmemi_bench_put_block"))
	fill := must(bm.Kernel("gshmemi_fill_u32"))
	check := must(bm.Kernel("gshmemi_check_u32"))
	ppk := must(bm.Kernel("gshmemi_bench_pingpong"))
	copyk := must(bm.Kernel("gshmemi_bench_copy"))

	st := must(streams.NewCUDAStream(w))
	defer st.Close()
	ev0, ev1 := must(st.NewCUDAEvent()), must(st.NewCUDAEvent())
	timeOn := func(iters int, body func() error) (float64, error) { // ms per iteration, by events
		if err := st.Record(ev0); err != nil {
			return 0, err
		}
		for range iters {
			if err := body(); err != nil {
				return 0, err
			}
		}
		if err := st.Record(ev1); err != nil {
			return 0, err
		}
		if err := ev1.Synchronize(); err != nil {
			return 0, err
		}
		ms, err := streams.ElapsedMs(ev0, ev1)
		return ms / float64(iters), err
	}

	src := must(shmem.Alloc[byte](w, big))
	dst := must(shmem.Calloc[byte](w, big))
	out := must(shmem.Calloc[uint64](w, 1))
	sig := must(shmem.Calloc[uint64](w, 1))
	word := must(shmem.Calloc[uint64](w, 1))
	srcP, dstP := must(shmem.DevicePtr(src, me)), must(shmem.DevicePtr(dst, me))
	l := kernels.PTXLaunch{Grid: kernels.PTXDim{X: 1056}, Block: kernels.PTXDim{X: 256}, Stream: st.Handle()}
	if err := fill.Launch(l, srcP, uint64(big/4), uint32(me*7+1)); err != nil {
		return nil, err
	}
	if err := st.Synchronize(); err != nil {
		return nil, err
	}
	if err := w.BarrierAll(); err != nil {
		return nil, err
	}

	if me == 0 {
		// 1. Bulk put, 1 GiB: the anchors first.
		gbs := func(ms float64) float64 { return big / (ms * 1e6) }
		for range 2 {
			if err := streams.PutOnCUDAStream(st, dst, src, peer); err != nil {
				return nil, err
			}
		}
		ms := must(timeOn(10, func() error { return streams.PutOnCUDAStream(st, dst, src, peer) }))
		memcpyPeer := gbs(ms)
		add("cuMemcpyDtoDAsync 1GiB into peer", memcpyPeer, "GB/s")
		ms = must(timeOn(10, func() error { return streams.PutOnCUDAStream(st, dst, src, me) }))
		add("cuMemcpyDtoDAsync 1GiB local", gbs(ms), "GB/s")
		peerDst := must(shmem.DevicePtr(dst, peer))
		cl := kernels.PTXLaunch{Grid: kernels.PTXDim{X: 2112}, Block: kernels.PTXDim{X: 1024}, Stream: st.Handle()}
		ms = must(timeOn(10, func() error { return copyk.Launch(cl, peerDst, srcP, uint64(big/16)) }))
		add("plain uint4 copy kernel into peer (2112x1024)", gbs(ms), "GB/s")
		best, bestGrid := 0.0, 0
		for _, grid := range []int{132, 264, 528, 1056, 2112} {
			pl := kernels.PTXLaunch{Grid: kernels.PTXDim{X: grid}, Block: kernels.PTXDim{X: 1024}, Stream: st.Handle()}
			launch := func() error { return putBlock.Launch(pl, dstP, srcP, uint64(big), int32(peer)) }
			if err := launch(); err != nil {
				return nil, err
			}
			ms := must(timeOn(10, launch))
			g := gbs(ms)
			add(fmt.Sprintf("device putmem_nbi_block 1GiB grid=%d", grid), g, "GB/s")
			if g > best {
				best, bestGrid = g, grid
			}
		}
		add(fmt.Sprintf("device put best (grid %d) / cuMemcpyDtoD", bestGrid), 100*best/memcpyPeer, "%")

		// 2. On-stream put (nvshmemx_putmem_on_stream's shape).
		for _, sz := range []int{8, 4096, 65536, 256 << 10, 1 << 20, 1 << 30} {
			n := 1000
			if sz >= 1<<30 {
				n = 20
			} else if sz >= 1<<20 {
				n = 200
			}
			d, s := dst.Slice(0, sz), src.Slice(0, sz)
			_ = streams.PutOnCUDAStream(st, d, s, peer)
			_ = st.Synchronize()
			t0 := time.Now()
			ms := must(timeOn(n, func() error { return streams.PutOnCUDAStream(st, d, s, peer) }))
			wall := time.Since(t0).Seconds() * 1e6 / float64(n)
			if sz <= 1<<20 {
				// Where the time goes: the issue loop alone, on the host.
				_ = st.Synchronize()
				t1 := time.Now()
				for range n {
					if err := streams.PutOnCUDAStream(st, d, s, peer); err != nil {
						return nil, err
					}
				}
				issue := time.Since(t1).Seconds() * 1e6 / float64(n)
				if err := st.Synchronize(); err != nil {
					return nil, err
				}
				add(fmt.Sprintf("on-stream put %d B (host issue only)", sz), issue, "us/op")
				add(fmt.Sprintf("on-stream put %d B (events)", sz), ms*1e3, "us/op")
				add(fmt.Sprintf("on-stream put %d B (host wall, incl. sync)", sz), wall, "us/op")
			} else {
				add(fmt.Sprintf("on-stream put %d B", sz), float64(sz)/(ms*1e6), "GB/s")
			}
		}
		// The same through the copy engine (cuMemcpyDtoDAsync), the path
		// the backend takes above its kernel-copy limit.
		dev := must(w.Device())
		ctx := cudadrv.ContextFromUintptr(dev.Context())
		stream := cudadrv.StreamFromUintptr(st.Handle())
		peerBase := cudadrv.DevPtr(must(shmem.DevicePtr(dst, peer)))
		for _, sz := range []int{8, 65536, 256 << 10, 1 << 20} {
			n := 1000
			if sz >= 1<<20 {
				n = 200
			}
			ms := must(timeOn(n, func() error { return ctx.CopyDtoDAsync(peerBase, cudadrv.DevPtr(srcP), uint64(sz), stream) }))
			add(fmt.Sprintf("on-stream cuMemcpyDtoDAsync %d B (events)", sz), ms*1e3, "us/op")
		}
		// What a stream memory write costs, beside the copies above; and
		// a put or get waited for each time.
		{
			scratch := cudadrv.DevPtr(must(shmem.DevicePtr(word, me)))
			v := uint64(0)
			ms := must(timeOn(1000, func() error { v++; return ctx.WriteValue64(stream, scratch, v, cudadrv.WriteValueDefault) }))
			add("on-stream cuStreamWriteValue64 (events)", ms*1e3, "us/op")
			ms = must(timeOn(1000, func() error { return streams.GetOnCUDAStream(st, dst.Slice(0, 8), src.Slice(0, 8), peer) }))
			add("on-stream get 8 B (events)", ms*1e3, "us/op")
			t1 := time.Now()
			for range 200 {
				if err := streams.PutOnCUDAStream(st, dst.Slice(0, 8), src.Slice(0, 8), peer); err != nil {
					return nil, err
				}
				if err := st.Synchronize(); err != nil {
					return nil, err
				}
			}
			add("on-stream put 8 B, each synchronized (host wall)", time.Since(t1).Seconds()*1e6/200, "us/op")
		}
		// On-stream put with signal, 8 B.
		ms = must(timeOn(1000, func() error {
			return streams.PutSignalOnCUDAStream(st, dst.Slice(0, 8), src.Slice(0, 8), sig, 1, shmem.SignalSet, peer)
		}))
		add("on-stream put+signal 8 B (events)", ms*1e3, "us/op")

		// 3. Host-initiated blocking put: from host memory (Put) and from
		// the device heap (PutSym, nvshmem_putmem's shape).
		host := make([]byte, 1<<20)
		for i := range host {
			host[i] = byte(i)
		}
		for _, sz := range []int{8, 65536, 1 << 20} {
			for _, kind := range []string{"Put (host src)", "PutSym (device src)"} {
				n := 200
				d, s := dst.Slice(0, sz), src.Slice(0, sz)
				do := func() error { return shmem.Put(d, host[:sz], peer) }
				if strings.HasPrefix(kind, "PutSym") {
					do = func() error { return shmem.PutSym(d, s, peer) }
				}
				_ = do()
				_ = w.Quiet()
				t0 := time.Now()
				for range n {
					if err := do(); err != nil {
						return nil, err
					}
				}
				if err := w.Quiet(); err != nil {
					return nil, err
				}
				add(fmt.Sprintf("host blocking %s %d B", kind, sz), time.Since(t0).Seconds()*1e6/float64(n), "us/op")
			}
		}
		// Put PE 0's pattern back where the host puts wrote other bytes.
		if err := streams.PutOnCUDAStream(st, dst.Slice(0, 1<<20), src.Slice(0, 1<<20), peer); err != nil {
			return nil, err
		}
		if err := st.Synchronize(); err != nil {
			return nil, err
		}
		// P and G of one word, Get of 8 B.
		t0 := time.Now()
		for i := range 1000 {
			_ = shmem.P(word, uint64(i), peer)
		}
		_ = w.Quiet()
		add("host P uint64 (then Quiet)", time.Since(t0).Seconds()*1e6/1000, "us/op")
		t0 = time.Now()
		for range 1000 {
			_, _ = shmem.G(word, peer)
		}
		add("host G uint64", time.Since(t0).Seconds()*1e6/1000, "us/op")
		t0 = time.Now()
		for range 200 {
			_, _ = shmem.FetchAdd(word, 1, peer)
		}
		add("host FetchAdd uint64", time.Since(t0).Seconds()*1e6/200, "us/op")
	}
	if err := w.BarrierAll(); err != nil {
		return nil, err
	}
	// Verify the bulk put: PE 1 received PE 0's pattern.
	if me == 1 {
		if err := check.Launch(l, dstP, uint64(big/4), uint32(1), must(shmem.DevicePtr(out, me))); err != nil {
			return nil, err
		}
		if err := st.Synchronize(); err != nil {
			return nil, err
		}
		bad := must(shmem.G(out, me))
		add("bulk put verification: wrong words", float64(bad), "words")
		if bad != 0 {
			return res, fmt.Errorf("bulk put: %d of %d words wrong at PE 1", bad, big/4)
		}
	}

	// 4. Device put + wait-until ping-pong, one way.
	if pingpong {
		flag := must(shmem.Calloc[int64](w, 1))
		fp := must(shmem.DevicePtr(flag, me))
		pl := kernels.PTXLaunch{Grid: kernels.PTXDim{X: 1}, Block: kernels.PTXDim{X: 1}, Stream: st.Handle()}
		first := int32(0)
		if me == 0 {
			first = 1
		}
		for _, iters := range []int{200, 20000, 20000} {
			if err := w.BarrierAll(); err != nil {
				return nil, err
			}
			if err := st.Record(ev0); err != nil {
				return nil, err
			}
			if err := ppk.Launch(pl, fp, int32(iters), first, int32(peer)); err != nil {
				return nil, err
			}
			if err := st.Record(ev1); err != nil {
				return nil, err
			}
			done := make(chan error, 1)
			go func() { done <- ev1.Synchronize() }()
			select {
			case err := <-done:
				if err != nil {
					return nil, err
				}
			case <-time.After(120 * time.Second):
				return res, fmt.Errorf("ping-pong did not finish in 120 s (are both PEs' kernels resident?)")
			}
			ms := must(streams.ElapsedMs(ev0, ev1))
			if me == 0 && iters > 200 {
				add(fmt.Sprintf("device p+wait_until ping-pong one way (%d iters)", iters), ms*1e3/float64(iters)/2, "us")
			}
		}
	}
	if err := w.BarrierAll(); err != nil {
		return nil, err
	}
	// 5. Allreduce of 1 GiB of float32 over the team (GSHMEM_GPU_ALLREDUCE=1:
	// the multi-GPU sitting's comparison with NCCL), every PE timing its
	// calls on the host; PE 0 reports.
	if os.Getenv("GSHMEM_GPU_ALLREDUCE") == "1" {
		fsrc, fdst := must(shmem.View[float32](src)), must(shmem.View[float32](dst))
		tm := w.TeamWorld()
		if err := shmem.Reduce(tm, shmem.ReduceSum, fdst, fsrc, big/4); err != nil { // warm-up
			return res, err
		}
		const iters = 5
		t0 := time.Now()
		for range iters {
			if err := shmem.Reduce(tm, shmem.ReduceSum, fdst, fsrc, big/4); err != nil {
				return res, err
			}
		}
		if me == 0 {
			add("shmem.Reduce sum float32 1GiB (device heaps)", time.Since(t0).Seconds()*1e3/iters, "ms")
		}
	}
	return res, nil
}

func printTable(res []result) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-70s %12s\n", "measurement", "value")
	for _, r := range res {
		fmt.Fprintf(&b, "%-70s %12.3f %s\n", r.name, r.value, r.unit)
	}
	fmt.Fprint(os.Stdout, b.String())
}
