package compat_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// Every collective against a sequential reference, on the world (5 ranks,
// not a power of two) and on the two halves of a Split with reversed
// keys; every root; InPlace where MPI allows it. Values are small
// integers, so float sums are exact and any reduction order must agree
// with the reference.

func val(r, i int) int64 { return int64((r+1)*(i+3)%17 + r - 4) }

func vals[T int32 | int64 | float64 | uint8](r, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(val(r, i) & 0x3f)
	}
	return out
}

func refReduce[T int32 | int64 | float64 | uint8](op compat.Op, size, n int) []T {
	acc := vals[T](0, n)
	for r := 1; r < size; r++ {
		v := vals[T](r, n)
		for i := range acc {
			switch op {
			case compat.OpSum:
				acc[i] += v[i]
			case compat.OpProd:
				acc[i] *= v[i]
			case compat.OpMax:
				acc[i] = max(acc[i], v[i])
			case compat.OpMin:
				acc[i] = min(acc[i], v[i])
			}
		}
	}
	return acc
}

func TestCollectives(t *testing.T) {
	// A 4 KiB scratch area makes the team collectives run in pieces, and the
	// larger Allgather and Alltoall fall back to point-to-point.
	run(t, 5, func(t *petest.T, e *compat.Env, world *compat.Comm) {
		half, err := world.Split(world.Rank()%2, -world.Rank())
		require.NoError(t, err)
		for _, c := range []*compat.Comm{world, half, e.CommSelf()} {
			checkCollectives(t, c)
			checkLarge(t, c)
		}
		require.NoError(t, half.Free())
	}, compat.WithScratchSize(4096))
}

// TestTeamLimit: past shmem.MaxTeams, new communicators get no team and
// their collectives run over point-to-point, with the same results.
func TestTeamLimit(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 3, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		e, err := compat.New(w)
		require.NoError(t, err)
		var comms []*compat.Comm
		for range shmem.MaxTeams + 4 {
			d, err := e.CommWorld().Dup()
			require.NoError(t, err)
			comms = append(comms, d)
		}
		for _, c := range []*compat.Comm{comms[0], comms[len(comms)-1]} {
			checkLarge(t, c)
			out := []int64{0}
			require.NoError(t, compat.Allreduce(c, []int64{int64(c.Rank())}, out, 1, compat.Int64, compat.OpSum))
			require.Equal(t, int64(3), out[0])
		}
		for _, c := range comms {
			require.NoError(t, c.Free())
		}
		require.NoError(t, e.Finalize())
	})
}

// checkLarge runs the team-mapped collectives on data larger than the
// scratch area.
func checkLarge(t *petest.T, c *compat.Comm) {
	me, n := c.Rank(), c.Size()
	const k = 3001
	io := vals[float64](me, k)
	require.NoError(t, compat.Allreduce(c, compat.InPlace[float64](), io, k, compat.Float64, compat.OpSum))
	require.Equal(t, refReduce[float64](compat.OpSum, n, k), io)
	red := make([]int32, k)
	require.NoError(t, compat.Reduce(c, vals[int32](me, k), red, k, compat.Int32, compat.OpMax, n-1))
	if me == n-1 {
		require.Equal(t, refReduce[int32](compat.OpMax, n, k), red)
	}
	b := make([]int64, k)
	if me == 0 {
		b = vals[int64](7, k)
	}
	require.NoError(t, compat.Bcast(c, b, k, compat.Int64, 0))
	require.Equal(t, vals[int64](7, k), b)
	ag := make([]int64, n*k)
	require.NoError(t, compat.Allgather(c, vals[int64](me, k), k, compat.Int64, ag, k, compat.Int64))
	for r := range n {
		require.Equal(t, vals[int64](r, k), ag[r*k:(r+1)*k])
	}
	const m = 100 // n*m*8 fits 4 KiB twice: the team Alltoall
	in, out := make([]int64, n*m), make([]int64, n*m)
	for j := range n * m {
		in[j] = int64(1000*me + j)
	}
	require.NoError(t, compat.Alltoall(c, in, m, compat.Int64, out, m, compat.Int64))
	for j := range n {
		for x := range m {
			require.Equal(t, int64(1000*j+me*m+x), out[j*m+x])
		}
	}
	rs := make([]int32, m)
	full := refReduce[int32](compat.OpSum, n, n*m)
	require.NoError(t, compat.ReduceScatterBlock(c, vals[int32](me, n*m), rs, m, compat.Int32, compat.OpSum))
	require.Equal(t, full[me*m:(me+1)*m], rs)
}

func checkCollectives(t *petest.T, c *compat.Comm) {
	me, n := c.Rank(), c.Size()
	require.NoError(t, c.Barrier())
	const k = 37

	for root := range n {
		// Bcast, contiguous and as a vector of every other element.
		b := make([]int32, 2*k)
		if me == root {
			copy(b, vals[int32](root, 2*k))
		}
		require.NoError(t, compat.Bcast(c, b[:k], k, compat.Int32, root))
		require.Equal(t, vals[int32](root, 2*k)[:k], b[:k])
		every2 := compat.Vector(k, 1, 2, compat.Int32)
		v := make([]int32, 2*k)
		if me == root {
			v = vals[int32](root+1, 2*k)
		}
		require.NoError(t, compat.Bcast(c, v, 1, every2, root))
		for i := 0; i < 2*k; i += 2 {
			require.Equal(t, vals[int32](root+1, 2*k)[i], v[i])
		}

		// Reduce, every op that applies, two types; InPlace at the root.
		for _, op := range []compat.Op{compat.OpSum, compat.OpMax, compat.OpMin, compat.OpProd} {
			out := make([]float64, k)
			require.NoError(t, compat.Reduce(c, vals[float64](me, k), out, k, compat.Float64, op, root))
			if me == root {
				require.Equal(t, refReduce[float64](op, n, k), out, "%v root %d", op, root)
			}
			io := vals[int64](me, k)
			sbuf := io
			if me == root {
				sbuf = compat.InPlace[int64]()
			}
			require.NoError(t, compat.Reduce(c, sbuf, io, k, compat.Int64, op, root))
			if me == root {
				require.Equal(t, refReduce[int64](op, n, k), io)
			}
		}

		// Gather and Gatherv (with gaps, reversed placement, InPlace).
		g := make([]int32, n*k)
		require.NoError(t, compat.Gather(c, vals[int32](me, k), k, compat.Int32, g, k, compat.Int32, root))
		if me == root {
			for r := range n {
				require.Equal(t, vals[int32](r, k), g[r*k:(r+1)*k])
			}
		}
		counts, displs, total := vLayout(n)
		gv := make([]int32, total)
		for i := range gv {
			gv[i] = -1
		}
		sbuf := vals[int32](me, counts[me])
		if me == root {
			copy(gv[displs[me]:], sbuf)
			sbuf = compat.InPlace[int32]()
		}
		require.NoError(t, compat.Gatherv(c, sbuf, counts[me], compat.Int32, gv, counts, displs, compat.Int32, root))
		if me == root {
			checkV(t, gv, counts, displs)
		}

		// Scatter and Scatterv.
		var src []int32
		if me == root {
			src = make([]int32, n*k)
			for r := range n {
				copy(src[r*k:], vals[int32](r, k))
			}
		}
		got := make([]int32, k)
		require.NoError(t, compat.Scatter(c, src, k, compat.Int32, got, k, compat.Int32, root))
		require.Equal(t, vals[int32](me, k), got)
		var srcv []int32
		if me == root {
			srcv = make([]int32, total)
			for r := range n {
				copy(srcv[displs[r]:], vals[int32](r, counts[r]))
			}
		}
		gotv := make([]int32, counts[me])
		rbuf := gotv
		if me == root {
			rbuf = compat.InPlace[int32]()
		}
		require.NoError(t, compat.Scatterv(c, srcv, counts, displs, compat.Int32, rbuf, counts[me], compat.Int32, root))
		if me != root {
			require.Equal(t, vals[int32](me, counts[me]), gotv)
		}
	}

	// Allreduce: ops and types, InPlace, MaxLoc, a bitwise op on bytes.
	for _, op := range []compat.Op{compat.OpSum, compat.OpMax, compat.OpMin} {
		out := make([]int32, k)
		require.NoError(t, compat.Allreduce(c, vals[int32](me, k), out, k, compat.Int32, op))
		require.Equal(t, refReduce[int32](op, n, k), out)
		io := vals[float64](me, k)
		require.NoError(t, compat.Allreduce(c, compat.InPlace[float64](), io, k, compat.Float64, op))
		require.Equal(t, refReduce[float64](op, n, k), io)
	}
	bx := make([]uint8, k)
	require.NoError(t, compat.Allreduce(c, vals[uint8](me, k), bx, k, compat.Byte, compat.OpBxor))
	for i := range bx {
		var want uint8
		for r := range n {
			want ^= vals[uint8](r, k)[i]
		}
		require.Equal(t, want, bx[i])
	}
	loc := []compat.DoubleInt{{Val: float64(me % 3), Loc: int32(me)}, {Val: -float64(me), Loc: int32(me)}}
	lout := make([]compat.DoubleInt, 2)
	require.NoError(t, compat.Allreduce(c, loc, lout, 2, compat.DoubleIntT, compat.OpMaxloc))
	maxv, maxr := -1.0, 0
	for r := range n {
		if float64(r%3) > maxv {
			maxv, maxr = float64(r%3), r
		}
	}
	require.Equal(t, compat.DoubleInt{Val: maxv, Loc: int32(maxr)}, lout[0])
	require.Equal(t, compat.DoubleInt{Val: 0, Loc: 0}, lout[1])
	lor := []bool{me == n-1, false}
	require.NoError(t, compat.Allreduce(c, compat.InPlace[bool](), lor, 2, compat.Bool, compat.OpLor))
	require.Equal(t, []bool{true, false}, lor)

	// Allgather and Allgatherv (InPlace).
	ag := make([]int64, n*k)
	require.NoError(t, compat.Allgather(c, vals[int64](me, k), k, compat.Int64, ag, k, compat.Int64))
	for r := range n {
		require.Equal(t, vals[int64](r, k), ag[r*k:(r+1)*k])
	}
	counts, displs, total := vLayout(n)
	agv := make([]int32, total)
	for i := range agv {
		agv[i] = -1
	}
	copy(agv[displs[me]:], vals[int32](me, counts[me]))
	require.NoError(t, compat.Allgatherv(c, compat.InPlace[int32](), 0, compat.Int32, agv, counts, displs, compat.Int32))
	checkV(t, agv, counts, displs)

	// Alltoall: block j of rank i is 1000*i+j; and InPlace.
	a2a := make([]int32, n*3)
	for j := range n {
		for x := range 3 {
			a2a[j*3+x] = int32(1000*me + 10*j + x)
		}
	}
	out := make([]int32, n*3)
	require.NoError(t, compat.Alltoall(c, a2a, 3, compat.Int32, out, 3, compat.Int32))
	for j := range n {
		for x := range 3 {
			require.Equal(t, int32(1000*j+10*me+x), out[j*3+x])
		}
	}
	require.NoError(t, compat.Alltoall(c, compat.InPlace[int32](), 3, compat.Int32, a2a, 3, compat.Int32))
	require.Equal(t, out, a2a)

	// Alltoallv: rank i sends j+1 elements to rank j, laid out backwards.
	scounts, sdispls, rcounts, rdispls := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	stotal, rtotal := 0, 0
	for j := n - 1; j >= 0; j-- {
		scounts[j], sdispls[j] = j+1, stotal
		stotal += j + 1
	}
	for j := range n {
		rcounts[j], rdispls[j] = me+1, rtotal
		rtotal += me + 1
	}
	sv := make([]int64, stotal)
	for j := range n {
		for x := range j + 1 {
			sv[sdispls[j]+x] = int64(100*me + j + x)
		}
	}
	rv := make([]int64, rtotal)
	require.NoError(t, compat.Alltoallv(c, sv, scounts, sdispls, compat.Int64, rv, rcounts, rdispls, compat.Int64))
	for j := range n {
		for x := range me + 1 {
			require.Equal(t, int64(100*j+me+x), rv[rdispls[j]+x])
		}
	}

	// An empty region's displacement is not significant, however far past
	// the buffer's end it points (mpi4py sends such).
	far := make([]int, n)
	for j := range far {
		far[j] = 1000 + j
	}
	zero := make([]int, n)
	require.NoError(t, compat.Alltoallv(c, sv[:1], zero, far, compat.Int64, rv[:1], zero, far, compat.Int64))
	require.NoError(t, compat.Allgatherv(c, sv[:0], 0, compat.Int64, rv[:1], zero, far, compat.Int64))

	// ReduceScatterBlock (and InPlace), ReduceScatter, Scan, Exscan.
	full := refReduce[int32](compat.OpSum, n, n*k)
	rs := make([]int32, k)
	require.NoError(t, compat.ReduceScatterBlock(c, vals[int32](me, n*k), rs, k, compat.Int32, compat.OpSum))
	require.Equal(t, full[me*k:(me+1)*k], rs)
	ip := vals[int32](me, n*k)
	require.NoError(t, compat.ReduceScatterBlock(c, compat.InPlace[int32](), ip, k, compat.Int32, compat.OpSum))
	require.Equal(t, full[me*k:(me+1)*k], ip[:k])
	rcs, _, _ := vLayout(n)
	all := 0
	for _, x := range rcs {
		all += x
	}
	fullv := refReduce[int64](compat.OpMax, n, all)
	rsv := make([]int64, rcs[me])
	require.NoError(t, compat.ReduceScatter(c, vals[int64](me, all), rsv, rcs, compat.Int64, compat.OpMax))
	at := 0
	for r := range me {
		at += rcs[r]
	}
	require.Equal(t, fullv[at:at+rcs[me]], rsv)
	sc := make([]int64, k)
	require.NoError(t, compat.Scan(c, vals[int64](me, k), sc, k, compat.Int64, compat.OpSum))
	require.Equal(t, refReduce[int64](compat.OpSum, me+1, k), sc)
	ex := []int64{-99}
	require.NoError(t, compat.Exscan(c, []int64{int64(me + 1)}, ex, 1, compat.Int64, compat.OpSum))
	if me == 0 {
		require.Equal(t, int64(-99), ex[0])
	} else {
		require.Equal(t, int64(me*(me+1)/2), ex[0])
	}
}

// vLayout gives rank r r+2 elements, placed backwards with a gap of one
// after each.
func vLayout(n int) (counts, displs []int, total int) {
	counts, displs = make([]int, n), make([]int, n)
	for r := n - 1; r >= 0; r-- {
		counts[r], displs[r] = r+2, total
		total += r + 3
	}
	return
}

func checkV(t *petest.T, got []int32, counts, displs []int) {
	for r := range counts {
		require.Equal(t, vals[int32](r, counts[r]), got[displs[r]:displs[r]+counts[r]], "rank %d's part", r)
		require.Equal(t, int32(-1), got[displs[r]+counts[r]], "gap after rank %d", r)
	}
}

// TestReductionRulesAgree: MAX and MIN of floats holding NaN and signed
// zeros give one answer whichever way they run: Allreduce on the team
// (shmem's reduction), Scan over point-to-point (its last rank reduces
// every rank) and ReduceLocal, the rules windows' accumulate follows too.
// Until they were one engine, compat's own rule let no NaN in from the
// input, so a code's answer depended on the path its reduction took.
func TestReductionRulesAgree(t *testing.T) {
	nan, negz := math.NaN(), math.Copysign(0, -1)
	all4 := [][]float64{{1, negz, 0, 5, negz}, {nan, 0, negz, 2, negz}, {3, negz, negz, nan, 0}, {negz, 7, 0, negz, nan}}
	same := func(t *petest.T, want, got []float64, what string) {
		for i := range want {
			if math.IsNaN(want[i]) {
				require.True(t, math.IsNaN(got[i]), "%s [%d]: %v", what, i, got)
				continue
			}
			require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%s [%d]: %v, want %v", what, i, got, want)
		}
	}
	for _, np := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("%dranks", np), func(t *testing.T) {
			rows := all4[:np]
			run(t, np, func(t *petest.T, e *compat.Env, c *compat.Comm) {
				n := len(rows[0])
				for _, op := range []compat.Op{compat.OpMax, compat.OpMin} {
					ref := append([]float64(nil), rows[0]...)
					for _, r := range rows[1:] {
						require.NoError(t, compat.ReduceLocal(r, ref, n, compat.Float64, op))
					}
					all := make([]float64, n)
					require.NoError(t, compat.Allreduce(c, rows[c.Rank()], all, n, compat.Float64, op))
					same(t, ref, all, op.String()+" Allreduce")
					scan := make([]float64, n)
					require.NoError(t, compat.Scan(c, rows[c.Rank()], scan, n, compat.Float64, op))
					if c.Rank() == c.Size()-1 {
						same(t, ref, scan, op.String()+" Scan")
					}
				}
			})
		})
	}
}

// TestAllreduceCountMismatch: members that disagree on an Allreduce's count
// (an erroneous program) all get ClassArg from the team's entry check,
// none waits for the others, and the communicator works after.
func TestAllreduceCountMismatch(t *testing.T) {
	for _, np := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("%dranks", np), func(t *testing.T) {
			run(t, np, func(t *petest.T, e *compat.Env, c *compat.Comm) {
				count := 3
				if c.Rank() == np-1 {
					count = 2
				}
				in, out := []int64{1, 2, 3}, make([]int64, 3)
				err := compat.Allreduce(c, in, out, count, compat.Int64, compat.OpSum)
				require.Error(t, err)
				require.Equal(t, compat.ClassArg, compat.ClassOf(err), "%v", err)
				// In MPI's terms, not the symmetric heap's.
				require.Contains(t, err.Error(), "the ranks did not all call the same collective with matching arguments")
				require.NotContains(t, err.Error(), "Reduce[")
				require.ErrorIs(t, err, shmem.ErrSizeMismatch)
				require.NoError(t, compat.Allreduce(c, in, out, 3, compat.Int64, compat.OpSum))
				require.Equal(t, []int64{int64(np), int64(2 * np), int64(3 * np)}, out)
			})
		})
	}
}
