package compat_test

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// TestWildcards: rank 0 receives every other rank's messages with
// AnySource and AnyTag, and the Status names each sender, tag and size.
func TestWildcards(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		const per = 20
		me, n := c.Rank(), c.Size()
		if me != 0 {
			for k := range per {
				msg := []int32{int32(me), int32(k), int32(100*me + k)}
				require.NoError(t, compat.Send(c, msg[:1+k%3], 1+k%3, compat.Int32, 0, 100*me+k))
			}
			return
		}
		next := make([]int, n) // per sender, the next k expected: order per pair holds
		for range (n - 1) * per {
			buf := make([]int32, 3)
			st, err := compat.Recv(c, buf, 3, compat.Int32, compat.AnySource, compat.AnyTag)
			require.NoError(t, err)
			src, k := st.Source, next[st.Source]
			require.Equal(t, 100*src+k, st.Tag)
			require.Equal(t, 1+k%3, st.Count(compat.Int32))
			require.Equal(t, 4*(1+k%3), st.Bytes())
			require.Equal(t, int32(src), buf[0])
			next[src]++
		}
		// AnySource with a given tag, and a given source with AnyTag.
		for r := 1; r < n; r++ {
			assert.Equal(t, per, next[r])
		}
	})
}

// TestTagSelectivity: a receive for a later tag skips earlier messages,
// which stay queued and are received afterwards.
func TestTagSelectivity(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		if c.Rank() == 1 {
			for tag := range 5 {
				require.NoError(t, compat.Send(c, []int64{int64(tag)}, 1, compat.Int64, 0, tag))
			}
			big := make([]int64, 50000)
			big[0] = 99
			require.NoError(t, compat.Send(c, big, len(big), compat.Int64, 0, 9))
			return
		}
		buf := make([]int64, 50000)
		st, err := compat.Recv(c, buf, len(buf), compat.Int64, 1, 9) // large one first
		require.NoError(t, err)
		require.Equal(t, int64(99), buf[0])
		require.Equal(t, 50000, st.Count(compat.Int64))
		for _, tag := range []int{4, 0, 3, 1, 2} {
			st, err := compat.Recv(c, buf, 1, compat.Int64, compat.AnySource, tag)
			require.NoError(t, err)
			require.Equal(t, int64(tag), buf[0])
			require.Equal(t, 1, st.Source)
		}
	})
}

// TestOrdering: messages from one sender on one communicator and tag are
// received in the order sent, across the eager/rendezvous boundary and
// with AnySource; on a Dup'ed communicator they never match the original's
// receives.
func TestOrdering(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		dup, err := c.Dup()
		require.NoError(t, err)
		lim := e.EagerLimit()
		sizes := []int{8, lim, lim + 8, 8, 3 * lim, 0, 64, 200000, 16}
		const rounds = 30
		me := c.Rank()
		if me > 0 {
			// The Dup'ed communicator's messages go first, with the same tag.
			for k := range rounds {
				require.NoError(t, compat.Send(dup, []int64{int64(-k)}, 1, compat.Int64, 0, 5))
			}
			var reqs []*compat.Request
			for k := range rounds * len(sizes) {
				size := max(sizes[k%len(sizes)], 8)
				b := fill(size, me*100000+k)
				binary.LittleEndian.PutUint64(b, uint64(k))
				r, err := compat.Isend(c, b, size, compat.Byte, 0, 5)
				require.NoError(t, err)
				reqs = append(reqs, r)
			}
			require.NoError(t, compat.Waitall(reqs, nil))
			require.NoError(t, dup.Free()) // collective
			return
		}
		next := map[int]int{}
		buf := make([]byte, 200000)
		for range 2 * rounds * len(sizes) {
			st, err := compat.Recv(c, buf, len(buf), compat.Byte, compat.AnySource, 5)
			require.NoError(t, err)
			k := next[st.Source]
			require.Equal(t, uint64(k), binary.LittleEndian.Uint64(buf), "from %d", st.Source)
			size := max(sizes[k%len(sizes)], 8)
			require.Equal(t, size, st.Bytes())
			want := fill(size, st.Source*100000+k)
			binary.LittleEndian.PutUint64(want, uint64(k))
			require.Equal(t, want, buf[:size])
			next[st.Source]++
		}
		for src := 1; src <= 2; src++ {
			for k := range rounds {
				v := []int64{1}
				_, err := compat.Recv(dup, v, 1, compat.Int64, src, 5)
				require.NoError(t, err)
				require.Equal(t, int64(-k), v[0])
			}
		}
		require.NoError(t, dup.Free())
	})
}

// TestManyIrecvs: 600 outstanding receives, posted before and after the
// messages arrive, in an order unlike the sends', with wildcards.
func TestManyIrecvs(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		const per = 200
		me, n := c.Rank(), c.Size()
		if me != 0 {
			require.NoError(t, c.Barrier())
			for k := range per {
				require.NoError(t, compat.Send(c, []int32{int32(me), int32(k)}, 2, compat.Int32, 0, k))
			}
			return
		}
		bufs := make([][]int32, (n-1)*per)
		reqs := make([]*compat.Request, len(bufs))
		// Half posted before any message exists: specific source, tags descending.
		for i := range len(bufs) / 2 {
			src, tag := 1+i%(n-1), per-1-i/(n-1)
			bufs[i] = make([]int32, 2)
			var err error
			reqs[i], err = compat.Irecv(c, bufs[i], 2, compat.Int32, src, tag)
			require.NoError(t, err)
		}
		require.NoError(t, c.Barrier())
		ok, err := compat.Testall(reqs[:1], nil)
		require.NoError(t, err)
		_ = ok
		// The rest: AnySource, AnyTag.
		for i := len(bufs) / 2; i < len(bufs); i++ {
			bufs[i] = make([]int32, 2)
			reqs[i], err = compat.Irecv(c, bufs[i], 2, compat.Int32, compat.AnySource, compat.AnyTag)
			require.NoError(t, err)
		}
		sts := make([]compat.Status, len(reqs))
		require.NoError(t, compat.Waitall(reqs, sts))
		seen := map[[2]int32]bool{}
		for i, st := range sts {
			require.Equal(t, int32(st.Source), bufs[i][0])
			require.Equal(t, int32(st.Tag), bufs[i][1])
			if i < len(bufs)/2 {
				require.Equal(t, 1+i%(n-1), st.Source)
				require.Equal(t, per-1-i/(n-1), st.Tag)
			}
			seen[[2]int32{bufs[i][0], bufs[i][1]}] = true
		}
		require.Len(t, seen, len(bufs))
	})
}

// TestLargeMessages: sizes across the eager limit and the staging chunk,
// from ordinary and AllocMem buffers, in place and across the
// communicator, including a truncated rendezvous.
func TestLargeMessages(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []compat.Option
		max  int
	}{{"direct", nil, 3<<20 + 17}, {"shmem-calls", []compat.Option{compat.WithNoDirect(), compat.WithStaging(96<<10, 32<<10)}, 1<<20 + 17}} {
		t.Run(mode.name, func(t *testing.T) {
			run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
				lim := e.EagerLimit()
				sizes := []int{lim - 1, lim, lim + 1, 100000, 1 << 20, mode.max}
				heapBuf, err := e.AllocMem(3<<20 + 64)
				require.NoError(t, err)
				defer func() { require.NoError(t, compat.FreeMem(e, heapBuf)) }()
				for i, size := range sizes {
					for _, fromHeap := range []bool{false, true} {
						seed := 10*i + map[bool]int{false: 0, true: 1}[fromHeap]
						if c.Rank() == 0 {
							src := fill(size, seed)
							if fromHeap {
								copy(heapBuf, src)
								src = heapBuf[:size]
							}
							require.NoError(t, compat.Send(c, src, size, compat.Byte, 1, i))
							continue
						}
						dst := make([]byte, size+5)
						st, err := compat.Recv(c, dst, size+5, compat.Byte, 0, i)
						require.NoError(t, err)
						require.Equal(t, size, st.Bytes())
						require.Equal(t, fill(size, seed), dst[:size], "size %d heap %v", size, fromHeap)
					}
				}
				// Truncation: a rendezvous and an eager message into short buffers.
				for k, size := range []int{1 << 20, 100} {
					if c.Rank() == 0 {
						require.NoError(t, compat.Send(c, fill(size, 7), size, compat.Byte, 1, 50+k))
						continue
					}
					dst := make([]byte, size/2)
					st, err := compat.Recv(c, dst, size/2, compat.Byte, 0, 50+k)
					require.ErrorIs(t, err, compat.ErrTruncate)
					require.Equal(t, size/2, st.Bytes())
					require.Equal(t, fill(size, 7)[:size/2], dst)
				}
			}, mode.opts...)
		})
	}
}

// TestProbe: Iprobe sees nothing before the send; Probe reports the size,
// which then sizes the buffer of the Recv.
func TestProbe(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		if c.Rank() == 1 {
			ok, _, err := c.Iprobe(0, compat.AnyTag)
			require.NoError(t, err)
			require.False(t, ok)
			require.NoError(t, c.Barrier())
			for _, n := range []int{3, 40000} {
				st, err := c.Probe(compat.AnySource, compat.AnyTag)
				require.NoError(t, err)
				require.Equal(t, 0, st.Source)
				buf := make([]float64, st.Count(compat.Float64))
				require.Len(t, buf, n)
				_, err = compat.Recv(c, buf, len(buf), compat.Float64, st.Source, st.Tag)
				require.NoError(t, err)
				require.Equal(t, float64(n), buf[n-1])
			}
			ok, st, err := c.Iprobe(compat.ProcNull, 0)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, compat.ProcNull, st.Source)
			return
		}
		require.NoError(t, c.Barrier())
		for _, n := range []int{3, 40000} {
			b := make([]float64, n)
			b[n-1] = float64(n)
			require.NoError(t, compat.Send(c, b, n, compat.Float64, 1, n))
		}
	})
}

// TestSsend: an Issend is not complete until the receiver matches it, even
// when it is small.
func TestSsend(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		if c.Rank() == 0 {
			r, err := compat.Issend(c, []int32{42}, 1, compat.Int32, 1, 0)
			require.NoError(t, err)
			done, _, err := r.Test()
			require.NoError(t, err)
			require.False(t, done, "Issend completed before the receive was posted")
			require.NoError(t, c.Barrier())
			_, err = r.Wait()
			require.NoError(t, err)
			require.NoError(t, compat.Ssend(c, []int32{43}, 1, compat.Int32, 1, 1))
			return
		}
		require.NoError(t, c.Barrier())
		v := []int32{0}
		_, err := compat.Recv(c, v, 1, compat.Int32, 0, 0)
		require.NoError(t, err)
		require.Equal(t, int32(42), v[0])
		_, err = compat.Recv(c, v, 1, compat.Int32, 0, 1)
		require.NoError(t, err)
		require.Equal(t, int32(43), v[0])
	})
}

// TestSendrecvAndSelf: a ring shift with Sendrecv and SendrecvReplace,
// ProcNull at the ends of a line, and messages to oneself.
func TestSendrecvAndSelf(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, n := c.Rank(), c.Size()
		right, left := (me+1)%n, (me+n-1)%n
		for _, size := range []int{1, 30000} {
			out, in := make([]int64, size), make([]int64, size)
			out[size-1] = int64(me)
			st, err := compat.Sendrecv(c, out, size, compat.Int64, right, 3, in, size, compat.Int64, left, 3)
			require.NoError(t, err)
			require.Equal(t, int64(left), in[size-1])
			require.Equal(t, left, st.Source)
			_, err = compat.SendrecvReplace(c, out, size, compat.Int64, left, 4, right, 4)
			require.NoError(t, err)
			require.Equal(t, int64(right), out[size-1])
		}
		// A line: the ends talk to ProcNull.
		up, down := me-1, me+1
		if up < 0 {
			up = compat.ProcNull
		}
		if down >= n {
			down = compat.ProcNull
		}
		got := []int32{-7}
		st, err := compat.Sendrecv(c, []int32{int32(me)}, 1, compat.Int32, down, 0, got, 1, compat.Int32, up, 0)
		require.NoError(t, err)
		if up == compat.ProcNull {
			require.Equal(t, int32(-7), got[0])
			require.Equal(t, compat.ProcNull, st.Source)
			require.Equal(t, 0, st.Bytes())
		} else {
			require.Equal(t, int32(up), got[0])
		}
		require.NoError(t, compat.Send(c, []int32{1}, 1, compat.Int32, compat.ProcNull, 0))
		// To oneself: eager and rendezvous, nonblocking on both sides.
		for _, size := range []int{5, 100000} {
			b := fill(size, me)
			r, err := compat.Irecv(c, make([]byte, size), size, compat.Byte, me, 9)
			require.NoError(t, err)
			s, err := compat.Isend(c, b, size, compat.Byte, me, 9)
			require.NoError(t, err)
			idx, st, err := compat.Waitany([]*compat.Request{nil, r})
			require.NoError(t, err)
			require.Equal(t, 1, idx)
			require.Equal(t, size, st.Bytes())
			_, err = s.Wait()
			require.NoError(t, err)
		}
	})
}

// TestDerivedTypes: a column of a row-major matrix (a vector type) goes
// into a contiguous buffer and back into a column elsewhere, eager and
// rendezvous.
func TestDerivedTypes(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		for _, rows := range []int{10, 3000} {
			const cols = 7
			col := compat.Vector(rows, 1, cols, compat.Float64)
			require.NoError(t, col.Commit())
			require.Equal(t, rows*8, col.Size())
			m := make([]float64, rows*cols)
			if c.Rank() == 0 {
				for i := range rows {
					m[i*cols+2] = float64(i)
				}
				require.NoError(t, compat.Send(c, m[2:], 1, col, 1, 0))
				back := make([]float64, rows*cols)
				_, err := compat.Recv(c, back[5:], 1, col, 1, 1)
				require.NoError(t, err)
				for i := range rows {
					require.Equal(t, float64(2*i), back[i*cols+5])
					require.Equal(t, 0.0, back[i*cols+4])
				}
			} else {
				flat := make([]float64, rows)
				st, err := compat.Recv(c, flat, rows, compat.Float64, 0, 0)
				require.NoError(t, err)
				require.Equal(t, 1, st.Count(col))
				for i := range rows {
					require.Equal(t, float64(i), flat[i])
					flat[i] *= 2
				}
				require.NoError(t, compat.Send(c, flat, rows, compat.Float64, 0, 1))
			}
			require.NoError(t, col.Free())
		}
	})
}

// TestFloodUnexpected: far more eager messages than a ring holds, sent
// before the receiver posts anything; the sender blocks on credit until
// the receiver drains, and nothing is lost or reordered.
func TestFloodUnexpected(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		const count = 3000
		if c.Rank() == 0 {
			var reqs []*compat.Request
			for k := range count {
				r, err := compat.Isend(c, []int32{int32(k), 0, 0, 0, 0, 0, 0, 0}, 8, compat.Int32, 1, 0)
				require.NoError(t, err)
				reqs = append(reqs, r)
			}
			require.NoError(t, compat.Waitall(reqs, nil))
			return
		}
		buf := make([]int32, 8)
		for k := range count {
			if k%500 == 0 {
				ok, _, err := c.Iprobe(0, 0)
				require.NoError(t, err)
				_ = ok
			}
			_, err := compat.Recv(c, buf, 8, compat.Int32, 0, 0)
			require.NoError(t, err)
			require.Equal(t, int32(k), buf[0], fmt.Sprint("message ", k))
		}
	}, compat.WithRingSize(4096))
}

// TestProgressInCollectives: legal programs in which a rank enters a
// collective while a peer still needs it to make point-to-point progress
// (a posted receive a rendezvous matches, a staged send to pump, a queued
// reply behind a full ring). Collectives on shmem teams must not starve
// them.
func TestProgressInCollectives(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []compat.Option
	}{{"direct", []compat.Option{compat.WithRingSize(4096)}},
		{"shmem-calls", []compat.Option{compat.WithRingSize(4096), compat.WithNoDirect(), compat.WithStaging(32<<10, 8<<10)}}} {
		t.Run(mode.name, func(t *testing.T) {
			run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
				const big = 300000
				me := c.Rank()
				// A posted receive matched during the other's barrier, and a staged send.
				if me == 0 {
					r, err := compat.Isend(c, fill(big, 1), big, compat.Byte, 1, 0)
					require.NoError(t, err)
					require.NoError(t, c.Barrier())
					_, err = r.Wait()
					require.NoError(t, err)
				} else {
					buf := make([]byte, big)
					r, err := compat.Irecv(c, buf, big, compat.Byte, 0, 0)
					require.NoError(t, err)
					require.NoError(t, c.Barrier())
					_, err = r.Wait()
					require.NoError(t, err)
					require.Equal(t, fill(big, 1), buf)
				}
				// Rank 1 fills its ring to rank 0, then takes a rendezvous from it
				// (its reply queues behind the full ring) and enters Allreduce;
				// rank 0's Send needs that reply before its own Allreduce.
				const many = 400
				out := []int64{0}
				if me == 1 {
					var reqs []*compat.Request
					for k := range many {
						r, err := compat.Isend(c, []int64{int64(k), 1, 2, 3, 4, 5, 6, 7}, 8, compat.Int64, 0, 1)
						require.NoError(t, err)
						reqs = append(reqs, r)
					}
					buf := make([]byte, big)
					_, err := compat.Recv(c, buf, big, compat.Byte, 0, 2)
					require.NoError(t, err)
					require.NoError(t, compat.Allreduce(c, []int64{1}, out, 1, compat.Int64, compat.OpSum))
					require.NoError(t, compat.Waitall(reqs, nil))
				} else {
					require.NoError(t, compat.Send(c, fill(big, 2), big, compat.Byte, 1, 2))
					require.NoError(t, compat.Allreduce(c, []int64{1}, out, 1, compat.Int64, compat.OpSum))
					v := make([]int64, 8)
					for k := range many {
						_, err := compat.Recv(c, v, 8, compat.Int64, 1, 1)
						require.NoError(t, err)
						require.Equal(t, int64(k), v[0])
					}
				}
				require.Equal(t, int64(2), out[0])
			}, mode.opts...)
		})
	}
}

// TestOversubscribed: 8 ranks on however few cores (2 in CI) pass messages
// around a ring and reduce; waits must sleep rather than spin the CPU
// away, and wake promptly.
func TestOversubscribed(t *testing.T) {
	run(t, 8, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, n := c.Rank(), c.Size()
		v, got := []int64{int64(me)}, []int64{0}
		start := time.Now()
		const rounds = 2000
		for k := range rounds {
			_, err := compat.Sendrecv(c, v, 1, compat.Int64, (me+1)%n, 0, got, 1, compat.Int64, (me+n-1)%n, 0)
			require.NoError(t, err)
			v[0] = got[0]
			if k%100 == 99 {
				sum := []int64{0}
				require.NoError(t, compat.Allreduce(c, v, sum, 1, compat.Int64, compat.OpSum))
				require.Equal(t, int64(n*(n-1)/2), sum[0])
			}
		}
		require.Equal(t, int64((me-rounds%n+n)%n), v[0])
		if me == 0 {
			t.Logf("%d ring shifts on %d ranks in %v", rounds, n, time.Since(start))
		}
	})
}

// TestBlockingRecv: Recv reuses one request per Env, so a truncated
// receive must leave nothing behind for the next, and a Recv whose message
// another goroutine's progress delivers (Iprobe here) must still return.
func TestBlockingRecv(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		if c.Rank() == 1 {
			require.NoError(t, compat.Send(c, fill(16, 1), 16, compat.Byte, 0, 1))
			require.NoError(t, compat.Send(c, fill(8, 2), 8, compat.Byte, 0, 2))
			require.NoError(t, c.Barrier())
			time.Sleep(20 * time.Millisecond)
			require.NoError(t, compat.Send(c, fill(8, 3), 8, compat.Byte, 0, 3))
			return
		}
		buf := make([]byte, 8)
		st, err := compat.Recv(c, buf, 8, compat.Byte, 1, 1)
		require.ErrorIs(t, err, compat.ErrTruncate)
		require.Equal(t, 8, st.Bytes())
		require.Equal(t, fill(16, 1)[:8], buf)
		st, err = compat.Recv(c, buf, 8, compat.Byte, compat.AnySource, compat.AnyTag)
		require.NoError(t, err)
		require.Equal(t, 1, st.Source)
		require.Equal(t, 2, st.Tag)
		require.Equal(t, fill(8, 2), buf)

		require.NoError(t, c.Barrier())
		done := make(chan error, 1)
		got := make([]byte, 8)
		go func() {
			_, err := compat.Recv(c, got, 8, compat.Byte, 1, 3)
			done <- err
		}()
		for {
			select {
			case err := <-done:
				require.NoError(t, err)
				require.Equal(t, fill(8, 3), got)
				return
			default:
				_, _, err := c.Iprobe(1, 99)
				require.NoError(t, err)
			}
		}
	})
}
