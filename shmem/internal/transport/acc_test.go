package transport

import (
	"encoding/binary"
	"math"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/accops"
	"github.com/gshmem/gshmem/internal/atomicop"
)

// A small op table in mpitype's numbering (which this package cannot
// import): the MPI layers register the whole one.
const (
	tInt32, tInt64, tComplex128 = 3, 4, 12
	opSum, opReplace, opNoOp    = 1, 13, 14
)

func init() {
	sizes := map[uint8]int{tInt32: 4, tInt64: 8, tComplex128: 16}
	accops.Set(&accops.Table{
		Size:    func(typ uint8) int { return sizes[typ] },
		Defined: func(typ, op uint8) bool { return sizes[typ] != 0 && (op == opSum || op == opReplace || op == opNoOp) },
		Combine: func(typ, op uint8, dst, src unsafe.Pointer) {
			switch {
			case op == opReplace:
				copy(unsafe.Slice((*byte)(dst), sizes[typ]), unsafe.Slice((*byte)(src), sizes[typ]))
			case typ == tInt32:
				*(*int32)(dst) += *(*int32)(src)
			case typ == tInt64:
				*(*int64)(dst) += *(*int64)(src)
			case typ == tComplex128:
				*(*complex128)(dst) += *(*complex128)(src)
			}
		},
		Hardware: func(typ, op uint8) (atomicop.Op, bool) {
			switch {
			case op == opNoOp:
				return atomicop.Load, true
			case op == opReplace:
				return atomicop.Swap, true
			case op == opSum && typ != tComplex128:
				return atomicop.Add, true
			}
			return 0, false
		},
		NoOp: opNoOp, Replace: opReplace,
	})
}

func i64s(b []byte) []int64 { return unsafe.Slice((*int64)(unsafe.Pointer(&b[0])), len(b)/8) }

func TestTCPAccumulateOneMessage(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"%r0", "%r1", "%r2"}, testHeap, 5*time.Second)
	checkAccumulate(t, jobs)
}

// checkAccumulate runs accumulates from PEs 1 and 2 of jobs (each its own
// node) into PE 0: concurrent sums, locked elements with fetched old
// values, a failing one, a compare-and-swap, a refused one. Every remote
// transport passes it.
func checkAccumulate(t *testing.T, jobs []*Job) {
	t.Helper()
	const base, n = 64 << 10, 1000
	locks := uint64(32 << 10)
	// PEs 1 and 2 each add 1..n into PE 0's elements, 20 times, concurrently.
	var wg sync.WaitGroup
	for _, me := range []int{1, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := jobs[me].Transport
			src := make([]int64, n)
			for i := range src {
				src[i] = int64(i + 1)
			}
			for range 20 {
				assert.NoError(t, m.Accumulate(0, &Acc{Off: base, Type: tInt64, Op: opSum, Count: n,
					Src: unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 8*n), Locks: NoLocks}))
			}
			assert.NoError(t, m.Quiet())
		}()
	}
	wg.Wait()
	got := i64s(jobs[0].Heap[base : base+8*n])
	for i, v := range got {
		require.Equal(t, int64(40*(i+1)), v, "element %d", i)
	}

	// complex128 needs the stripe locks; fetch the old values back.
	cb := uint64(base + 8*n)
	var one [16]byte
	binary.LittleEndian.PutUint64(one[:], math.Float64bits(1))
	src := make([]byte, 16*10)
	for i := range 10 {
		copy(src[16*i:], one[:])
	}
	a := &Acc{Off: cb, Type: tComplex128, Op: opSum, Count: 10, Src: src, Locks: locks}
	require.NoError(t, jobs[1].Transport.Accumulate(0, a))
	require.NoError(t, jobs[1].Transport.Quiet())
	res := make([]byte, len(src))
	a.Res = res
	require.NoError(t, jobs[2].Transport.Accumulate(0, a))
	assert.Equal(t, 1.0, math.Float64frombits(binary.LittleEndian.Uint64(res[16*9:])), "the first accumulate was applied first")
	assert.Equal(t, 2.0, math.Float64frombits(binary.LittleEndian.Uint64(jobs[0].Heap[cb+16*3:])))
	for i := range 64 {
		assert.Zero(t, binary.LittleEndian.Uint32(jobs[0].Heap[locks+uint64(4*i):]), "stripe %d released", i)
	}
	// Without locks, a complex128 fails at the target, and Quiet says so.
	a.Res, a.Locks = nil, NoLocks
	require.NoError(t, jobs[1].Transport.Accumulate(0, a))
	assert.Error(t, jobs[1].Transport.Quiet())
	// Compare-and-swap of one int32.
	cas := &Acc{Off: base, Type: tInt32, Op: opReplace, Count: 1,
		Src: []byte{9, 0, 0, 0}, Cmp: []byte{40, 0, 0, 0}, Res: make([]byte, 4), Locks: NoLocks}
	require.NoError(t, jobs[1].Transport.Accumulate(0, cas))
	assert.Equal(t, []byte{40, 0, 0, 0}, cas.Res)
	assert.Equal(t, byte(9), jobs[0].Heap[base])
	// Bad requests are refused by the sender's checks or the target.
	bad := &Acc{Off: testHeap - 8, Type: tInt64, Op: opSum, Count: 2, Src: make([]byte, 16), Locks: NoLocks}
	require.NoError(t, jobs[1].Transport.Accumulate(0, bad))
	assert.Error(t, jobs[1].Transport.Quiet(), "the target refuses an update past its heap")
	assert.Nil(t, jobs[0].Transport.Lost())
}

func TestTCPAtomicNBIAndStreams(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"%r0", "%r1"}, testHeap, 5*time.Second)
	const base = 64 << 10
	m := jobs[1].Transport
	dst := make([]byte, 8*10)
	for i := range 10 {
		require.NoError(t, m.AtomicNBI(0, base, 8, OpAdd, 1, 0, dst[8*i:8*i+8]))
	}
	require.NoError(t, m.Quiet())
	for i := range 10 {
		assert.Equal(t, uint64(i), binary.NativeEndian.Uint64(dst[8*i:]))
	}
	// Two streams and the PE's own, each flushed on its own.
	s1, s2 := m.NewStream(), m.NewStream()
	require.NotNil(t, s1)
	require.NoError(t, s1.Put(0, base+64, []byte("one")))
	require.NoError(t, s2.Put(0, base+128, []byte("two")))
	require.NoError(t, s1.Quiet())
	assert.Equal(t, "one", string(jobs[0].Heap[base+64:base+67]))
	require.NoError(t, s2.Quiet())
	assert.Equal(t, "two", string(jobs[0].Heap[base+128:base+131]))
	old, err := s2.Atomic(0, base, 8, OpLoad, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(10), old)
	got := make([]byte, 3)
	require.NoError(t, s1.Get(0, base+128, got))
	assert.Equal(t, "two", string(got))
	require.NoError(t, s1.Close())
	require.NoError(t, s2.Close())
	assert.Error(t, s1.Put(0, base, []byte("x")), "a closed stream refuses work")
	time.Sleep(100 * time.Millisecond)
	assert.Nil(t, jobs[0].Transport.Lost(), "closing a stream is no loss")
	assert.Nil(t, m.Lost())
	require.NoError(t, m.Put(0, base+256, []byte("still")))
	require.NoError(t, m.Quiet())
	assert.Equal(t, "still", string(jobs[0].Heap[base+256:base+261]))
}
