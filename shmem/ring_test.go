package shmem_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// TestRingOversubscribed passes a token 10,000 times around 8 PEs, more PEs
// than this machine has cores: waits must sleep rather than spin the CPU
// away, and wake promptly when the token arrives.
func TestRingOversubscribed(t *testing.T) {
	petest.Run(t, 8, func(t *petest.T, w *shmem.World) {
		const passes = 10_000
		n := uint64(w.NPEs())
		tok, err := shmem.Calloc[uint64](w, 1)
		require.NoError(t, err)
		sig, err := shmem.Calloc[uint64](w, 1)
		require.NoError(t, err)
		start := time.Now()
		// Pass p (1-based) goes from PE (p-1)%n to PE p%n with the value p.
		for p := uint64(1); p <= passes; p++ {
			from := (p - 1) % n
			if from == uint64(w.MyPE()) {
				if p > 1 {
					_, err := shmem.SignalWaitUntil(sig, shmem.CmpEQ, p-1)
					require.NoError(t, err)
					require.Equal(t, p-1, tok.Local()[0])
				}
				require.NoError(t, shmem.PutSignal(tok, []uint64{p}, sig, p, shmem.SignalSet, right(w)))
			}
		}
		if uint64(w.MyPE()) == passes%n {
			_, err := shmem.SignalWaitUntil(sig, shmem.CmpEQ, passes)
			require.NoError(t, err)
			require.Equal(t, uint64(passes), tok.Local()[0])
		}
		t.Logf("%d passes in %v", passes, time.Since(start))
	})
}
