package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

func TestCommsAndGroups(t *testing.T) {
	run(t, 6, func(t *petest.T, e *compat.Env, w *compat.Comm) {
		me := w.Rank()
		require.Equal(t, 6, w.Size())
		require.Equal(t, me, w.World().MyPE())
		require.Equal(t, 1, e.CommSelf().Size())
		require.Equal(t, 0, e.CommSelf().Rank())

		// Split into thirds by rank%3, ordered by descending rank; rank 5 opts out.
		color := me % 3
		if me == 5 {
			color = compat.Undefined
		}
		s, err := w.Split(color, -me)
		require.NoError(t, err)
		if me == 5 {
			require.Nil(t, s)
		} else {
			members := []int{}
			for r := 5; r >= 0; r-- {
				if r%3 == me%3 && r != 5 {
					members = append(members, r)
				}
			}
			g, err := s.Group()
			require.NoError(t, err)
			require.Equal(t, members, g.WorldRanks())
			require.Equal(t, len(members), s.Size())
			require.Equal(t, g.Rank(), s.Rank())
			// A message around the sub-communicator names sub-communicator ranks.
			n := s.Size()
			if n > 1 {
				got := []int32{-1}
				st, err := compat.Sendrecv(s, []int32{int32(me)}, 1, compat.Int32, (s.Rank()+1)%n, 0,
					got, 1, compat.Int32, compat.AnySource, 0)
				require.NoError(t, err)
				require.Equal(t, (s.Rank()+n-1)%n, st.Source)
				require.Equal(t, int32(s.WorldRank(st.Source)), got[0])
			}
			cmp, err := s.Compare(w)
			require.NoError(t, err)
			require.Equal(t, compat.Unequal, cmp)
		}

		// Dup: congruent, separate traffic.
		d, err := w.Dup()
		require.NoError(t, err)
		cmp, err := d.Compare(w)
		require.NoError(t, err)
		require.Equal(t, compat.Congruent, cmp)
		cmp, _ = w.Compare(w)
		require.Equal(t, compat.Ident, cmp)

		// Groups.
		g, err := w.Group()
		require.NoError(t, err)
		evens, err := g.Incl([]int{4, 2, 0})
		require.NoError(t, err)
		require.Equal(t, []int{4, 2, 0}, evens.WorldRanks())
		odds, err := g.Excl([]int{0, 2, 4})
		require.NoError(t, err)
		require.Equal(t, []int{1, 3, 5}, odds.WorldRanks())
		tr, err := compat.TranslateRanks(evens, []int{0, 1, 2, compat.ProcNull}, g)
		require.NoError(t, err)
		require.Equal(t, []int{4, 2, 0, compat.ProcNull}, tr)
		tr, err = compat.TranslateRanks(g, []int{0, 1}, odds)
		require.NoError(t, err)
		require.Equal(t, []int{compat.Undefined, 0}, tr)
		u, err := evens.Union(odds)
		require.NoError(t, err)
		require.Equal(t, []int{4, 2, 0, 1, 3, 5}, u.WorldRanks())
		cmp, _ = u.Compare(g)
		require.Equal(t, compat.Similar, cmp)
		in, err := u.Intersection(odds)
		require.NoError(t, err)
		require.Equal(t, []int{1, 3, 5}, in.WorldRanks())
		df, err := g.Difference(evens)
		require.NoError(t, err)
		cmp, _ = df.Compare(odds)
		require.Equal(t, compat.Ident, cmp)
		if me%2 == 0 {
			require.Equal(t, 2-me/2, evens.Rank())
		} else {
			require.Equal(t, compat.Undefined, evens.Rank())
		}

		// Create over the even group: evens get a communicator, odds nil.
		ce, err := d.Create(evens)
		require.NoError(t, err)
		if me%2 == 1 {
			require.Nil(t, ce)
		} else {
			require.Equal(t, 3, ce.Size())
			out := []int64{0}
			require.NoError(t, compat.Allreduce(ce, []int64{int64(me)}, out, 1, compat.Int64, compat.OpSum))
			require.Equal(t, int64(6), out[0])
			require.NoError(t, ce.Free())
		}
		// Contexts stay apart: the same tag on d and w.
		if me == 0 {
			require.NoError(t, compat.Send(d, []int32{1}, 1, compat.Int32, 1, 0))
			require.NoError(t, compat.Send(w, []int32{2}, 1, compat.Int32, 1, 0))
		} else if me == 1 {
			v := []int32{0}
			_, err := compat.Recv(w, v, 1, compat.Int32, 0, 0)
			require.NoError(t, err)
			require.Equal(t, int32(2), v[0])
			_, err = compat.Recv(d, v, 1, compat.Int32, 0, 0)
			require.NoError(t, err)
			require.Equal(t, int32(1), v[0])
		}
		require.NoError(t, d.Free())
		if s != nil {
			require.NoError(t, s.Free())
		}
	})
}
