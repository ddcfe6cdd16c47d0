// Package guard is what every listener of a job puts between itself and
// connections it has not authenticated yet: the launcher's socket, the env
// rendezvous, the tcp transport and the heap server. Anyone who can reach
// such a listener can connect, so before a peer proves it belongs to the
// job it may hold only a bounded number of slots, for a short time, and
// make the server read only a small hello; on unix sockets it must also run
// as the same user. Refusals are reported, but at a bounded rate, so that a
// flood of them cannot fill a log either.
package guard

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrForeignUser is wrapped by the error for a unix-socket peer that runs
// as another user than this process.
var ErrForeignUser = errors.New("guard: the peer runs as another user")

// ErrBusy is wrapped when a listener already has as many unauthenticated
// connections as it admits at once.
var ErrBusy = errors.New("guard: too many unauthenticated connections")

// PeerCred returns the credentials the kernel recorded for the other end
// of a unix socket when it connected (SO_PEERCRED): they cannot be forged
// by the peer.
func PeerCred(c net.Conn) (*unix.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, fmt.Errorf("guard: %T is not a unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, fmt.Errorf("guard: SO_PEERCRED: %w", cerr)
	}
	return cred, nil
}

// CheckUser accepts a unix-socket peer only when it runs as uid (normally
// os.Geteuid()). A process of the same user could read this one's memory
// through ptrace or /proc anyway, so the user is the boundary that matters;
// the pid is not checked, because in another pid namespace (containers that
// share a network namespace) it reads as 0 or as a number of no use.
func CheckUser(c net.Conn, uid uint32) error {
	cred, err := PeerCred(c)
	if err != nil {
		return err
	}
	return CheckUID(cred.Uid, uid)
}

// CheckUID is CheckUser's rule on its own.
func CheckUID(peer, want uint32) error {
	if peer != want {
		return fmt.Errorf("%w: uid %d, this process runs as uid %d", ErrForeignUser, peer, want)
	}
	return nil
}

// MyUID is the uid CheckUser compares with.
func MyUID() uint32 { return uint32(os.Geteuid()) }

// Gate bounds the connections a listener has accepted but not yet
// authenticated: at most limit at once, each with a deadline of hello to
// prove itself.
type Gate struct {
	slots   chan struct{}
	hello   time.Duration
	maxRead atomic.Int64

	mu      sync.Mutex
	pending map[*Pending]struct{}
	closed  bool
}

// NewGate admits up to limit unauthenticated connections at once, each for
// at most hello.
func NewGate(limit int, hello time.Duration) *Gate {
	return &Gate{slots: make(chan struct{}, limit), hello: hello, pending: map[*Pending]struct{}{}}
}

// Hello is how long a new connection has to authenticate.
func (g *Gate) Hello() time.Duration { return g.hello }

// Admit takes a slot for c and arms its deadline. It fails, wrapping
// ErrBusy, when every slot is taken; the caller closes c and refuses it.
func (g *Gate) Admit(c net.Conn) (*Pending, error) {
	select {
	case g.slots <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w (%d pending)", ErrBusy, cap(g.slots))
	}
	p := &Pending{Conn: c, g: g}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		<-g.slots
		return nil, net.ErrClosed
	}
	g.pending[p] = struct{}{}
	g.mu.Unlock()
	_ = c.SetDeadline(time.Now().Add(g.hello))
	return p, nil
}

// Pending is how many connections hold a slot now.
func (g *Gate) Pending() int { return len(g.slots) }

// MaxRead is the most bytes any connection made this listener read before
// it was admitted or refused: what an outsider can cost it.
func (g *Gate) MaxRead() int64 { return g.maxRead.Load() }

// Close drops every connection still proving itself, so that a listener
// that is done does not wait out their deadlines.
func (g *Gate) Close() {
	g.mu.Lock()
	g.closed = true
	ps := make([]*Pending, 0, len(g.pending))
	for p := range g.pending {
		ps = append(ps, p)
	}
	g.mu.Unlock()
	for _, p := range ps {
		_ = p.Conn.Close()
	}
}

// Pending is a connection holding a slot of its Gate; reads through it are
// counted.
type Pending struct {
	net.Conn
	g    *Gate
	read atomic.Int64
	once sync.Once
}

func (p *Pending) Read(b []byte) (int, error) {
	n, err := p.Conn.Read(b)
	p.read.Add(int64(n))
	return n, err
}

// Done gives the slot back, once the connection is authenticated (its
// deadline is cleared) or refused (the caller closes it).
func (p *Pending) Done(authenticated bool) {
	p.once.Do(func() {
		n := p.read.Load()
		for {
			m := p.g.maxRead.Load()
			if n <= m || p.g.maxRead.CompareAndSwap(m, n) {
				break
			}
		}
		p.g.mu.Lock()
		delete(p.g.pending, p)
		p.g.mu.Unlock()
		<-p.g.slots
		if authenticated {
			_ = p.Conn.SetDeadline(time.Time{})
		}
	})
}

// NoHello says why a hello did not arrive, in words that do not vary by
// connection (no addresses), so that refusal summaries group them.
func NoHello(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "no hello in time"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return "hung up before its hello"
	case errors.Is(err, net.ErrClosed):
		return "dropped while the listener closed"
	}
	return "no hello: the connection failed"
}
