package shmem_test

import (
	"math/bits"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// A process PE maps a node-local peer's heap when it first touches it:
// none at Init, a barrier's partners after a barrier, and a peer that
// touches this PE maps nothing here. First touches of one peer from many
// goroutines at once, through every path (the transport's atomics, puts,
// gets, shmem_ptr and the store-and-wake handle), map it once and lose no
// update. Goroutine PEs share one address space: every peer is mapped
// from the start.
func TestPeersAreMappedOnFirstUse(t *testing.T) {
	petest.Run(t, 8, func(t *petest.T, w *shmem.World) {
		n, me := w.NPEs(), w.MyPE()
		lazy := w.BootstrapName() != "inproc"
		mapped := func() int { return shmem.MappedPeers(w) }
		if !lazy {
			assert.Equal(t, n-1, mapped())
		} else {
			require.Equal(t, 0, mapped(), "Init maps no peer")
		}
		ctr, err := shmem.Calloc[uint64](w, 3)
		require.NoError(t, err)
		ctr.Local()[2] = uint64(1000 + me)
		require.NoError(t, w.BarrierAll())
		base := mapped()
		if lazy {
			assert.LessOrEqual(t, base, bits.Len(uint(n-1)), "a barrier maps its log2 n partners, no more")
		}

		// PE 0 alone touches each peer in turn.
		if me == 0 {
			for pe := 1; pe < n; pe++ {
				was := mapped()
				require.NoError(t, shmem.Add(ctr.At(0), 1, pe))
				if lazy {
					assert.Contains(t, []int{was, was + 1}, mapped(), "one touch maps one peer at most")
				}
			}
			assert.Equal(t, n-1, mapped())
		}
		require.NoError(t, w.BarrierAll())
		if me != 0 {
			assert.Equal(t, uint64(1), ctr.Local()[0])
			if lazy {
				assert.Equal(t, base, mapped(), "being touched by PE 0 maps nothing here")
			}
		}

		// Every PE's goroutines first-touch every peer at once.
		const goroutines, rounds = 16, 40
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for r := range rounds {
					for i := 1; i < n; i++ {
						pe := (me + 1 + (i-1+g)%(n-1)) % n // every peer once a round
						switch (g + r + i) % 4 {
						case 0:
							assert.NoError(t, shmem.Add(ctr.At(1), 1, pe))
						case 1:
							_, err := shmem.FetchAdd(ctr.At(1), 1, pe)
							assert.NoError(t, err)
						case 2:
							p := shmem.Ptr(ctr, pe)
							m := w.Mapped(pe)
							if assert.NotNil(t, p, "shmem_ptr to PE %d", pe) && assert.True(t, m.Valid()) {
								m.AddUint64(&p[1], 1)
							}
						case 3:
							got := make([]uint64, 1)
							assert.NoError(t, shmem.Get(got, ctr.Slice(2, 3), pe))
							assert.Equal(t, uint64(1000+pe), got[0])
							assert.NoError(t, shmem.Add(ctr.At(1), 1, pe))
						}
					}
				}
			})
		}
		wg.Wait()
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, uint64(goroutines*rounds*(n-1)), ctr.Local()[1], "updates lost")
		assert.Equal(t, n-1, mapped(), "each peer mapped once")
	})
}
