package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
)

const testHeap = 4 << 20

// connectAll runs Connect for n in-process PEs; nodes[pe] is its GSHMEM_NODE_ID.
func connectAll(t testing.TB, nodes []string, heap uint64, timeout time.Duration) ([]*Job, *bootstrap.Group, []*logtest.Hook) {
	t.Helper()
	n := len(nodes)
	g := bootstrap.NewGroup(n)
	jobs := make([]*Job, n)
	hooks := make([]*logtest.Hook, n)
	errs := make([]error, n)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for pe := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, hook := logtest.NewNullLogger()
			l.SetLevel(logrus.DebugLevel)
			hooks[pe] = hook
			jobs[pe], errs[pe] = Connect(ctx, Config{
				Rank: pe, Size: n, HeapSize: heap, Allgather: g.PE(pe).Allgather,
				NodeID: nodes[pe], TCPAddr: "127.0.0.1", PeerTimeout: timeout, Log: l,
			})
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, j := range jobs {
			wg.Add(1)
			go func() { defer wg.Done(); _ = j.Transport.Close() }()
		}
		wg.Wait()
	})
	return jobs, g, hooks
}

func TestConnectMixedShmAndTCP(t *testing.T) {
	jobs, g, _ := connectAll(t, []string{"a", "a", "b", "b", "c"}, testHeap, 5*time.Second)
	n := len(jobs)
	assert.Equal(t, []int{0, 0, 1, 1, 2}, jobs[0].Node)
	assert.Equal(t, []string{"self", "shm", "tcp", "tcp", "tcp"}, jobs[0].Kind)
	assert.Equal(t, []string{"tcp", "tcp", "shm", "self", "tcp"}, jobs[3].Kind)
	assert.Equal(t, [2]int{1, 2}, [2]int{jobs[3].LocalRank, jobs[3].LocalSize})
	assert.NotNil(t, jobs[0].Transport.Mapped(1))
	assert.Nil(t, jobs[0].Transport.Mapped(2))

	ctx := context.Background()
	const base = 64 << 10
	var wg sync.WaitGroup
	for me := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := jobs[me].Transport
			// Every PE writes a 100 kB block into every PE's heap (slot me).
			blk := bytes.Repeat([]byte{byte(me + 1)}, 100_000)
			for pe := range n {
				assert.NoError(t, tr.PutNBI(pe, uint64(base+me*100_000), blk))
			}
			// Everyone adds to the counter on PE 4 (tcp for most) and PE 0.
			for range 50 {
				_, err := tr.Atomic(4, 0x100, 8, OpAdd, 1, 0)
				assert.NoError(t, err)
				_, err = tr.Atomic(0, 0x108, 4, OpAdd, 2, 0)
				assert.NoError(t, err)
			}
			assert.NoError(t, tr.Quiet())
			assert.NoError(t, g.PE(me).Barrier(ctx))
			for pe := range n {
				got := make([]byte, 100_000)
				for src := range n {
					assert.NoError(t, tr.GetNBI(pe, uint64(base+src*100_000), got))
					assert.NoError(t, tr.Quiet())
					assert.Equal(t, bytes.Repeat([]byte{byte(src + 1)}, 100_000), got, "PE %d reading PE %d's block on PE %d", me, src, pe)
				}
			}
			v, err := tr.Atomic(4, 0x100, 8, OpLoad, 0, 0)
			assert.NoError(t, err)
			assert.Equal(t, uint64(50*n), v)
			v, err = tr.Atomic(0, 0x108, 4, OpLoad, 0, 0)
			assert.NoError(t, err)
			assert.Equal(t, uint64(100*n), v)
			assert.NoError(t, g.PE(me).Barrier(ctx))
			// Compare-and-swap: exactly one PE wins on each target.
			for pe := range n {
				old, err := tr.Atomic(pe, 0x200, 8, OpCompareAndSwap, uint64(me+1), 0)
				assert.NoError(t, err)
				_ = old
			}
			assert.NoError(t, g.PE(me).Barrier(ctx))
			for pe := range n {
				v, err := tr.Atomic(pe, 0x200, 8, OpLoad, 0, 0)
				assert.NoError(t, err)
				assert.NotZero(t, v)
			}
			for _, op := range []AtomicOp{OpSwap, OpAnd, OpOr, OpXor, OpStore} {
				_, err := tr.Atomic((me+2)%n, 0x300+uint64(me)*8, 8, op, 0xf0, 0)
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
}

func TestLargeTransfersAreChunked(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 2 x 65 MiB")
	}
	jobs, _, _ := connectAll(t, []string{"%r0", "%r1"}, 80<<20, 5*time.Second)
	size := maxChunk + 4096
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i * 7)
	}
	tr := jobs[0].Transport
	require.NoError(t, tr.Put(1, 4096, src))
	require.NoError(t, tr.Quiet())
	assert.True(t, bytes.Equal(src, jobs[1].Heap[4096:4096+size]))
	dst := make([]byte, size)
	require.NoError(t, jobs[1].Transport.Get(0, 0, dst[:4096]))
	require.NoError(t, tr.Get(1, 4096, dst))
	assert.True(t, bytes.Equal(src, dst))
}

func waitLost(t *testing.T, m *Multi) error {
	t.Helper()
	var err error
	require.Eventually(t, func() bool { err = m.Lost(); return err != nil }, 5*time.Second, 10*time.Millisecond)
	return err
}

// die ends a PE's transport the way a killed process would: connections
// close without a goodbye.
func die(m *Multi) {
	m.h.closing.Store(true)
	if m.tcp != nil {
		m.tcp.shutdown()
	}
	m.srv.stop()
	for _, l := range m.linked() {
		_ = l.c.Close()
	}
}

func TestPeerLostReachesEveryPE(t *testing.T) {
	// PE 3 dies. PE 2 shares its node; PEs 0 and 1 are another node and
	// PE 1 never talked to PE 3 except through setup.
	jobs, _, _ := connectAll(t, []string{"a", "a", "b", "b"}, testHeap, 5*time.Second)
	start := time.Now()
	die(jobs[3].Transport)
	for pe := range 3 {
		err := waitLost(t, jobs[pe].Transport)
		assert.ErrorIs(t, err, ErrPeerLost)
		assert.Contains(t, err.Error(), "PE 3")
	}
	assert.Less(t, time.Since(start), 3*time.Second)
	_, err := jobs[0].Transport.Atomic(3, 0, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, ErrPeerLost)
	assert.ErrorIs(t, jobs[0].Transport.Put(3, 0, []byte{1}), ErrPeerLost)
}

func TestPendingRequestsFailWhenThePeerDies(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"%r0", "%r1"}, testHeap, 5*time.Second)
	tr := jobs[0].Transport
	// Keep gets in flight while PE 1 dies.
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
	die(jobs[1].Transport)
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrPeerLost)
	case <-time.After(5 * time.Second):
		t.Fatal("a get to a dead peer did not fail")
	}
}

func TestHeartbeatDetectsASilentPeer(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"%r0", "%r1"}, testHeap, 400*time.Millisecond)
	// Freeze PE 1: it stops reading (its progress goroutines never see
	// another frame), as a hung host would. Its kernel keeps the socket
	// open, so only the missed heartbeats tell.
	frozen := jobs[1].Transport.tcp
	for _, in := range frozen.inConns() {
		in.wmu.Lock() // replies (pongs) can no longer be sent
	}
	close(frozen.stop) // no more heartbeats from PE 1
	// A frozen host does not notice its own silence either: keep PE 1's
	// readers from timing out (and closing their sockets, which PE 0 would
	// see as a plain disconnect) until PE 0 has made up its mind.
	thawed := make(chan struct{})
	go func() {
		for {
			for _, o := range frozen.outConns() {
				_ = o.c.SetReadDeadline(time.Now().Add(time.Hour))
			}
			select {
			case <-thawed:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	err := waitLost(t, jobs[0].Transport)
	close(thawed)
	assert.ErrorIs(t, err, ErrPeerLost)
	assert.Contains(t, err.Error(), "stopped answering")
	assert.Less(t, time.Since(start), 3*time.Second)
	for _, in := range frozen.inConns() {
		in.wmu.Unlock()
	}
}

func TestTCPRefusesConnectionsWithoutTheSecret(t *testing.T) {
	fastRefusals(t)
	jobs, _, hooks := connectAll(t, []string{"%r0", "%r1"}, testHeap, 5*time.Second)
	addr := jobs[0].TCPAddr[0]
	require.NotEmpty(t, addr)

	try := func(hello []byte) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, _ = c.Write(hello)
		_ = c.SetReadDeadline(time.Now().Add(6 * time.Second))
		buf := make([]byte, 256)
		var all []byte
		for {
			k, err := c.Read(buf)
			all = append(all, buf[:k]...)
			if err != nil {
				break
			}
		}
		// The server answers the challenge (nonce + its MAC), then closes
		// without the status byte: never a welcome.
		assert.LessOrEqual(t, len(all), 64)
	}
	// A well-formed hello followed by a wrong proof.
	h := make([]byte, helloLen)
	copy(h, tcpMagic)
	h[4] = tcpVersion
	h[8] = 1
	try(append(h, bytes.Repeat([]byte{7}, 32)...))
	// Garbage.
	try([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 64)))

	var msgs []string
	require.Eventually(t, func() bool {
		msgs = nil
		for _, e := range hooks[0].AllEntries() {
			msgs = append(msgs, e.Message)
		}
		return len(msgs) >= 2
	}, 10*time.Second, 20*time.Millisecond)
	assert.Contains(t, msgs[0], "refused a connection")
	assert.Contains(t, msgs[0], "wrong job secret")
	assert.Contains(t, msgs[1], "refused 1 more connection(s)")
	assert.Contains(t, msgs[1], "not a gshmem tcp hello")
	// The job still works.
	require.NoError(t, jobs[1].Transport.Put(0, 0x100, []byte("still fine")))
	require.NoError(t, jobs[1].Transport.Quiet())
	assert.Equal(t, "still fine", string(jobs[0].Heap[0x100:0x10a]))
	assert.Nil(t, jobs[0].Transport.Lost())
}

func TestMismatchedSecretsFailSetup(t *testing.T) {
	g := bootstrap.NewGroup(2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for pe := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, _ := logtest.NewNullLogger()
			j, err := Connect(ctx, Config{Rank: pe, Size: 2, HeapSize: testHeap, Allgather: g.PE(pe).Allgather,
				NodeID: fmt.Sprint(pe), TCPAddr: "127.0.0.1", Secret: []byte(fmt.Sprint("s", pe)), Log: l})
			errs[pe] = err
			if err == nil {
				j.Transport.Close()
			}
		}()
	}
	wg.Wait()
	// Both fail; the PE that checks the other's answer first names the
	// secret, and may leave before the other has dialed it (which then
	// finds its listener gone).
	require.Error(t, errs[0])
	require.Error(t, errs[1])
	assert.True(t, strings.Contains(errs[0].Error(), "job secret") || strings.Contains(errs[1].Error(), "job secret"), "%v; %v", errs[0], errs[1])
}

func TestCleanCloseIsNotALoss(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"a", "a", "b"}, testHeap, 5*time.Second)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() { defer wg.Done(); assert.NoError(t, j.Transport.Close()) }()
	}
	wg.Wait()
	for _, j := range jobs {
		assert.Nil(t, j.Transport.h.first.Load())
	}
}

func TestNodeIDCannotJoinWhatCannotShare(t *testing.T) {
	// Two PEs claim one node but publish unreachable sockets: simulate by
	// a node id shared with a PE whose heap server refuses (wrong token).
	rec := locality{token: make([]byte, 16), secret: make([]byte, 32), nodeID: "n", host: "h", sock: "@no-such-socket"}
	got, err := decodeLocality(rec.encode())
	require.NoError(t, err)
	assert.Equal(t, rec.sock, got.sock)
	_, err = decodeLocality([]byte{1, 2})
	assert.Error(t, err)
}

// Setup that takes longer than the peer timeout (a slow PE) is not a loss:
// PEs 0 and 1 connect to each other at once, then wait for PE 2, whose
// connections start 2 s (well past the timeout) later.
func TestSlowSetupIsNotALoss(t *testing.T) {
	const n = 3
	g := bootstrap.NewGroup(n)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	jobs := make([]*Job, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for pe := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, _ := logtest.NewNullLogger()
			gather := g.PE(pe).Allgather
			if pe == 2 {
				calls := 0
				gather = func(ctx context.Context, d []byte) ([][]byte, error) {
					calls++
					r, err := g.PE(pe).Allgather(ctx, d)
					if calls == 3 { // the tcp addresses: PE 2 dawdles before serving
						time.Sleep(2 * time.Second)
					}
					return r, err
				}
			}
			jobs[pe], errs[pe] = Connect(ctx, Config{Rank: pe, Size: n, HeapSize: testHeap, Allgather: gather,
				NodeID: fmt.Sprint(pe), TCPAddr: "127.0.0.1", PeerTimeout: 800 * time.Millisecond, Log: l})
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	for _, j := range jobs {
		assert.Nil(t, j.Transport.h.first.Load())
	}
	var cw sync.WaitGroup
	for _, j := range jobs {
		cw.Add(1)
		go func() { defer cw.Done(); _ = j.Transport.Close() }()
	}
	cw.Wait()
}

// Round-robin placement (Hydra -hosts a,b): node numbers follow first PEs.
func TestRoundRobinNodes(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"x", "y", "x", "y"}, testHeap, 5*time.Second)
	assert.Equal(t, []int{0, 1, 0, 1}, jobs[3].Node)
	assert.Equal(t, 2, jobs[3].Nodes())
	assert.Equal(t, []string{"tcp", "shm", "tcp", "self"}, jobs[3].Kind)
	assert.Equal(t, [2]int{1, 2}, [2]int{jobs[3].LocalRank, jobs[3].LocalSize})
}
