//go:build cuda

package gpu_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// compatBench measures compat.Allreduce (float32 sum) on device buffers of
// 8 B, 1 MiB and 1 GiB: symmetric ones (the direct form), cudaMalloc ones
// (staged through the device scratch) and, for the small sizes, host
// buffers, beside shmem.Reduce on the same symmetric objects, all blocking
// calls timed on the host, and the floor of the same sitting (the bytes the
// GPU must read and write over its measured copy bandwidth).
func compatBench(w *shmem.World, mode string, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v", w.MyPE(), r)
		}
	}()
	const big = 1 << 30
	da, db := newDevMem(w, big), newDevMem(w, big) // before the first collective kernel: see devMem
	defer da.free()
	defer db.free()
	must(0, w.BarrierAll())
	env := must(compat.New(w))
	comm := env.CommWorld()
	me, np := w.MyPE(), w.NPEs()
	mode = fmt.Sprintf("%s np=%d", mode, np)
	a, b := must(shmem.Calloc[byte](w, big)), must(shmem.Calloc[byte](w, big))
	must(0, w.CopyHostToDevice(uintptr(da.p), make([]byte, big)))
	sync := func() { must(0, w.BarrierAll()) }
	timeIt := func(iters int, body func() error) float64 { // ms a call
		must(0, body())
		sync()
		t0 := time.Now()
		for range iters {
			must(0, body())
		}
		ms := float64(time.Since(t0).Microseconds()) / 1e3 / float64(iters)
		sync()
		return ms
	}
	var bw float64 // bytes per ms: PE 0 copies 1 GiB within its heap alone
	sync()
	if me == 0 {
		must(0, shmem.PutSym(b, a, me))
		t0 := time.Now()
		for range 10 {
			must(0, shmem.PutSym(b, a, me))
		}
		bw = big / (float64(time.Since(t0).Microseconds()) / 1e3 / 10)
		logf("BENCH compat %s %-44s %10.1f GB/s", mode, "device copy 1GiB local (PE 0 alone)", bw/1e6)
	}
	sync()
	tm := w.TeamWorld()
	for _, s := range []int{8, 1 << 20, big} {
		n := s / 4
		fa, fb := must(shmem.View[float32](a.Slice(0, s))), must(shmem.View[float32](b.Slice(0, s)))
		sa := devSlice[float32](must(shmem.DevicePtr(a, me)), n)
		sb := devSlice[float32](must(shmem.DevicePtr(b, me)), n)
		ma, mb := devSlice[float32](uintptr(da.p), n), devSlice[float32](uintptr(db.p), n)
		iters := max(10, min(2000, (256<<20)/s))
		floor := 0.0
		if bw > 0 {
			floor = float64(np) * float64(s) / bw
		}
		size := map[int]string{8: "8B", 1 << 20: "1MiB", big: "1GiB"}[s]
		report := func(name string, ms float64) {
			if me == 0 {
				logf("BENCH compat %s %-44s %10.4f ms  floor %8.4f ms  x%.2f", mode, name+" "+size, ms, floor, ms/floor)
			}
		}
		report("shmem.Reduce f32 sum blocking", timeIt(iters, func() error { return shmem.Reduce(tm, shmem.ReduceSum, fb, fa, n) }))
		report("compat.Allreduce f32 sum symmetric", timeIt(iters, func() error {
			return compat.Allreduce(comm, sa, sb, n, compat.Float32, compat.OpSum)
		}))
		report("compat.Allreduce f32 sum cudaMalloc", timeIt(iters, func() error {
			return compat.Allreduce(comm, ma, mb, n, compat.Float32, compat.OpSum)
		}))
		report("compat.Allreduce f32 sum cudaMalloc in place", timeIt(iters, func() error {
			return compat.Allreduce(comm, compat.InPlace[float32](), mb, n, compat.Float32, compat.OpSum)
		}))
		if s < big {
			ha, hb := make([]float32, n), make([]float32, n)
			report("compat.Allreduce f32 sum host buffers", timeIt(iters, func() error {
				return compat.Allreduce(comm, ha, hb, n, compat.Float32, compat.OpSum)
			}))
		}
	}
	// The 1 GiB result of the staged form against the host fold, and the
	// same bits on every PE.
	{
		n := big / 4
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(int(mix(me, i, 5)%2001)-1000) * 0.37
		}
		must(0, w.CopyHostToDevice(uintptr(da.p), asBytesOf(v)))
		ma, mb := devSlice[float32](uintptr(da.p), n), devSlice[float32](uintptr(db.p), n)
		must(0, compat.Allreduce(comm, ma, mb, n, compat.Float32, compat.OpSum))
		got := read(w, mb)
		wrong, first := 0, -1
		for i := range got {
			want := float32(int(mix(0, i, 5)%2001)-1000) * 0.37
			for p := 1; p < np; p++ {
				want += float32(int(mix(p, i, 5)%2001)-1000) * 0.37
			}
			if math.Float32bits(got[i]) != math.Float32bits(want) {
				if first < 0 {
					first = i
				}
				wrong++
			}
		}
		h := fnvOf(asBytesOf(got))
		all := make([]uint64, np)
		must(0, compat.Allgather(comm, []uint64{h}, 1, compat.Uint64, all, 1, compat.Uint64))
		same := true
		for _, x := range all {
			same = same && x == h
		}
		logf("BENCH compat %s PE %d: 1GiB cudaMalloc f32 sum compat.Allreduce: %d wrong elements (first %d) against the host fold; same bits on every PE: %v", mode, me, wrong, first, same)
		if wrong > 0 || !same {
			err = fmt.Errorf("PE %d: 1 GiB compat.Allreduce: %d wrong, same bits %v", me, wrong, same)
		}
	}
	must(0, shmem.Free(b))
	must(0, shmem.Free(a))
	if ferr := env.Finalize(); err == nil {
		err = ferr
	}
	return err
}

func fnvOf(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
