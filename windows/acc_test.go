package windows_test

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Byte offsets of the elements in the contention test's window (disp
// unit 1). Elements of 1-8 bytes that are aligned use compare-and-swap
// loops; complex128, DoubleInt and the misaligned int64 use stripe locks.
const (
	offI8, offU8, offI16, offI32, offI64 = 0, 1, 2, 4, 8
	offF64, offF32, offXor, offC64       = 16, 24, 28, 32
	offMax, offC128, offDI, offMis       = 40, 48, 64, 81
	offTI, offFA, accWinSize             = 96, 104, 128
)

// load reads a T from b, whatever b's alignment.
func load[T any](b []byte) T {
	var v T
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)), b)
	return v
}

// Every PE accumulates into the same locations of rank 0 at once; each
// result is exact (element-wise atomicity), for every element width and
// both atomic mechanisms, over load/store and over shmem calls.
func TestConcurrentAccumulateExact(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 4, Modes: petest.AllModes}, func(t *petest.T, w *shmem.World) {
		const iters = 150
		me, np := w.MyPE(), w.NPEs()
		for _, c := range []struct {
			f      windows.Flavor
			remote bool
		}{{windows.FlavorAllocate, false}, {windows.FlavorCreate, false}, {windows.FlavorAllocate, true}} {
			windows.SetForceRemote(c.remote)
			buf := make([]byte, accWinSize)
			var win *windows.Win
			var err error
			if c.f == windows.FlavorCreate {
				win, err = windows.Create(commOf(t, w), buf, 1, nil)
			} else {
				win, err = windows.Allocate(commOf(t, w), accWinSize, 1, nil)
				buf = win.Base()
			}
			windows.SetForceRemote(false)
			require.NoError(t, err)

			require.NoError(t, win.LockAll(0))
			fetched := make([]int64, 0, iters)
			for i := range iters {
				require.NoError(t, windows.Accumulate(win, []int8{1}, 0, offI8, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []uint8{3}, 0, offU8, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []int16{-1}, 0, offI16, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []int32{2}, 0, offI32, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []int64{1 << 33}, 0, offI64, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []float64{0.5}, 0, offF64, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []float32{1}, 0, offF32, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []complex64{1 + 2i}, 0, offC64, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []complex128{1 - 1i}, 0, offC128, compat.OpSum))
				require.NoError(t, windows.Accumulate(win, []int64{1}, 0, offMis, compat.OpSum))
				v := compat.DoubleInt{Val: float64((i*7 + me*13) % 101), Loc: int32(me*1000 + i)}
				require.NoError(t, windows.Accumulate(win, []compat.DoubleInt{v}, 0, offDI, compat.OpMaxloc))
				require.NoError(t, windows.Accumulate(win, []compat.TwoInt{{Val: int32(i % 5), Loc: int32(me*1000 + i)}}, 0, offTI, compat.OpMinloc))
				old, err := windows.FetchAndOp(win, int64(1), 0, offFA, compat.OpSum)
				require.NoError(t, err)
				fetched = append(fetched, old)
				require.NoError(t, windows.Accumulate(win, []uint32{1 << me}, 0, offXor, compat.OpBxor))
				require.NoError(t, windows.Accumulate(win, []int32{int32(me*iters + i)}, 0, offMax, compat.OpMax))
			}
			require.NoError(t, win.UnlockAll())
			require.NoError(t, w.BarrierAll())

			// Every fetched value is distinct across all PEs: gather them at 0.
			all, err := shmem.Calloc[int64](w, np*iters)
			require.NoError(t, err)
			require.NoError(t, shmem.Put(all.Slice(me*iters, (me+1)*iters), fetched, 0))
			require.NoError(t, w.BarrierAll())
			if me == 0 {
				require.NoError(t, win.Sync())
				total := np * iters
				b := buf
				assert.Equal(t, int8(total), int8(b[offI8]), "int8 wraps exactly")
				assert.Equal(t, uint8(3*total), b[offU8])
				assert.Equal(t, int16(-total), load[int16](b[offI16:]))
				assert.Equal(t, int32(2*total), load[int32](b[offI32:]))
				assert.Equal(t, int64(total)<<33, load[int64](b[offI64:]))
				assert.Equal(t, 0.5*float64(total), load[float64](b[offF64:]))
				assert.Equal(t, float32(total), load[float32](b[offF32:]))
				assert.Equal(t, complex64(complex(float64(total), 2*float64(total))), load[complex64](b[offC64:]))
				assert.Equal(t, complex(float64(total), -float64(total)), load[complex128](b[offC128:]))
				assert.Equal(t, int64(total), load[int64](b[offMis:]), "misaligned int64 (stripe lock)")
				di := load[compat.DoubleInt](b[offDI:])
				assert.Equal(t, 100.0, di.Val)
				// The lowest location holding 100: (i*7 + me*13) % 101 == 100.
				best := int32(1 << 30)
				for pe := range np {
					for i := range iters {
						if (i*7+pe*13)%101 == 100 {
							best = min(best, int32(pe*1000+i))
						}
					}
				}
				assert.Equal(t, best, di.Loc, "MAXLOC keeps the lowest location on ties")
				ti := load[compat.TwoInt](b[offTI:])
				assert.Equal(t, compat.TwoInt{Val: 0, Loc: 0}, ti, "MINLOC")
				assert.Equal(t, uint32(1<<np-1)*uint32(iters%2), load[uint32](b[offXor:]))
				assert.Equal(t, int32(np*iters-1), load[int32](b[offMax:]))
				assert.Equal(t, int64(total), load[int64](b[offFA:]))
				got := slices.Clone(all.Local())
				slices.Sort(got)
				for k, v := range got {
					require.Equal(t, int64(k), v, "FetchAndOp values are a permutation")
				}
			}
			require.NoError(t, w.BarrierAll())
			require.NoError(t, shmem.Free(all))
			require.NoError(t, win.Free())
		}
	})
}

// Every op through GetAccumulate: the fetched value is the old one and the
// target holds "old op origin".
func TestGetAccumulateOps(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: petest.AllModes}, func(t *petest.T, w *shmem.World) {
		win, mem, err := windows.AllocateOf[int32](commOf(t, w), 4, nil)
		require.NoError(t, err)
		fwin, fmem, err := windows.AllocateOf[float64](commOf(t, w), 4, nil)
		require.NoError(t, err)
		peer := 1 - w.MyPE()
		ints := []struct {
			op   compat.Op
			want int32
		}{
			{compat.OpSum, 12 + 5}, {compat.OpProd, 60}, {compat.OpMax, 12}, {compat.OpMin, 5},
			{compat.OpLand, 1}, {compat.OpLor, 1}, {compat.OpLxor, 0}, {compat.OpBand, 12 & 5},
			{compat.OpBor, 12 | 5}, {compat.OpBxor, 12 ^ 5}, {compat.OpReplace, 5}, {compat.OpNoOp, 12},
		}
		floats := []struct {
			op   compat.Op
			want float64
		}{
			{compat.OpSum, 2.5 + 4}, {compat.OpProd, 10}, {compat.OpMax, 4}, {compat.OpMin, 2.5},
			{compat.OpReplace, 4}, {compat.OpNoOp, 2.5},
		}
		for _, c := range ints {
			mem[0] = 12
			fmem[0] = 2.5
			require.NoError(t, w.BarrierAll())
			require.NoError(t, win.Lock(windows.LockExclusive, peer, 0))
			old := []int32{0}
			require.NoError(t, windows.GetAccumulate(win, []int32{5}, old, peer, 0, c.op))
			require.NoError(t, win.Unlock(peer))
			require.Equal(t, int32(12), old[0], "%v fetch", c.op)
			require.NoError(t, w.BarrierAll())
			require.Equal(t, c.want, mem[0], "int32 %v", c.op)
		}
		for _, c := range floats {
			fmem[0] = 2.5
			require.NoError(t, w.BarrierAll())
			require.NoError(t, fwin.LockAll(0))
			old, err := windows.FetchAndOp(fwin, 4.0, peer, 0, c.op)
			require.NoError(t, err)
			require.NoError(t, fwin.UnlockAll())
			require.Equal(t, 2.5, old, "%v fetch", c.op)
			require.NoError(t, w.BarrierAll())
			require.Equal(t, c.want, fmem[0], "float64 %v", c.op)
		}
		// NO_OP takes no origin; CompareAndSwap swaps only on a match.
		mem[1] = 7
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.LockAll(0))
		res := []int32{0}
		require.NoError(t, windows.GetAccumulate(win, nil, res, peer, 1, compat.OpNoOp))
		require.Equal(t, int32(7), res[0])
		old, err := windows.CompareAndSwap[int32](win, 6, 9, peer, 1)
		require.NoError(t, err)
		require.Equal(t, int32(7), old)
		old, err = windows.CompareAndSwap[int32](win, 7, 9, peer, 1)
		require.NoError(t, err)
		require.Equal(t, int32(7), old)
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		require.Equal(t, int32(9), mem[1])
		require.NoError(t, win.Free())
		require.NoError(t, fwin.Free())
	})
}

// Vector datatypes on the origin, the target and the result.
func TestVectorDatatypes(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2}, func(t *petest.T, w *shmem.World) {
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorDynamic} {
			x := newTW(t, w, f, 16)
			peer := 1 - w.MyPE()
			every2 := compat.Vector(4, 1, 2, compat.Int64)
			require.NoError(t, every2.Err())
			pairs := compat.Vector(2, 2, 4, compat.Int64) // [0 1 _ _ 4 5]
			require.Equal(t, 4, pairs.Count())
			require.Equal(t, 48, pairs.Extent())

			x.setLocal(t, w, func(int) int64 { return 0 })
			src := []int64{10, 11, 12, 13, 14, 15, 16, 17}
			require.NoError(t, x.win.LockAll(0))
			// Origin strided (10, 12, 14, 16) into target pairs at 1: [1 2 _ _ 5 6].
			require.NoError(t, windows.PutTyped(x.win, src, 1, every2, peer, x.disp(peer, 1), 1, pairs))
			// Origin contiguous, target strided: 1 into every other element from 8 on.
			ones := []int64{1, 1, 1, 1}
			require.NoError(t, windows.AccumulateTyped(x.win, ones, 4, compat.Int64, peer, x.disp(peer, 8), 1, every2, compat.OpSum))
			require.NoError(t, x.win.Flush(peer))
			got := make([]int64, 12)
			// Result strided, target contiguous.
			require.NoError(t, windows.GetTyped(x.win, got, 2, compat.Vector(2, 1, 3, compat.Int64), peer, x.disp(peer, 1), 4, compat.Int64))
			require.NoError(t, x.win.UnlockAll())
			// got[0], got[3] from the first instance; got[6], got[9] from the second.
			assert.Equal(t, []int64{10, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0}, got)
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.Sync())
			assert.Equal(t, []int64{0, 10, 12, 0, 0, 14, 16, 0, 1, 0, 1, 0, 1, 0, 1, 0}, x.mem, f.String())

			// GetAccumulate with all three strided.
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.LockAll(0))
			res := make([]int64, 4)
			require.NoError(t, windows.GetAccumulateTyped(x.win, []int64{100, 0, 100}, 1, compat.Vector(2, 1, 2, compat.Int64),
				res, 1, compat.Vector(2, 1, 3, compat.Int64), peer, x.disp(peer, 8), 1, compat.Vector(2, 1, 2, compat.Int64), compat.OpSum))
			require.NoError(t, x.win.UnlockAll())
			assert.Equal(t, []int64{1, 0, 0, 1}, res)
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.Sync())
			assert.Equal(t, []int64{101, 0, 101, 0, 1, 0, 1, 0}, x.mem[8:])

			// Errors: overlapping target, mismatched signatures, short buffer, bad types.
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.LockAll(0))
			overlap := compat.Vector(2, 2, 1, compat.Int64)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 4, compat.Int64, peer, x.disp(peer, 0), 1, overlap), compat.ErrType)
			require.NoError(t, windows.PutTyped(x.win, src, 1, overlap, peer, x.disp(peer, 0), 4, compat.Int64), "overlapping origin is fine")
			require.ErrorIs(t, windows.PutTyped(x.win, src, 3, compat.Int64, peer, x.disp(peer, 0), 1, every2), compat.ErrType)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 9, compat.Int64, peer, x.disp(peer, 0), 9, compat.Int64), compat.ErrArg)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1, compat.Int32, peer, x.disp(peer, 0), 1, compat.Int32), compat.ErrType)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1, compat.Int64, peer, x.disp(peer, 0), 2, compat.Int32), compat.ErrType)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1, compat.Vector(-1, 1, 1, compat.Int64), peer, 0, 1, compat.Int64), compat.ErrType)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1, compat.Vector(2, 1, 0, compat.Int64), peer, 0, 1, compat.Int64), compat.ErrType)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1, compat.Datatype{}, peer, 0, 1, compat.Int64), compat.ErrType)
			require.ErrorIs(t, windows.PutTyped(x.win, src, -1, compat.Int64, peer, 0, -1, compat.Int64), compat.ErrCount)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1<<62, compat.Int64, peer, 0, 1<<62, compat.Int64), compat.ErrCount)
			require.ErrorIs(t, windows.PutTyped(x.win, src, 1, compat.Int64, peer, 0, 1, compat.Vector(2, 1, 1<<20, compat.Vector(2, 1, 1<<20, compat.Vector(2, 1, 1<<20, compat.Int64)))), compat.ErrType)
			// A []byte origin may carry any type.
			raw := make([]byte, 16)
			raw[0], raw[8] = 7, 9
			require.NoError(t, windows.AccumulateTyped(x.win, raw, 2, compat.Int64, peer, x.disp(peer, 14), 2, compat.Int64, compat.OpSum))
			require.NoError(t, x.win.UnlockAll())
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.Sync())
			assert.Equal(t, []int64{8, 9}, x.mem[14:])
			x.free(t)
		}
	})
}

// TestPairAccumulateTyped: MINLOC of MPI_SHORT_INT (padding between its
// members) and MPI_DOUBLE_INT (padding after) through vectors of every
// other pair, into rank 0's window mapped and over messages: the
// padding and the gaps keep their bytes, GetAccumulate's result too.
func TestPairAccumulateTyped(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 3, Modes: petest.AllModes}, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		vs := compat.Vector(2, 1, 2, compat.ShortIntT)
		vd := compat.Vector(2, 1, 2, compat.DoubleIntT)
		for _, remote := range []bool{false, true} {
			windows.SetForceRemote(remote)
			win, err := windows.Allocate(commOf(t, w), 128, 1, nil)
			windows.SetForceRemote(false)
			require.NoError(t, err)
			b := win.Base()
			for i := range b {
				b[i] = 0xee
			}
			if me == 0 { // targets: ShortInts at 0 and 16, DoubleInts at 32 and 64
				for _, o := range []int{0, 16} {
					copy(b[o:], unsafe.Slice((*byte)(unsafe.Pointer(&compat.ShortInt{Val: 100, Loc: -1})), 2))
					copy(b[o+4:], unsafe.Slice((*byte)(unsafe.Pointer(&[]int32{-1}[0])), 4))
				}
				for _, o := range []int{32, 64} {
					v := compat.DoubleInt{Val: 100, Loc: -1}
					copy(b[o:], unsafe.Slice((*byte)(unsafe.Pointer(&v)), 12))
				}
			}
			require.NoError(t, commOf(t, w).Barrier())
			require.NoError(t, win.LockAll(0))
			s := []compat.ShortInt{{Val: int16(10 - me), Loc: int32(me)}, {}, {Val: int16(me % 2), Loc: int32(me)}}
			d := []compat.DoubleInt{{Val: float64(10 - me), Loc: int32(me)}, {}, {Val: float64(me % 2), Loc: int32(me)}}
			require.NoError(t, windows.AccumulateTyped(win, s, 1, vs, 0, 0, 1, vs, compat.OpMinloc))
			require.NoError(t, windows.AccumulateTyped(win, d, 1, vd, 0, 32, 1, vd, compat.OpMinloc))
			require.NoError(t, win.UnlockAll())
			require.NoError(t, commOf(t, w).Barrier())
			require.NoError(t, win.Lock(windows.LockShared, 0, 0))
			got := []compat.ShortInt{{Val: 5, Loc: 5}, {Val: 5, Loc: 5}, {Val: 5, Loc: 5}}
			pad := load[[2]byte](unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), 8)[2:])
			big := []compat.ShortInt{{Val: 200}, {}, {Val: 200}}
			require.NoError(t, windows.GetAccumulateTyped(win, big, 1, vs, got, 1, vs, 0, 0, 1, vs, compat.OpMinloc))
			require.NoError(t, win.Unlock(0))
			assert.Equal(t, compat.ShortInt{Val: int16(11 - np), Loc: int32(np - 1)}, got[0])
			assert.Equal(t, compat.ShortInt{Val: 5, Loc: 5}, got[1], "the gap")
			assert.Equal(t, compat.ShortInt{Val: 0, Loc: 0}, got[2])
			assert.Equal(t, pad, load[[2]byte](unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), 8)[2:]), "the padding of the result")
			require.NoError(t, commOf(t, w).Barrier())
			if me == 0 {
				sv := load[compat.ShortInt](b[0:])
				assert.Equal(t, int16(11-np), sv.Val)
				assert.Equal(t, int32(np-1), sv.Loc)
				assert.Equal(t, []byte{0xee, 0xee}, b[2:4], "padding inside the pair")
				assert.Equal(t, []byte{0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee}, b[8:16], "the gap")
				assert.Equal(t, compat.ShortInt{Val: 0, Loc: 0}, load[compat.ShortInt](b[16:]))
				dv := load[compat.DoubleInt](b[32:])
				assert.Equal(t, float64(11-np), dv.Val)
				assert.Equal(t, int32(np-1), dv.Loc)
				assert.Equal(t, []byte{0xee, 0xee, 0xee, 0xee}, b[44:48], "padding after the pair")
				dv = load[compat.DoubleInt](b[64:])
				assert.Equal(t, compat.DoubleInt{Val: 0, Loc: 0}.Val, dv.Val)
				assert.Equal(t, int32(0), dv.Loc)
			}
			require.NoError(t, commOf(t, w).Barrier())
			require.NoError(t, win.Free())
		}
	})
}
