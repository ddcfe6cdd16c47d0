package transport

import (
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Connect maps no peer; the first operation on a node-local peer maps it,
// once, however many goroutines make it at once; a remote peer is never
// mapped.
func TestPeersAreMappedOnFirstTouch(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"a", "a", "a", "a", "b"}, testHeap, 5*time.Second)
	for pe, j := range jobs {
		assert.Zero(t, j.Transport.MappedPeers(), "PE %d after Connect", pe)
	}
	assert.Equal(t, []string{"self", "shm", "shm", "shm", "tcp"}, jobs[0].Kind)
	m := jobs[1].Transport
	const goroutines = 32
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for _, pe := range []int{0, 2, 3, 4} {
				switch g % 4 {
				case 0:
					_, err := m.Atomic(pe, 0x100, 8, OpAdd, 1, 0)
					assert.NoError(t, err)
				case 1:
					_, err := m.Atomic(pe, 0x100, 8, OpAdd|OpRuntime, 1, 0)
					assert.NoError(t, err)
				case 2:
					var b [8]byte
					assert.NoError(t, m.Get(pe, 0x100, b[:]))
					_, err := m.Atomic(pe, 0x100, 8, OpAdd, 1, 0)
					assert.NoError(t, err)
				case 3:
					if h := m.Mapped(pe); h != nil {
						_, err := atomicOn(h, 0x100, 8, OpAdd, 1, 0)
						assert.NoError(t, err)
					} else {
						assert.Equal(t, 4, pe, "only the remote peer is unmapped")
						_, err := m.Atomic(pe, 0x100, 8, OpAdd, 1, 0)
						assert.NoError(t, err)
					}
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, m.Quiet())
	assert.Equal(t, 3, m.MappedPeers(), "PEs 0, 2 and 3, once each")
	for _, pe := range []int{0, 2, 3, 4} {
		assert.Equal(t, uint64(goroutines), binary.LittleEndian.Uint64(jobs[pe].Heap[0x100:]), "PE %d", pe)
		assert.Zero(t, jobs[pe].Transport.MappedPeers(), "PE %d was touched, and touched nothing", pe)
	}
	assert.Nil(t, m.Mapped(4))
	assert.NotNil(t, m.Mapped(1), "this PE's own heap")
}

// A first touch of a node-local peer that is gone (its heap server
// stopped, its links still open: a peer that exited but whose loss has
// not reached this PE) fails with ErrPeerLost and makes it lost.
func TestFirstTouchOfADeadPeerIsALoss(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"a", "a", "a"}, testHeap, 5*time.Second)
	jobs[2].Transport.srv.stop()
	m := jobs[1].Transport
	assert.ErrorIs(t, m.Put(2, 4096, []byte{1}), ErrPeerLost)
	assert.ErrorIs(t, m.PeerErr(2), ErrPeerLost)
	assert.Contains(t, m.PeerErr(2).Error(), "node-local heap socket")
	assert.Nil(t, m.Mapped(2))
	_, err := m.Atomic(2, 4096, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, ErrPeerLost)
	assert.ErrorIs(t, m.Get(2, 4096, make([]byte, 8)), ErrPeerLost)
	assert.Zero(t, m.MappedPeers())
	// PE 0 learns of it from PE 1's report.
	require.Eventually(t, func() bool { return jobs[0].Transport.PeerErr(2) != nil }, 20*time.Second, time.Millisecond)
}

// A peer whose kernel still queues connections but that never answers (a
// stopped process) fails a first touch within the peer timeout: no hang.
func TestFirstTouchOfAStoppedPeerEnds(t *testing.T) {
	const timeout = 300 * time.Millisecond
	jobs, _, _ := connectAll(t, []string{"a", "a", "a"}, testHeap, timeout)
	name := "@gshmem-test-silent-" + time.Now().Format("150405.000000000")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	require.NoError(t, err)
	defer ln.Close()
	m := jobs[1].Transport
	m.addr[2].sock = name // PE 2's server, as a stopped PE's looks: accepted, never answered
	start := time.Now()
	_, err = m.Atomic(2, 4096, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, ErrPeerLost)
	t.Logf("failed after %v (peer timeout %v)", time.Since(start), timeout)
}
