package transport

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	logtest "github.com/sirupsen/logrus/hooks/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/guard"
	"github.com/gshmem/gshmem/internal/guard/outsider"
)

// fastRefusals makes refusal summaries come every few milliseconds.
func fastRefusals(t *testing.T) {
	a, b := tcpRefusalInterval, heapRefusalInterval
	tcpRefusalInterval, heapRefusalInterval = 20*time.Millisecond, 20*time.Millisecond
	t.Cleanup(func() { tcpRefusalInterval, heapRefusalInterval = a, b })
}

// hungUpByServer reads until the server closes; the server must not hold
// a connection that never authenticated past its deadline.
func hungUpByServer(t *testing.T, c net.Conn) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the server still holds a stranger's connection")
	}
	return got
}

func messages(h *logtest.Hook) string {
	var b strings.Builder
	for _, e := range h.AllEntries() {
		b.WriteString(e.Message + "\n")
	}
	return b.String()
}

// Strangers at a PE's tcp listener (silent, garbage, a flood of bytes,
// more than it admits at once) are refused having cost it a handshake's
// reading each, and the job beside them stays exact.
func TestTCPListenerWithstandsStrangers(t *testing.T) {
	fastRefusals(t)
	jobs, _, hooks := connectAll(t, []string{"%r0", "%r1"}, testHeap, 5*time.Second)
	addr := jobs[0].TCPAddr[0]
	var strangers []net.Conn
	var writers sync.WaitGroup
	for i := range 24 + tcpMaxPending + 8 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		strangers = append(strangers, c)
		if i >= 24 {
			continue // silent, and more than it admits at once
		}
		switch i % 3 {
		case 0: // a flood of bytes
			writers.Go(func() {
				chunk := bytes.Repeat([]byte{0xff}, 64<<10)
				for range 16 {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			})
		case 1:
			_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 64)))
		case 2: // a hello that starts and never ends
			_, _ = c.Write([]byte(tcpMagic))
		}
	}
	// The job beside them.
	var wg sync.WaitGroup
	for me := range 2 {
		wg.Go(func() {
			tr := jobs[me].Transport
			for i := range 100 {
				_, err := tr.Atomic(1-me, 0x200, 8, OpAdd, uint64(i), 0)
				assert.NoError(t, err)
			}
			assert.NoError(t, tr.Put(1-me, 0x300, []byte{byte(me + 1)}))
			assert.NoError(t, tr.Quiet())
		})
	}
	wg.Wait()
	for me := range 2 {
		assert.Equal(t, uint64(4950), binary.LittleEndian.Uint64(jobs[me].Heap[0x200:]))
		assert.Equal(t, byte(2-me), jobs[me].Heap[0x300])
	}
	for _, c := range strangers {
		reply := hungUpByServer(t, c)
		assert.LessOrEqual(t, len(reply), 64, "never more than the challenge")
		c.Close()
	}
	writers.Wait()
	tcp := jobs[0].Transport.tcp
	assert.LessOrEqual(t, tcp.gate.MaxRead(), int64(helloLen+32), "no more than a handshake read from anyone")
	require.Eventually(t, func() bool { return strings.Contains(messages(hooks[0]), "more connection(s)") }, 10*time.Second, 10*time.Millisecond)
	out := messages(hooks[0])
	assert.Contains(t, out, "not a gshmem tcp hello")
	assert.Contains(t, out, "too many unauthenticated connections")
	assert.Less(t, strings.Count(out, "\n"), tcpMaxPending, "summarized:\n%s", out)
	assert.Nil(t, jobs[0].Transport.Lost())
}

// heapFixture is a heap server over a real memfd, outside Connect, so that
// its checks can be tried one by one.
type heapFixture struct {
	srv   *heapServer
	name  string
	token []byte
	hook  *logtest.Hook
	mu    sync.Mutex
	links map[int]net.Conn // what the server handed to onLink
}

func newHeapFixture(t *testing.T, uid uint32) *heapFixture {
	fd, err := unix.MemfdCreate("gshmem-test-heap", unix.MFD_CLOEXEC)
	require.NoError(t, err)
	require.NoError(t, unix.Ftruncate(fd, testHeap))
	f := &heapFixture{name: "@gshmem-heap-test-" + string(random(0)) + time.Now().Format("150405.000000000"), token: random(16)}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: f.name, Net: "unix"})
	require.NoError(t, err)
	l, hook := logtest.NewNullLogger()
	f.hook = hook
	f.links = map[int]net.Conn{}
	f.srv = newHeapServer(ln, fd, -1, testHeap, f.token, 2, l.Errorf, func(pe int, c net.Conn) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.links[pe] = c
		return true
	})
	f.srv.uid = uid
	f.srv.start()
	t.Cleanup(func() {
		f.srv.stop()
		for _, c := range f.linked() {
			c.Close()
		}
		unix.Close(fd)
	})
	return f
}

func (f *heapFixture) hello(pe uint32) []byte {
	return append(binary.LittleEndian.AppendUint32([]byte{askHeap}, pe), f.token...)
}

func (f *heapFixture) linked() map[int]net.Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.links)
}

func TestHeapServerWithstandsStrangers(t *testing.T) {
	fastRefusals(t)
	f := newHeapFixture(t, guard.MyUID())
	var strangers []net.Conn
	dial := func(payload []byte) {
		c, err := net.Dial("unix", f.name)
		require.NoError(t, err)
		strangers = append(strangers, c)
		_, _ = c.Write(payload)
	}
	dial(append(binary.LittleEndian.AppendUint32([]byte{askHeap}, 1), bytes.Repeat([]byte{7}, 16)...)) // wrong token
	dial(append(binary.LittleEndian.AppendUint32([]byte{9}, 1), f.token...))                           // unknown request
	dial(append(binary.LittleEndian.AppendUint32([]byte{askJoin}, 1), f.token...))                     // not a leader
	dial(bytes.Repeat([]byte("garbage "), 8<<10))
	dial([]byte{1, 0})              // a hello that never ends
	dial(f.hello(9))                // a PE that does not exist
	for range heapMaxPending - 10 { // silent
		dial(nil)
	}
	// The real peer still gets the heap.
	fd, conn, err := ask(context.Background(), f.name, askHeap, 1, f.token, testHeap, 10*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	var st unix.Stat_t
	require.NoError(t, unix.Fstat(fd, &st))
	assert.Equal(t, int64(testHeap), st.Size)
	unix.Close(fd)
	for _, c := range strangers {
		assert.Empty(t, hungUpByServer(t, c), "no heap for a stranger")
		c.Close()
	}
	assert.LessOrEqual(t, f.srv.gate.MaxRead(), int64(heapHelloLen))
	// More than it admits at once: the rest are turned away unread.
	var held []net.Conn
	for range heapMaxPending + 4 {
		c, err := net.Dial("unix", f.name)
		require.NoError(t, err)
		held = append(held, c)
	}
	require.Eventually(t, func() bool { return strings.Contains(messages(f.hook), "too many unauthenticated connections") }, 10*time.Second, 10*time.Millisecond)
	for _, c := range held {
		c.Close()
	}
	require.Eventually(t, func() bool { return strings.Contains(messages(f.hook), "more connection(s)") }, 10*time.Second, 10*time.Millisecond)
	out := messages(f.hook)
	for _, why := range []string{"wrong heap token", "PE 9 out of range", "no hello in time", "unknown request 9", "does not lead"} {
		assert.Contains(t, out, why)
	}
	assert.Less(t, strings.Count(out, "\n"), 20, "summarized:\n%s", out)
}

// The token alone is not enough: a process of another user is refused.
func TestHeapServerRefusesOtherUsers(t *testing.T) {
	t.Run("fake uid", func(t *testing.T) {
		f := newHeapFixture(t, guard.MyUID()+1) // as if this process were someone else
		_, _, err := ask(context.Background(), f.name, askHeap, 1, f.token, testHeap, 10*time.Second)
		require.Error(t, err)
		require.Eventually(t, func() bool { return strings.Contains(messages(f.hook), "runs as another user") }, 10*time.Second, 10*time.Millisecond)
	})
	t.Run("real uid", func(t *testing.T) {
		f := newHeapFixture(t, guard.MyUID())
		reply, dialErr := outsider.Connect(t, "unix", f.name, f.hello(1))
		require.Empty(t, dialErr)
		assert.Empty(t, reply, "no heap for another user")
		assert.Contains(t, messages(f.hook), "runs as another user")
		assert.Empty(t, f.linked())
	})
}
