package doorbell

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Brief sleeps double the extra polls up to the bound; long sleeps halve
// them; a nil Adapt adds nothing.
func TestAdaptGrowsAfterBriefSleepsAndShrinksAfterLongOnes(t *testing.T) {
	require.Zero(t, (*Adapt)(nil).Extra())
	a := &Adapt{Max: 1 << 16}
	a.slept(1<<10, time.Millisecond)
	require.Equal(t, 1<<12, a.Extra(), "the first brief sleep adds at least 4096 polls")
	a.slept(1<<10, time.Millisecond)
	require.Equal(t, 1<<13, a.Extra())
	for range 10 {
		a.slept(1<<10, time.Millisecond)
	}
	require.Equal(t, 1<<16-1<<10, a.Extra(), "base and extra stay within Max")
	a.slept(1<<10, time.Second)
	require.Equal(t, (1<<16-1<<10)/2, a.Extra())
	for range 20 {
		a.slept(1<<10, time.Second)
	}
	require.Zero(t, a.Extra())

	small := &Adapt{Max: 100}
	small.slept(1000, time.Millisecond)
	require.Zero(t, small.Extra(), "a Max below the base spin adds nothing")
}

// A wait with Adapt that had to sleep records it: the sleep ends when the
// writer rings, and however long that took, the extra polls move from
// zero only upwards (a brief sleep) or stay zero (a long one).
func TestWaitRecordsItsSleep(t *testing.T) {
	mem := make([]byte, 2*Size)
	b := At(mem)
	var flag atomic.Uint32
	a := &Adapt{Max: 1 << 20}
	w := Waiter{Spin: 0, YieldEvery: 1, MaxSleep: time.Second, Adapt: a}
	done := make(chan error, 1)
	go func() {
		done <- w.Wait(b, User, func() (bool, error) { return flag.Load() == 1, nil }, func() error { return nil })
	}()
	for atomic.LoadUint32(&b.user) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	flag.Store(1)
	b.Ring(false)
	require.NoError(t, <-done)
	// The waiter registered before sleeping and was rung: Extra is 4096
	// when the wake-up came within briefSleep, 0 when the machine was too
	// loaded for that; never anything else.
	require.Contains(t, []int{0, 1 << 12}, a.Extra())
}
