package transport

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/guard"
)

// The heap server's abstract socket can be reached by every process in the
// network namespace, and what it hands out is the heap itself, so a peer
// must run as this process's user (SO_PEERCRED) and present the token that
// only the job's bootstrap carried; until it has, it holds one of
// heapMaxPending slots (plus one per PE of the job) for at most
// heapHelloTimeout.
var (
	heapHelloTimeout    = 3 * time.Second
	heapMaxPending      = 64
	heapRefusalInterval = guard.DefaultInterval
)

// A peer asks the heap server for one of two things. A PE joins its node
// once, at start, by asking its node's leader (the lowest PE of the node)
// for the node's heartbeat table: the descriptor that arrives proves that
// the two share a kernel and a network namespace, hence memory, and so do
// all the PEs that joined the same leader. A PE asks a peer for its heap
// only when it first touches that peer. Either connection stays open as a
// liveness link between the two.
const (
	askJoin byte = 1 // the node's heartbeat table (beat.go)
	askHeap byte = 2 // the heap
)

// heapHelloLen is what a peer sends: what it asks for, its PE number and
// our token.
const heapHelloLen = 1 + 4 + 16

// heapServer hands our heap's descriptor (or, on a node's leader, the
// node's heartbeat table) to every peer that proves it belongs to the job.
// It serves for the job's whole life, since peers map our heap when they
// first use it; each answered connection goes to onLink.
type heapServer struct {
	ln       *net.UnixListener
	fd       int // the heap
	table    int // the node's heartbeat table, -1 where we lead no node
	size     uint64
	token    []byte
	n        int
	uid      uint32
	gate     *guard.Gate
	refusals *guard.Refusals
	onLink   func(pe int, c net.Conn) bool // false: the link is not wanted (closing)
	wg       sync.WaitGroup
	stopOnce sync.Once
}

func newHeapServer(ln *net.UnixListener, fd, table int, size uint64, token []byte, n int, logf func(string, ...any), onLink func(int, net.Conn) bool) *heapServer {
	return &heapServer{
		ln: ln, fd: fd, table: table, size: size, token: token, n: n, uid: guard.MyUID(), onLink: onLink,
		// Every peer of the job may ask at once (all join the leader at
		// start; a collective's first round touches a root): a job of more
		// than heapMaxPending PEs would otherwise have its own peers
		// refused, so the job's size is added.
		gate:     guard.NewGate(heapMaxPending+n, heapHelloTimeout),
		refusals: guard.NewRefusals("transport: heap server", logf, heapRefusalInterval),
	}
}

func (s *heapServer) start() {
	s.wg.Add(1)
	go s.serve()
}

// stop closes the listener and every connection still proving itself,
// and waits for the server's goroutines; links already handed to onLink
// stay open.
func (s *heapServer) stop() {
	s.stopOnce.Do(func() {
		_ = s.ln.Close()
		s.gate.Close()
		s.wg.Wait()
		s.refusals.Close()
	})
}

func (s *heapServer) serve() {
	defer s.wg.Done()
	var inner sync.WaitGroup
	defer inner.Wait()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		if err := guard.CheckUser(c, s.uid); err != nil {
			s.refusals.Refuse("", err.Error())
			c.Close()
			continue
		}
		pend, err := s.gate.Admit(c)
		if err != nil {
			s.refusals.Refuse("", err.Error())
			c.Close()
			continue
		}
		inner.Go(func() {
			if err := s.handle(c, pend); err != nil {
				pend.Done(false)
				c.Close()
				s.refusals.Refuse("", err.Error())
			}
		})
	}
}

func (s *heapServer) handle(c *net.UnixConn, pend *guard.Pending) error {
	var hello [heapHelloLen]byte
	if _, err := io.ReadFull(pend, hello[:]); err != nil {
		return errors.New(guard.NoHello(err))
	}
	if subtle.ConstantTimeCompare(hello[5:], s.token) != 1 {
		return errors.New("wrong heap token")
	}
	from := int(binary.LittleEndian.Uint32(hello[1:5]))
	if from >= s.n {
		return fmt.Errorf("PE %d out of range for %d PEs", from, s.n)
	}
	fd := s.fd
	switch hello[0] {
	case askHeap:
	case askJoin:
		if fd = s.table; fd < 0 {
			return fmt.Errorf("PE %d asked to join a node this PE does not lead", from)
		}
	default:
		return fmt.Errorf("unknown request %d from PE %d", hello[0], from)
	}
	// Admitted before the descriptor goes out: the peer may finish and the
	// job stop this server (closing every connection still pending) as
	// soon as it arrives, and this connection is the peer's liveness link
	// from then on.
	pend.Done(true)
	var msg [8]byte
	binary.LittleEndian.PutUint64(msg[:], s.size)
	if _, _, err := c.WriteMsgUnix(msg[:], unix.UnixRights(fd), nil); err != nil {
		return fmt.Errorf("sending the heap to PE %d failed", from)
	}
	if !s.onLink(from, c) {
		c.Close()
	}
	return nil
}

var errHeapSize = errors.New("heap sizes differ (GSHMEM_SYMMETRIC_SIZE must be the same on every PE)")

// ask takes a descriptor from a peer's heap server (what says which);
// the connection stays open. The server must run as our user too: a
// descriptor from anyone else would map their memory into our heap's
// place. A listener whose backlog is full refuses a non-blocking connect
// with EAGAIN: that is retried, within the deadline, since every PE of a
// node joins its leader at once.
func ask(ctx context.Context, name string, what byte, me int, token []byte, size uint64, timeout time.Duration) (int, net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var conn net.Conn
	var err error
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		var d net.Dialer
		if conn, err = d.DialContext(ctx, "unix", name); err == nil || !errors.Is(err, unix.EAGAIN) {
			break
		}
		select {
		case <-ctx.Done():
			return -1, nil, err
		case <-time.After(wait):
		}
	}
	if err != nil {
		return -1, nil, err
	}
	c := conn.(*net.UnixConn)
	if err := guard.CheckUser(c, guard.MyUID()); err != nil {
		c.Close()
		return -1, nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	hello := binary.LittleEndian.AppendUint32([]byte{what}, uint32(me))
	if _, err := c.Write(append(hello, token...)); err != nil {
		c.Close()
		return -1, nil, err
	}
	var msg [8]byte
	oob := make([]byte, unix.CmsgSpace(4))
	nr, noob, _, _, err := c.ReadMsgUnix(msg[:], oob)
	if err != nil {
		c.Close()
		return -1, nil, err
	}
	scms, err := unix.ParseSocketControlMessage(oob[:noob])
	if err != nil || len(scms) != 1 || nr != 8 {
		c.Close()
		return -1, nil, errors.New("no descriptor received")
	}
	fds, err := unix.ParseUnixRights(&scms[0])
	if err != nil || len(fds) != 1 {
		for _, f := range fds {
			unix.Close(f)
		}
		c.Close()
		return -1, nil, errors.New("no descriptor received")
	}
	if got := binary.LittleEndian.Uint64(msg[:]); got != size {
		unix.Close(fds[0])
		c.Close()
		return -1, nil, fmt.Errorf("%w: peer %d bytes, ours %d", errHeapSize, got, size)
	}
	_ = c.SetDeadline(time.Time{})
	return fds[0], c, nil
}
