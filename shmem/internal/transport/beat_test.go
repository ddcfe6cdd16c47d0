package transport

import (
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// child starts a process that only sleeps, ended (killed and reaped) at
// the test's end, and returns it with its identity.
func child(t *testing.T) (*exec.Cmd, procID) {
	t.Helper()
	c := exec.Command("sleep", "60")
	require.NoError(t, c.Start())
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	ns, ok := pidNS()
	require.True(t, ok)
	_, start, ok := procStat(c.Process.Pid)
	require.True(t, ok)
	return c, procID{pid: uint64(c.Process.Pid), start: start, ns: ns}
}

// waitState waits (bounded) until /proc shows the process in state want.
func waitState(t *testing.T, id procID, ns uint64, want procState) {
	t.Helper()
	require.Eventually(t, func() bool { return stateOf(id, ns) == want }, 20*time.Second, time.Millisecond, "process %d never %v", id.pid, want)
}

// TestProcState: a PE's process is judged by /proc: this process is
// alive, a stopped child stopped, a reaped one gone, a pid now held by
// another process (another start time) gone, a record not yet written
// starting, and one of another pid namespace unknown.
func TestProcState(t *testing.T) {
	self, ok := selfID()
	require.True(t, ok)
	ns := self.ns
	assert.Equal(t, procAlive, stateOf(self, ns))
	assert.Equal(t, procStarting, stateOf(procID{}, ns))
	assert.Equal(t, procUnknown, stateOf(procID{pid: self.pid, start: self.start, ns: ns + 1}, ns))
	assert.Equal(t, procUnknown, stateOf(procID{pid: noID}, ns))
	assert.Equal(t, procGone, stateOf(procID{pid: self.pid, start: self.start + 1, ns: ns}, ns), "another process under the same pid")

	c, id := child(t)
	waitState(t, id, ns, procAlive)
	require.NoError(t, c.Process.Signal(syscall.SIGSTOP))
	waitState(t, id, ns, procStopped)
	require.NoError(t, c.Process.Signal(syscall.SIGCONT))
	waitState(t, id, ns, procAlive)
	require.NoError(t, c.Process.Kill())
	waitState(t, id, ns, procGone) // a zombie until reaped
	_ = c.Wait()
	assert.Equal(t, procGone, stateOf(id, ns))
}

// TestJudge: a peer whose count stands still is lost only when its process
// is gone, or stopped for the timeout; alive, it is never lost however
// long its count stands still (a starved PE); unseen, the count decides.
func TestJudge(t *testing.T) {
	const timeout = 5 * time.Second
	self, _ := selfID()
	ns := self.ns
	t0 := time.Now()
	var stopped time.Time
	assert.Empty(t, judge(self, ns, t0.Add(time.Hour), t0, &stopped, timeout), "alive and starved for an hour: not lost")
	assert.Empty(t, judge(procID{}, ns, t0.Add(time.Hour), t0, &stopped, timeout), "not started yet")
	assert.Contains(t, judge(procID{pid: noID}, ns, t0.Add(timeout), t0, &stopped, timeout), "heartbeat")
	assert.Empty(t, judge(procID{pid: noID}, ns, t0.Add(timeout-time.Millisecond), t0, &stopped, timeout))

	c, id := child(t)
	require.NoError(t, c.Process.Signal(syscall.SIGSTOP))
	waitState(t, id, ns, procStopped)
	stopped = time.Time{}
	assert.Empty(t, judge(id, ns, t0, t0, &stopped, timeout), "just stopped")
	assert.Equal(t, t0, stopped)
	assert.Empty(t, judge(id, ns, t0.Add(3*time.Second), t0, &stopped, timeout), "stopped 3 s of 5")
	assert.Contains(t, judge(id, ns, t0.Add(8*time.Second), t0, &stopped, timeout), "has been stopped")
	require.NoError(t, c.Process.Signal(syscall.SIGCONT))
	waitState(t, id, ns, procAlive)
	assert.Empty(t, judge(id, ns, t0.Add(9*time.Second), t0, &stopped, timeout), "continued: alive again")
	assert.True(t, stopped.IsZero(), "a continued PE's stop is forgotten")
	require.NoError(t, c.Process.Kill())
	waitState(t, id, ns, procGone)
	assert.Contains(t, judge(id, ns, t0, t0, &stopped, timeout), "is gone", "gone: lost at once")
}

// A node-local peer whose heartbeat stops while its process is stopped
// (SIGSTOP; here the PE's record names a stopped child, and only the PE's
// heartbeat is stopped) is lost after the peer timeout, although its link
// stays open and its heap mapped: operations on it then fail at once, and
// every wait sees Lost.
func TestStoppedHeartbeatIsALoss(t *testing.T) {
	const timeout = 200 * time.Millisecond
	jobs, _, _ := connectAll(t, []string{"a", "a", "a"}, testHeap, timeout)
	m := jobs[0].Transport
	require.NoError(t, m.Put(1, 4096, []byte{1, 2, 3}))
	require.NoError(t, m.Lost())
	c, id := child(t)
	require.NoError(t, c.Process.Signal(syscall.SIGSTOP))
	publishID(rec(m.table, 3, 1), id, true)
	start := time.Now()
	jobs[1].Transport.stopBeat()
	require.Eventually(t, func() bool { return m.Lost() != nil }, 20*time.Second, 10*time.Millisecond)
	t.Logf("lost after %v (peer timeout %v)", time.Since(start), timeout)
	assert.ErrorIs(t, m.Lost(), ErrPeerLost)
	assert.Regexp(t, `has been stopped|reported by PE 2`, m.Lost().Error())
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

// A node-local peer whose heartbeat stands still while its process lives
// (a PE starved of CPU by a loaded machine; here only its heartbeat is
// stopped) is never lost: after ten peer timeouts every peer still sees
// it alive. And one whose process is gone is lost for that (its message
// says so), not for its silence.
func TestStarvedPeerIsNotLost(t *testing.T) {
	const timeout = 100 * time.Millisecond
	jobs, _, _ := connectAll(t, []string{"a", "a"}, testHeap, timeout)
	jobs[1].Transport.stopBeat()
	for range 10 {
		time.Sleep(timeout)
		require.NoError(t, jobs[0].Transport.Lost())
	}
	require.NoError(t, jobs[0].Transport.PeerErr(1))

	jobs, _, _ = connectAll(t, []string{"a", "a"}, testHeap, 2*time.Second)
	c, id := child(t)
	publishID(rec(jobs[0].Transport.table, 2, 1), id, true)
	jobs[1].Transport.stopBeat()
	require.NoError(t, c.Process.Kill())
	require.Eventually(t, func() bool { return jobs[0].Transport.PeerErr(1) != nil }, 20*time.Second, 10*time.Millisecond)
	assert.Contains(t, jobs[0].Transport.PeerErr(1).Error(), "is gone")
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

// TestDownWordLayout: DownWord's address is the value of health.down, so
// that a C reader sees what Load sees.
func TestDownWordLayout(t *testing.T) {
	h := newHealth(0, 2, time.Second)
	w := h.downWord()
	assert.Equal(t, uint32(0), *w)
	h.peerLost(1, "test")
	assert.Equal(t, uint32(1), *w)
	assert.Equal(t, h.down.Load(), *w)
}
