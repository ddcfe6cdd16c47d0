package shmem_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// The randomized collective tests. Every member of a team draws the same
// random choices (the generator is seeded by the iteration and the team),
// fills its source with values that depend on its team PE number, runs the
// collective and compares its destination with what a sequential
// reference computes from every member's values. Bytes of the destination
// that the collective must not write hold a sentinel and are checked too.

type rgb [3]byte // an element size that is not a power of two

const (
	bufBytes = 1 << 20
	sentinel = 0xEE
)

type collCase struct {
	t        *petest.T
	w        *shmem.World
	src, dst shmem.Sym[byte]
	rng      *rand.Rand
	seed     uint64
	tm       *shmem.Team
	label    string
	off      int // byte offset of the views into src and dst: often misaligned
}

func mix(a, b, c uint64) uint64 {
	h := a*0x9E3779B97F4A7C15 ^ b*0xC2B2AE3D27D4EB4F ^ c*0x165667B19E3779F9
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// pattern is the byte i of team PE p's source.
func (c *collCase) pattern(p, i int) byte { return byte(mix(c.seed, uint64(p), uint64(i))) }

// The objects are written and read with Put and Get on this PE, not
// through Local, so that the same tests run on an emulated device heap.

func (c *collCase) fillSrc(nbytes int) {
	b := make([]byte, nbytes)
	for i := range b {
		b[i] = c.pattern(c.tm.MyPE(), i)
	}
	require.NoError(c.t, shmem.Put(c.src.Slice(c.off, c.off+nbytes), b, c.w.MyPE()))
}

func (c *collCase) fillDst(nbytes int) {
	nbytes = min(nbytes, bufBytes-c.off)
	require.NoError(c.t, shmem.Put(c.dst.Slice(c.off, c.off+nbytes), bytes.Repeat([]byte{sentinel}, nbytes), c.w.MyPE()))
}

// bytesOf returns bytes [lo, hi) of the object b, from the view offset on.
func (c *collCase) bytesOf(b shmem.Sym[byte], lo, hi int) []byte {
	out := make([]byte, hi-lo)
	require.NoError(c.t, shmem.Get(out, b.Slice(c.off+lo, c.off+hi), c.w.MyPE()))
	return out
}

func setAll[T any](c *collCase, s shmem.Sym[T], vals []T) {
	require.NoError(c.t, shmem.Put(s, vals, c.w.MyPE()))
}

func getAll[T any](c *collCase, s shmem.Sym[T]) []T {
	out := make([]T, s.Len())
	require.NoError(c.t, shmem.Get(out, s, c.w.MyPE()))
	return out
}

// size draws an element count: 0, 1, small odd, medium or large, up to max.
func (c *collCase) size(maxN int) int {
	var n int
	switch r := c.rng.IntN(20); {
	case r < 2:
		n = 0
	case r < 4:
		n = 1
	case r < 11:
		n = 2*c.rng.IntN(100) + 3
	case r < 17:
		n = 200 + c.rng.IntN(2800)
	default:
		n = 3000 + c.rng.IntN(20000)
	}
	return min(n, maxN)
}

func view[T any](c *collCase, b shmem.Sym[byte], n int) shmem.Sym[T] {
	v, err := shmem.View[T](b.Slice(c.off, c.off+n*int(unsafe.Sizeof(*new(T)))))
	require.NoError(c.t, err)
	return v
}

func (c *collCase) check(what string, got, want []byte) {
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		require.Failf(c.t, "wrong result", "%s on %s: %d bytes differ from byte %d of %d", what, c.label, countDiff(got, want), i, len(want))
	}
}

func countDiff(a, b []byte) int {
	n := 0
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n + max(len(a), len(b)) - min(len(a), len(b))
}

// movement runs one data-movement collective with element type T.
func movement[T any](c *collCase) {
	sz := int(unsafe.Sizeof(*new(T)))
	np, me := c.tm.NPEs(), c.tm.MyPE()
	maxN := bufBytes / sz / np / 4
	dstB := func(lo, hi int) []byte { return c.bytesOf(c.dst, lo, hi) }
	switch kind := c.rng.IntN(5); kind {
	case 0: // Broadcast
		n := c.size(bufBytes / sz / 2)
		root := c.rng.IntN(np)
		inPlace := c.rng.IntN(4) == 0
		what := fmt.Sprintf("Broadcast[%T](n=%d, root=%d, inPlace=%v)", *new(T), n, root, inPlace)
		c.fillDst((n + 8) * sz)
		c.fillSrc(n * sz)
		src := view[T](c, c.src, n)
		dst := view[T](c, c.dst, n)
		if inPlace {
			dst = src
		}
		require.NoError(c.t, shmem.Broadcast(c.tm, dst, src, n, root), what)
		want := make([]byte, n*sz)
		for i := range want {
			want[i] = c.pattern(root, i)
		}
		if inPlace {
			c.check(what, c.bytesOf(c.src, 0, n*sz), want)
		} else {
			c.check(what, dstB(0, n*sz), want)
			c.check(what+" (past the end)", dstB(n*sz, (n+8)*sz), bytes.Repeat([]byte{sentinel}, 8*sz))
		}
	case 1: // FCollect
		n := c.size(maxN)
		what := fmt.Sprintf("FCollect[%T](n=%d)", *new(T), n)
		c.fillDst((n*np + 8) * sz)
		c.fillSrc(n * sz)
		require.NoError(c.t, shmem.FCollect(c.tm, view[T](c, c.dst, n*np), view[T](c, c.src, n), n), what)
		var want []byte
		for p := range np {
			for i := range n * sz {
				want = append(want, c.pattern(p, i))
			}
		}
		want = append(want, bytes.Repeat([]byte{sentinel}, 8*sz)...)
		c.check(what, dstB(0, len(want)), want)
	case 2: // Collect
		counts := make([]int, np)
		total := 0
		for p := range counts {
			counts[p] = c.size(maxN)
			total += counts[p]
		}
		n := counts[me]
		what := fmt.Sprintf("Collect[%T](counts=%v)", *new(T), counts)
		c.fillDst((total + 8) * sz)
		c.fillSrc(n * sz)
		require.NoError(c.t, shmem.Collect(c.tm, view[T](c, c.dst, total+8), view[T](c, c.src, maxN), n), what)
		var want []byte
		for p := range np {
			for i := range counts[p] * sz {
				want = append(want, c.pattern(p, i))
			}
		}
		want = append(want, bytes.Repeat([]byte{sentinel}, 8*sz)...)
		c.check(what, dstB(0, len(want)), want)
	case 3: // Alltoall
		n := c.size(maxN)
		what := fmt.Sprintf("Alltoall[%T](n=%d)", *new(T), n)
		c.fillDst((n*np + 8) * sz)
		c.fillSrc(n * np * sz)
		require.NoError(c.t, shmem.Alltoall(c.tm, view[T](c, c.dst, n*np), view[T](c, c.src, n*np), n), what)
		var want []byte
		for p := range np {
			for i := range n * sz {
				want = append(want, c.pattern(p, me*n*sz+i))
			}
		}
		want = append(want, bytes.Repeat([]byte{sentinel}, 8*sz)...)
		c.check(what, dstB(0, len(want)), want)
	case 4: // Alltoalls
		ds, ss := 1+c.rng.IntN(3), 1+c.rng.IntN(3)
		n := c.size(maxN / 3)
		what := fmt.Sprintf("Alltoalls[%T](n=%d, dst stride %d, src stride %d)", *new(T), n, ds, ss)
		need := func(s int) int {
			if n == 0 {
				return 0
			}
			return (np*n-1)*s + 1
		}
		c.fillDst((need(ds) + 8) * sz)
		c.fillSrc(need(ss) * sz)
		require.NoError(c.t, shmem.Alltoalls(c.tm, view[T](c, c.dst, need(ds)), view[T](c, c.src, need(ss)), ds, ss, n), what)
		want := bytes.Repeat([]byte{sentinel}, (need(ds)+8)*sz)
		for p := range np {
			for k := range n {
				at, from := (p*n+k)*ds*sz, (me*n+k)*ss*sz
				for b := range sz {
					want[at+b] = c.pattern(p, from+b)
				}
			}
		}
		c.check(what, dstB(0, len(want)), want)
	}
}

func isFloat[T realReducible]() bool {
	var one T = 1
	return one/2 != 0
}

// value is element i of team PE p's reduction source: small integers for
// floats, so that every order of summing or multiplying is exact.
func value[T realReducible](c *collCase, p, i int) T {
	h := mix(c.seed, uint64(p)+1000, uint64(i))
	if isFloat[T]() {
		return T(int64(h%7) - 3)
	}
	return T(h)
}

func apply[T realReducible](op shmem.ReduceOp, a, b T) T {
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
	// Bitwise ops on integers: through the bits.
	var x, y uint64
	*(*T)(unsafe.Pointer(&x)), *(*T)(unsafe.Pointer(&y)) = a, b
	switch op {
	case shmem.ReduceAnd:
		x &= y
	case shmem.ReduceOr:
		x |= y
	default:
		x ^= y
	}
	return *(*T)(unsafe.Pointer(&x))
}

// reduction runs Reduce or ReduceScatter with element type T.
func reduction[T realReducible](c *collCase) {
	sz := int(unsafe.Sizeof(*new(T)))
	np, me := c.tm.NPEs(), c.tm.MyPE()
	ops := []shmem.ReduceOp{shmem.ReduceSum, shmem.ReduceProd, shmem.ReduceMin, shmem.ReduceMax}
	if !isFloat[T]() {
		ops = append(ops, shmem.ReduceAnd, shmem.ReduceOr, shmem.ReduceXor)
	}
	op := ops[c.rng.IntN(len(ops))]
	expect := func(at int) T {
		acc := value[T](c, 0, at)
		for p := 1; p < np; p++ {
			acc = apply(op, acc, value[T](c, p, at))
		}
		return acc
	}
	if c.rng.IntN(3) > 0 {
		n := c.size(bufBytes / sz / 2)
		inPlace := c.rng.IntN(3) == 0
		what := fmt.Sprintf("Reduce[%T](%s, n=%d, inPlace=%v)", *new(T), op, n, inPlace)
		c.fillDst((n + 8) * sz)
		src, dst := view[T](c, c.src, n), view[T](c, c.dst, n+8)
		vals := make([]T, n)
		for i := range vals {
			vals[i] = value[T](c, me, i)
		}
		setAll(c, src, vals)
		if inPlace {
			dst = src
		}
		require.NoError(c.t, shmem.Reduce(c.tm, op, dst.Slice(0, n), src, n), what)
		got := getAll(c, dst.Slice(0, n))
		for i := range n {
			if w := expect(i); got[i] != w {
				require.Failf(c.t, "wrong result", "%s on %s: element %d = %v, want %v", what, c.label, i, got[i], w)
			}
		}
		if !inPlace {
			c.check(what+" (past the end)", c.bytesOf(c.dst, n*sz, (n+8)*sz), bytes.Repeat([]byte{sentinel}, 8*sz))
		}
		return
	}
	n := c.size(bufBytes / sz / np / 2)
	what := fmt.Sprintf("ReduceScatter[%T](%s, n=%d)", *new(T), op, n)
	c.fillDst((n + 8) * sz)
	src, dst := view[T](c, c.src, n*np), view[T](c, c.dst, n)
	vals := make([]T, n*np)
	for i := range vals {
		vals[i] = value[T](c, me, i)
	}
	setAll(c, src, vals)
	require.NoError(c.t, shmem.ReduceScatter(c.tm, op, dst, src, n), what)
	got := getAll(c, dst)
	for k := range n {
		if w := expect(me*n + k); got[k] != w {
			require.Failf(c.t, "wrong result", "%s on %s: element %d = %v, want %v", what, c.label, k, got[k], w)
		}
	}
	c.check(what+" (past the end)", c.bytesOf(c.dst, n*sz, (n+8)*sz), bytes.Repeat([]byte{sentinel}, 8*sz))
}

var reductions = []func(*collCase){
	reduction[int8], reduction[int16], reduction[int32], reduction[int64], reduction[int],
	reduction[uint8], reduction[uint16], reduction[uint32], reduction[uint64], reduction[uint], reduction[uintptr],
	reduction[float32], reduction[float64],
}

var movements = []func(*collCase){movement[byte], movement[int32], movement[float64], movement[rgb]}

type namedTeam struct {
	name string
	tm   *shmem.Team
}

// testTeams splits the shapes the collectives run on; the same list on
// every PE, with nil where the PE is not a member.
func testTeams(t *petest.T, w *shmem.World) []namedTeam {
	world := w.TeamWorld()
	n := w.NPEs()
	out := []namedTeam{{"world", world}}
	add := func(name string, tm *shmem.Team, err error) {
		require.NoError(t, err, name)
		out = append(out, namedTeam{name, tm})
	}
	s, err := world.SplitStrided(1, 2, (n-1)/2)
	add("strided(1,2)", s, err)
	r, err := world.SplitStrided(n-1, -2, (n+1)/2)
	add("strided(n-1,-2)", r, err)
	x, y, err := world.Split2D(3)
	add("2D x", x, err)
	add("2D y", y, nil)
	list := []int{n - 2, 0, n - 1}
	if n >= 5 {
		list = append(list, 2)
	}
	l, err := world.SplitList(list)
	add("list", l, err)
	one, all, err := world.Split2D(1) // every PE alone, and a second world team
	add("single", one, err)
	add("world copy", all, nil)
	return out
}

func runCollectives(t *petest.T, w *shmem.World, iters int, generic bool) {
	shmem.SetGenericCollectives(w, generic)
	defer shmem.SetGenericCollectives(w, false)
	src, err := shmem.Alloc[byte](w, bufBytes)
	require.NoError(t, err)
	dst, err := shmem.Alloc[byte](w, bufBytes)
	require.NoError(t, err)
	teams := testTeams(t, w)
	for ti, nt := range teams {
		if nt.tm == nil {
			continue
		}
		for it := range iters {
			seed := uint64(ti)<<32 | uint64(it)
			c := &collCase{t: t, w: w, src: src, dst: dst, tm: nt.tm, seed: seed,
				rng:   rand.New(rand.NewPCG(seed, 7)),
				label: fmt.Sprintf("%s team (PE %d of %d), generic=%v", nt.name, nt.tm.MyPE(), nt.tm.NPEs(), generic)}
			if c.rng.IntN(4) == 0 {
				c.off = 1 + c.rng.IntN(7)
			}
			if c.rng.IntN(2) == 0 {
				reductions[c.rng.IntN(len(reductions))](c)
			} else {
				movements[c.rng.IntN(len(movements))](c)
			}
		}
		require.NoError(t, nt.tm.Barrier())
	}
	require.NoError(t, w.BarrierAll())
	for _, nt := range teams[1:] {
		if nt.tm != nil {
			require.NoError(t, nt.tm.Destroy())
		}
	}
	require.NoError(t, shmem.Free(src))
	require.NoError(t, shmem.Free(dst))
}

// iterations is how many collectives each team runs: fewer when the PEs
// are processes, which the race detector makes slower to start.
func iterations(w *shmem.World, inproc, procs int) int {
	if w.BootstrapName() == "inproc" {
		return inproc
	}
	return procs
}

func TestCollectivesRandom(t *testing.T) {
	petest.Run(t, 8, func(t *petest.T, w *shmem.World) {
		runCollectives(t, w, iterations(w, 40, 8), false)
	})
}

func TestCollectivesRandomGeneric(t *testing.T) {
	petest.Run(t, 5, func(t *petest.T, w *shmem.World) {
		runCollectives(t, w, iterations(w, 40, 8), true)
	})
}

// TestReduceEveryTypeAndOp runs each type and op at the sizes that pick
// each algorithm, mapped and through the transport: on an odd team, and on
// a power-of-two team, where the smallest reductions ride in the barrier.
func TestReduceEveryTypeAndOp(t *testing.T) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("pes=%d", n), func(t *testing.T) { reduceEveryTypeAndOp(t, n) })
	}
}

func reduceEveryTypeAndOp(t *testing.T, n int) {
	petest.RunConfig(t, petest.Config{N: n, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		src, err := shmem.Alloc[byte](w, bufBytes)
		require.NoError(t, err)
		dst, err := shmem.Alloc[byte](w, bufBytes)
		require.NoError(t, err)
		for _, generic := range []bool{false, true} {
			shmem.SetGenericCollectives(w, generic)
			for i, red := range reductions {
				for it := range 14 {
					seed := uint64(1000+i)<<32 | uint64(it)
					c := &collCase{t: t, w: w, src: src, dst: dst, tm: w.TeamWorld(), seed: seed,
						rng: rand.New(rand.NewPCG(seed, 9)), label: fmt.Sprintf("world, generic=%v", generic)}
					if it%4 == 3 {
						c.off = 1 + c.rng.IntN(7)
					}
					red(c)
				}
			}
		}
		shmem.SetGenericCollectives(w, false)
	})
}

// TestCollectivesDeviceHeap runs the collectives with the objects in an
// emulated GPU heap: no mapping, and the objects reachable only through the
// transport (in-process only: the emulation shares its memory between the
// goroutine PEs).
func TestCollectivesDeviceHeap(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 4, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		require.NoError(t, shmem.UseFakeDevice(w))
		runCollectives(t, w, 30, false)
	})
}

func TestCollectiveErrors(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		collectiveErrors(t, w)
	})
}

// TestCollectiveErrorsDebug runs the same under GSHMEM_DEBUG, where every
// collective also compares full descriptors, and checks that a mismatch
// names the PE that differs.
func TestCollectiveErrorsDebug(t *testing.T) {
	t.Setenv("GSHMEM_DEBUG", "error")
	petest.Run(t, 3, func(t *petest.T, w *shmem.World) {
		collectiveErrors(t, w)
		s, err := shmem.Calloc[int32](w, 16)
		require.NoError(t, err)
		err = shmem.Reduce(w.TeamWorld(), shmem.ReduceSum, s.Slice(8, 16), s.Slice(0, 8), 4+w.MyPE()%2)
		require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		assert.Contains(t, err.Error(), "team PE")
		runCollectives(t, w, iterations(w, 6, 2), false)
		runCollectives(t, w, iterations(w, 6, 2), true)
	})
}

func collectiveErrors(t *petest.T, w *shmem.World) {
	tm := w.TeamWorld()
	me := w.MyPE()
	a, err := shmem.Calloc[int64](w, 64)
	require.NoError(t, err)
	b, err := shmem.Calloc[int64](w, 64)
	require.NoError(t, err)
	f, err := shmem.Calloc[float64](w, 8)
	require.NoError(t, err)
	mismatch := func(err error) { require.ErrorIs(t, err, shmem.ErrSizeMismatch) }

	err = shmem.Reduce(tm, shmem.ReduceSum, b, a, 4+me%2)
	mismatch(err)
	// The type by its name, the objects by their lengths.
	assert.Contains(t, err.Error(), fmt.Sprintf("this PE called Reduce[int64](sum, dst of 64 elements, src of 64, n=%d) on the objects at heap offsets", 4+me%2))
	assert.NotContains(t, err.Error(), "int6464")
	// Half the PEs small enough to fold in the barrier's lines, half not:
	// all fail, and the first kind leaves dst as it was.
	before := append([]int64(nil), b.Local()...)
	mismatch(shmem.Reduce(tm, shmem.ReduceSum, b, a, 4+36*(me%2)))
	if me%2 == 0 {
		require.Equal(t, before, b.Local())
	}
	mismatch(shmem.Reduce(tm, shmem.ReduceOp(me%2), b, a, 4))
	mismatch(shmem.Broadcast(tm, b, a, 4, me%2))
	mismatch(shmem.FCollect(tm, b, a, 1+me%2))
	mismatch(shmem.Alltoalls(tm, b, a, 1, 1+me%2, 2))
	if me == 0 {
		mismatch(shmem.Broadcast(tm, b, a, 4, 0))
	} else {
		mismatch(shmem.Reduce(tm, shmem.ReduceMax, b, a, 4))
	}
	if me == 1 {
		mismatch(tm.Sync())
	} else {
		mismatch(shmem.Alltoall(tm, b, a, 2))
	}
	// BarrierAll is the world team's barrier: against another collective
	// it fails like one, rather than waiting for a barrier that never comes.
	if me == 0 {
		mismatch(w.BarrierAll())
	} else {
		mismatch(shmem.Broadcast(tm, b, a, 4, 0))
	}
	// Different objects.
	if me == 2 {
		mismatch(shmem.Reduce(tm, shmem.ReduceSum, a, b, 4))
	} else {
		mismatch(shmem.Reduce(tm, shmem.ReduceSum, b, a, 4))
	}
	// One PE's arguments are bad: it says why, the others that they disagree.
	n := 8
	if me == 1 {
		n = 100
	}
	err = shmem.Reduce(tm, shmem.ReduceSum, b, a, n)
	mismatch(err)
	if me == 1 {
		require.ErrorIs(t, err, shmem.ErrOutOfBounds)
	}
	// Everyone's arguments are bad in the same way: no mismatch.
	err = shmem.Broadcast(tm, b, a, 65, 0)
	require.ErrorIs(t, err, shmem.ErrOutOfBounds)
	require.NotErrorIs(t, err, shmem.ErrSizeMismatch)
	require.ErrorIs(t, shmem.Broadcast(tm, b, a, 1, w.NPEs()), shmem.ErrBadPE)
	require.ErrorIs(t, shmem.Reduce(tm, shmem.ReduceXor, f, f, 8), shmem.ErrInvalid, "xor of floats")
	require.ErrorIs(t, shmem.Reduce(tm, shmem.ReduceOp(42), b, a, 8), shmem.ErrInvalid)
	require.ErrorIs(t, shmem.Reduce(tm, shmem.ReduceSum, a.Slice(1, 9), a.Slice(0, 8), 8), shmem.ErrInvalid, "overlap")
	require.ErrorIs(t, shmem.FCollect(tm, a, a.Slice(0, 1), 1), shmem.ErrInvalid, "overlap")
	require.ErrorIs(t, shmem.Alltoall(tm, b, a, -1), shmem.ErrInvalid)
	require.ErrorIs(t, shmem.Alltoalls(tm, b, a, 0, 1, 1), shmem.ErrInvalid)
	require.ErrorIs(t, shmem.ReduceScatter(tm, shmem.ReduceSum, b, a, 64/w.NPEs()+1), shmem.ErrOutOfBounds)
	require.ErrorIs(t, shmem.Collect(tm, b.Slice(0, 10), a, 3+me), shmem.ErrOutOfBounds, "the counts add up beyond dst")
	freed, err := shmem.Alloc[int64](w, 8)
	require.NoError(t, err)
	require.NoError(t, shmem.Free(freed))
	require.ErrorIs(t, shmem.Reduce(tm, shmem.ReduceSum, b, freed, 8), shmem.ErrNotSymmetric)

	// After all that the team is in step: a reduction works.
	a.Local()[0] = int64(me + 1)
	require.NoError(t, shmem.Reduce(tm, shmem.ReduceSum, b.At(0), a.At(0), 1))
	np := int64(w.NPEs())
	assert.Equal(t, np*(np+1)/2, b.Local()[0])
	require.NoError(t, tm.Barrier())
	for _, s := range []shmem.Sym[int64]{a, b} {
		require.NoError(t, shmem.Free(s))
	}
	require.NoError(t, shmem.Free(f))
}

// realReducible is the reducible types min, max and conversion from an
// integer apply to (shmem.Reducible less the complex types).
type realReducible interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}
