package transport

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node-local peer whose heartbeat stops (SIGSTOP stops every goroutine
// of a process; here only its heartbeat is stopped) is lost after the peer
// timeout, although its link stays open and its heap mapped: operations
// on it then fail at once, and every wait sees Lost.
func TestStoppedHeartbeatIsALoss(t *testing.T) {
	const timeout = 200 * time.Millisecond
	jobs, _, _ := connectAll(t, []string{"a", "a", "a"}, testHeap, timeout)
	m := jobs[0].Transport
	require.NoError(t, m.Put(1, 4096, []byte{1, 2, 3}))
	require.NoError(t, m.Lost())
	start := time.Now()
	jobs[1].Transport.stopBeat()
	require.Eventually(t, func() bool { return m.Lost() != nil }, 20*time.Second, 10*time.Millisecond)
	t.Logf("lost after %v (peer timeout %v)", time.Since(start), timeout)
	assert.ErrorIs(t, m.Lost(), ErrPeerLost)
	assert.Regexp(t, `heartbeat|reported by PE 2`, m.Lost().Error())
	assert.ErrorIs(t, m.PeerErr(1), ErrPeerLost)
	assert.NoError(t, m.PeerErr(2))
	assert.ErrorIs(t, m.Put(1, 4096, []byte{1}), ErrPeerLost)
	_, err := m.Atomic(1, 4096, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, ErrPeerLost)
	assert.ErrorIs(t, m.Get(1, 4096, make([]byte, 8)), ErrPeerLost)
	assert.ErrorIs(t, m.Quiet(), ErrPeerLost)
	assert.NoError(t, m.Put(2, 4096, []byte{1}), "a live peer stays reachable")
	// PE 2 learns it too, by its own heartbeat watch or PE 0's report.
	require.Eventually(t, func() bool { return jobs[2].Transport.PeerErr(1) != nil }, 20*time.Second, 10*time.Millisecond)
}

// A peer that dies (its links close without a goodbye) is lost at once:
// puts and atomics into its heap, still mapped here, fail.
func TestDeadPeerFailsRMA(t *testing.T) {
	jobs, _, _ := connectAll(t, []string{"a", "a"}, testHeap, 5*time.Second)
	for _, l := range jobs[1].Transport.linked() {
		_ = l.c.(*net.UnixConn).Close()
	}
	m := jobs[0].Transport
	require.Eventually(t, func() bool { return m.PeerErr(1) != nil }, 20*time.Second, time.Millisecond)
	assert.ErrorIs(t, m.Put(1, 4096, []byte{1}), ErrPeerLost)
	_, err := m.Atomic(1, 4096, 8, OpAdd, 1, 0)
	assert.ErrorIs(t, err, ErrPeerLost)
}

// A peer that finalized is not lost at once for waits (Lost), but is
// after the peer timeout; operations on it fail at once.
func TestFinalizedPeerEndsWaitsAfterTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	jobs, _, _ := connectAll(t, []string{"a", "a"}, testHeap, timeout)
	require.NoError(t, jobs[1].Transport.Close())
	m := jobs[0].Transport
	require.Eventually(t, func() bool { return m.PeerErr(1) != nil }, 20*time.Second, time.Millisecond)
	assert.Contains(t, m.PeerErr(1).Error(), "has finalized")
	assert.ErrorIs(t, m.Put(1, 4096, []byte{1}), ErrPeerLost)
	require.Eventually(t, func() bool { return m.Lost() != nil }, 20*time.Second, 10*time.Millisecond)
	assert.ErrorIs(t, m.Lost(), ErrPeerLost)
	assert.Contains(t, m.Lost().Error(), "has finalized")
	assert.Nil(t, m.h.first.Load(), "a finalized peer is no loss")
}

// Silent strangers holding handshakes open at a PE's tcp listener do not
// hold up its Close (Finalize): with a hello deadline of a minute, Close
// still returns in a bounded time far below it.
func TestPendingHandshakesDoNotDelayClose(t *testing.T) {
	old := tcpHelloTimeout
	tcpHelloTimeout = time.Minute
	t.Cleanup(func() { tcpHelloTimeout = old })
	jobs, _, _ := connectAll(t, []string{"%r0", "%r1"}, testHeap, 5*time.Second)
	var strangers []net.Conn
	for range 8 {
		c, err := net.Dial("tcp", jobs[0].TCPAddr[0])
		require.NoError(t, err)
		strangers = append(strangers, c)
	}
	t.Cleanup(func() {
		for _, c := range strangers {
			c.Close()
		}
	})
	require.Eventually(t, func() bool { return jobs[0].Transport.tcp.gate.Pending() == len(strangers) }, 20*time.Second, time.Millisecond)
	done := make(chan error, 2)
	start := time.Now()
	for _, j := range jobs {
		go func() { done <- j.Transport.Close() }()
	}
	for range jobs {
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Fatal("Close waited for the strangers' handshakes")
		}
	}
	t.Logf("closed in %v with %d handshakes pending", time.Since(start), len(strangers))
}
