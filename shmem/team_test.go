package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// teamSum checks, with a Reduce over t, that every member sees the same
// membership: the sum of the world PE numbers of t's members.
func teamSum(t *petest.T, w *shmem.World, tm *shmem.Team, members []int) {
	buf, err := shmem.Calloc[int64](w, 2) // world-collective: called by every PE
	require.NoError(t, err)
	if tm != nil {
		buf.Local()[0] = int64(w.MyPE())
		require.NoError(t, shmem.Reduce(tm, shmem.ReduceSum, buf.At(1), buf.At(0), 1))
		want := int64(0)
		for _, p := range members {
			want += int64(p)
		}
		assert.Equal(t, want, buf.Local()[1])
	}
	require.NoError(t, w.BarrierAll())
	require.NoError(t, shmem.Free(buf))
}

func TestTeamSplits(t *testing.T) {
	petest.Run(t, 7, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		world, shared := w.TeamWorld(), w.TeamShared()
		assert.Equal(t, me, world.MyPE())
		assert.Equal(t, n, world.NPEs())
		assert.Equal(t, n, shared.NPEs(), "every PE of this job is on one node")
		assert.Equal(t, me, shared.MyPE())
		assert.Equal(t, shmem.TeamConfig{}, world.Config())
		require.ErrorIs(t, world.Destroy(), shmem.ErrInvalid)
		require.ErrorIs(t, shared.Destroy(), shmem.ErrInvalid)

		// Strided, increasing: 1, 3, 5.
		s, err := world.SplitStrided(1, 2, 3)
		require.NoError(t, err)
		if me%2 == 1 && me < 6 {
			require.NotNil(t, s)
			assert.Equal(t, me/2, s.MyPE())
			assert.Equal(t, 3, s.NPEs())
			for i := range 3 {
				assert.Equal(t, 1+2*i, shmem.TranslatePE(s, i, world))
			}
		} else {
			assert.Nil(t, s)
			assert.Equal(t, -1, s.MyPE())
		}
		assert.Equal(t, -1, shmem.TranslatePE(world, 2, s))
		teamSum(t, w, s, []int{1, 3, 5})

		// Strided, decreasing: 5, 3, 1 (the same PEs, reversed).
		r, err := world.SplitStrided(5, -2, 3)
		require.NoError(t, err)
		if s != nil {
			require.NotNil(t, r)
			assert.Equal(t, 2-s.MyPE(), r.MyPE())
			assert.Equal(t, 0, shmem.TranslatePE(world, 5, r))
			assert.Equal(t, 0, shmem.TranslatePE(s, 2, r), "PE 5 is first in r")
		}
		teamSum(t, w, r, []int{5, 3, 1})

		// A team of one, with stride 0.
		one, err := world.SplitStrided(4, 0, 1)
		require.NoError(t, err)
		assert.Equal(t, me == 4, one != nil)
		teamSum(t, w, one, []int{4})

		// 2D: rows of 3 over 7 PEs: [0 1 2] [3 4 5] [6]; columns [0 3 6] [1 4] [2 5].
		x, y, err := world.Split2D(3)
		require.NoError(t, err)
		require.NotNil(t, x)
		require.NotNil(t, y)
		assert.Equal(t, me%3, x.MyPE())
		assert.Equal(t, me/3, y.MyPE())
		assert.Equal(t, map[bool]int{true: 1, false: 3}[me == 6], x.NPEs())
		assert.Equal(t, map[bool]int{true: 3, false: 2}[me%3 == 0], y.NPEs())
		assert.Equal(t, me, shmem.TranslatePE(x, x.MyPE(), world))
		assert.Equal(t, y.MyPE(), shmem.TranslatePE(x, x.MyPE(), y))
		var row, col []int
		for p := range n {
			if p/3 == me/3 {
				row = append(row, p)
			}
			if p%3 == me%3 {
				col = append(col, p)
			}
		}
		teamSum(t, w, x, row)
		teamSum(t, w, y, col)

		// An arbitrary list, then a split of it.
		l, err := world.SplitList([]int{4, 0, 6, 2})
		require.NoError(t, err)
		pos := map[int]int{4: 0, 0: 1, 6: 2, 2: 3}
		if i, ok := pos[me]; ok {
			require.NotNil(t, l)
			assert.Equal(t, i, l.MyPE())
			assert.Equal(t, 4, l.NPEs())
		} else {
			assert.Nil(t, l)
		}
		teamSum(t, w, l, []int{4, 0, 6, 2})
		var sub *shmem.Team
		if l != nil {
			sub, err = l.SplitStrided(1, 2, 2) // team PEs 1 and 3 of l: world 0 and 2
			require.NoError(t, err)
			assert.Equal(t, me == 0 || me == 2, sub != nil)
			if sub != nil {
				assert.Equal(t, me/2, sub.MyPE())
				assert.Equal(t, 3, shmem.TranslatePE(sub, 1, l))
			}
		}
		teamSum(t, w, sub, []int{0, 2})

		// Bad arguments fail on every PE, and no team is made.
		_, err = world.SplitStrided(0, 1, n+1)
		require.ErrorIs(t, err, shmem.ErrBadPE)
		_, err = world.SplitStrided(6, 1, 2)
		require.ErrorIs(t, err, shmem.ErrBadPE)
		_, err = world.SplitStrided(0, 0, 2)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = world.SplitStrided(0, 1, 0)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = world.SplitList([]int{1, 1})
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = world.SplitList([]int{0, n})
		require.ErrorIs(t, err, shmem.ErrBadPE)
		_, _, err = world.Split2D(0)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		// Arguments that differ between PEs.
		_, err = world.SplitStrided(me%2, 1, 2)
		require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		_, err = world.SplitList([]int{0, 1 + me%2})
		require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		// One PE passes bad arguments: it learns why, the others that they disagree.
		start := 0
		if me == 3 {
			start = -1
		}
		_, err = world.SplitStrided(start, 1, 2)
		if me == 3 {
			require.ErrorIs(t, err, shmem.ErrBadPE)
		} else {
			require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		}
		// Xrange beyond the team: one row.
		x2, y2, err := world.Split2D(100)
		require.NoError(t, err)
		assert.Equal(t, n, x2.NPEs())
		assert.Equal(t, 1, y2.NPEs())

		for _, tm := range []*shmem.Team{s, r, one, x, y, sub, l, x2, y2} {
			if tm != nil {
				require.NoError(t, tm.Destroy())
				assert.Equal(t, -1, tm.MyPE())
				require.ErrorIs(t, tm.Sync(), shmem.ErrInvalid)
				require.ErrorIs(t, tm.Destroy(), shmem.ErrInvalid)
				assert.Equal(t, -1, shmem.TranslatePE(tm, 0, world))
			}
		}
		var none *shmem.Team
		require.ErrorIs(t, none.Barrier(), shmem.ErrInvalid)
		_, err = none.SplitStrided(0, 1, 1)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		require.NoError(t, world.Barrier())
	})
}

func TestTeamLimit(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		world := w.TeamWorld()
		slots := shmem.TeamSlots(w)
		require.Equal(t, shmem.MaxTeams, slots, "a 32 MiB heap holds every slot")
		var teams []*shmem.Team
		for {
			tm, err := world.SplitStrided(0, 1, w.NPEs())
			if err != nil {
				require.ErrorIs(t, err, shmem.ErrTeamLimit)
				require.ErrorIs(t, err, shmem.ErrHeapExhausted)
				break
			}
			teams = append(teams, tm)
			require.LessOrEqual(t, len(teams), slots)
		}
		require.Len(t, teams, slots-2, "the world and shared teams hold two slots")
		_, _, err := world.Split2D(2)
		require.ErrorIs(t, err, shmem.ErrTeamLimit)

		// A recycled slot starts clean: its barrier and scratch work at once.
		require.NoError(t, teams[5].Destroy())
		again, err := world.SplitStrided(1, 1, 3)
		require.NoError(t, err)
		// PE 0 still has that slot free, so a team of PE 0 alone takes it too.
		solo, err := world.SplitStrided(0, 1, 1)
		require.NoError(t, err)
		assert.Equal(t, w.MyPE() == 0, solo != nil)
		_, err = world.SplitStrided(0, 1, 2)
		require.ErrorIs(t, err, shmem.ErrTeamLimit, "no slot is free on both PE 0 and PE 1")
		teamSum(t, w, solo, []int{0})
		if solo != nil {
			require.NoError(t, solo.Destroy())
		}
		teamSum(t, w, again, []int{1, 2, 3})
		teamSum(t, w, again, []int{1, 2, 3})
		require.NoError(t, teams[6].Destroy())
		// Disjoint teams share a slot: both pairs fit in the one free slot...
		a, err := world.SplitList([]int{0, 1})
		require.NoError(t, err)
		b, err := world.SplitList([]int{3, 2})
		require.NoError(t, err)
		// ...but a team across the pairs does not, and every PE learns it.
		_, err = world.SplitList([]int{1, 2})
		require.ErrorIs(t, err, shmem.ErrTeamLimit)
		pair := a
		if pair == nil {
			pair = b
		}
		for range 3 {
			require.NoError(t, pair.Barrier())
		}
		teamSum(t, w, a, []int{0, 1})
		teamSum(t, w, b, []int{3, 2})
		require.NoError(t, pair.Destroy())
		if again != nil {
			require.NoError(t, again.Destroy())
		}
		teams = append(teams[:5], teams[7:]...)
		for _, tm := range teams {
			require.NoError(t, tm.Destroy())
		}
		// Every slot is free again.
		teams = teams[:0]
		for range slots - 2 {
			tm, err := world.SplitStrided(0, 1, w.NPEs())
			require.NoError(t, err)
			teams = append(teams, tm)
		}
		for _, tm := range teams {
			require.NoError(t, tm.Destroy())
		}
		require.NoError(t, world.Sync())
	})
}
