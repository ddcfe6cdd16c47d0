package compat_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// A partitioned send of 8 partitions filled and marked ready by 4
// goroutines, received as 4 partitions of twice the size (MPI-4.1 allows
// different partitioning of one total), over two rounds; misuse fails
// with its class.
func TestPartitioned(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		const parts, per = 8, 4
		buf := make([]int32, parts*per)
		if c.Rank() == 0 {
			p, err := compat.PsendInit(c, buf, parts, per, compat.Int32, 1, 7)
			require.NoError(t, err)
			require.ErrorIs(t, p.Pready(0), compat.ErrRequest, "inactive")
			for round := range 2 {
				require.NoError(t, p.Start())
				var wg sync.WaitGroup
				for g := range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for _, i := range []int{g, g + 4} {
							for k := range per {
								buf[i*per+k] = int32(1000*round + 10*i + k)
							}
							if err := p.Pready(i); err != nil {
								t.Errorf("Pready(%d): %v", i, err)
							}
						}
					}()
				}
				wg.Wait()
				require.ErrorIs(t, p.Pready(3), compat.ErrArg, "twice")
				_, err := p.Wait()
				require.NoError(t, err)
			}
			_, err = compat.PsendInit(c, buf, 0, per, compat.Int32, 1, 7)
			require.ErrorIs(t, err, compat.ErrCount)
			return
		}
		_, err := compat.PrecvInit(c, buf, parts, per, compat.Int32, compat.AnySource, 7)
		require.Error(t, err, "no wildcard source")
		p, err := compat.PrecvInit(c, buf, 4, 2*per, compat.Int32, 0, 7)
		require.NoError(t, err)
		for round := range 2 {
			require.NoError(t, p.Start())
			for {
				ok, err := p.Parrived(3)
				require.NoError(t, err)
				if ok {
					break
				}
			}
			st, err := p.Wait()
			require.NoError(t, err)
			require.Equal(t, 7, st.Tag)
			for i := range parts {
				for k := range per {
					require.Equal(t, int32(1000*round+10*i+k), buf[i*per+k])
				}
			}
		}
	})
}
