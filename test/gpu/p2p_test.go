//go:build cuda

package gpu_test

import (
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// compat's point-to-point on device buffers (issue 22, CUDA-aware MPI):
// Send/Recv, Isend/Irecv, Sendrecv, SendrecvReplace and Probe+Recv between
// every pair of buffer kinds (cudaMalloc memory, the symmetric device heap,
// host memory) on either side, at eager and rendezvous sizes (the larger
// over several staging chunks), and a vector datatype over device memory;
// every byte checked. p2p_device.go in compat says which path each case
// takes.

const p2pHeap = "256m"

func TestGPUP2PInProcess(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) {
			t.Setenv("GSHMEM_SYMMETRIC_SIZE", p2pHeap)
			err := shmem.Run(n, func(w *shmem.World) error { return p2pSuite(w, logf) }, shmem.WithDevice())
			require.NoError(t, err)
		})
	}
}

func TestGPUP2PProcesses(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) { runJob(t, n, "p2p", p2pHeap) })
	}
}

// p2pByte is byte i of the message rank src sends in case k.
func p2pByte(src, k, i int) byte { return byte(src*31 + k*7 + i*13 + i>>8) }

func p2pSuite(w *shmem.World, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v\n%s", w.MyPE(), r, debug.Stack())
		}
	}()
	c := &checker{pe: w.MyPE()}
	arena := newDevMem(w, 32<<20)
	defer arena.free()
	must(0, w.BarrierAll())
	env := must(compat.New(w))
	world := env.CommWorld()
	me, n := world.Rank(), world.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	kinds := []bufKind{kindDev, kindSym, kindHost}
	sizes := []int{8, 1000, env.EagerLimit(), 64 << 10, 1<<20 + 13}
	k := 0
	for _, sk := range kinds {
		for _, rk := range kinds {
			for _, size := range sizes {
				for _, call := range []string{"Send/Recv", "Isend/Irecv", "Sendrecv", "SendrecvReplace", "Probe+Recv"} {
					k++
					name := fmt.Sprintf("%s %v->%v %d B", call, sk, rk, size)
					b := &cbufs{w: w, kind: sk, arena: arena}
					rb := &cbufs{w: w, kind: rk, arena: arena}
					s, r := cbuf[byte](b, me, size), cbuf[byte](rb, me, size)
					want, v := make([]byte, size), make([]byte, size)
					for i := range v {
						v[i], want[i] = p2pByte(me, k, i), p2pByte(prev, k, i)
					}
					write(w, s, v)
					if call == "SendrecvReplace" {
						r = s // the receive kind is the send kind
					} else {
						write(w, r, make([]byte, size))
					}
					var st compat.Status
					var err error
					switch call {
					case "Send/Recv", "Probe+Recv":
						// Even ranks send first: a ring of blocking
						// rendezvous sends cannot all go first.
						for phase := range 2 {
							if (me%2 == 0) == (phase == 0) {
								err = compat.Send(world, s, size, compat.Byte, next, k)
							} else {
								if call == "Probe+Recv" {
									var ps compat.Status
									if ps, err = world.Probe(prev, k); err == nil {
										c.eq(name+" probed size", ps.Bytes(), size)
									}
								}
								if err == nil {
									st, err = compat.Recv(world, r, size, compat.Byte, prev, k)
								}
							}
							if err != nil {
								break
							}
						}
					case "Isend/Irecv":
						rr := must(compat.Irecv(world, r, size, compat.Byte, prev, k))
						sr := must(compat.Isend(world, s, size, compat.Byte, next, k))
						sts := make([]compat.Status, 2)
						err = compat.Waitall([]*compat.Request{rr, sr}, sts)
						st = sts[0]
					case "Sendrecv":
						st, err = compat.Sendrecv(world, s, size, compat.Byte, next, k, r, size, compat.Byte, prev, k)
					case "SendrecvReplace":
						st, err = compat.SendrecvReplace(world, s, size, compat.Byte, next, k, prev, k)
					}
					if c.ok(name, err) {
						c.eq(name+" source", st.Source, prev)
						c.eq(name+" bytes", st.Bytes(), size)
						got := read(w, r)
						for i := range got {
							if got[i] != want[i] {
								c.eq(fmt.Sprintf("%s byte %d", name, i), got[i], want[i])
								break
							}
						}
					}
					must(0, world.Barrier())
					b.free()
					rb.free()
				}
			}
		}
	}
	p2pVector(w, c, world, arena)
	p2pWindow(w, c, world, arena)
	c.ok("Finalize", env.Finalize())
	if me == 0 {
		logf("compat p2p on device buffers, %d PEs: %d cases, %d failures", n, k+1, len(c.errs))
	}
	return c.err()
}

// p2pVector sends every other int32 of a device buffer into every third of
// another: packed and unpacked on the host, the gaps left as they were.
func p2pVector(w *shmem.World, c *checker, world *compat.Comm, arena *devMem) {
	me, n := world.Rank(), world.Size()
	const count = 3000
	sdt, rdt := compat.Vector(count, 1, 2, compat.Int32), compat.Vector(count, 1, 3, compat.Int32)
	b := &cbufs{w: w, kind: kindDev, arena: arena}
	s, r := cbuf[int32](b, me, 2*count), cbuf[int32](b, me, 3*count)
	v := make([]int32, 2*count)
	for i := range v {
		v[i] = int32(me*100000 + i)
	}
	write(w, s, v)
	old := make([]int32, 3*count)
	for i := range old {
		old[i] = -1
	}
	write(w, r, old)
	st, err := compat.Sendrecv(world, s, 1, sdt, (me+1)%n, 99, r, 1, rdt, (me+n-1)%n, 99)
	if c.ok("vector Sendrecv", err) {
		c.eq("vector bytes", st.Bytes(), 4*count)
		got, prev := read(w, r), (me+n-1)%n
		for i := range got {
			want := int32(-1)
			if i%3 == 0 {
				want = int32(prev*100000 + 2*(i/3))
			}
			if got[i] != want {
				c.eq(fmt.Sprintf("vector element %d", i), got[i], want)
				break
			}
		}
	}
	must(0, world.Barrier())
	b.free()
}

// The measurement: a ping-pong of Send and Recv between cudaMalloc buffers
// of two PEs (osu_latency -d cuda D D), 8 B and 1 MiB, one-way time in us
// (the median of rounds), beside the C ABI's (test/gpu/testdata/cudap2p_bench.c).
// Set GSHMEM_GPU_P2P_BENCH=1.
func TestGPUP2PBenchInProcess(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_P2P_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_P2P_BENCH=1 to measure")
	}
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", p2pHeap)
	err := shmem.Run(2, func(w *shmem.World) error { return p2pBench(w, "in-process", logf) }, shmem.WithDevice())
	require.NoError(t, err)
}

func TestGPUP2PBenchProcesses(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_P2P_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_P2P_BENCH=1 to measure")
	}
	runJob(t, 2, "p2pbench", p2pHeap)
}

func p2pBench(w *shmem.World, how string, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v\n%s", w.MyPE(), r, debug.Stack())
		}
	}()
	arena := newDevMem(w, 4<<20)
	defer arena.free()
	must(0, w.BarrierAll())
	env := must(compat.New(w))
	world := env.CommWorld()
	me := world.Rank()
	if world.Size() != 2 {
		return fmt.Errorf("p2p bench: 2 PEs, not %d", world.Size())
	}
	for _, size := range []int{8, 1 << 20} {
		s, r := devSlice[byte](arena.take(size), size), devSlice[byte](arena.take(size), size)
		iters := 2000
		if size > 8<<10 {
			iters = 300
		}
		var rounds []float64
		for rep := range 5 {
			must(0, world.Barrier())
			t0 := time.Now()
			for range iters {
				if me == 0 {
					must(0, compat.Send(world, s, size, compat.Byte, 1, 1))
					must(compat.Recv(world, r, size, compat.Byte, 1, 1))
				} else {
					must(compat.Recv(world, r, size, compat.Byte, 0, 1))
					must(0, compat.Send(world, s, size, compat.Byte, 0, 1))
				}
			}
			if rep > 0 { // the first round warms up
				rounds = append(rounds, time.Since(t0).Seconds()*1e6/float64(2*iters))
			}
		}
		sort.Float64s(rounds)
		if me == 0 {
			logf("BENCH compat Send/Recv ping-pong device->device %d B %s: %.2f us one way (median of %d rounds; best %.2f)",
				size, how, rounds[len(rounds)/2], len(rounds), rounds[0])
		}
		arena.used = 0
	}
	// windows.Put of 8 B + Flush into a window on the GPU, from a device
	// and from a host origin (the C ABI's MPI_Put figure's counterpart).
	win := must(windows.Allocate(world, 1<<16, 1, compat.Info{windows.InfoMemory: windows.MemoryDevice}))
	must(0, win.LockAll(0))
	for _, origin := range []string{"device", "host"} {
		src := devSlice[byte](arena.take(8), 8)
		if origin == "host" {
			src = make([]byte, 8)
		}
		var rounds []float64
		const iters = 2000
		for rep := range 6 {
			t0 := time.Now()
			if me == 0 {
				for i := range iters {
					must(0, windows.Put(win, src, 1, 64*(i&63)))
					must(0, win.Flush(1))
				}
			}
			if rep > 0 {
				rounds = append(rounds, time.Since(t0).Seconds()*1e6/iters)
			}
		}
		sort.Float64s(rounds)
		if me == 0 {
			logf("BENCH windows.Put 8 B + Flush, %s origin -> device window %s: %.2f us (median of %d rounds; best %.2f)",
				origin, how, rounds[len(rounds)/2], len(rounds), rounds[0])
		}
	}
	must(0, win.UnlockAll())
	must(0, win.Free())
	return env.Finalize()
}

// p2pWindow checks a window whose memory is on the GPU: Put from device
// and host origins, Get into device memory, Accumulate from a device
// origin, FetchAndOp and CompareAndSwap, in fence and lock epochs.
func p2pWindow(w *shmem.World, c *checker, world *compat.Comm, arena *devMem) {
	me, n := world.Rank(), world.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	const m = 2048
	win, base, err := windows.AllocateOf[int32](world, m, compat.Info{windows.InfoMemory: windows.MemoryDevice})
	if !c.ok("device window", err) {
		return
	}
	c.eq("window memory is on the GPU", w.IsDeviceMemory(uintptr(unsafe.Pointer(&base[0]))), true)
	c.eq("window info", win.Info()[windows.InfoMemory], windows.MemoryDevice)
	b := &cbufs{w: w, kind: kindDev, arena: arena}
	orig, res := cbuf[int32](b, me, m), cbuf[int32](b, me, m)
	v := make([]int32, m)
	for i := range v {
		v[i] = int32(me*100000 + i)
	}
	write(w, orig, v)
	c.ok("fence", win.Fence(0))
	c.ok("put device origin", windows.Put(win, orig[:m/2], next, 0))
	c.ok("put host origin", windows.Put(win, v[m/2:], next, m/2))
	c.ok("fence", win.Fence(0))
	got := read(w, base)
	for i := range got {
		if got[i] != int32(prev*100000+i) {
			c.eq(fmt.Sprintf("window element %d", i), got[i], prev*100000+i)
			break
		}
	}
	c.ok("get into device", windows.Get(win, res, next, 0))
	c.ok("fence", win.Fence(0))
	got = read(w, res)
	for i := range got {
		if got[i] != int32(me*100000+i) {
			c.eq(fmt.Sprintf("get element %d", i), got[i], me*100000+i)
			break
		}
	}
	for i := range v {
		v[i] = int32(me + i)
	}
	write(w, orig, v)
	if me == 0 {
		write(w, base, make([]int32, m))
	}
	c.ok("fence", win.Fence(0))
	c.ok("accumulate device origin", windows.Accumulate(win, orig, 0, 0, compat.OpSum))
	c.ok("fence", win.Fence(0))
	if me == 0 {
		got = read(w, base)
		for i := range got {
			if want := int32(n*i + n*(n-1)/2); got[i] != want {
				c.eq(fmt.Sprintf("accumulate element %d", i), got[i], want)
				break
			}
		}
		write(w, base[:1], []int32{0})
	}
	must(0, world.Barrier())
	c.ok("lock", win.Lock(windows.LockShared, 0, 0))
	old, err := windows.FetchAndOp(win, int32(1), 0, 0, compat.OpSum)
	c.ok("fetch and op", err)
	c.ok("unlock", win.Unlock(0))
	c.eq("fetch and op old value in range", old >= 0 && old < int32(n), true)
	must(0, world.Barrier())
	if me == 0 {
		c.ok("lock", win.Lock(windows.LockExclusive, 0, 0))
		prior, err := windows.CompareAndSwap(win, int32(n), -7, 0, 0)
		c.ok("compare and swap", err)
		c.ok("unlock", win.Unlock(0))
		c.eq("compare and swap prior", prior, n)
		c.eq("compare and swap result", read(w, base[:1])[0], -7)
	}
	must(0, world.Barrier())
	c.ok("free window", win.Free())
	b.free()
}
