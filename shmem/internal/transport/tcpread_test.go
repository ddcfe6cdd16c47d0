package transport

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestReadFullStarvedReader: a reader whose deadline passed before it ran
// (here a timeout of a nanosecond: the deadline is gone when the read
// starts, as for a reader a loaded machine kept from running for the peer
// timeout) still gets the bytes the peer sent meanwhile; only a peer that
// sent nothing times out.
func TestReadFullStarvedReader(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	w, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer w.Close()
	r, err := l.Accept()
	require.NoError(t, err)
	defer r.Close()
	br := bufio.NewReader(r)

	want := []byte("0123456789abcdef")
	_, err = w.Write(want)
	require.NoError(t, err)
	raw, err := r.(*net.TCPConn).SyscallConn()
	require.NoError(t, err)
	require.Eventually(t, func() bool { // the bytes reached the reader's socket, not its buffer
		n := 0
		_ = raw.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
		return n == len(want)
	}, 20*time.Second, time.Millisecond)
	require.Zero(t, br.Buffered())
	got := make([]byte, len(want))
	require.NoError(t, readFull(r, br, got, time.Nanosecond))
	assert.Equal(t, want, got)

	err = readFull(r, br, got[:1], 50*time.Millisecond)
	var ne net.Error
	require.ErrorAs(t, err, &ne, "a silent peer times out")
	assert.True(t, ne.Timeout())
}
