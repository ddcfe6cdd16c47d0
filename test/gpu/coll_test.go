//go:build cuda

package gpu_test

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/kernels"
	kcuda "github.com/gshmem/gshmem/kernels/cuda"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// Team collectives as kernels over the members' device heaps (issue 21),
// checked against a host reference computed here in team order, byte for
// byte: every member's result equals the reference, so all members hold the
// same bits.

// collTeams returns the teams the collectives run on, with names: the
// world, the first NPEs-1 PEs (not a power of two when NPEs is 4; one PE
// when NPEs is 2) and the odd PEs (a split team whose members are not
// 0..k-1). A PE outside a team gets nil for it.
func collTeams(w *shmem.World) ([]*shmem.Team, []string, error) {
	n := w.NPEs()
	tw := w.TeamWorld()
	first, err := tw.SplitStrided(0, 1, max(1, n-1))
	if err != nil {
		return nil, nil, err
	}
	odd, err := tw.SplitStrided(1, 2, n/2)
	if err != nil {
		return nil, nil, err
	}
	return []*shmem.Team{tw, first, odd}, []string{"world", fmt.Sprintf("first%d", max(1, n-1)), "odd"}, nil
}

// mix is a hash of (pe, i, salt) for test values.
func mix(pe, i, salt int) uint64 {
	x := uint64(pe)*0x9E3779B97F4A7C15 ^ uint64(i)*0xBF58476D1CE4E5B9 ^ uint64(salt)*0x94D049BB133111EB
	x ^= x >> 31
	x *= 0xD6E8FEB86659FD93
	return x ^ x>>32
}

func isFloat[T realReducible]() bool {
	h := 0.5
	return T(h) != 0
}

// val is element i of world PE pe's src: arbitrary bits for integers,
// values with a fractional part (whose sums round) for floats.
func val[T realReducible](pe, i, salt int) T {
	m := mix(pe, i, salt)
	if isFloat[T]() {
		f := float64(int64(m%2001)-1000)*0.37 + float64(pe)*0.011
		return T(f)
	}
	return T(m)
}

func bitsOf[T any](v *T) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v)) }

// fold is the host's a op b, as shmem's host fold computes it.
func fold[T realReducible](op shmem.ReduceOp, a, b T) T {
	switch op {
	case shmem.ReduceSum:
		return a + b
	case shmem.ReduceProd:
		return a * b
	case shmem.ReduceMin:
		return min(a, b)
	case shmem.ReduceMax:
		return max(a, b)
	}
	ab, bb := bitsOf(&a), bitsOf(&b)
	for k := range ab {
		switch op {
		case shmem.ReduceAnd:
			ab[k] &= bb[k]
		case shmem.ReduceOr:
			ab[k] |= bb[k]
		default:
			ab[k] ^= bb[k]
		}
	}
	return a
}

// sameBits compares got with want byte for byte and describes the first
// difference.
func sameBits[T any](got, want []T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(bitsOf(&got[i]), bitsOf(&want[i])) {
			return fmt.Sprintf("element %d of %d: got %v, want %v", i, len(got), got[i], want[i])
		}
	}
	return ""
}

type collCtx struct {
	w               *shmem.World
	c               *checker
	t               *shmem.Team
	name            string
	mem             []int // world PE of each team PE
	st              *streams.CUDAStream
	a, b            shmem.Sym[byte] // the objects every case works on (allocated once)
	word, mine, got shmem.Sym[int64]
}

// collBuf is the bytes of each of the two objects: the largest case's.
const collBuf = 4 << 20

// objs returns objects of na and nb elements of T at the start of the two
// buffers, or the first twice (in place) when nb < 0.
func objs[T any](x *collCtx, na, nb int) (shmem.Sym[T], shmem.Sym[T]) {
	sz := int(unsafe.Sizeof(*new(T)))
	a := must(shmem.View[T](x.a.Slice(0, collBuf/sz*sz)))
	b := must(shmem.View[T](x.b.Slice(0, collBuf/sz*sz)))
	if na*sz > collBuf || nb*sz > collBuf {
		panic(fmt.Sprintf("a case of %d and %d elements of %d bytes exceeds the test buffers", na, nb, sz))
	}
	if nb < 0 {
		return a.Slice(0, na), a.Slice(0, na)
	}
	return a.Slice(0, na), b.Slice(0, nb)
}

func (x *collCtx) me() int { return x.t.MyPE() }
func (x *collCtx) np() int { return x.t.NPEs() }

func (x *collCtx) check(what string, got, want any, diff string) {
	if diff != "" {
		x.c.errs = append(x.c.errs, fmt.Sprintf("PE %d: team %s: %s: %s", x.c.pe, x.name, what, diff))
	}
}

// put fills this PE's sym with v and completes the copy.
func put[T any](x *collCtx, s shmem.Sym[T], v []T) bool {
	return x.c.ok("put", shmem.Put(s, v, x.w.MyPE())) && x.c.ok("quiet", x.w.Quiet())
}

func get[T any](x *collCtx, s shmem.Sym[T], n int) []T {
	out := make([]T, n)
	x.c.ok("get", shmem.Get(out, s.Slice(0, n), x.w.MyPE()))
	return out
}

// reduceCase runs Reduce of n elements with op (in place when inPlace, at
// element offset off of the objects to leave 16-byte alignment) and checks
// every element; onStream runs it on a CUDA stream.
func reduceCase[T realReducible](x *collCtx, op shmem.ReduceOp, n, off int, inPlace, onStream bool) {
	salt := int(op)*1000 + n
	src, dst := objs[T](x, n+off, n+off)
	if inPlace {
		dst = src
	}
	src, dst = src.Slice(off, n+off), dst.Slice(off, n+off)
	v := make([]T, n)
	for i := range v {
		v[i] = val[T](x.w.MyPE(), i, salt)
	}
	want := make([]T, n)
	for i := range want {
		acc := val[T](x.mem[0], i, salt)
		for p := 1; p < x.np(); p++ {
			acc = fold(op, acc, val[T](x.mem[p], i, salt))
		}
		want[i] = acc
	}
	what := fmt.Sprintf("Reduce[%T] %v n=%d off=%d inplace=%v stream=%v", v[0], op, n, off, inPlace, onStream)
	if !put(x, src, v) || !x.c.ok("team sync", x.t.Sync()) {
		return
	}
	if onStream {
		if !x.c.ok(what, streams.ReduceOnCUDAStream(x.st, x.t, op, dst, src, n)) || !x.c.ok("stream sync", x.st.Synchronize()) {
			return
		}
	} else if !x.c.ok(what, shmem.Reduce(x.t, op, dst, src, n)) {
		return
	}
	x.check(what, nil, nil, sameBits(get(x, dst, n), want))
	x.c.ok("team sync", x.t.Sync())
}

func reduceAll[T realReducible](x *collCtx, sizes []int) {
	ops := []shmem.ReduceOp{shmem.ReduceSum, shmem.ReduceProd, shmem.ReduceMin, shmem.ReduceMax}
	if !isFloat[T]() {
		ops = append(ops, shmem.ReduceAnd, shmem.ReduceOr, shmem.ReduceXor)
	}
	for _, op := range ops {
		for _, n := range sizes {
			reduceCase[T](x, op, n, 0, false, false)
		}
	}
	last := sizes[len(sizes)-1]
	reduceCase[T](x, ops[len(ops)-1], 7, 0, true, false)
	reduceCase[T](x, shmem.ReduceSum, last, 0, true, false)
	reduceCase[T](x, shmem.ReduceSum, last, 1, true, false)
	reduceCase[T](x, shmem.ReduceMax, last, 3, false, false)
	reduceCase[T](x, shmem.ReduceSum, 1, 0, false, true)
	reduceCase[T](x, shmem.ReduceMin, last, 0, true, true)
}

// copyCases checks broadcast (every root, in place at the root too),
// fcollect, collect, alltoall and reduce-scatter, blocking and on a stream.
func copyCases(x *collCtx) {
	me, np, wpe := x.me(), x.np(), x.w.MyPE()
	for _, n := range []int{1, 1000, 40000, 100001} {
		for _, root := range []int{0, np - 1} {
			for _, mode := range []string{"blocking", "stream", "inplace"} {
				src, dst := objs[int32](x, n, n)
				if mode == "inplace" {
					dst = src
				}
				v := make([]int32, n)
				want := make([]int32, n)
				for i := range v {
					v[i] = int32(mix(wpe, i, n))
					want[i] = int32(mix(x.mem[root], i, n))
				}
				what := fmt.Sprintf("Broadcast n=%d root=%d %s", n, root, mode)
				if !put(x, src, v) || !x.c.ok("sync", x.t.Sync()) {
					return
				}
				var err error
				if mode == "stream" {
					if err = streams.BroadcastOnCUDAStream(x.st, x.t, dst, src, n, root); err == nil {
						err = x.st.Synchronize()
					}
				} else {
					err = shmem.Broadcast(x.t, dst, src, n, root)
				}
				if x.c.ok(what, err) {
					x.check(what, nil, nil, sameBits(get(x, dst, n), want))
				}
				x.c.ok("sync", x.t.Sync())
			}
		}
	}
	for _, n := range []int{1, 333, 20000, 70001} {
		for _, onStream := range []bool{false, true} {
			src, dst := objs[int64](x, n, n*np)
			v := make([]int64, n)
			for i := range v {
				v[i] = int64(mix(wpe, i, 7))
			}
			want := make([]int64, n*np)
			for p := range np {
				for i := range n {
					want[p*n+i] = int64(mix(x.mem[p], i, 7))
				}
			}
			what := fmt.Sprintf("FCollect n=%d stream=%v", n, onStream)
			if !put(x, src, v) || !x.c.ok("sync", x.t.Sync()) {
				return
			}
			var err error
			if onStream {
				if err = streams.FCollectOnCUDAStream(x.st, x.t, dst, src, n); err == nil {
					err = x.st.Synchronize()
				}
			} else {
				err = shmem.FCollect(x.t, dst, src, n)
			}
			if x.c.ok(what, err) {
				x.check(what, nil, nil, sameBits(get(x, dst, n*np), want))
			}
			x.c.ok("sync", x.t.Sync())
		}
	}
	for _, k := range []int{3, 30001} {
		cnt := func(p int) int { return (p + 1) * k }
		total := 0
		for p := range np {
			total += cnt(p)
		}
		src, dst := objs[int16](x, cnt(np-1), total)
		v := make([]int16, cnt(me))
		for i := range v {
			v[i] = int16(mix(wpe, i, 9))
		}
		var want []int16
		for p := range np {
			for i := range cnt(p) {
				want = append(want, int16(mix(x.mem[p], i, 9)))
			}
		}
		what := fmt.Sprintf("Collect k=%d", k)
		if !put(x, src.Slice(0, len(v)), v) || !x.c.ok("sync", x.t.Sync()) {
			return
		}
		if x.c.ok(what, shmem.Collect(x.t, dst, src, cnt(me))) {
			x.check(what, nil, nil, sameBits(get(x, dst, total), want))
		}
		x.c.ok("sync", x.t.Sync())
	}
	for _, n := range []int{1, 100, 20000} {
		for _, onStream := range []bool{false, true} {
			src, dst := objs[int32](x, n*np, n*np)
			v := make([]int32, n*np)
			for i := range v {
				v[i] = int32(mix(wpe, i, 11))
			}
			want := make([]int32, n*np)
			for p := range np {
				for i := range n {
					want[p*n+i] = int32(mix(x.mem[p], me*n+i, 11))
				}
			}
			what := fmt.Sprintf("Alltoall n=%d stream=%v", n, onStream)
			if !put(x, src, v) || !x.c.ok("sync", x.t.Sync()) {
				return
			}
			var err error
			if onStream {
				if err = streams.AlltoallOnCUDAStream(x.st, x.t, dst, src, n); err == nil {
					err = x.st.Synchronize()
				}
			} else {
				err = shmem.Alltoall(x.t, dst, src, n)
			}
			if x.c.ok(what, err) {
				x.check(what, nil, nil, sameBits(get(x, dst, n*np), want))
			}
			x.c.ok("sync", x.t.Sync())
		}
	}
	for _, n := range []int{5, 20000} {
		for _, onStream := range []bool{false, true} {
			src, dst := objs[float64](x, n*np, n)
			v := make([]float64, n*np)
			for i := range v {
				v[i] = val[float64](wpe, i, 13)
			}
			want := make([]float64, n)
			for i := range want {
				acc := val[float64](x.mem[0], me*n+i, 13)
				for p := 1; p < np; p++ {
					acc += val[float64](x.mem[p], me*n+i, 13)
				}
				want[i] = acc
			}
			what := fmt.Sprintf("ReduceScatter sum float64 n=%d stream=%v", n, onStream)
			if !put(x, src, v) || !x.c.ok("sync", x.t.Sync()) {
				return
			}
			var err error
			if onStream {
				if err = streams.ReduceScatterOnCUDAStream(x.st, x.t, shmem.ReduceSum, dst, src, n); err == nil {
					err = x.st.Synchronize()
				}
			} else {
				err = shmem.ReduceScatter(x.t, shmem.ReduceSum, dst, src, n)
			}
			if x.c.ok(what, err) {
				x.check(what, nil, nil, sameBits(get(x, dst, n), want))
			}
			x.c.ok("sync", x.t.Sync())
		}
	}
	// A barrier on the stream orders a peer's stream put before this PE's
	// read: the right neighbour puts into this PE's word, both sync on the
	// stream, and a get on the stream after it sees the value.
	word, mine, got := x.word, x.mine, x.got
	left := x.mem[(me+np-1)%np]
	if put(x, mine, []int64{int64(1000 + wpe)}) && x.c.ok("sync", x.t.Sync()) {
		c := x.c
		c.ok("stream put", streams.PutOnCUDAStream(x.st, word, mine, x.mem[(me+1)%np]))
		c.ok("stream team sync", streams.TeamSyncOnCUDAStream(x.st, x.t))
		c.ok("stream get", streams.GetOnCUDAStream(x.st, got, word, wpe))
		c.ok("stream synchronize", x.st.Synchronize())
		x.check("TeamSyncOnCUDAStream orders a peer's put", nil, nil, sameBits(get(x, got, 1), []int64{int64(1000 + left)}))
	}
	x.c.ok("sync", x.t.Sync())
}

// collSuite runs every collective as kernels on every team shape.
func collSuite(w *shmem.World, c *checker, logf func(string, ...any)) {
	teams, names, err := collTeams(w)
	if !c.ok("team split", err) {
		return
	}
	st := must(streams.NewCUDAStream(w))
	defer st.Close()
	a, b := must(shmem.Calloc[byte](w, collBuf)), must(shmem.Calloc[byte](w, collBuf))
	word, mine, got := must(shmem.Calloc[int64](w, 1)), must(shmem.Calloc[int64](w, 1)), must(shmem.Calloc[int64](w, 1))
	bb := newBlockBufs(w)
	mod := must(kernels.LoadPTX(w, kcuda.SelfTestPTX))
	defer mod.Close()
	defer func() {
		bb.free(c)
		for _, s := range []shmem.Sym[int64]{word, mine, got} {
			c.ok("Free", shmem.Free(s))
		}
		c.ok("Free", shmem.Free(a))
		c.ok("Free", shmem.Free(b))
	}()
	for k, t := range teams {
		if t == nil {
			continue
		}
		mem := make([]int, t.NPEs())
		for p := range mem {
			mem[p] = shmem.TranslatePE(t, p, w.TeamWorld())
		}
		x := &collCtx{w: w, c: c, t: t, name: names[k], mem: mem, st: st, a: a, b: b, word: word, mine: mine, got: got}
		sizes := []int{1, 7, 1000, 9000, 100003}
		reduceAll[int8](x, sizes)
		reduceAll[int16](x, sizes)
		reduceAll[int32](x, sizes)
		reduceAll[int64](x, sizes)
		reduceAll[uint8](x, sizes)
		reduceAll[uint16](x, sizes)
		reduceAll[uint32](x, sizes)
		reduceAll[uint64](x, sizes)
		reduceAll[int](x, sizes[:3])
		reduceAll[uintptr](x, sizes[:3])
		reduceAll[float32](x, sizes)
		reduceAll[float64](x, sizes)
		copyCases(x)
		blockColl(x, mod, bb)
		if t.MyPE() == 0 {
			logf("team %s (%d PEs): device collectives checked", names[k], t.NPEs())
		}
	}
	c.ok("BarrierAll", w.BarrierAll())
	for _, t := range teams[1:] {
		if t != nil {
			c.ok("Destroy", t.Destroy())
		}
	}
	c.ok("BarrierAll", w.BarrierAll())
}

// realReducible is the reducible types min, max and conversion from an
// integer apply to (shmem.Reducible less the complex types).
type realReducible interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}
