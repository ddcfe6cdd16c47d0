//go:build ucx && cgo

package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// connectUCXAll runs Connect over ucx for n in-process PEs, each its own node.
func connectUCXAll(t *testing.T, nodes []string, timeout time.Duration) []*Job {
	t.Helper()
	ucxTestEnv(t)
	n := len(nodes)
	g := bootstrap.NewGroup(n)
	jobs := make([]*Job, n)
	errs := make([]error, n)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for pe := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, _ := logtest.NewNullLogger()
			l.SetLevel(logrus.DebugLevel)
			jobs[pe], errs[pe] = Connect(ctx, Config{
				Rank: pe, Size: n, HeapSize: testHeap, Allgather: g.PE(pe).Allgather,
				NodeID: nodes[pe], TCPAddr: "127.0.0.1", PeerTimeout: timeout, Log: l, Remote: RemoteUCX,
			})
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, j := range jobs {
			if j != nil {
				wg.Add(1)
				go func() { defer wg.Done(); _ = j.Transport.Close() }()
			}
		}
		wg.Wait()
	})
	return jobs
}

// ucxTestEnv keeps UCP on this host: tcp over loopback unless the caller
// chose other transports (UCX_TLS=sm, for one).
func ucxTestEnv(t *testing.T) {
	if os.Getenv("UCX_TLS") == "" {
		t.Setenv("UCX_TLS", "tcp")
	}
	if os.Getenv("UCX_NET_DEVICES") == "" && os.Getenv("UCX_TLS") == "tcp" {
		t.Setenv("UCX_NET_DEVICES", "lo")
	}
}

func ucxOf(t *testing.T, j *Job) *UCX {
	u, ok := j.Transport.rem.(*UCX)
	require.True(t, ok, "remote transport is %T", j.Transport.rem)
	return u
}

func TestUCXRMA(t *testing.T) {
	// PEs 0 and 1 share a node and keep load/store; PE 2 is reached over ucx.
	jobs := connectUCXAll(t, []string{"a", "a", "b"}, 5*time.Second)
	assert.Equal(t, []string{"self", "shm", "ucx"}, jobs[0].Kind)
	assert.Equal(t, []string{"ucx", "ucx", "self"}, jobs[2].Kind)
	assert.NotNil(t, jobs[0].Transport.Mapped(1))
	assert.Nil(t, jobs[0].Transport.Mapped(2))
	assert.Contains(t, jobs[0].Lanes[2], "tcp/")
	assert.Empty(t, jobs[0].Lanes[1])

	tr := jobs[0].Transport
	for _, size := range []int{1, 8, 4096, 100_000, 1 << 20} {
		src := make([]byte, size)
		_, _ = rand.Read(src)
		const off = 64 << 10
		require.NoError(t, tr.Put(2, off, src))
		require.NoError(t, tr.Quiet())
		require.True(t, bytes.Equal(src, jobs[2].Heap[off:off+size]), "put of %d bytes", size)
		dst := make([]byte, size)
		require.NoError(t, tr.Get(2, off, dst))
		require.True(t, bytes.Equal(src, dst), "get of %d bytes", size)
		// Non-blocking puts complete by Quiet.
		back := append([]byte(nil), src...)
		slices.Reverse(back)
		require.NoError(t, tr.PutNBI(2, off, back))
		require.NoError(t, tr.Quiet())
		require.True(t, bytes.Equal(back, jobs[2].Heap[off:off+size]), "non-blocking put of %d bytes", size)
		require.NoError(t, tr.Put(2, off, src))
		nbi := make([]byte, size)
		require.NoError(t, jobs[2].Transport.GetNBI(0, 0, make([]byte, 64)))
		require.NoError(t, tr.GetNBI(2, off, nbi))
		require.NoError(t, tr.Quiet())
		require.True(t, bytes.Equal(src, nbi), "non-blocking get of %d bytes", size)
		require.NoError(t, jobs[2].Transport.Quiet())
	}
	// Many non-blocking puts before one Quiet (the pending list is trimmed
	// of completed ones on the way).
	bufs := make([][]byte, 1000)
	for i := range bufs {
		bufs[i] = bytes.Repeat([]byte{byte(i)}, 64)
		require.NoError(t, tr.PutNBI(2, uint64(2<<20+64*i), bufs[i]))
	}
	require.NoError(t, tr.Quiet())
	for i := range bufs {
		require.Equal(t, bufs[i], jobs[2].Heap[2<<20+64*i:2<<20+64*i+64], "put %d", i)
	}
	// Empty transfers are no-ops; a PE with no ucx route is refused.
	require.NoError(t, tr.Put(2, 0, nil))
	_, err := ucxOf(t, jobs[0]).Atomic(1, 0, 8, OpAdd, 1, 0)
	assert.ErrorContains(t, err, "no ucx route")
}

// TestUCXAtomicsEveryOpAndWidth runs every operation at every width on a
// word with live neighbours and checks the result and the neighbours
// against atomicop applied to a local copy.
func TestUCXAtomicsEveryOpAndWidth(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 5*time.Second)
	u := ucxOf(t, jobs[0])
	heap := jobs[1].Heap
	const off = 8192
	r := mrand.New(mrand.NewPCG(1, 2))
	target := ucxOf(t, jobs[1])
	fast := func() uint64 {
		target.mu.Lock()
		defer target.mu.Unlock()
		return target.lib.fastAtomics()
	}
	before, inC := fast(), uint64(0)
	for _, width := range []int{1, 2, 4, 8} {
		for op := OpLoad; op <= OpXor; op++ {
			for _, rt := range []bool{false, true} {
				for at := 0; at < 8; at += width {
					init := r.Uint64()
					binary.LittleEndian.PutUint64(heap[off:], init)
					binary.LittleEndian.PutUint64(heap[off+8:], ^init)
					mask := uint64(1)<<(8*width) - 1
					if width == 8 {
						mask = ^uint64(0)
					}
					operand, compare := r.Uint64()&mask, r.Uint64()&mask
					if r.IntN(2) == 0 { // make half the compare-and-swaps succeed
						var cur [8]byte
						binary.LittleEndian.PutUint64(cur[:], init)
						compare = readLE(cur[at:], width)
					}
					want := make([]byte, 16)
					copy(want, heap[off:off+16])
					wantOld := atomicop.Apply(unsafe.Pointer(&want[at]), width, atomicop.Op(op), operand, compare)
					aop := op
					if rt {
						aop |= OpRuntime
					}
					old, err := u.Atomic(1, uint64(off+at), width, aop, operand, compare)
					require.NoError(t, err)
					require.Equal(t, wantOld, old, "%v width %d at +%d", atomicop.Op(op), width, at)
					require.Equal(t, want, heap[off:off+16], "%v width %d at +%d", atomicop.Op(op), width, at)
					if width >= 4 {
						inC++
					}
				}
			}
		}
	}
	// The 4- and 8-byte ones were answered by the target's AM callback
	// (gs_amo_fast), the others by its Go side.
	assert.Equal(t, inC, fast()-before)
	_, err := u.Atomic(1, off+1, 4, OpAdd, 1, 0)
	assert.Error(t, err, "misaligned")
	_, err = u.Atomic(1, off, 3, OpAdd, 1, 0)
	assert.Error(t, err, "width 3")
}

func readLE(b []byte, width int) uint64 {
	var v uint64
	for i := width - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// The wait policy's spin reaches the ucx transport (SetRemoteSpin), and
// operations complete whether its threads poll for long (a PE with its own
// CPU) or sleep at once (a crowded node).
func TestUCXSpinFromTheWaitPolicy(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b", "c"}, 5*time.Second)
	const off, iters = 32768, 200
	for _, spin := range []time.Duration{2 * time.Millisecond, 0} {
		for _, j := range jobs {
			j.Transport.SetRemoteSpin(spin)
			require.Equal(t, spin, ucxOf(t, j).spin())
		}
		start := binary.LittleEndian.Uint64(jobs[2].Heap[off:])
		var wg sync.WaitGroup
		for pe := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				src := bytes.Repeat([]byte{byte(pe + 1)}, 4096)
				dst := make([]byte, 4096)
				for i := range iters {
					_, err := jobs[pe].Transport.Atomic(2, off, 8, OpAdd, 1, 0)
					dOff := uint64(off + 4096*(pe+1))
					err = errors.Join(err, jobs[pe].Transport.Put(2, dOff, src))
					if i%16 == 0 {
						err = errors.Join(err, jobs[pe].Transport.Quiet(), jobs[pe].Transport.Get(2, dOff, dst))
						assert.Equal(t, src, dst, "spin %v, PE %d", spin, pe)
					}
					if !assert.NoError(t, err) {
						return
					}
				}
				assert.NoError(t, jobs[pe].Transport.Quiet())
			}()
		}
		wg.Wait()
		assert.Equal(t, start+2*iters, binary.LittleEndian.Uint64(jobs[2].Heap[off:]), "spin %v", spin)
	}
}

// TestUCXAtomicsAgainstLocalCPU: remote adds over ucx and the target's own
// CPU atomics on the same words lose no update, at every width.
func TestUCXAtomicsAgainstLocalCPU(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b", "c"}, 5*time.Second)
	const off, iters = 16384, 300
	var wg sync.WaitGroup
	for _, width := range []int{2, 4, 8} {
		for pe := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range iters {
					if pe == 2 {
						atomicop.Apply(unsafe.Pointer(&jobs[2].Heap[off+8*width]), width, atomicop.Add, 1, 0)
						continue
					}
					_, err := jobs[pe].Transport.rem.Atomic(2, uint64(off+8*width), width, OpAdd, 1, 0)
					assert.NoError(t, err)
				}
			}()
		}
	}
	wg.Wait()
	for _, width := range []int{2, 4, 8} {
		got := readLE(jobs[2].Heap[off+8*width:], width)
		assert.Equal(t, uint64(3*iters), got, "width %d", width)
	}
	// The 2-byte word's neighbours in its 4-byte word were never touched.
	assert.Equal(t, []byte{0, 0}, jobs[2].Heap[off+18:off+20])
}

// sleepUntil waits on bell with sleeps far longer than the test: it returns
// only because a write rang the bell.
func sleepUntil(t *testing.T, heap []byte, ctrl bool, cond func() bool) {
	t.Helper()
	w := doorbell.Waiter{MaxSleep: time.Hour}
	class := doorbell.User
	if ctrl {
		class = doorbell.Ctrl
	}
	done := make(chan error, 1)
	go func() {
		done <- w.Wait(doorbell.At(heap), class, func() (bool, error) { return cond(), nil }, func() error { return nil })
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter was not woken by the remote write")
	}
}

// TestUCXRemoteWritesWakeWaiters: a put wakes the target's waiters both
// ways: the target's progress rings after applying an emulated put (tcp),
// and the issuer's doorbell message after a flush (RMA lanes; forced here
// by treating the tcp peer as one, with the target's progress ring off).
func TestUCXRemoteWritesWakeWaiters(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 5*time.Second)
	heap := jobs[1].Heap
	word := func(off int) *uint64 { return (*uint64)(unsafe.Pointer(&heap[off])) }
	u := ucxOf(t, jobs[0])
	require.True(t, u.peers[1].swRMA, "UCP over tcp emulates RMA: %s", u.peers[1].lanes)
	for i := range 40 {
		if i == 20 {
			u.mu.Lock()
			u.peers[1].swRMA = false
			u.mu.Unlock()
			ucxOf(t, jobs[1]).noProgressRing.Store(true)
		}
		off := 4096 + 64*i
		// A put: the waiter is asleep before it lands.
		go func() {
			time.Sleep(5 * time.Millisecond)
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], uint64(i+1))
			assert.NoError(t, jobs[0].Transport.Put(1, uint64(off), b[:]))
		}()
		sleepUntil(t, heap, false, func() bool { return atomic.LoadUint64(word(off)) == uint64(i+1) })
		// A runtime atomic wakes runtime (control) waiters.
		go func() {
			time.Sleep(5 * time.Millisecond)
			_, err := jobs[0].Transport.Atomic(1, uint64(off+8), 8, OpAdd|OpRuntime, 7, 0)
			assert.NoError(t, err)
		}()
		sleepUntil(t, heap, true, func() bool { return atomic.LoadUint64(word(off+8)) == 7 })
		// A user atomic wakes user waiters.
		go func() {
			time.Sleep(5 * time.Millisecond)
			_, err := jobs[0].Transport.Atomic(1, uint64(off+16), 4, OpSwap, 9, 0)
			assert.NoError(t, err)
		}()
		sleepUntil(t, heap, false, func() bool { return atomic.LoadUint32((*uint32)(unsafe.Pointer(&heap[off+16]))) == 9 })
	}
}

// TestUCXFenceOrdersPutsBeforeSignals: data put, Fence, signal atomic: the
// target that sees the signal sees the data.
func TestUCXFenceOrdersPutsBeforeSignals(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 5*time.Second)
	tr, heap := jobs[0].Transport, jobs[1].Heap
	const data, sig, rounds = 1 << 20, 8192, 50
	sigw := (*uint64)(unsafe.Pointer(&heap[sig]))
	checked := make(chan error)
	go func() {
		for i := uint64(1); i <= rounds; i++ {
			for atomic.LoadUint64(sigw) < i {
				runtime.Gosched()
			}
			var err error
			for k, b := range heap[data : data+64<<10] {
				if b != byte(i) {
					err = fmt.Errorf("round %d: byte %d is %d after the signal", i, k, b)
					break
				}
			}
			checked <- err
		}
	}()
	blk := make([]byte, 64<<10)
	for i := uint64(1); i <= rounds; i++ {
		for k := range blk {
			blk[k] = byte(i)
		}
		require.NoError(t, tr.Put(1, data, blk))
		require.NoError(t, tr.Fence())
		_, err := tr.Atomic(1, sig, 8, OpStore, i, 0)
		require.NoError(t, err)
		// The next round's put waits until this one's data was checked.
		require.NoError(t, <-checked)
	}
	require.NoError(t, tr.Quiet())
}

// die ends a PE's ucx transport the way a killed process would: its
// endpoints close without a goodbye.
func dieUCX(m *Multi) {
	m.h.closing.Store(true)
	m.rem.shutdown()
}

func TestUCXPeerLost(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b", "c"}, 5*time.Second)
	dieUCX(jobs[2].Transport)
	for pe := range 2 {
		err := waitLost(t, jobs[pe].Transport)
		assert.ErrorIs(t, err, ErrPeerLost)
		assert.Contains(t, err.Error(), "PE 2")
	}
	_, err := jobs[0].Transport.Atomic(2, 0, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, ErrPeerLost)
	assert.ErrorIs(t, jobs[0].Transport.Put(2, 0, []byte{1}), ErrPeerLost)
	assert.ErrorIs(t, jobs[0].Transport.Get(2, 0, []byte{1}), ErrPeerLost)
	// The survivors still reach each other.
	require.NoError(t, jobs[0].Transport.Put(1, 0, []byte{1}))
}

func TestUCXPendingGetsFailWhenThePeerDies(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 5*time.Second)
	tr := jobs[0].Transport
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 1<<20)
		for {
			if err := tr.Get(1, 0, buf); err != nil {
				done <- err
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	dieUCX(jobs[1].Transport)
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrPeerLost)
	case <-time.After(10 * time.Second):
		t.Fatal("a get to a dead peer did not fail")
	}
}

func TestUCXHeartbeatDetectsASilentPeer(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 400*time.Millisecond)
	// Freeze PE 1: its progress and heartbeat goroutines stop, as in a
	// hung process; its sockets stay open, so only the silence tells.
	frozen := ucxOf(t, jobs[1])
	frozen.mu.Lock()
	t.Cleanup(frozen.mu.Unlock)
	err := waitLost(t, jobs[0].Transport)
	assert.ErrorIs(t, err, ErrPeerLost)
	assert.Contains(t, err.Error(), "stopped answering")
}

func TestUCXSealedRecords(t *testing.T) {
	rec := ucxRecord{addr: []byte("worker"), rkey: []byte("key"), base: 0x1000, size: 1 << 20}
	b := rec.seal([]byte("secret"), 3)
	got, err := openRecord([]byte("secret"), 3, b)
	require.NoError(t, err)
	assert.Equal(t, rec, got)
	_, err = openRecord([]byte("other"), 3, b)
	assert.ErrorContains(t, err, "MAC")
	_, err = openRecord([]byte("secret"), 2, b)
	assert.ErrorContains(t, err, "MAC", "a record replayed as another PE's")
	b[10] ^= 1
	_, err = openRecord([]byte("secret"), 3, b)
	assert.ErrorContains(t, err, "MAC")
	_, err = openRecord([]byte("secret"), 3, nil)
	assert.ErrorContains(t, err, "0 bytes")
}

func TestSummarizeLanes(t *testing.T) {
	info := `#
#                 lane[0]:  0:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] am am_bw#0 keepalive wireup
#                 lane[1]:  3:rc_mlx5/mlx5_0:1.0 md[2]      -> md[2]/ib/sysdev[255] rma_bw#0 amo#0
#`
	assert.Equal(t, "tcp/lo.0 (am am_bw keepalive wireup); rc_mlx5/mlx5_0:1.0 (rma_bw amo)", summarizeLanes(info))
	assert.Equal(t, "", summarizeLanes("garbage"))
}

// TestUCXAccumulate: the accumulates every remote transport supports,
// executed by the target.
func TestUCXAccumulate(t *testing.T) {
	checkAccumulate(t, connectUCXAll(t, []string{"a", "b", "c"}, 5*time.Second))
}

// TestUCXAccumulateAtomicWithOtherPaths: sums from a remote accumulate, a
// remote atomic and the target's own CPU atomics on the same elements lose
// no update; fetched old values are each a value the element held.
func TestUCXAccumulateAtomicWithOtherPaths(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b", "c"}, 5*time.Second)
	const base, n, rounds = 128 << 10, 64, 100
	heap := jobs[0].Heap
	ones := make([]int64, n)
	for i := range ones {
		ones[i] = 1
	}
	src := unsafe.Slice((*byte)(unsafe.Pointer(&ones[0])), 8*n)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // PE 1: accumulates, every other one fetching
		defer wg.Done()
		for r := range rounds {
			a := &Acc{Off: base, Type: tInt64, Op: opSum, Count: n, Src: src, Locks: NoLocks}
			if r%2 == 1 {
				a.Res = make([]byte, 8*n)
			}
			assert.NoError(t, jobs[1].Transport.Accumulate(0, a))
			if a.Res != nil {
				for i, v := range i64s(a.Res) {
					if v < 0 || v >= 3*rounds {
						assert.Fail(t, "a fetched value no element held", "element %d: %d", i, v)
						return
					}
				}
			}
		}
		assert.NoError(t, jobs[1].Transport.Quiet())
	}()
	go func() { // PE 2: remote atomics on every element
		defer wg.Done()
		for range rounds {
			for i := range n {
				_, err := jobs[2].Transport.Atomic(0, uint64(base+8*i), 8, OpAdd, 1, 0)
				if !assert.NoError(t, err) {
					return
				}
			}
		}
	}()
	go func() { // PE 0: its own CPU atomics
		defer wg.Done()
		for range rounds {
			for i := range n {
				atomicop.Apply(unsafe.Pointer(&heap[base+8*i]), 8, atomicop.Add, 1, 0)
			}
			runtime.Gosched()
		}
	}()
	wg.Wait()
	for i, v := range i64s(heap[base : base+8*n]) {
		require.Equal(t, int64(3*rounds), v, "element %d", i)
	}
}

// TestUCXOperationsNeedTheJobToken: an operation message without the
// job's token is dropped, not applied.
func TestUCXOperationsNeedTheJobToken(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 5*time.Second)
	u := ucxOf(t, jobs[0])
	const off = 8192
	msg := make([]byte, opHdrSize)
	h := opHeader{kind: opAMO, from: 0, id: 1, token: u.token ^ 1, off: off, a: 5, op: uint8(OpAdd), width: 8}
	h.encode(msg)
	u.mu.Lock()
	require.NoError(t, u.lib.sendOp(u.peers[1].e, msg))
	u.mu.Unlock()
	// A real atomic after it: once it is answered, the forged one was seen.
	old, err := u.Atomic(1, off, 8, OpAdd, 1, 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(0), old, "the forged add was applied")
	assert.Equal(t, uint64(1), binary.LittleEndian.Uint64(jobs[1].Heap[off:]))
	// A request the target finds invalid is refused, not applied.
	_, err = u.Atomic(1, testHeap, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, errOpRejected)
}
