package mpitype

import (
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// guarded returns n bytes that end at a page the process may not touch,
// so a kernel reading one byte past its data faults.
func guarded(t *testing.T, n int) []byte {
	pg := os.Getpagesize()
	size := (n+pg-1)/pg*pg + pg
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Munmap(mem) })
	require.NoError(t, unix.Mprotect(mem[size-pg:], unix.PROT_NONE))
	return mem[size-pg-n : size-pg]
}

// The gather kernels (amd64) pack (and, for 16-byte runs, unpack) random vectors of 4- and 8-byte runs
// exactly as the Go word loops and a piece-by-piece walk of the map do:
// any stride (negative, odd, every other element), instances that
// continue the stride or not, packed sides that end inside an element,
// and data that ends at an unreadable page.
func TestGatherMatchesGo(t *testing.T) {
	if !haveGather {
		t.Skip("no gather kernels in this build")
	}
	defer func() { useGather = haveGather }()
	rng := rand.New(rand.NewSource(35))
	kinds := []struct {
		b     Basic
		block int
	}{{BasicInt32, 1}, {BasicFloat32, 1}, {BasicFloat64, 1}, {BasicInt64, 1}, {BasicInt16, 2}, {BasicInt32, 2},
		{BasicComplex128, 1}, {BasicFloat64, 2}, {BasicInt32, 4},
		{BasicFloat64, 3}, {BasicInt8, 17}, {BasicInt32, 11}, {BasicFloat64, 8}, {BasicInt16, 100}, {BasicInt8, maxMoveN}, {BasicInt8, 600}}
	for iter := range 1500 {
		k := kinds[rng.Intn(len(kinds))]
		old := BasicMap(k.b)
		n := k.block * k.b.Size()
		reps := 1 + rng.Intn(40)
		switch rng.Intn(16) {
		case 0: // more than one kernel call
			if n <= 16 {
				reps = gatherChunk/2 + rng.Intn(2*gatherChunk)
			}
		case 1:
			reps = 8*(1+rng.Intn(5)) + rng.Intn(2)
		}
		stride := n + rng.Intn(60)
		if rng.Intn(4) == 0 { // overlapping blocks: packs only
			stride = 1 + rng.Intn(n)
		}
		switch rng.Intn(4) {
		case 0:
			stride = 2 * n
		case 1:
			stride = -stride
		}
		m, err := HVector(reps, k.block, stride, &old)
		require.NoError(t, err)
		count := 1 + rng.Intn(4)
		if rng.Intn(2) == 0 && stride > 0 { // instances continue the stride
			m = Resized(&m, m.LB(), reps*stride)
		}
		lay := guarded(t, m.Span(count))
		rng.Read(lay)
		size := count * m.Size()
		cut := size
		if rng.Intn(3) == 0 {
			cut = rng.Intn(size + 1)
		}
		useGather = true
		got := make([]byte, cut)
		gn := m.Pack(got, lay, count)
		useGather = false
		want := make([]byte, cut)
		wn := m.Pack(want, lay, count)
		require.Equal(t, wn, gn, "iter %d: %d x %d-byte runs, stride %d, count %d, cut %d", iter, reps, n, stride, count, cut)
		require.Equal(t, want, got, "iter %d: %d x %d-byte runs, stride %d, count %d, cut %d", iter, reps, n, stride, count, cut)
		// And both as the map's pieces say.
		ref := make([]byte, 0, size)
		m.each(count, func(off, l int) bool { ref = append(ref, lay[off:off+l]...); return true })
		require.Equal(t, ref[:cut], got, "iter %d", iter)
		// Unpacking (16-byte elements go through a kernel too) writes the
		// same bytes, and only the map's.
		if m.Overlap() {
			continue
		}
		back, back2 := guarded(t, len(lay)), make([]byte, len(lay))
		rng.Read(back)
		copy(back2, back)
		useGather = true
		m.Unpack(back, got, count)
		useGather = false
		m.Unpack(back2, got, count)
		require.Equal(t, back2, back, "iter %d: unpack", iter)
	}
}
