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

// heapHelloLen is what a peer sends: its PE number and our token.
const heapHelloLen = 4 + 16

// heapServer hands our heap's descriptor to every peer that proves it
// belongs to the job, and keeps the connection as a liveness link.
type heapServer struct {
	ln       *net.UnixListener
	fd       int
	size     uint64
	token    []byte
	n        int
	uid      uint32
	gate     *guard.Gate
	refusals *guard.Refusals
	wg       sync.WaitGroup
	mu       sync.Mutex
	accepted map[int]net.Conn
}

func newHeapServer(ln *net.UnixListener, fd int, size uint64, token []byte, n int, logf func(string, ...any)) *heapServer {
	return &heapServer{
		ln: ln, fd: fd, size: size, token: token, n: n, uid: guard.MyUID(),
		// Every peer of the job asks at once during Connect: a job of
		// more than heapMaxPending PEs would otherwise have its own peers
		// refused (and fall back to tcp), so the job's size is added.
		gate:     guard.NewGate(heapMaxPending+n, heapHelloTimeout),
		refusals: guard.NewRefusals("transport: heap server", logf, heapRefusalInterval),
		accepted: map[int]net.Conn{},
	}
}

func (s *heapServer) start() {
	s.wg.Add(1)
	go s.serve()
}

// stop closes the listener and every connection still proving itself,
// and waits for the server's goroutines; accepted links stay open.
func (s *heapServer) stop() {
	_ = s.ln.Close()
	s.gate.Close()
	s.wg.Wait()
	s.refusals.Close()
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
	if subtle.ConstantTimeCompare(hello[4:], s.token) != 1 {
		return errors.New("wrong heap token")
	}
	from := int(binary.LittleEndian.Uint32(hello[:4]))
	if from >= s.n {
		return fmt.Errorf("PE %d out of range for %d PEs", from, s.n)
	}
	// Admitted before the heap goes out: the peer may finish its setup
	// and the job stop this server (closing every connection still
	// pending) as soon as the descriptor arrives, and this connection is
	// the peer's liveness link from then on.
	pend.Done(true)
	var msg [8]byte
	binary.LittleEndian.PutUint64(msg[:], s.size)
	if _, _, err := c.WriteMsgUnix(msg[:], unix.UnixRights(s.fd), nil); err != nil {
		return fmt.Errorf("sending the heap to PE %d failed", from)
	}
	s.mu.Lock()
	if old := s.accepted[from]; old != nil {
		old.Close()
	}
	s.accepted[from] = c
	s.mu.Unlock()
	return nil
}

var errHeapSize = errors.New("heap sizes differ (GSHMEM_SYMMETRIC_SIZE must be the same on every PE)")

// fetchHeapFd takes a peer's heap descriptor; the connection stays open.
// The server must run as our user too: a descriptor from anyone else
// would map their memory into our heap's place.
func fetchHeapFd(ctx context.Context, name string, me int, token []byte, size uint64) (int, net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return -1, nil, err
	}
	c := conn.(*net.UnixConn)
	if err := guard.CheckUser(c, guard.MyUID()); err != nil {
		c.Close()
		return -1, nil, err
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	hello := binary.LittleEndian.AppendUint32(nil, uint32(me))
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
