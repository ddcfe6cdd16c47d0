package heap

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testBase = 1 << 20
	testSize = 1 << 24
)

func newChecked(t testing.TB) *Allocator {
	a := New(testBase, testSize)
	require.NoError(t, a.Check())
	return a
}

func TestBasicAllocFree(t *testing.T) {
	a := newChecked(t)
	off, err := a.Alloc(100, 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(testBase), off)
	sz, ok := a.Size(off)
	require.True(t, ok)
	assert.Equal(t, uint64(128), sz)
	assert.Equal(t, uint64(128), a.InUse())
	assert.Equal(t, uint64(testSize-128), a.Available())

	off2, err := a.Alloc(1, 8)
	require.NoError(t, err)
	assert.Equal(t, off+128, off2)
	require.NoError(t, a.Check())

	n, err := a.Free(off)
	require.NoError(t, err)
	assert.Equal(t, uint64(128), n)
	_, ok = a.Size(off)
	assert.False(t, ok)
	n, err = a.Free(off2)
	require.NoError(t, err)
	assert.Equal(t, uint64(64), n)
	assert.Zero(t, a.InUse())
	assert.Equal(t, uint64(testSize), a.Available())
	require.NoError(t, a.Check())
	assert.Len(t, a.blocks, 1)
}

func TestAlignment(t *testing.T) {
	a := newChecked(t)
	_, err := a.Alloc(64, 0) // push the cursor off any big boundary
	require.NoError(t, err)
	for _, al := range []uint64{1, 2, 32, 64, 128, 4096, 1 << 20} {
		off, err := a.Alloc(100, al)
		require.NoError(t, err, "align %d", al)
		assert.Zero(t, off%max(al, MinAlign), "align %d off %#x", al, off)
		require.NoError(t, a.Check())
	}
	// Padding left free by a large alignment is reused by later small allocs.
	before := a.Available()
	off, err := a.Alloc(64, 0)
	require.NoError(t, err)
	assert.Less(t, off, uint64(testBase+(2<<20)))
	assert.Equal(t, before-64, a.Available())
}

func TestReuse(t *testing.T) {
	a := newChecked(t)
	x, _ := a.Alloc(256, 0)
	y, _ := a.Alloc(256, 0)
	_, err := a.Free(x)
	require.NoError(t, err)
	z, err := a.Alloc(200, 0)
	require.NoError(t, err)
	assert.Equal(t, x, z, "first fit reuses the freed lowest block")
	w, err := a.Alloc(64, 0)
	require.NoError(t, err)
	assert.Equal(t, y+256, w, "no hole left below y")
	require.NoError(t, a.Check())
}

func TestCoalesce(t *testing.T) {
	orders := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, ord := range orders {
		const blk = testSize / 4
		a := newChecked(t)
		var offs [4]uint64
		for i := range offs {
			var err error
			offs[i], err = a.Alloc(blk, 0)
			require.NoError(t, err)
		}
		_, err := a.Alloc(1, 0)
		require.ErrorIs(t, err, ErrExhausted)
		for _, i := range ord {
			_, err := a.Free(offs[i])
			require.NoError(t, err)
			require.NoError(t, a.Check())
		}
		assert.Len(t, a.blocks, 2, "order %v", ord)
		off, err := a.Alloc(3*blk, 0)
		require.NoError(t, err, "order %v", ord)
		assert.Equal(t, offs[0], off)
	}
}

func TestExhaustion(t *testing.T) {
	a := New(64, 4096) // [64, 4160): no 4096-aligned offset inside
	x, err := a.Alloc(1024, 0)
	require.NoError(t, err)
	_, err = a.Alloc(1024, 0)
	require.NoError(t, err)
	_, err = a.Alloc(2048, 0)
	require.NoError(t, err)
	_, err = a.Free(x)
	require.NoError(t, err)
	snap := append([]block(nil), a.blocks...)
	inUse, avail := a.InUse(), a.Available()

	_, err = a.Alloc(1025, 0)
	require.ErrorIs(t, err, ErrExhausted)
	assert.Contains(t, err.Error(), "largest free block 1024")
	_, err = a.Alloc(64, 4096) // space exists but not at that alignment
	require.ErrorIs(t, err, ErrExhausted)
	assert.Equal(t, snap, a.blocks, "failed allocs change nothing")
	assert.Equal(t, inUse, a.InUse())
	assert.Equal(t, avail, a.Available())
	require.NoError(t, a.Check())

	empty := New(64, 0)
	require.NoError(t, empty.Check())
	_, err = empty.Alloc(1, 0)
	require.ErrorIs(t, err, ErrExhausted)
}

func TestBadFree(t *testing.T) {
	a := newChecked(t)
	x, _ := a.Alloc(256, 0)
	y, _ := a.Alloc(256, 0)
	for _, off := range []uint64{x + 64, x + 1, y + 255, 0, testBase + testSize, math.MaxUint64, y + 256} {
		_, err := a.Free(off)
		require.ErrorIs(t, err, ErrNotAllocated, "off %#x", off)
	}
	_, err := a.Free(x)
	require.NoError(t, err)
	_, err = a.Free(x)
	require.ErrorIs(t, err, ErrNotAllocated, "double free")
	_, ok := a.Size(x + 64)
	assert.False(t, ok)
	n, err := a.Free(y)
	require.NoError(t, err)
	assert.Equal(t, uint64(256), n)
	require.NoError(t, a.Check())
}

func TestBadArgs(t *testing.T) {
	a := newChecked(t)
	for _, al := range []uint64{3, 96, 4095, 1<<20 + 1, math.MaxUint64} {
		_, err := a.Alloc(64, al)
		require.ErrorIs(t, err, ErrBadAlign, "align %d", al)
	}
	for _, sz := range []uint64{math.MaxUint64, math.MaxUint64 - 62} {
		_, err := a.Alloc(sz, 0)
		require.ErrorIs(t, err, ErrBadSize, "size %d", sz)
	}
	for _, sz := range []uint64{math.MaxUint64 - 63, 1 << 63, testSize + 1} {
		_, err := a.Alloc(sz, 0)
		require.ErrorIs(t, err, ErrExhausted, "size %d", sz)
	}
	_, err := a.Alloc(64, 1<<63)
	require.ErrorIs(t, err, ErrExhausted)
	assert.Zero(t, a.InUse())
	require.NoError(t, a.Check())

	// Zero size: empty allocation, nothing reserved.
	off, err := a.Alloc(0, 0)
	require.NoError(t, err)
	assert.Zero(t, off)
	assert.Zero(t, a.InUse())
	_, err = a.Alloc(0, 3)
	require.ErrorIs(t, err, ErrBadAlign)

	assert.Panics(t, func() { New(1, 64) })
	assert.Panics(t, func() { New(0, 65) })
	assert.Panics(t, func() { New(math.MaxUint64-63, 128) })
	top := New(math.MaxUint64-127, 64) // heap ending right below 2^64
	off, err = top.Alloc(64, 1<<62)
	require.ErrorIs(t, err, ErrExhausted)
	off, err = top.Alloc(64, 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(math.MaxUint64-127), off)
	require.NoError(t, top.Check())
}

// op is one step of a random workload. Frees name a live block by index.
type op struct {
	free        bool
	size, align uint64
	pick        int
}

func randomOps(r *rand.Rand, n int) []op {
	ops := make([]op, n)
	for i := range ops {
		ops[i] = op{
			free:  r.IntN(5) < 2,
			size:  uint64(r.IntN(1 << uint(r.IntN(18)))),
			align: []uint64{0, 1, 64, 256, 4096, 1 << 16}[r.IntN(6)],
			pick:  r.IntN(1 << 30),
		}
	}
	return ops
}

// run applies ops to a; live holds live offsets in allocation order (a slice,
// so both runs pick the same victim). check, if set, sees every alloc; onFree
// every free. It returns the observed results.
func run(t testing.TB, a *Allocator, ops []op, check func(op, uint64, error), onFree func(uint64)) []uint64 {
	var live, trace []uint64
	for _, o := range ops {
		if o.free && len(live) > 0 {
			i := o.pick % len(live)
			n, err := a.Free(live[i])
			require.NoError(t, err)
			if onFree != nil {
				onFree(live[i])
			}
			live = append(live[:i], live[i+1:]...)
			trace = append(trace, n)
			continue
		}
		off, err := a.Alloc(o.size, o.align)
		if err == nil && o.size > 0 {
			live = append(live, off)
		}
		trace = append(trace, off)
		if check != nil {
			check(o, off, err)
		}
	}
	return trace
}

func TestDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		ops := randomOps(rand.New(rand.NewPCG(seed, 1)), 2000)
		a, b := New(testBase, testSize), New(testBase, testSize)
		ta, tb := run(t, a, ops, nil, nil), run(t, b, ops, nil, nil)
		require.Equal(t, ta, tb, "seed %d", seed)
		require.Equal(t, a.blocks, b.blocks)
	}
}

func TestAgainstModel(t *testing.T) {
	exhausted := 0
	for seed := uint64(0); seed < 10; seed++ {
		ops := randomOps(rand.New(rand.NewPCG(seed, 2)), 1500)
		const size = 1 << 21 // small enough that some requests fail
		a := New(testBase, size)
		model := map[uint64]uint64{} // off -> rounded size
		run(t, a, ops, func(o op, off uint64, err error) {
			if o.size == 0 {
				return
			}
			if err != nil {
				require.ErrorIs(t, err, ErrExhausted)
				exhausted++
				return
			}
			al := max(o.align, MinAlign)
			require.Zero(t, off%al, "alignment")
			sz, ok := a.Size(off)
			require.True(t, ok)
			require.GreaterOrEqual(t, sz, o.size)
			require.Less(t, sz-o.size, uint64(MinAlign))
			require.GreaterOrEqual(t, off, uint64(testBase))
			require.LessOrEqual(t, off+sz, uint64(testBase+size))
			for o2, s2 := range model {
				require.True(t, off+sz <= o2 || o2+s2 <= off, "overlap [%#x,+%d) [%#x,+%d)", off, sz, o2, s2)
			}
			model[off] = sz
			var sum uint64
			for _, s2 := range model {
				sum += s2
			}
			require.Equal(t, a.InUse(), sum)
			require.Equal(t, uint64(size), a.InUse()+a.Available())
			require.NoError(t, a.Check())
		}, func(off uint64) {
			_, ok := model[off]
			require.True(t, ok, "freed %#x not in model", off)
			delete(model, off)
			_, live := a.Size(off)
			require.False(t, live)
			require.NoError(t, a.Check())
		})
		require.NoError(t, a.Check())
		var sum uint64
		for off, sz := range model {
			got, ok := a.Size(off)
			require.True(t, ok)
			require.Equal(t, sz, got)
			sum += sz
		}
		require.Equal(t, sum, a.InUse())
	}
	assert.Positive(t, exhausted, "workload should hit exhaustion sometimes")
}

func FuzzAllocator(f *testing.F) {
	f.Add([]byte{0, 10, 1, 0, 20, 2, 3, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0x80, 0x7f, 0x01, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		a := New(4096, 1<<16)
		var live []uint64
		for len(data) >= 3 {
			kind, x, y := data[0], data[1], data[2]
			data = data[3:]
			var err error
			switch {
			case kind%4 == 3 && len(live) > 0:
				i := int(x) % len(live)
				_, err = a.Free(live[i])
				live = append(live[:i], live[i+1:]...)
			case kind%4 == 2:
				_, err = a.Free(uint64(x)<<8 | uint64(y))
				if err != nil && !errors.Is(err, ErrNotAllocated) {
					t.Fatalf("free: %v", err)
				}
				live = live[:0:0]
				for _, b := range a.blocks {
					if !b.free {
						live = append(live, b.off)
					}
				}
				err = nil
			default:
				var off uint64
				off, err = a.Alloc(uint64(x)<<uint(y%12), uint64(1)<<(y>>4))
				if err == nil && x != 0 {
					live = append(live, off)
				}
				if errors.Is(err, ErrExhausted) {
					err = nil
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Check(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestCheckDetectsCorruption(t *testing.T) {
	fresh := func() *Allocator {
		a := New(0, 4096)
		for range 3 {
			_, err := a.Alloc(64, 0)
			require.NoError(t, err)
		}
		_, err := a.Free(64)
		require.NoError(t, err)
		require.NoError(t, a.Check())
		return a // used, free, used, free(rest)
	}
	for name, corrupt := range map[string]func(a *Allocator){
		"empty":      func(a *Allocator) { a.blocks[1].size = 0 },
		"misaligned": func(a *Allocator) { a.blocks[1].off++ },
		"gap":        func(a *Allocator) { a.blocks[1].off += 64; a.blocks[1].size -= 64 },
		"overflow":   func(a *Allocator) { a.blocks[3].size += 64 },
		"short":      func(a *Allocator) { a.blocks = a.blocks[:3] },
		"adjacent":   func(a *Allocator) { a.blocks[2].free = true },
		"counters":   func(a *Allocator) { a.inUse++ },
	} {
		a := fresh()
		corrupt(a)
		assert.Error(t, a.Check(), name)
	}
}

func TestBlock(t *testing.T) {
	a := newChecked(t)
	x, err := a.Alloc(1000, 0)
	require.NoError(t, err)
	y, err := a.Alloc(64, 0)
	require.NoError(t, err)
	for _, c := range []struct {
		off, n uint64
		start  uint64
		ok     bool
	}{
		{x, 1000, x, true}, {x + 10, 20, x, true}, {x + 999, 0, x, true}, {y, 64, y, true},
		{x + 10, 2000, 0, false},      // runs past its block
		{y + 64, 8, 0, false},         // free space
		{testBase - 64, 8, 0, false},  // below the range
		{x, math.MaxUint64, 0, false}, // overflows
	} {
		start, ok := a.Block(c.off, c.n)
		assert.Equal(t, c.ok, ok, "Block(%#x, %d)", c.off, c.n)
		assert.Equal(t, c.start, start, "Block(%#x, %d)", c.off, c.n)
	}
	_, err = a.Free(x)
	require.NoError(t, err)
	_, ok := a.Block(x+10, 20)
	assert.False(t, ok, "a freed block")
	base, size := a.Range()
	assert.Equal(t, [2]uint64{testBase, testSize}, [2]uint64{base, size})
}
