package atomicop

import (
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// reference is what op does to a word of width bytes holding old.
func reference(width int, op Op, old, v, cmp uint64) (newv, ret uint64) {
	mask := ^uint64(0)
	if width < 8 {
		mask = 1<<(8*width) - 1
	}
	old &= mask
	switch op {
	case Load:
		return old, old
	case Store:
		return v & mask, 0
	case Swap:
		return v & mask, old
	case CompareAndSwap:
		if old == cmp&mask {
			return v & mask, old
		}
		return old, old
	case Add:
		return (old + v) & mask, old
	case And:
		return old & v & mask, old
	case Or:
		return (old | v) & mask, old
	case Xor:
		return (old ^ v) & mask, old
	}
	panic("op")
}

func readWidth(b []byte, width int) uint64 {
	var v uint64
	for i := width - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// TestApplyAgainstReference runs every op on every width at every aligned
// position of a 16-byte buffer and checks the result, the previous value
// and that no byte outside the word changed.
func TestApplyAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf [2]uint64
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&buf)), 16)
	for _, width := range []int{1, 2, 4, 8} {
		for pos := 0; pos+width <= 16; pos += width {
			for op := Load; op < numOps; op++ {
				for range 50 {
					for i := range mem {
						mem[i] = byte(rng.Uint32())
					}
					before := append([]byte(nil), mem...)
					old := readWidth(mem[pos:], width)
					v, cmp := rng.Uint64(), rng.Uint64()
					if rng.IntN(2) == 0 {
						cmp = old // make the compare-and-swap succeed half the time
					}
					want, wantRet := reference(width, op, old, v, cmp)
					got := Apply(unsafe.Pointer(&mem[pos]), width, op, v, cmp)
					require.Equal(t, wantRet, got, "%v width %d at %d: returned value", op, width, pos)
					require.Equal(t, want, readWidth(mem[pos:], width), "%v width %d at %d: new value", op, width, pos)
					for i := range mem {
						if i < pos || i >= pos+width {
							require.Equal(t, before[i], mem[i], "%v width %d at %d changed byte %d", op, width, pos, i)
						}
					}
				}
			}
		}
	}
}

// TestApplyConcurrentSmall checks that neighbouring 1- and 2-byte words
// updated at once by several goroutines do not lose updates.
func TestApplyConcurrentSmall(t *testing.T) {
	var word uint64
	p := unsafe.Pointer(&word)
	const n = 2000
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				Apply(unsafe.Add(p, i), 1, Add, 1, 0)
			}
		}()
	}
	for range n {
		Apply(unsafe.Add(p, 4), 2, Add, 3, 0)
	}
	wg.Wait()
	for i := range 4 {
		require.Equal(t, uint64(n%256), Apply(unsafe.Add(p, i), 1, Load, 0, 0))
	}
	require.Equal(t, uint64(3*n), Apply(unsafe.Add(p, 4), 2, Load, 0, 0))
}

func TestOpNames(t *testing.T) {
	require.Equal(t, "xor", Xor.String())
	require.False(t, numOps.Valid())
	require.Equal(t, "Op(?)", numOps.String())
	require.True(t, Width(2))
	require.False(t, Width(3))
	require.Panics(t, func() { Apply(unsafe.Pointer(new(uint64)), 3, Add, 1, 0) })
}
