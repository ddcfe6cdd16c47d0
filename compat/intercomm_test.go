package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// halves splits w's 5 ranks into {0,1} and {2,3,4} joined by an
// intercommunicator (leaders: local rank 0, world ranks 0 and 2).
func halves(t *petest.T, w *compat.Comm) (*compat.Comm, *compat.Comm, bool) {
	me := w.Rank()
	left := me < 2
	color, rleader := 1, 0
	if left {
		color, rleader = 0, 2
	}
	local, err := w.Split(color, me)
	require.NoError(t, err)
	ic, err := local.IntercommCreate(0, w, rleader, 7)
	require.NoError(t, err)
	return ic, local, left
}

func TestIntercomm(t *testing.T) {
	run(t, 5, func(t *petest.T, e *compat.Env, w *compat.Comm) {
		me := w.Rank()
		ic, local, left := halves(t, w)
		require.True(t, ic.IsInter())
		require.False(t, w.IsInter())
		nl, nr := 2, 3
		if !left {
			nl, nr = 3, 2
		}
		require.Equal(t, nl, ic.Size())
		require.Equal(t, nr, ic.RemoteSize())
		rg, err := ic.RemoteGroup()
		require.NoError(t, err)
		if left {
			require.Equal(t, []int{2, 3, 4}, rg.WorldRanks())
		} else {
			require.Equal(t, []int{0, 1}, rg.WorldRanks())
		}
		_, err = w.RemoteGroup()
		require.ErrorIs(t, err, compat.ErrComm)

		// Point-to-point names the remote group; AnySource reports remote ranks.
		if ic.Rank() == 0 {
			require.NoError(t, compat.Send(ic, []int32{int32(me)}, 1, compat.Int32, nr-1, 3))
		}
		if ic.Rank() == nl-1 {
			got := []int32{-1}
			st, err := compat.Recv(ic, got, 1, compat.Int32, compat.AnySource, 3)
			require.NoError(t, err)
			require.Equal(t, 0, st.Source)
			require.Equal(t, int32(rg.WorldRank(0)), got[0])
		}

		// Rooted collectives: the left group's rank 1 is the root.
		root := func() int {
			switch {
			case !left:
				return 1
			case ic.Rank() == 1:
				return compat.Root
			}
			return compat.ProcNull
		}()
		b := []int64{0, 0}
		if root == compat.Root {
			b = []int64{11, 12}
		}
		require.NoError(t, compat.Bcast(ic, b, 2, compat.Int64, root))
		if left && root != compat.Root {
			require.Equal(t, []int64{0, 0}, b)
		} else {
			require.Equal(t, []int64{11, 12}, b)
		}
		red := []int64{-1}
		require.NoError(t, compat.Reduce(ic, []int64{int64(me)}, red, 1, compat.Int64, compat.OpSum, root))
		if root == compat.Root {
			require.Equal(t, int64(2+3+4), red[0])
		}
		g := make([]int64, 3)
		require.NoError(t, compat.Gather(ic, []int64{int64(me)}, 1, compat.Int64, g, 1, compat.Int64, root))
		if root == compat.Root {
			require.Equal(t, []int64{2, 3, 4}, g)
		}
		sc := []int64{-1}
		require.NoError(t, compat.Scatter(ic, []int64{20, 30, 40}, 1, compat.Int64, sc, 1, compat.Int64, root))
		if !left {
			require.Equal(t, int64(20+10*ic.Rank()), sc[0])
		}

		// All-to-all ones: each group gets the other's.
		ar := []int64{0}
		require.NoError(t, compat.Allreduce(ic, []int64{int64(me)}, ar, 1, compat.Int64, compat.OpSum))
		if left {
			require.Equal(t, int64(9), ar[0])
		} else {
			require.Equal(t, int64(1), ar[0])
		}
		ag := make([]int64, nr)
		require.NoError(t, compat.Allgather(ic, []int64{int64(me)}, 1, compat.Int64, ag, 1, compat.Int64))
		require.Equal(t, int64(rg.WorldRank(0)), ag[0])
		require.Equal(t, int64(rg.WorldRank(nr-1)), ag[nr-1])
		out, in := make([]int64, nr), make([]int64, nr)
		for j := range out {
			out[j] = int64(100*me + j)
		}
		require.NoError(t, compat.Alltoall(ic, out, 1, compat.Int64, in, 1, compat.Int64))
		for j := range in {
			require.Equal(t, int64(100*rg.WorldRank(j)+ic.Rank()), in[j])
		}
		// ReduceScatterBlock: vectors of 6 (2*3 and 3*2) summed by the other group.
		rcount := 6 / nl
		vec := make([]int64, 6)
		for i := range vec {
			vec[i] = int64(i + 1)
		}
		rs := make([]int64, rcount)
		require.NoError(t, compat.ReduceScatterBlock(ic, vec, rs, rcount, compat.Int64, compat.OpSum))
		for i := range rs {
			require.Equal(t, int64(nr*(ic.Rank()*rcount+i+1)), rs[i])
		}
		require.NoError(t, ic.Barrier())
		require.ErrorIs(t, compat.Scan(ic, []int64{1}, []int64{0}, 1, compat.Int64, compat.OpSum), compat.ErrComm)
		require.ErrorIs(t, compat.Allreduce(ic, compat.InPlace[int64](), ar, 1, compat.Int64, compat.OpSum), compat.ErrBuffer)

		// Dup, Split, Create and Compare.
		d, err := ic.Dup()
		require.NoError(t, err)
		r, err := ic.Compare(d)
		require.NoError(t, err)
		require.Equal(t, compat.Congruent, r)
		r, err = ic.Compare(w)
		require.NoError(t, err)
		require.Equal(t, compat.Unequal, r)
		s, err := d.Split(ic.Rank()%2, -ic.Rank())
		require.NoError(t, err)
		require.True(t, s.IsInter())
		if ic.Rank()%2 == 0 {
			require.Equal(t, map[bool]int{true: 2, false: 1}[left], s.RemoteSize())
		} else {
			require.Equal(t, 1, s.RemoteSize())
		}
		lg, err := ic.Group()
		require.NoError(t, err)
		sub, err := lg.Incl([]int{0})
		require.NoError(t, err)
		cr, err := ic.Create(sub)
		require.NoError(t, err)
		if ic.Rank() == 0 {
			require.Equal(t, 1, cr.RemoteSize())
			require.NoError(t, cr.Free())
		} else {
			require.Nil(t, cr)
		}

		// Merge: the right group asks to go first.
		m, err := d.Merge(left)
		require.NoError(t, err)
		require.False(t, m.IsInter())
		require.Equal(t, 5, m.Size())
		mg, _ := m.Group()
		require.Equal(t, []int{2, 3, 4, 0, 1}, mg.WorldRanks())
		sum := []int64{0}
		require.NoError(t, compat.Allreduce(m, []int64{int64(me)}, sum, 1, compat.Int64, compat.OpSum))
		require.Equal(t, int64(10), sum[0])
		_, err = m.Merge(false)
		require.ErrorIs(t, err, compat.ErrComm)
		require.NoError(t, m.Free())
		require.NoError(t, s.Free())
		require.NoError(t, d.Free())
		require.NoError(t, ic.Free())
		require.NoError(t, local.Free())
	})
}

func TestCommCreateGroup(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, w *compat.Comm) {
		me := w.Rank()
		wg, err := w.Group()
		require.NoError(t, err)
		odd, err := wg.Incl([]int{1, 3})
		require.NoError(t, err)
		if me%2 == 1 {
			c, err := w.CreateGroup(odd, 5)
			require.NoError(t, err)
			require.Equal(t, 2, c.Size())
			sum := []int32{0}
			require.NoError(t, compat.Allreduce(c, []int32{int32(me)}, sum, 1, compat.Int32, compat.OpSum))
			require.Equal(t, int32(4), sum[0])
			require.NoError(t, c.Free())
		} else {
			// The others talk among themselves meanwhile.
			got := []int32{-1}
			_, err := compat.Sendrecv(w, []int32{int32(me)}, 1, compat.Int32, 2-me, 1, got, 1, compat.Int32, 2-me, 1)
			require.NoError(t, err)
			require.Equal(t, int32(2-me), got[0])
		}
		c, err := e.CommFromGroup(wg, "everyone")
		require.NoError(t, err)
		require.Equal(t, 4, c.Size())
		require.NoError(t, c.Barrier())
		evens, _ := wg.Incl([]int{0, 2})
		local, remote := evens, odd
		if me%2 == 1 {
			local, remote = odd, evens
		}
		ic, err := e.IntercommFromGroups(local, 1, remote, 1, "pairs")
		require.NoError(t, err)
		require.Equal(t, 2, ic.RemoteSize())
		sum := []int32{0}
		require.NoError(t, compat.Allreduce(ic, []int32{int32(me)}, sum, 1, compat.Int32, compat.OpSum))
		require.Equal(t, map[bool]int32{true: 2, false: 4}[me%2 == 1], sum[0])
		require.NoError(t, ic.Free())
		require.NoError(t, c.Free())
	})
}

// TestDupAsync runs DupAsync on a goroutine while the caller goes on with
// collectives on the same communicator, as MPI_Comm_idup allows.
func TestDupAsync(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, w *compat.Comm) {
		type result struct {
			c   *compat.Comm
			err error
		}
		done := make(chan result, 1)
		go func() {
			d, err := w.DupAsync()
			done <- result{d, err}
		}()
		sum := []int64{0}
		require.NoError(t, compat.Allreduce(w, []int64{int64(w.Rank())}, sum, 1, compat.Int64, compat.OpSum))
		require.Equal(t, int64(3), sum[0])
		r := <-done
		require.NoError(t, r.err)
		cmp, err := w.Compare(r.c)
		require.NoError(t, err)
		require.Equal(t, compat.Congruent, cmp)
		require.NoError(t, compat.Allreduce(r.c, []int64{1}, sum, 1, compat.Int64, compat.OpSum))
		require.Equal(t, int64(3), sum[0])
		require.NoError(t, r.c.Free())
	})
}
