package compat

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/guard"
)

// Links to the processes of other jobs (MPI-4.1 chapter 11): the members of
// an intercommunicator made by Accept/Connect, Spawn or Join that are not
// PEs of this Env's World. Each such process is a "foreign PE", numbered
// past the World's PEs (e.n, e.n+1, ...) in this process only, so that
// groups, communicators and the matching engine name it like any PE; what
// reaches it goes over a TCP connection of its own, not the heap. A
// message is a frame (header, then payload); sends to a foreign PE are
// eager whatever their size (the payload is copied into the frame), a
// synchronous one completes when the receiver's match answers it. A
// writer goroutine per link sends the frames, so that no caller ever
// blocks in a socket write holding the engine's lock (two jobs writing to
// each other while neither reads would deadlock), and a reader goroutine
// hands arriving frames to the engine under its lock.
//
// Every connection is authenticated before it is believed: the listener
// admits a bounded number of unauthenticated connections for a bounded
// time (guard.Gate), reads a fixed-size hello and compares its secret with
// the ones it expects (a port's, or one drawn for one Accept's mesh); a
// connection with any other is refused and logged at a bounded rate.

// Frame kinds.
const (
	fEager uint8 = 1 + iota // a message
	fSync                   // a message whose match is answered (aux: the send's id)
	fAck                    // the answer to fSync (aux: the send's id)
	fFin                    // the sender finalizes (dynclose.go)
)

const (
	frameHdr  = 32
	helloSize = 8 + 32 + 8 // magic, secret, an argument
	// maxFrame bounds one frame's payload: a larger message fails at the
	// sender instead of being believed at the receiver.
	maxFrame = 1 << 34
)

var helloMagic = [8]byte{'g', 's', 'h', 'm', 'd', 'y', 'n', '1'}

type secret [32]byte

func newSecret() secret {
	var s secret
	_, _ = rand.Read(s[:])
	return s
}

// dynState is an Env's listener for other jobs' processes and its links.
type dynState struct {
	mu       sync.Mutex
	ln       net.Listener
	addr     string
	gate     *guard.Gate
	refusals *guard.Refusals
	expect   map[secret]chan helloConn // who waits for connections bearing a secret
	ports    map[string]*Port          // open ports by name
	closed   bool

	links atomic.Pointer[[]*link] // foreign PE e.n+i is (*links)[i]; copied on write
	wg    sync.WaitGroup          // the writers: Finalize lets them send what is queued
	rwg   sync.WaitGroup          // the readers: Finalize waits for them before the heap goes
	lost  atomic.Int32            // links lost: wildcard receives then check (dynclose.go)
}

// helloConn is an authenticated connection and its hello's argument.
type helloConn struct {
	conn net.Conn
	arg  uint64
}

// link is the connection to one foreign PE.
type link struct {
	e    *Env
	pe   int
	conn net.Conn

	wmu   sync.Mutex
	wcond *sync.Cond
	wq    [][]byte
	wdone bool

	dead    atomic.Bool
	err     error               // why it died (set before dead)
	acks    map[uint64]*Request // synchronous sends awaiting their answer, under e.mu
	closing atomic.Bool         // this side ends it: disconnected (dynclose.go)
	finGot  atomic.Bool         // the other side said it finalizes
}

// npe is the number of PEs communicators may name: the World's and the
// foreign ones.
func (e *Env) npe() int {
	if l := e.dyn.links.Load(); l != nil {
		return e.n + len(*l)
	}
	return e.n
}

func (e *Env) linkOf(pe int) *link {
	l := e.dyn.links.Load()
	if l == nil || pe < e.n || pe-e.n >= len(*l) {
		return nil
	}
	return (*l)[pe-e.n]
}

// listen starts the Env's listener once, on the address GSHMEM_TCP_ADDR
// names (its host; the port is the system's choice).
func (e *Env) listen() error {
	d := &e.dyn
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errorf(ClassOther, "the Env was finalized")
	}
	if d.ln != nil {
		return nil
	}
	bind, err := dynBindAddr(os.Getenv("GSHMEM_TCP_ADDR"))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return errorf(ClassOther, "listening for other jobs' processes on %s: %v (set GSHMEM_TCP_ADDR to an address of this host)", bind, err)
	}
	d.ln, d.addr = ln, ln.Addr().String()
	d.gate = guard.NewGate(16, 10*time.Second)
	d.refusals = guard.NewRefusals("dynamic-process listener", e.w.Logger().Warnf, guard.DefaultInterval)
	d.expect = map[secret]chan helloConn{}
	go e.acceptLoop(ln)
	return nil
}

// dynBindAddr is the listen address for GSHMEM_TCP_ADDR's value: its host
// with port 0, or loopback when it is unset or "auto" (the processes of
// one machine meet there; an interface name is not resolved here).
func dynBindAddr(spec string) (string, error) {
	switch {
	case spec == "" || spec == "auto":
		return "127.0.0.1:0", nil
	case net.ParseIP(spec) != nil:
		return net.JoinHostPort(spec, "0"), nil
	}
	if host, _, err := net.SplitHostPort(spec); err == nil {
		return net.JoinHostPort(host, "0"), nil
	}
	if ifc, err := net.InterfaceByName(spec); err == nil {
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
				return net.JoinHostPort(ipn.IP.String(), "0"), nil
			}
		}
	}
	return "", errorf(ClassOther, "GSHMEM_TCP_ADDR=%q is neither an address nor an interface with an IPv4 address", spec)
}

func (e *Env) acceptLoop(ln net.Listener) {
	d := &e.dyn
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p, err := d.gate.Admit(c)
		if err != nil {
			d.refusals.Refuse(c.RemoteAddr().String(), "too many unauthenticated connections")
			c.Close()
			continue
		}
		go e.admit(p)
	}
}

// admit reads a connection's hello (helloSize bytes and no more before it
// is authenticated) and hands it to whoever expects its secret.
func (e *Env) admit(p *guard.Pending) {
	d := &e.dyn
	var h [helloSize]byte
	if _, err := io.ReadFull(p, h[:]); err != nil {
		p.Done(false)
		d.refusals.Refuse(p.RemoteAddr().String(), guard.NoHello(err))
		p.Conn.Close()
		return
	}
	var s secret
	copy(s[:], h[8:40])
	d.mu.Lock()
	var ch chan helloConn
	if subtle.ConstantTimeCompare(h[:8], helloMagic[:]) == 1 {
		for k, c := range d.expect {
			if subtle.ConstantTimeCompare(k[:], s[:]) == 1 {
				ch = c
			}
		}
	}
	d.mu.Unlock()
	hc := helloConn{conn: p.Conn, arg: binary.LittleEndian.Uint64(h[40:])}
	if ch != nil && len(ch) < cap(ch) {
		// The verdict goes before the connection is handed on, so that it
		// is the first byte the other side reads, whatever its taker
		// writes next.
		p.Done(true)
		if _, err := p.Conn.Write([]byte{1}); err == nil {
			select {
			case ch <- hc:
				return
			default: // filled meanwhile: the other side reads an end
			}
		}
		p.Conn.Close()
		return
	}
	p.Done(false)
	if ch == nil {
		d.refusals.Refuse(p.RemoteAddr().String(), "a hello with an unknown secret (a closed port?)")
	}
	_, _ = p.Conn.Write([]byte{0})
	p.Conn.Close()
}

// expectConns registers s: up to n connections bearing it are queued on
// the returned channel until forget(s).
func (e *Env) expectConns(s secret, n int) chan helloConn {
	ch := make(chan helloConn, n)
	e.dyn.mu.Lock()
	if e.dyn.expect != nil {
		e.dyn.expect[s] = ch
	}
	e.dyn.mu.Unlock()
	return ch
}

func (e *Env) forget(s secret) {
	e.dyn.mu.Lock()
	delete(e.dyn.expect, s)
	e.dyn.mu.Unlock()
}

// dialHello connects to addr, sends a hello with s and arg and waits for
// the listener's verdict, all within deadline. refused says the listener
// took the hello and turned it down (no such secret: a closed port).
func dialHello(addr string, s secret, arg uint64, deadline time.Time) (c net.Conn, refused bool, err error) {
	c, err = net.DialTimeout("tcp", addr, time.Until(deadline))
	if err != nil {
		return nil, false, err
	}
	_ = c.SetDeadline(deadline)
	var h [helloSize]byte
	copy(h[:8], helloMagic[:])
	copy(h[8:40], s[:])
	binary.LittleEndian.PutUint64(h[40:], arg)
	var ok [1]byte
	if _, err = c.Write(h[:]); err == nil {
		_, err = io.ReadFull(c, ok[:])
	}
	if err == nil && ok[0] != 1 {
		refused, err = true, errors.New("refused")
	}
	if err != nil {
		c.Close()
		return nil, refused, err
	}
	_ = c.SetDeadline(time.Time{})
	return c, false, nil
}

// addLinks makes foreign PEs of conns, in order, starts their goroutines
// and returns their PE numbers.
func (e *Env) addLinks(conns []net.Conn) []int {
	d := &e.dyn
	d.mu.Lock()
	defer d.mu.Unlock()
	var old []*link
	if l := d.links.Load(); l != nil {
		old = *l
	}
	all := append([]*link(nil), old...)
	pes := make([]int, len(conns))
	var fresh []*link
	for i, c := range conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		l := &link{e: e, pe: e.n + len(all), conn: c, acks: map[uint64]*Request{}}
		l.wcond = sync.NewCond(&l.wmu)
		all = append(all, l)
		fresh = append(fresh, l)
		pes[i] = l.pe
	}
	d.links.Store(&all)
	for _, l := range fresh {
		d.wg.Add(1)
		d.rwg.Add(1)
		go l.writer()
		go l.reader()
	}
	return pes
}

func putHdr(b []byte, kind uint8, tag int32, ctx uint32, aux uint64, n int) {
	b[0] = kind
	binary.LittleEndian.PutUint32(b[4:], uint32(tag))
	binary.LittleEndian.PutUint32(b[8:], ctx)
	binary.LittleEndian.PutUint64(b[16:], aux)
	binary.LittleEndian.PutUint64(b[24:], uint64(n))
}

// post queues a frame for the writer.
func (l *link) post(f []byte) {
	l.wmu.Lock()
	l.wq = append(l.wq, f)
	l.wmu.Unlock()
	l.wcond.Signal()
}

func (l *link) writer() {
	defer l.e.dyn.wg.Done()
	w := bufio.NewWriterSize(l.conn, 64<<10)
	for {
		l.wmu.Lock()
		for len(l.wq) == 0 && !l.wdone {
			l.wcond.Wait()
		}
		q := l.wq
		l.wq = nil
		done := l.wdone
		l.wmu.Unlock()
		for _, f := range q {
			if _, err := w.Write(f); err != nil {
				l.lost(err)
				return
			}
		}
		if err := w.Flush(); err != nil {
			l.lost(err)
			return
		}
		if done {
			if hc, ok := l.conn.(interface{ CloseWrite() error }); ok {
				_ = hc.CloseWrite() // the other side reads an end, then closes too
			}
			return
		}
	}
}

func (l *link) reader() {
	e := l.e
	defer e.dyn.rwg.Done()
	r := bufio.NewReaderSize(l.conn, 64<<10)
	var h [frameHdr]byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			l.lost(err)
			return
		}
		kind := h[0]
		tag := int32(binary.LittleEndian.Uint32(h[4:]))
		ctx := binary.LittleEndian.Uint32(h[8:])
		aux := binary.LittleEndian.Uint64(h[16:])
		n := binary.LittleEndian.Uint64(h[24:])
		if n > maxFrame {
			l.lost(fmt.Errorf("a frame of %d bytes", n))
			return
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(r, data); err != nil {
			l.lost(err)
			return
		}
		e.mu.Lock()
		switch kind {
		case fEager, fSync:
			var ack func()
			if kind == fSync {
				ack = func() { l.answer(aux) }
			}
			e.arrive(l.pe, tag, ctx, data, ack)
		case fAck:
			if s := l.acks[aux]; s != nil {
				delete(l.acks, aux)
				e.complete(s)
			}
		case fFin:
			l.finGot.Store(true)
		}
		e.mu.Unlock()
		e.wake()
	}
}

func (l *link) answer(id uint64) {
	f := make([]byte, frameHdr)
	putHdr(f, fAck, 0, 0, id, 0)
	l.post(f)
}

// arrive matches a message from foreign PE pe, or keeps it. Called with
// mu held.
func (e *Env) arrive(pe int, tag int32, ctx uint32, data []byte, ack func()) {
	if r := e.match(pe, tag, ctx); r != nil {
		if ack != nil {
			ack()
		}
		var n int
		if r.devBuf {
			n = e.fillDev(r, 0, data)
		} else {
			n = copy(r.buf, data)
		}
		e.finishRecv(r, pe, tag, n, len(data))
		return
	}
	e.unexpected = append(e.unexpected, &inMsg{src: pe, tag: tag, ctx: ctx, size: len(data), data: data, ack: ack})
	e.pub.Unexpected = uint64(len(e.unexpected))
}

// linkSend sends data to foreign PE pe: at once (nil) unless sync, whose
// request completes when the receiver's match answers.
func (e *Env) linkSend(data []byte, pe int, tag int32, ctx uint32, sync bool, poolOff int) *Request {
	l := e.linkOf(pe)
	f := make([]byte, frameHdr+len(data))
	copy(f[frameHdr:], data)
	e.mu.Lock()
	defer e.mu.Unlock()
	if poolOff >= 0 {
		e.poolAlloc.free(poolOff)
	}
	e.count.sent(len(data))
	if l.dead.Load() || len(data) > maxFrame {
		r := &Request{env: e, dest: pe, poolOff: -1, err: l.err}
		if r.err == nil {
			r.err = errorf(ClassCount, "a message of %d bytes to another job's process (at most %d)", len(data), maxFrame)
		}
		r.done.Store(true)
		return r
	}
	kind, id := fEager, uint64(0)
	var r *Request
	if sync {
		e.nextID++
		kind, id = fSync, e.nextID
		r = &Request{env: e, dest: pe, poolOff: -1}
		l.acks[id] = r
	}
	putHdr(f, kind, tag, ctx, id, len(data))
	l.post(f)
	return r
}

// Spans reports whether c has members (or, an intercommunicator, a remote
// group) in another job: such a communicator has no symmetric memory
// (windows) and its collectives run over point-to-point.
func (c *Comm) Spans() bool {
	if c == nil {
		return false
	}
	if slices.ContainsFunc(c.group.world, func(pe int) bool { return pe >= c.env.n }) {
		return true
	}
	return c.remote != nil && slices.ContainsFunc(c.remote.world, func(pe int) bool { return pe >= c.env.n })
}

// dynAddr is this process's listener address, started if need be.
func (e *Env) dynAddr() (string, error) {
	if err := e.listen(); err != nil {
		return "", err
	}
	return e.dyn.addr, nil
}

// fdConn is a connection over a duplicate of the socket fd (the caller's
// stays open). The duplicate shares fd's file status flags, which Go's
// poller makes non-blocking: restore puts fd's back once the connection
// is closed.
func fdConn(fd int) (c net.Conn, restore func(), err error) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, nil, errorf(ClassArg, "Join: fd %d: %v", fd, err)
	}
	nfd, err := unix.Dup(fd)
	if err != nil {
		return nil, nil, errorf(ClassArg, "Join: fd %d: %v", fd, err)
	}
	f := os.NewFile(uintptr(nfd), "join")
	c, err = net.FileConn(f)
	f.Close()
	restore = func() { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags) }
	if err != nil {
		restore()
		return nil, nil, errorf(ClassArg, "Join: fd %d is not a connected socket: %v", fd, err)
	}
	return c, restore, nil
}
