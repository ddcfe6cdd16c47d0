package guard

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(format, args...))
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

func TestRefusalsAreCountedNotDropped(t *testing.T) {
	var l lines
	r := NewRefusals("test socket", l.logf, 50*time.Millisecond)
	r.Refuse("1.2.3.4:5", "garbage")
	require.Equal(t, []string{"test socket: refused a connection from 1.2.3.4:5: garbage"}, l.get())
	for i := range 1000 {
		r.Refuse("x", fmt.Sprintf("reason %d", i%20))
	}
	require.Eventually(t, func() bool { return len(l.get()) == 2 }, 5*time.Second, time.Millisecond)
	sum := l.get()[1]
	assert.Contains(t, sum, "refused 1000 more connection(s)")
	assert.Contains(t, sum, "other reasons (600)", "only 8 reasons are named")
	assert.Equal(t, 8, strings.Count(sum, "; "), sum)
	// After a quiet interval the next refusal is logged at once again.
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.timer == nil
	}, 5*time.Second, time.Millisecond)
	r.Refuse("", "late")
	assert.Equal(t, "test socket: refused a connection: late", l.get()[2])
	r.Refuse("", "counted")
	r.Close()
	assert.Contains(t, l.get()[3], "refused 1 more connection(s)")
	r.Refuse("", "after close")
	assert.Len(t, l.get(), 4)
}

func TestCheckUID(t *testing.T) {
	require.NoError(t, CheckUID(1000, 1000))
	err := CheckUID(1001, 1000)
	require.ErrorIs(t, err, ErrForeignUser)
	assert.Contains(t, err.Error(), "uid 1001")
}

func TestCheckUserOnARealSocket(t *testing.T) {
	name := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", name)
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", name)
		if err == nil {
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
	}()
	c, err := ln.Accept()
	require.NoError(t, err)
	defer c.Close()
	cred, err := PeerCred(c)
	require.NoError(t, err)
	assert.Equal(t, int32(os.Getpid()), cred.Pid)
	require.NoError(t, CheckUser(c, MyUID()))
	require.ErrorIs(t, CheckUser(c, MyUID()+1), ErrForeignUser)
	// Not a unix socket: an error, not a pass.
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	require.Error(t, CheckUser(a, MyUID()))
}

func TestGateBoundsPendingConnections(t *testing.T) {
	g := NewGate(2, time.Minute)
	conns := make([]net.Conn, 3)
	for i := range conns {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		conns[i] = a
		go func() { _, _ = b.Write([]byte("hello")) }()
	}
	p1, err := g.Admit(conns[0])
	require.NoError(t, err)
	p2, err := g.Admit(conns[1])
	require.NoError(t, err)
	_, err = g.Admit(conns[2])
	require.ErrorIs(t, err, ErrBusy)
	buf := make([]byte, 5)
	_, err = p1.Read(buf)
	require.NoError(t, err)
	p1.Done(true)
	p1.Done(true) // once only
	assert.Equal(t, int64(5), g.MaxRead())
	p3, err := g.Admit(conns[2])
	require.NoError(t, err, "a slot came back")
	g.Close()
	_, err = p2.Read(buf)
	require.Error(t, err, "Close drops pending connections")
	p2.Done(false)
	p3.Done(false)
	_, err = g.Admit(conns[0])
	require.ErrorIs(t, err, net.ErrClosed)
}

func TestNoHello(t *testing.T) {
	assert.Equal(t, "no hello in time", NoHello(os.ErrDeadlineExceeded))
	assert.Equal(t, "hung up before its hello", NoHello(fmt.Errorf("read: %w", io.EOF)))
	assert.Equal(t, "no hello: the connection failed", NoHello(errors.New("read tcp 1.2.3.4:5->6.7.8.9:10: odd")))
}
