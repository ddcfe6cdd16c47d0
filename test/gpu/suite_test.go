//go:build cuda

package gpu_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gshmem/gshmem/kernels"
	kcuda "github.com/gshmem/gshmem/kernels/cuda"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// checker collects a PE's failures, so that one run reports all of them.
type checker struct {
	pe   int
	errs []string
}

func (c *checker) eq(what string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		c.errs = append(c.errs, fmt.Sprintf("PE %d: %s: got %v, want %v", c.pe, what, got, want))
	}
}

func (c *checker) ok(what string, err error) bool {
	if err != nil {
		c.errs = append(c.errs, fmt.Sprintf("PE %d: %s: %v", c.pe, what, err))
		return false
	}
	return true
}

func (c *checker) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(c.errs, "\n"))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// suite runs every host-initiated, stream and kernel operation on a device
// heap and checks the results. Every PE runs it; logf reports progress.
func suite(w *shmem.World, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v", w.MyPE(), r)
		}
	}()
	c := &checker{pe: w.MyPE()}
	me, n := w.MyPE(), w.NPEs()
	right, left := (me+1)%n, (me+n-1)%n
	if !w.HeapOnDevice() {
		return fmt.Errorf("PE %d: heap is not on the device", me)
	}
	dev := must(w.Device())
	if me == 0 {
		logf("%d PEs, bootstrap %s, GPU %d", n, w.BootstrapName(), dev.Ordinal())
	}
	c.eq("Local() on a device heap", len(must(shmem.Alloc[int64](w, 8)).Local()), 0)

	// Host put and get of a block, host memory to device heap and back.
	const elems = 1 << 16
	dst := must(shmem.Calloc[int64](w, elems))
	src := make([]int64, elems)
	for i := range src {
		src[i] = int64(me)<<32 | int64(i)
	}
	c.ok("Put", shmem.Put(dst, src, right))
	c.ok("Quiet", w.Quiet())
	c.ok("BarrierAll", w.BarrierAll())
	got := make([]int64, elems)
	c.ok("Get", shmem.Get(got, dst, me))
	bad := 0
	for i, v := range got {
		if v != int64(left)<<32|int64(i) {
			bad++
		}
	}
	c.eq("block put: wrong elements", bad, 0)
	// Get from a peer.
	c.ok("Get peer", shmem.Get(got[:4], dst, right))
	c.eq("Get from right", got[:4], []int64{int64(me) << 32, int64(me)<<32 | 1, int64(me)<<32 | 2, int64(me)<<32 | 3})
	// Small and unaligned puts: 8 and 4 bytes (stream memory writes), 3 bytes (copy).
	small := must(shmem.Calloc[byte](w, 64))
	c.ok("put 8", shmem.Put(small.Slice(8, 16), []byte{1, 2, 3, 4, 5, 6, 7, 8}, right))
	c.ok("put 4", shmem.Put(small.Slice(20, 24), []byte{9, 10, 11, 12}, right))
	c.ok("put 3", shmem.Put(small.Slice(33, 36), []byte{13, 14, 15}, right))
	c.ok("BarrierAll", w.BarrierAll())
	sb := make([]byte, 40)
	c.ok("Get small", shmem.Get(sb, small, me))
	c.eq("small puts", sb[8:36], []byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 9, 10, 11, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 14, 15})

	// P and G.
	x := must(shmem.Calloc[uint64](w, 2))
	c.ok("P", shmem.P(x, uint64(100+me), right))
	c.ok("BarrierAll", w.BarrierAll())
	c.eq("P arrived", must(shmem.G(x, me)), uint64(100+left))
	c.eq("G from right", must(shmem.G(x, right)), uint64(100+me))
	f := must(shmem.Calloc[float64](w, 1))
	c.ok("P float", shmem.P(f, 1.5+float64(me), right))
	c.ok("BarrierAll", w.BarrierAll())
	c.eq("P float arrived", must(shmem.G(f, me)), 1.5+float64(left))

	// Atomics, 8 and 4 bytes, on PE 0 and on the right neighbour.
	ctr := must(shmem.Calloc[uint64](w, 1))
	ctr32 := must(shmem.Calloc[int32](w, 1))
	bits := must(shmem.Calloc[uint64](w, 1))
	c.ok("BarrierAll", w.BarrierAll())
	c.ok("Add", shmem.Add(ctr, 1, 0))
	c.ok("Inc int32", shmem.Inc(ctr32, 0))
	c.ok("Or", shmem.Or(bits, uint64(1)<<me, 0))
	c.ok("BarrierAll", w.BarrierAll())
	c.eq("Add total", must(shmem.Load(ctr, 0)), uint64(n))
	c.eq("Inc int32 total", must(shmem.Load(ctr32, 0)), int32(n))
	c.eq("Or total", must(shmem.Load(bits, 0)), uint64(1)<<n-1)
	c.ok("BarrierAll", w.BarrierAll())
	old := must(shmem.CompareAndSwap(ctr, uint64(n), uint64(1000+me), 0))
	fa := must(shmem.FetchAdd(ctr32, 10, 0))
	c.ok("Xor", shmem.Xor(bits, uint64(1)<<me, 0))
	c.ok("BarrierAll", w.BarrierAll())
	final := must(shmem.Load(ctr, 0))
	won := old == uint64(n)
	if won {
		c.eq("CAS winner's value", final, uint64(1000+me))
	} else {
		c.eq("CAS loser saw the winner", old >= 1000 && old < uint64(1000+n), true)
	}
	c.eq("FetchAdd int32 range", fa >= int32(n) && fa < int32(n+10*n), true)
	c.eq("Xor total", must(shmem.Load(bits, 0)), uint64(0))
	c.eq("Swap", must(shmem.Swap(x.At(1), uint64(7+me), right)), uint64(0))
	c.ok("Store", shmem.Store(ctr32, int32(-5), right))
	c.ok("BarrierAll", w.BarrierAll())
	c.eq("Swap arrived", must(shmem.G(x.At(1), me)), uint64(7+left))
	c.eq("Store arrived", must(shmem.Load(ctr32, me)), int32(-5))
	c.eq("FetchAnd", must(shmem.FetchAnd(x.At(1), 3, me)), uint64(7+left))
	c.eq("after And", must(shmem.G(x.At(1), me)), uint64(7+left)&3)

	// Put with signal, wait on the signal; wait-until on a word a peer stores.
	sig := must(shmem.Calloc[uint64](w, 1))
	flag := must(shmem.Calloc[int64](w, 1))
	blk := must(shmem.Calloc[int32](w, 1000))
	payload := make([]int32, 1000)
	for i := range payload {
		payload[i] = int32(me*7919 + i)
	}
	c.ok("BarrierAll", w.BarrierAll())
	c.ok("PutSignal", shmem.PutSignal(blk, payload, sig, 1, shmem.SignalAdd, right))
	v, err := shmem.SignalWaitUntil(sig, shmem.CmpGE, 1)
	c.ok("SignalWaitUntil", err)
	c.eq("signal value", v, uint64(1))
	gb := make([]int32, 1000)
	c.ok("Get after signal", shmem.Get(gb, blk, me))
	c.eq("data before signal", gb[999], int32(left*7919+999))
	c.ok("Store flag", shmem.Store(flag, int64(42+me), right))
	c.ok("WaitUntil", shmem.WaitUntil(flag, shmem.CmpEQ, int64(42+left)))
	c.ok("BarrierAll", w.BarrierAll())

	// Device to device from the host: PutSym / GetSym.
	dsrc := must(shmem.Alloc[int64](w, elems))
	c.ok("Put own", shmem.Put(dsrc, src, me))
	ddst := must(shmem.Calloc[int64](w, elems))
	c.ok("BarrierAll", w.BarrierAll())
	c.ok("PutSym", shmem.PutSym(ddst, dsrc, right))
	c.ok("BarrierAll", w.BarrierAll())
	c.ok("Get", shmem.Get(got, ddst, me))
	c.eq("PutSym last element", got[elems-1], int64(left)<<32|int64(elems-1))
	c.ok("GetSym", shmem.GetSym(ddst, dsrc, right))
	c.ok("Get", shmem.Get(got, ddst, me))
	c.eq("GetSym last element", got[elems-1], int64(right)<<32|int64(elems-1))
	// Calloc clears device memory that held data.
	c.ok("Free", shmem.Free(ddst))
	z := must(shmem.Calloc[int64](w, elems))
	c.ok("Get", shmem.Get(got, z, me))
	nz := 0
	for _, v := range got {
		if v != 0 {
			nz++
		}
	}
	c.eq("Calloc leaves non-zero elements", nz, 0)
	ptr := must(shmem.DevicePtr(z, me))
	c.eq("DevicePtr is in the heap", ptr >= dev.HeapBase(me) && ptr < dev.HeapBase(me)+uintptr(w.Options().SymmetricSize), true)
	logf("PE %d: host-initiated operations checked", me)

	// Streams: put with signal on a CUDA stream, the receiver waits on its
	// own stream, then a stream barrier.
	st := must(streams.NewCUDAStream(w))
	ssig := must(shmem.Calloc[uint64](w, 1))
	sdst := must(shmem.Calloc[int64](w, elems))
	c.ok("BarrierAll", w.BarrierAll())
	c.ok("PutSignalOnCUDAStream", streams.PutSignalOnCUDAStream(st, sdst, dsrc, ssig, 5, shmem.SignalSet, right))
	c.ok("WaitUntil on stream", st.WaitUntil(ssig, shmem.CmpGE, 5))
	c.ok("Signal add on stream", st.Signal(ssig, 2, shmem.SignalAdd, right))
	c.ok("WaitUntil GT on stream (kernel)", st.WaitUntil(ssig, shmem.CmpGT, 6))
	c.ok("Barrier on stream", st.Barrier())
	c.ok("stream sync", st.Synchronize())
	c.ok("Get", shmem.Get(got, sdst, me))
	c.eq("stream put", got[elems-1], int64(left)<<32|int64(elems-1))
	c.eq("stream signal", must(shmem.G(ssig, me)), uint64(7))
	// A small put with signal: one kernel writes data, then the signal.
	ssig2 := must(shmem.Calloc[uint64](w, 1))
	c.ok("BarrierAll", w.BarrierAll())
	c.ok("small PutSignalOnCUDAStream", streams.PutSignalOnCUDAStream(st, sdst.Slice(0, 100), dsrc.Slice(0, 100), ssig2, 3, shmem.SignalAdd, right))
	c.ok("WaitUntil small signal", st.WaitUntil(ssig2, shmem.CmpEQ, 3))
	c.ok("stream sync", st.Synchronize())
	c.ok("Get", shmem.Get(got[:100], sdst, me))
	c.eq("small stream put+signal", got[99], int64(left)<<32|99)
	c.ok("GetOnCUDAStream", streams.GetOnCUDAStream(st, sdst, dsrc, right))
	c.ok("stream sync", st.Synchronize())
	c.ok("Get", shmem.Get(got, sdst, me))
	c.eq("stream get", got[3], int64(right)<<32|3)
	hostRan := false
	c.ok("host func", st.Host(func() { hostRan = true }))
	c.ok("stream sync", st.Synchronize())
	c.eq("host function ran", hostRan, true)
	c.ok("stream close", st.Close())
	c.ok("BarrierAll", w.BarrierAll())
	logf("PE %d: stream operations checked", me)

	smallStreamCopies(w, c, dsrc)
	logf("PE %d: small stream puts and gets checked", me)

	// Kernels: the self-test module, every device call of gshmem.cuh.
	c.ok("kernel self-test", selfTest(w, c))
	logf("PE %d: device operations checked", me)
	c.ok("BarrierAll", w.BarrierAll())

	deviceCollectives(w, c)
	logf("PE %d: team collectives on the device heap checked", me)
	collSuite(w, c, logf)
	logf("PE %d: team collectives as kernels checked (every op, type and team shape)", me)
	return c.err()
}

// smallStreamCopies runs many small puts and gets on two streams at once
// (the backend launches them through one copy graph per stream): every PE
// puts pieces of its share of src, of sizes 1, 2, 3, ... elements, into
// every PE's buffer, alternating streams, gets its right neighbour's src
// the same way, and does it again on a stream made after one is closed
// (the driver may give it the closed one's handle). src holds
// pe<<32 | index on each PE.
func smallStreamCopies(w *shmem.World, c *checker, src shmem.Sym[int64]) {
	me, npes := w.MyPE(), w.NPEs()
	right := (me + 1) % npes
	const per = 600 // elements of each PE's share: pieces of 1..34 elements
	n := per * npes
	put, get := must(shmem.Calloc[int64](w, n)), must(shmem.Calloc[int64](w, n))
	sts := []*streams.CUDAStream{must(streams.NewCUDAStream(w)), must(streams.NewCUDAStream(w))}
	pieces := func(lo, hi int, do func(k, a, b int) error) {
		for k, a := 0, lo; a < hi; k++ {
			b := min(a+k+1, hi)
			if !c.ok(fmt.Sprintf("small stream copy [%d,%d)", a, b), do(k, a, b)) {
				return
			}
			a = b
		}
	}
	check := func(what string, buf shmem.Sym[int64], lo, hi int, pe func(i int) int) {
		got := make([]int64, hi-lo)
		c.ok("Get", shmem.Get(got, buf.Slice(lo, hi), me))
		bad := 0
		for i, v := range got {
			if v != int64(pe(lo+i))<<32|int64(lo+i) {
				bad++
			}
		}
		c.eq(what+": wrong elements", bad, 0)
	}
	c.ok("BarrierAll", w.BarrierAll())
	for t := range npes {
		pieces(me*per, (me+1)*per, func(k, a, b int) error {
			return streams.PutOnCUDAStream(sts[k%2], put.Slice(a, b), src.Slice(a, b), t)
		})
	}
	pieces(0, n, func(k, a, b int) error {
		return streams.GetOnCUDAStream(sts[k%2], get.Slice(a, b), src.Slice(a, b), right)
	})
	for _, st := range sts {
		c.ok("stream sync", st.Synchronize())
	}
	c.ok("BarrierAll", w.BarrierAll())
	check("small stream puts", put, 0, n, func(i int) int { return i / per })
	check("small stream gets", get, 0, n, func(int) int { return right })

	// Again, on a stream made after one is closed.
	c.ok("stream close", sts[0].Close())
	sts[0] = must(streams.NewCUDAStream(w))
	c.ok("Clear", shmem.Put(get, make([]int64, n), me))
	pieces(0, n, func(k, a, b int) error {
		return streams.GetOnCUDAStream(sts[k%2], get.Slice(a, b), src.Slice(a, b), right)
	})
	for _, st := range sts {
		c.ok("stream sync", st.Synchronize())
		c.ok("stream close", st.Close())
	}
	check("small stream gets on a new stream", get, 0, n, func(int) int { return right })
	c.ok("BarrierAll", w.BarrierAll())
}

// deviceCollectives runs the team collectives on objects in device memory
// (the transport's path without load/store mappings) and checks them against
// the sequential result.
func deviceCollectives(w *shmem.World, c *checker) {
	me, n := w.MyPE(), w.NPEs()
	t := w.TeamWorld()
	const m = 1000
	src := must(shmem.Calloc[int64](w, m*n))
	dst := must(shmem.Calloc[int64](w, m*n))
	vals := make([]int64, m*n)
	for i := range vals {
		vals[i] = int64(me*7 + i)
	}
	got := make([]int64, m*n)
	check := func(what string, cnt int, want func(i int) int64) {
		if !c.ok(what+": get", shmem.Get(got[:cnt], dst, me)) {
			return
		}
		for i := range cnt {
			if got[i] != want(i) {
				c.eq(fmt.Sprintf("%s[%d]", what, i), got[i], want(i))
				return
			}
		}
	}
	c.ok("put src", shmem.Put(src, vals, me))
	c.ok("BarrierAll", w.BarrierAll())
	if c.ok("Reduce sum", shmem.Reduce(t, shmem.ReduceSum, dst, src, m)) {
		check("Reduce sum", m, func(i int) int64 { return int64(7*n*(n-1)/2 + n*i) })
	}
	if c.ok("Broadcast", shmem.Broadcast(t, dst, src, m, n-1)) {
		check("Broadcast", m, func(i int) int64 { return int64((n-1)*7 + i) })
	}
	if c.ok("FCollect", shmem.FCollect(t, dst, src, m)) {
		check("FCollect", m*n, func(i int) int64 { return int64((i/m)*7 + i%m) })
	}
	if c.ok("Alltoall", shmem.Alltoall(t, dst, src, m)) {
		check("Alltoall", m*n, func(i int) int64 { return int64((i/m)*7 + me*m + i%m) })
	}
	c.ok("BarrierAll", w.BarrierAll())
}

func selfTest(w *shmem.World, c *checker) error {
	me, n := w.MyPE(), w.NPEs()
	left := (me + n - 1) % n
	m, err := kernels.LoadPTX(w, kcuda.SelfTestPTX)
	if err != nil {
		return err
	}
	defer m.Close()
	c.eq("self-test module bound", m.Bound(), true)
	k, err := m.Kernel("gshmemt_ops")
	if err != nil {
		return err
	}
	const nint = 4096
	vals := must(shmem.Calloc[int64](w, 4))
	ctr := must(shmem.Calloc[uint64](w, 1))
	bits := must(shmem.Calloc[uint64](w, 1))
	sig := must(shmem.Calloc[uint64](w, 1))
	buf := must(shmem.Calloc[int32](w, nint))
	wbuf := must(shmem.Calloc[int32](w, nint))
	src := must(shmem.Alloc[int32](w, nint))
	gbuf := must(shmem.Calloc[int32](w, nint))
	out := must(shmem.Calloc[uint64](w, 16))
	pat := make([]int32, nint)
	for i := range pat {
		pat[i] = int32(me*1000000 + i)
	}
	if err := shmem.Put(src, pat, me); err != nil {
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	var args []byte
	for _, s := range []uintptr{
		must(shmem.DevicePtr(vals, me)), must(shmem.DevicePtr(ctr, me)), must(shmem.DevicePtr(bits, me)),
		must(shmem.DevicePtr(sig, me)), must(shmem.DevicePtr(buf, me)), must(shmem.DevicePtr(wbuf, me)),
		must(shmem.DevicePtr(src, me)), must(shmem.DevicePtr(gbuf, me)), must(shmem.DevicePtr(out, me)),
	} {
		args = binary.LittleEndian.AppendUint64(args, uint64(s))
	}
	args = binary.LittleEndian.AppendUint32(args, nint)
	args = append(args, 0, 0, 0, 0)
	st, err := streams.NewCUDAStream(w)
	if err != nil {
		return err
	}
	defer st.Close()
	sharers := n // every PE of the test shares the one GPU
	if err := k.LaunchCollective(kernels.PTXLaunch{Grid: kernels.PTXDim{X: 1}, Block: kernels.PTXDim{X: 128}, Stream: st.Handle()},
		sharers, kernels.PTXStruct{Bytes: args, Align: 8}); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- st.Synchronize() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("self-test kernel: %w", err)
		}
	case <-time.After(60 * time.Second):
		return fmt.Errorf("self-test kernel did not finish in 60 s (a device barrier or wait hung)")
	}
	res := make([]uint64, 16)
	if err := shmem.Get(res, out, me); err != nil {
		return err
	}
	c.eq("kernel p arrived", res[0], uint64(1000+left))
	c.eq("kernel g", res[1], uint64(1000+me))
	c.eq("kernel atomic_add total", res[2], uint64(n))
	c.eq("kernel atomic_or total", res[5], uint64(1)<<n-1)
	c.eq("kernel swap old", res[6], 0)
	c.eq("kernel xor total", res[7], 0)
	c.eq("kernel signal_wait_until", res[8], 1)
	c.eq("kernel block put+signal: wrong words", res[11], 0)
	c.eq("kernel warp put: wrong words", res[12], 0)
	c.eq("kernel block get: wrong words", res[13], 0)
	c.eq("kernel swap arrived", res[10], uint64(left+7))
	c.eq("kernel atomic_set arrived", res[14], uint64(55+left))
	c.eq("kernel fetch_inc arrived", res[15], 1)
	// Exactly one PE's compare-and-swap won; every PE sees 100 + winner.
	winner := -1
	if res[3] == uint64(n) {
		winner = me
	}
	c.eq("kernel cswap result is consistent", res[4] >= 100 && res[4] < uint64(100+n), true)
	if winner >= 0 {
		c.eq("kernel cswap winner", res[4], uint64(100+me))
	}
	return nil
}
