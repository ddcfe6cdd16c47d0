package shmem_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// TestTeamRelease: Release is local, and a loop of splits and releases
// keeps a bounded number of slots, whatever order the members release in.
func TestTeamRelease(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 4, Modes: []string{"inproc", "procs", "tcp"}}, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		world := w.TeamWorld()
		require.ErrorIs(t, world.Release(), shmem.ErrInvalid)

		// Members release in opposite orders, and PE 0 releases before
		// the others have finished using the team: nobody waits.
		a, err := world.SplitStrided(0, 1, n)
		require.NoError(t, err)
		b, err := world.SplitStrided(0, 1, n)
		require.NoError(t, err)
		teamSum(t, w, a, []int{0, 1, 2, 3})
		if me%2 == 0 {
			require.NoError(t, a.Release())
			require.NoError(t, b.Release())
		} else {
			require.NoError(t, b.Release())
			require.NoError(t, a.Release())
		}
		require.ErrorIs(t, a.Sync(), shmem.ErrInvalid, "a released handle is dead")
		assert.Equal(t, -1, a.MyPE())

		// A team of the others while PE 0 holds on to one of its own.
		solo, err := world.SplitStrided(0, 1, 1)
		require.NoError(t, err)
		rest, err := world.SplitStrided(1, 1, n-1)
		require.NoError(t, err)
		if me == 0 {
			require.NoError(t, solo.Sync())
		} else {
			for range 10 {
				require.NoError(t, rest.Barrier())
			}
			require.NoError(t, rest.Release())
		}
		require.NoError(t, world.Sync())
		if me == 0 {
			require.NoError(t, solo.Release())
		}

		// Many cycles: at most the last two teams wait for members'
		// releases (the one before was released by every member before
		// it entered the last split's barrier).
		cycles := 2000
		if testing.Short() {
			cycles = 300
		}
		for i := range cycles {
			tm, err := world.SplitStrided(0, 1, n)
			require.NoError(t, err)
			require.NoError(t, tm.Sync())
			if (i+me)%3 == 0 {
				runtime.Gosched() // members leave the team at different times
			}
			require.NoError(t, tm.Release())
			require.LessOrEqual(t, w.ReleasedTeams(), 2, "cycle %d", i)
		}

		// Every slot comes back: the whole pool can be taken again, and a
		// recycled slot's barrier and reduction work from a clean state.
		require.NoError(t, world.Sync())
		var teams []*shmem.Team
		for range shmem.TeamSlots(w) - 2 {
			tm, err := world.SplitStrided(0, 1, n)
			require.NoError(t, err)
			teams = append(teams, tm)
		}
		for _, tm := range teams {
			teamSum(t, w, tm, []int{0, 1, 2, 3})
			require.NoError(t, tm.Release())
		}
		require.NoError(t, world.Sync())
		again, err := world.SplitStrided(0, 1, n)
		require.NoError(t, err)
		teamSum(t, w, again, []int{0, 1, 2, 3})
		require.NoError(t, again.Destroy())
	})
}
