//go:build cuda

package gpu_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// compat's collectives on device buffers (issue 21): Allreduce, Reduce,
// Bcast, Allgather and Alltoall on a device World (and the rooted and
// v-collectives: compatv_test.go), with buffers in device
// memory outside the symmetric heap (cudaMalloc: staged through the device
// scratch), in the symmetric heap (direct), mixed between members, and in
// host memory; checked byte for byte against a host reference folded in
// rank order, so every member holds the same bits.

const compatHeap = "256m"

func TestGPUCompatInProcess(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) {
			t.Setenv("GSHMEM_SYMMETRIC_SIZE", compatHeap)
			err := shmem.Run(n, func(w *shmem.World) error { return compatSuite(w, logf) }, shmem.WithDevice())
			require.NoError(t, err)
		})
	}
}

func TestGPUCompatProcesses(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) { runJob(t, n, "compat", compatHeap) })
	}
}

// devMem is device memory outside the symmetric heap (cuMemAlloc). The
// suite takes one arena before its first collective and hands out pieces of
// it: freeing device memory waits for the whole GPU, and PEs of one process
// share it, so a cuMemFree while a peer's kernel waits for this PE would
// never return.
type devMem struct {
	ctx  cudadrv.Context
	p    cudadrv.DevPtr
	n    int
	used int
}

func newDevMem(w *shmem.World, n int) *devMem {
	d := must(w.Device())
	ctx := cudadrv.ContextFromUintptr(d.Context())
	return &devMem{ctx: ctx, p: must(ctx.MemAlloc(uint64(max(n, 1)))), n: n}
}

func (m *devMem) free() { _ = m.ctx.MemFree(m.p) }

// take returns n bytes of the arena, 256-byte aligned.
func (m *devMem) take(n int) uintptr {
	if m.used+n > m.n {
		panic(fmt.Sprintf("device arena of %d bytes: %d used, %d more asked", m.n, m.used, n))
	}
	p := uintptr(m.p) + uintptr(m.used)
	m.used += (n + 255) &^ 255
	return p
}

// devSlice is n elements of T at device address p, as a CUDA-aware caller
// passes device memory to compat (never read on the host).
func devSlice[T any](p uintptr, n int) []T { return unsafe.Slice(*(**T)(unsafe.Pointer(&p)), n) }

func asBytesOf[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

// bufKind is where a member's buffers live.
type bufKind int

const (
	kindDev     bufKind = iota // cudaMalloc memory: staged
	kindSym                    // the symmetric heap: direct
	kindHost                   // Go memory
	kindMixed                  // rank 0 symmetric, the others cudaMalloc
	kindHostMix                // even ranks Go memory, odd ranks cudaMalloc
)

func (k bufKind) String() string {
	return [...]string{"device", "symmetric", "host", "mixed", "host+device"}[k]
}

// cbufs hands out buffers of one kind and writes and reads them.
type cbufs struct {
	w     *shmem.World
	kind  bufKind
	arena *devMem
	syms  []shmem.Sym[byte]
}

func (b *cbufs) kindHere(rank int) bufKind {
	switch {
	case b.kind == kindMixed && rank == 0:
		return kindSym
	case b.kind == kindMixed:
		return kindDev
	case b.kind == kindHostMix && rank%2 == 0:
		return kindHost
	case b.kind == kindHostMix:
		return kindDev
	}
	return b.kind
}

// buf returns n elements of T of this member's kind. Symmetric ones are
// allocated collectively: every member calls buf in the same order.
func cbuf[T any](b *cbufs, rank, n int) []T {
	nb := n * int(unsafe.Sizeof(*new(T)))
	switch b.kindHere(rank) {
	case kindHost:
		return make([]T, n)
	case kindDev:
		if b.kind == kindMixed { // the symmetric members allocate: keep in step
			b.syms = append(b.syms, must(shmem.Alloc[byte](b.w, nb)))
		}
		return devSlice[T](b.arena.take(nb), n)
	}
	s := must(shmem.Alloc[byte](b.w, nb))
	b.syms = append(b.syms, s)
	return devSlice[T](must(shmem.DevicePtr(s, b.w.MyPE())), n)
}

func (b *cbufs) free() {
	b.arena.used = 0
	for i := len(b.syms) - 1; i >= 0; i-- {
		_ = shmem.Free(b.syms[i])
	}
}

// write and read move a buffer's contents, wherever it lives.
func write[T any](w *shmem.World, dst, v []T) {
	if len(v) == 0 {
		return
	}
	if w.IsDeviceMemory(uintptr(unsafe.Pointer(&dst[0]))) {
		must(0, w.CopyHostToDevice(uintptr(unsafe.Pointer(&dst[0])), asBytesOf(v)))
		return
	}
	copy(dst, v)
}

func read[T any](w *shmem.World, src []T) []T {
	out := make([]T, len(src))
	if len(src) > 0 && w.IsDeviceMemory(uintptr(unsafe.Pointer(&src[0]))) {
		must(0, w.CopyDeviceToHost(asBytesOf(out), uintptr(unsafe.Pointer(&src[0]))))
		return out
	}
	copy(out, src)
	return out
}

// compatCtx is one PE's view of a compat case.
type compatCtx struct {
	w     *shmem.World
	c     *checker
	comm  *compat.Comm
	arena *devMem
	name  string
}

func compatSuite(w *shmem.World, logf func(string, ...any)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PE %d: %v\n%s", w.MyPE(), r, debug.Stack())
		}
	}()
	c := &checker{pe: w.MyPE()}
	arena := newDevMem(w, 8<<20)
	defer arena.free()
	must(0, w.BarrierAll())
	// A small scratch makes the larger cases run in pieces.
	env := must(compat.New(w, compat.WithScratchSize(64<<10)))
	world := env.CommWorld()
	me, n := world.Rank(), world.Size()
	// A split communicator: a team whose members are not 0..k-1 when n > 2.
	split := must(world.Split(me%2, n-me))
	comms := []*compat.Comm{world, split}
	names := []string{"world", fmt.Sprintf("split%d", me%2)}
	for i, comm := range comms {
		for _, kind := range []bufKind{kindDev, kindSym, kindHost, kindMixed, kindHostMix} {
			for _, count := range []int{1, 1000, 50_000} {
				x := &compatCtx{w: w, c: c, comm: comm, arena: arena, name: fmt.Sprintf("%s %v count %d", names[i], kind, count)}
				if kind != kindHostMix {
					compatReduceAll(x, kind, count)
					// With an odd n the halves differ in size, and so would
					// compatData's symmetric allocations (count*size).
					if i == 0 || n%2 == 0 || (kind != kindSym && kind != kindMixed) {
						compatData(x, kind, count)
					}
				}
				compatV(x, kind, count) // coll_devv.go
			}
		}
	}
	// An op without a kernel: the host path, with device buffers copied.
	{
		x := &compatCtx{w: w, c: c, comm: world, arena: arena, name: "world OpLand int32 device"}
		b := &cbufs{w: w, kind: kindDev, arena: arena}
		s, r := cbuf[int32](b, me, 100), cbuf[int32](b, me, 100)
		v := make([]int32, 100)
		for i := range v {
			v[i] = int32((i + me) % 3)
		}
		write(w, s, v)
		c.ok(x.name, compat.Allreduce(world, s, r, 100, compat.Int32, compat.OpLand))
		got := read(w, r)
		for i := range got {
			want := int32(1)
			for p := range n {
				if (i+p)%3 == 0 {
					want = 0
				}
			}
			if got[i] != want {
				c.eq(fmt.Sprintf("%s element %d", x.name, i), got[i], want)
				break
			}
		}
		b.free()
	}
	c.ok("free split", split.Free())
	c.ok("Finalize", env.Finalize()) // collective: no kernel waits any more when the arena goes
	if me == 0 {
		logf("compat on device buffers, %d PEs: %d failures", n, len(c.errs))
	}
	return c.err()
}

// compatReduceAll runs Allreduce and Reduce of every kernel op and type.
func compatReduceAll(x *compatCtx, kind bufKind, count int) {
	ops := []compat.Op{compat.OpSum, compat.OpProd, compat.OpMin, compat.OpMax, compat.OpBand, compat.OpBor, compat.OpBxor}
	for _, op := range ops {
		compatReduce[int8](x, kind, count, compat.Int8, op)
		compatReduce[uint16](x, kind, count, compat.Uint16, op)
		compatReduce[int32](x, kind, count, compat.Int32, op)
		compatReduce[uint64](x, kind, count, compat.Uint64, op)
		if op == compat.OpSum || op == compat.OpProd || op == compat.OpMin || op == compat.OpMax {
			compatReduce[float32](x, kind, count, compat.Float32, op)
			compatReduce[float64](x, kind, count, compat.Float64, op)
		}
		if count == 1000 { // the rest of the types, once
			compatReduce[uint8](x, kind, count, compat.Uint8, op)
			compatReduce[int16](x, kind, count, compat.Int16, op)
			compatReduce[uint32](x, kind, count, compat.Uint32, op)
			compatReduce[int64](x, kind, count, compat.Int64, op)
		}
	}
}

var shmemOpOf = map[compat.Op]shmem.ReduceOp{
	compat.OpSum: shmem.ReduceSum, compat.OpProd: shmem.ReduceProd, compat.OpMin: shmem.ReduceMin,
	compat.OpMax: shmem.ReduceMax, compat.OpBand: shmem.ReduceAnd, compat.OpBor: shmem.ReduceOr, compat.OpBxor: shmem.ReduceXor,
}

func compatReduce[T interface {
	realReducible
	compat.Elem
}](x *compatCtx, kind bufKind, count int, dt compat.Datatype, op compat.Op) {
	comm, w := x.comm, x.w
	me, n := comm.Rank(), comm.Size()
	salt := int(op)*7 + count
	want := make([]T, count)
	mine := make([]T, count)
	for i := range count {
		mine[i] = val[T](comm.WorldRank(me), i, salt)
		want[i] = val[T](comm.WorldRank(0), i, salt)
		for p := 1; p < n; p++ {
			want[i] = fold(shmemOpOf[op], want[i], val[T](comm.WorldRank(p), i, salt))
		}
	}
	name := fmt.Sprintf("%s %T %v", x.name, *new(T), op)
	b := &cbufs{w: w, kind: kind, arena: x.arena}
	defer b.free()
	s, r := cbuf[T](b, me, count), cbuf[T](b, me, count)
	check := func(what string, got []T) {
		if d := sameBits(got, want); d != "" {
			x.c.errs = append(x.c.errs, fmt.Sprintf("PE %d: %s %s: %s", w.MyPE(), name, what, d))
		}
	}
	write(w, s, mine)
	if x.c.ok(name+" Allreduce", compat.Allreduce(comm, s, r, count, dt, op)) {
		check("Allreduce", read(w, r))
	}
	write(w, r, mine)
	if x.c.ok(name+" Allreduce in place", compat.Allreduce(comm, compat.InPlace[T](), r, count, dt, op)) {
		check("Allreduce in place", read(w, r))
	}
	root := n - 1
	write(w, r, make([]T, count))
	if x.c.ok(name+" Reduce", compat.Reduce(comm, s, r, count, dt, op, root)) && me == root {
		check("Reduce", read(w, r))
	}
}

// compatData runs Bcast, Allgather and Alltoall, in place too.
func compatData(x *compatCtx, kind bufKind, count int) {
	comm, w, c := x.comm, x.w, x.c
	me, n := comm.Rank(), comm.Size()
	gen := func(rank, i int) uint32 { return uint32(mix(comm.WorldRank(rank), i, count)) }
	b := &cbufs{w: w, kind: kind, arena: x.arena}
	defer b.free()
	root := n / 2
	{ // Bcast
		buf := cbuf[uint32](b, me, count)
		v, want := make([]uint32, count), make([]uint32, count)
		for i := range v {
			v[i], want[i] = gen(me, i), gen(root, i)
		}
		write(w, buf, v)
		if c.ok(x.name+" Bcast", compat.Bcast(comm, buf, count, compat.Uint32, root)) {
			c.eq(x.name+" Bcast", bytes.Equal(asBytesOf(read(w, buf)), asBytesOf(want)), true)
		}
	}
	mine := make([]uint32, count)
	all := make([]uint32, count*n)
	for i := range count {
		mine[i] = gen(me, i)
		for p := range n {
			all[p*count+i] = gen(p, i)
		}
	}
	s, r := cbuf[uint32](b, me, count*n), cbuf[uint32](b, me, count*n)
	{ // Allgather, and in place
		write(w, s, mine)
		if c.ok(x.name+" Allgather", compat.Allgather(comm, s, count, compat.Uint32, r, count, compat.Uint32)) {
			c.eq(x.name+" Allgather", bytes.Equal(asBytesOf(read(w, r)), asBytesOf(all)), true)
		}
		in := make([]uint32, count*n)
		copy(in[me*count:], mine)
		write(w, r, in)
		if c.ok(x.name+" Allgather in place", compat.Allgather(comm, compat.InPlace[uint32](), 0, compat.Uint32, r, count, compat.Uint32)) {
			c.eq(x.name+" Allgather in place", bytes.Equal(asBytesOf(read(w, r)), asBytesOf(all)), true)
		}
	}
	{ // Alltoall, and in place: block j of rank p's send goes to rank j's block p
		send, want := make([]uint32, count*n), make([]uint32, count*n)
		for j := range n {
			for i := range count {
				send[j*count+i] = gen(me, j*count+i)
				want[j*count+i] = gen(j, me*count+i)
			}
		}
		write(w, s, send)
		if c.ok(x.name+" Alltoall", compat.Alltoall(comm, s, count, compat.Uint32, r, count, compat.Uint32)) {
			c.eq(x.name+" Alltoall", bytes.Equal(asBytesOf(read(w, r)), asBytesOf(want)), true)
		}
		write(w, r, send)
		if c.ok(x.name+" Alltoall in place", compat.Alltoall(comm, compat.InPlace[uint32](), 0, compat.Uint32, r, count, compat.Uint32)) {
			c.eq(x.name+" Alltoall in place", bytes.Equal(asBytesOf(read(w, r)), asBytesOf(want)), true)
		}
	}
}

// The measurements: compat.Allreduce of float32 sums on device buffers,
// symmetric (direct) and cudaMalloc (staged), beside shmem.Reduce on the
// same symmetric objects, blocking, in the same sitting. Set
// GSHMEM_GPU_COMPAT_BENCH=1.
const compatBenchHeap = "2600m"

func TestGPUCompatBenchInProcess(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_COMPAT_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_COMPAT_BENCH=1 to measure")
	}
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", compatBenchHeap)
	err := shmem.Run(2, func(w *shmem.World) error { return compatBench(w, "in-process", logf) }, shmem.WithDevice())
	require.NoError(t, err)
}

func TestGPUCompatBenchProcesses(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_COMPAT_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_COMPAT_BENCH=1 to measure")
	}
	runJob(t, 2, "compatbench", compatBenchHeap)
}
