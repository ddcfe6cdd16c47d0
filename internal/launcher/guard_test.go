package launcher

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/guard"
	"github.com/gshmem/gshmem/internal/guard/outsider"
	"github.com/gshmem/gshmem/internal/launchwire"
)

// fastRefusalLog makes the refusal summaries come every few milliseconds.
func fastRefusalLog(t *testing.T) {
	old := refusalInterval
	refusalInterval = 20 * time.Millisecond
	t.Cleanup(func() { refusalInterval = old })
}

// closedByServer reads until the server hangs up; it fails the test if
// the server is still holding the connection after 10 s.
func closedByServer(t *testing.T, c net.Conn) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the server still holds a connection that never authenticated")
	}
	return got
}

func helloFrame(rank uint32, secret []byte) []byte {
	var b bytes.Buffer
	_ = launchwire.WriteFrame(&b, launchwire.TypeHello, launchwire.HelloPayload(rank, secret))
	return b.Bytes()
}

// Strangers on the socket (huge frames, garbage, slow hellos) are refused
// without the launcher reading more than a hello's worth from any of them,
// and the job beside them completes exactly.
func TestServerWithstandsStrangers(t *testing.T) {
	fastRefusalLog(t)
	const n = 3
	srv, e, log := startServer(t, n)
	var attackers []net.Conn
	dial := func() net.Conn {
		c, err := net.Dial("unix", e.Addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		attackers = append(attackers, c)
		return c
	}
	var writers sync.WaitGroup
	for range 24 { // 64 MiB frames, as in the report
		c := dial()
		writers.Go(func() {
			hdr := binary.LittleEndian.AppendUint32(nil, launchwire.MaxFrame)
			_, _ = c.Write(append(hdr, launchwire.TypeHello))
			chunk := make([]byte, 64<<10)
			for range 16 {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		})
	}
	for range 4 {
		_, _ = dial().Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	}
	for range 8 { // a hello that starts and never ends
		_, _ = dial().Write([]byte{9, 0})
	}

	clients := make([]*launchwire.Client, n)
	for r := range n {
		clients[r] = dialRank(t, e, r)
	}
	var wg sync.WaitGroup
	for r, c := range clients {
		wg.Go(func() {
			for round := range 5 {
				got, err := c.Allgather(testCtx(t), []byte{byte(r), byte(round)})
				assert.NoError(t, err)
				assert.Equal(t, [][]byte{{0, byte(round)}, {1, byte(round)}, {2, byte(round)}}, got)
			}
			assert.NoError(t, c.Close())
		})
	}
	wg.Wait()
	for _, c := range attackers {
		reply := closedByServer(t, c)
		if len(reply) > 0 {
			typ, msg, err := launchwire.ReadFrame(bytes.NewReader(reply))
			require.NoError(t, err)
			assert.Equal(t, launchwire.TypeError, typ, "never a welcome")
			assert.NotEmpty(t, msg)
		}
	}
	writers.Wait()
	// Never more than one hello's worth read from a stranger.
	assert.LessOrEqual(t, srv.gate.MaxRead(), int64(4+maxHello))
	assert.Positive(t, srv.gate.MaxRead())
	require.Eventually(t, func() bool {
		return strings.Contains(log.String(), "more connection(s)")
	}, 10*time.Second, 10*time.Millisecond)
	out := log.String()
	assert.Contains(t, out, "a first frame of 67108864 bytes; a hello has at most")
	assert.Less(t, strings.Count(out, "\n"), 24+4+8, "refusals are summarized, not logged one by one:\n%s", out)
}

// Connections beyond the pending limit are refused at once; once the
// strangers are gone, PEs are admitted again.
func TestServerBoundsPendingConnections(t *testing.T) {
	fastRefusalLog(t)
	srv, e, log := startServer(t, 2)
	var held []net.Conn
	for range maxPending + 10 {
		c, err := net.Dial("unix", e.Addr)
		require.NoError(t, err)
		held = append(held, c)
	}
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "too many unauthenticated connections") }, 10*time.Second, 5*time.Millisecond, log.String())
	assert.LessOrEqual(t, srv.gate.Pending(), maxPending)
	for _, c := range held {
		c.Close()
	}
	require.Eventually(t, func() bool { return srv.gate.Pending() == 0 }, 10*time.Second, 5*time.Millisecond)
	c0, c1 := dialRank(t, e, 0), dialRank(t, e, 1)
	var wg sync.WaitGroup
	for r, c := range []*launchwire.Client{c0, c1} {
		wg.Go(func() {
			got, err := c.Allgather(testCtx(t), []byte{byte(r)})
			assert.NoError(t, err)
			assert.Equal(t, [][]byte{{0}, {1}}, got)
			assert.NoError(t, c.Close())
		})
	}
	wg.Wait()
}

// A process of another user is refused even with the right secret.
func TestServerRefusesOtherUsers(t *testing.T) {
	t.Run("fake uid", func(t *testing.T) {
		_, e, _ := startServer(t, 1)
		log := &logBuf{}
		ln, err := net.Listen("unix", e.Addr+"-2")
		require.NoError(t, err)
		srv := NewServer(ln, 1, e.Secret, log.logf)
		srv.uid = guard.MyUID() + 1 // as if this process were someone else
		go srv.Serve()
		defer srv.Close()
		e.Addr += "-2"
		_, err = launchwire.Dial(testCtx(t), e)
		require.Error(t, err)
		assert.Contains(t, log.String(), "runs as another user")
	})
	t.Run("real uid", func(t *testing.T) {
		srv, e, log := startServer(t, 1)
		reply, dialErr := outsider.Connect(t, "unix", e.Addr, helloFrame(0, e.Secret))
		require.Empty(t, dialErr)
		assert.Empty(t, reply, "no welcome for another user")
		assert.Contains(t, log.String(), "runs as another user")
		assert.Nil(t, srv.peer(0), "rank 0 is still free")
		c := dialRank(t, e, 0)
		require.NoError(t, c.Close())
	})
}
