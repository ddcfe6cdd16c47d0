package launcher

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/launchwire"
)

// logBuf collects server warnings from several goroutines.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer serves an in-process job of n PEs and returns the Env of
// rank 0 (set Rank for the others).
func startServer(t *testing.T, n int) (*Server, launchwire.Env, *logBuf) {
	t.Helper()
	id, secret := make([]byte, 8), make([]byte, 32)
	rand.Read(id)
	rand.Read(secret)
	e := launchwire.Env{Addr: "@gshmem-test-" + hex.EncodeToString(id), JobID: hex.EncodeToString(id), Secret: secret, NPEs: n, LocalSize: n}
	ln, err := net.Listen("unix", e.Addr)
	require.NoError(t, err)
	log := &logBuf{}
	srv := NewServer(ln, n, secret, log.logf)
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	t.Cleanup(func() {
		assert.NoError(t, srv.Close())
		assert.NoError(t, <-served)
	})
	return srv, e, log
}

func dialRank(t *testing.T, e launchwire.Env, rank int) *launchwire.Client {
	t.Helper()
	e.Rank, e.LocalRank = rank, rank
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := launchwire.Dial(ctx, e)
	require.NoError(t, err)
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestServerAllgather(t *testing.T) {
	const n, rounds = 4, 6
	_, e, log := startServer(t, n)
	clients := make([]*launchwire.Client, n)
	for r := range n {
		clients[r] = dialRank(t, e, r)
	}
	contribution := func(rank, round int) []byte {
		return bytes.Repeat([]byte{byte(rank*16 + round)}, (rank*round)%5) // some empty
	}
	var wg sync.WaitGroup
	for r, c := range clients {
		wg.Go(func() {
			ctx := testCtx(t)
			for round := range rounds {
				got, err := c.Allgather(ctx, contribution(r, round))
				if !assert.NoError(t, err) || !assert.Len(t, got, n) {
					return
				}
				for q := range n {
					assert.Equal(t, len(contribution(q, round)), len(got[q]))
					assert.True(t, bytes.Equal(contribution(q, round), got[q]), "round %d, rank %d's data seen by %d", round, q, r)
				}
				if round%2 == 1 {
					assert.NoError(t, c.Barrier(ctx))
				}
			}
			assert.NoError(t, c.Close())
		})
	}
	wg.Wait()
	assert.Empty(t, log.String())
}

func TestServerRefusesWrongSecret(t *testing.T) {
	fastRefusalLog(t)
	const n = 3
	_, e, log := startServer(t, n)
	bad := e
	bad.Secret = bytes.Repeat([]byte{1}, 32)
	_, err := launchwire.Dial(testCtx(t), bad)
	require.ErrorIs(t, err, launchwire.ErrRefused)
	assert.Contains(t, err.Error(), "wrong job secret")
	assert.Contains(t, log.String(), "wrong job secret")

	bad = e
	bad.Rank, bad.NPEs = 5, 6
	_, err = launchwire.Dial(testCtx(t), bad)
	require.ErrorIs(t, err, launchwire.ErrRefused)
	assert.Contains(t, err.Error(), "out of range")

	// Garbage instead of a hello (reported), and a connection that hangs
	// up at once (not reported: that is what a PE killed while dialing does).
	conn, err := net.Dial("unix", e.Addr)
	require.NoError(t, err)
	conn.Write([]byte{0xff, 0xff, 0xff, 0xff, 1})
	conn.Close()
	conn, err = net.Dial("unix", e.Addr)
	require.NoError(t, err)
	conn.Close()

	clients := make([]*launchwire.Client, n)
	for r := range n {
		clients[r] = dialRank(t, e, r)
	}
	dup := e
	dup.Rank = 1
	_, err = launchwire.Dial(testCtx(t), dup)
	require.ErrorIs(t, err, launchwire.ErrRefused)
	assert.Contains(t, err.Error(), "already connected")

	var wg sync.WaitGroup
	for r, c := range clients {
		wg.Go(func() {
			got, err := c.Allgather(testCtx(t), []byte{byte(r)})
			assert.NoError(t, err)
			assert.Equal(t, [][]byte{{0}, {1}, {2}}, got)
			assert.NoError(t, c.Close())
		})
	}
	wg.Wait()
	// The first refusal at once, the other three (the hang-up is not one)
	// in summaries: one, or more when the interval ends between them.
	summed := func() int {
		n := 0
		for _, m := range regexp.MustCompile(`refused (\d+) more connection`).FindAllStringSubmatch(log.String(), -1) {
			k, _ := strconv.Atoi(m[1])
			n += k
		}
		return n
	}
	assert.Eventually(t, func() bool { return summed() == 3 }, 5*time.Second, 10*time.Millisecond, log.String())
}

func TestServerAbort(t *testing.T) {
	srv, e, _ := startServer(t, 2)
	c := dialRank(t, e, 1)
	require.NoError(t, c.Abort(7, "boom"))
	require.NoError(t, c.Abort(8, "again"), "a second abort is sent but not reported")
	select {
	case a := <-srv.Aborts():
		assert.Equal(t, AbortEvent{Rank: 1, Code: 7, Msg: "boom"}, a)
	case <-time.After(5 * time.Second):
		t.Fatal("no abort event")
	}
	c.Close()
	select {
	case a := <-srv.Aborts():
		t.Fatalf("unexpected second abort %+v", a)
	case <-time.After(50 * time.Millisecond):
	}
	<-srv.peer(1).done
	assert.True(t, srv.peer(1).bye.Load())
}

func TestClientTimeoutIsSticky(t *testing.T) {
	_, e, _ := startServer(t, 2)
	c := dialRank(t, e, 0)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Allgather(ctx, []byte("x"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 3*time.Second)
	err = c.Barrier(testCtx(t))
	require.ErrorIs(t, err, context.DeadlineExceeded, "later calls report the first failure")
	assert.Contains(t, err.Error(), "earlier failure")

	ctx2, cancel2 := context.WithCancel(context.Background())
	c1 := dialRank(t, e, 1)
	defer c1.Close()
	time.AfterFunc(50*time.Millisecond, cancel2)
	// Rank 0 is broken, so rank 1's second allgather never completes.
	_, err = c1.Allgather(testCtx(t), nil)
	require.NoError(t, err, "completes with rank 0's earlier contribution")
	_, err = c1.Allgather(ctx2, nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestClientLostLauncher(t *testing.T) {
	srv, e, _ := startServer(t, 2)
	c := dialRank(t, e, 0)
	time.AfterFunc(50*time.Millisecond, func() { srv.Close() })
	_, err := c.Allgather(testCtx(t), nil)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Contains(t, err.Error(), "lost connection to the gshmem run launcher")
	assert.NoError(t, c.Close(), "closing after the launcher is gone is quiet")
	assert.ErrorIs(t, c.Barrier(testCtx(t)), launchwire.ErrClientClosed)
	assert.NoError(t, c.Close(), "Close is idempotent")
}
