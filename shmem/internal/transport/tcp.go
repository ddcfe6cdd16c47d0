package transport

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"

	"github.com/gshmem/gshmem/internal/guard"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// TCP reaches the heaps of PEs on other nodes. Each PE dials one connection
// to every remote peer for its own requests; the peer's progress goroutine
// for that connection applies puts, gets and atomics to its heap in order,
// rings its doorbell after every write, and replies on the same connection.
// Puts are not acknowledged one by one: they stream back to back, and
// Quiet sends one FLUSH per target with outstanding work and waits for its
// reply, which the target sends only after applying everything before it.
// Payloads move between the socket and the heap (or the caller's buffer)
// without an intermediate copy.
//
// Connections are authenticated with the job secret (HMAC challenge and
// response both ways; the secret never crosses the wire). A heartbeat on
// idle connections and the read deadlines detect a peer that hangs; an I/O
// error detects one that dies.
type TCP struct {
	me      int
	heap    []byte
	secret  []byte
	h       *health
	logp    atomic.Pointer[logrus.FieldLogger]
	timeout time.Duration
	out     []*outConn // by PE; nil for PEs reached otherwise
	in      []*inConn
	ln      net.Listener
	addr    string
	remote  []bool
	addrs   []string // where each peer listens, for the streams of contexts

	mu       sync.Mutex // guards in during setup, and streams and extraIn
	streams  map[*tcpStream]struct{}
	extraIn  map[*inConn]struct{}
	nextStrm uint32
	inReady  chan struct{}
	inWant   int
	stop     chan struct{}
	wg       sync.WaitGroup
	gate     *guard.Gate
	refusals *guard.Refusals
}

// The listener is reachable from the network; a connection that has not
// proved it holds the job secret gets one of tcpMaxPending slots for at
// most tcpHelloTimeout, and the handshake reads fixed-size messages only.
var (
	tcpHelloTimeout    = 3 * time.Second
	tcpMaxPending      = 64
	tcpRefusalInterval = guard.DefaultInterval
)

// TCPConfig configures the tcp transport of one PE.
type TCPConfig struct {
	Me      int
	Heap    []byte
	Secret  []byte
	Remote  []bool // which PEs this PE reaches over tcp
	Timeout time.Duration
	Log     logrus.FieldLogger
	Health  *health
}

// listenTCP opens the PE's listener; addr is "ip:port" ("ip:0" for any
// port).
func listenTCP(ctx context.Context, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp", addr)
}

// startTCP serves ln and dials the remote peers at addrs.
func startTCP(ctx context.Context, c TCPConfig, ln net.Listener, addrs []string) (*TCP, error) {
	n := len(c.Remote)
	t := &TCP{
		me: c.Me, heap: c.Heap, secret: c.Secret, h: c.Health, timeout: c.Timeout,
		out: make([]*outConn, n), in: make([]*inConn, n), ln: ln, remote: c.Remote,
		inReady: make(chan struct{}), stop: make(chan struct{}), addrs: addrs,
		streams: map[*tcpStream]struct{}{}, extraIn: map[*inConn]struct{}{},
		gate: guard.NewGate(tcpMaxPending, tcpHelloTimeout),
	}
	t.setLog(c.Log)
	t.refusals = guard.NewRefusals("tcp transport", func(f string, a ...any) { t.log().Errorf(f, a...) }, tcpRefusalInterval)
	if ln != nil {
		t.addr = ln.Addr().String()
	}
	for _, r := range c.Remote {
		if r {
			t.inWant++
		}
	}
	if t.inWant == 0 {
		close(t.inReady)
	}
	if ln != nil {
		t.wg.Add(1)
		go t.accept()
	}
	// Heartbeats first: connections have read deadlines from the start,
	// and setup may wait on slow PEs for longer than the peer timeout.
	t.wg.Add(1)
	go t.heartbeat()
	// Dial every remote peer concurrently.
	errs := make([]error, n)
	var wg sync.WaitGroup
	for pe, r := range c.Remote {
		if !r {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[pe] = t.dial(ctx, pe, addrs[pe])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.shutdown()
		return nil, err
	}
	select {
	case <-t.inReady:
	case <-ctx.Done():
		t.shutdown()
		return nil, fmt.Errorf("transport: PE %d waiting for its remote peers to connect: %w", t.me, ctx.Err())
	}
	return t, nil
}

func (t *TCP) setLog(l logrus.FieldLogger) { t.logp.Store(&l) }

func (t *TCP) log() logrus.FieldLogger { return *t.logp.Load() }

// Addr is where the PE listens.
func (t *TCP) Addr() string { return t.addr }

// ---- handshake -------------------------------------------------------------

// readBuf is the read buffer of a connection: large enough to batch many
// small frames per system call, small enough that a large payload is
// copied through it only for its first few kilobytes; the rest goes
// straight from the socket into the heap or the caller's buffer.
const readBuf = 4 << 10

const (
	tcpMagic   = "GSTC"
	tcpVersion = 2
	helloLen   = 4 + 4 + 4 + 4 + 4 + 32 // magic, version, from, to, stream, nonce
)

func tcpMAC(secret []byte, side string, nc, ns []byte, from, to, stream uint32) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(tcpMagic + side))
	m.Write(nc)
	m.Write(ns)
	var b [12]byte
	binary.LittleEndian.PutUint32(b[:], from)
	binary.LittleEndian.PutUint32(b[4:], to)
	binary.LittleEndian.PutUint32(b[8:], stream)
	m.Write(b[:])
	return m.Sum(nil)
}

func (t *TCP) dial(ctx context.Context, pe int, addr string) error {
	o, err := t.dialStream(ctx, pe, addr, 0, func(o *outConn) { t.out[pe] = o })
	if err == nil {
		o.start()
	}
	return err
}

// dialStream connects to pe for stream (0: the PE's own requests, others:
// a context's) and registers the connection under t.mu with add.
func (t *TCP) dialStream(ctx context.Context, pe int, addr string, stream uint32, add func(*outConn)) (*outConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: PE %d connecting to PE %d at %s: %w", t.me, pe, addr, err)
	}
	if err := t.clientHandshake(c, pe, stream); err != nil {
		c.Close()
		return nil, fmt.Errorf("transport: PE %d connecting to PE %d at %s: %w", t.me, pe, addr, err)
	}
	o := &outConn{t: t, pe: pe, c: c, br: bufio.NewReaderSize(c, readBuf), pending: map[uint64]*req{}, done: make(chan struct{})}
	o.lastWrite.Store(time.Now().UnixNano())
	t.mu.Lock()
	add(o)
	t.mu.Unlock()
	return o, nil
}

func (o *outConn) start() {
	o.t.wg.Add(1)
	go o.read()
}

func (t *TCP) clientHandshake(c net.Conn, pe int, stream uint32) error {
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	hello := make([]byte, helloLen)
	copy(hello, tcpMagic)
	binary.LittleEndian.PutUint32(hello[4:], tcpVersion)
	binary.LittleEndian.PutUint32(hello[8:], uint32(t.me))
	binary.LittleEndian.PutUint32(hello[12:], uint32(pe))
	binary.LittleEndian.PutUint32(hello[16:], stream)
	nc := hello[20:]
	_, _ = rand.Read(nc)
	if _, err := c.Write(hello); err != nil {
		return err
	}
	var resp [64]byte
	if _, err := io.ReadFull(c, resp[:]); err != nil {
		return fmt.Errorf("the peer closed the handshake (%v): does it run with the same job secret?", err)
	}
	ns := resp[:32]
	if !hmac.Equal(resp[32:], tcpMAC(t.secret, "S", nc, ns, uint32(t.me), uint32(pe), stream)) {
		return errors.New("the peer could not prove it holds the job secret")
	}
	if _, err := c.Write(tcpMAC(t.secret, "C", nc, ns, uint32(t.me), uint32(pe), stream)); err != nil {
		return err
	}
	var ok [1]byte
	if _, err := io.ReadFull(c, ok[:]); err != nil || ok[0] != 0 {
		return fmt.Errorf("the peer refused the connection (%v)", err)
	}
	return nil
}

func (t *TCP) accept() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			select {
			case <-t.stop:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		pend, err := t.gate.Admit(c)
		if err != nil {
			t.refuse(c, err)
			continue
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			pe, stream, err := t.serverHandshake(pend)
			if err != nil {
				pend.Done(false)
				t.refuse(c, err)
				return
			}
			pend.Done(true)
			in := &inConn{t: t, pe: pe, stream: stream, c: c, br: bufio.NewReaderSize(c, readBuf), done: make(chan struct{})}
			if stream != 0 {
				t.serveStream(in)
				return
			}
			t.mu.Lock()
			dup := t.in[pe] != nil
			if !dup {
				t.in[pe] = in
				t.inWant--
				if t.inWant == 0 {
					close(t.inReady)
				}
			}
			t.mu.Unlock()
			if dup {
				t.refuse(c, fmt.Errorf("PE %d is already connected", pe))
				return
			}
			_, _ = c.Write([]byte{0})
			in.serve()
		}()
	}
}

// refuse closes a connection that failed authentication, and logs it at
// a bounded rate.
func (t *TCP) refuse(c net.Conn, why error) {
	t.refusals.Refuse(c.RemoteAddr().String(), why.Error())
	_ = c.Close()
}

// serverHandshake authenticates a peer within the deadline its Gate set.
func (t *TCP) serverHandshake(c net.Conn) (int, uint32, error) {
	hello := make([]byte, helloLen)
	if _, err := io.ReadFull(c, hello); err != nil {
		return 0, 0, errors.New(guard.NoHello(err))
	}
	if string(hello[:4]) != tcpMagic || binary.LittleEndian.Uint32(hello[4:]) != tcpVersion {
		return 0, 0, errors.New("not a gshmem tcp hello (wrong magic or version)")
	}
	from, to := binary.LittleEndian.Uint32(hello[8:]), binary.LittleEndian.Uint32(hello[12:])
	stream := binary.LittleEndian.Uint32(hello[16:])
	nc := hello[20:]
	ns := make([]byte, 32)
	_, _ = rand.Read(ns)
	if _, err := c.Write(append(ns, tcpMAC(t.secret, "S", nc, ns, from, to, stream)...)); err != nil {
		return 0, 0, errors.New("hung up during the handshake")
	}
	mac := make([]byte, 32)
	if _, err := io.ReadFull(c, mac); err != nil {
		return 0, 0, errors.New("no proof of the job secret")
	}
	if !hmac.Equal(mac, tcpMAC(t.secret, "C", nc, ns, from, to, stream)) {
		return 0, 0, errors.New("wrong job secret")
	}
	if int(to) != t.me || int(from) >= len(t.remote) || !t.remote[from] {
		return 0, 0, fmt.Errorf("authenticated, but PE %d to PE %d is not a tcp route of this job", from, to)
	}
	return int(from), stream, nil
}

// ---- client side -------------------------------------------------------------

type req struct {
	dst   []byte
	val   uint64
	err   error
	done  chan struct{}
	async bool // nobody waits: a failure is kept for the next Quiet
	word  bool // an atomic whose old value goes to dst
}

type outConn struct {
	t   *TCP
	pe  int
	c   net.Conn
	br  *bufio.Reader
	wmu sync.Mutex
	hdr [frameHeader]byte // guarded by wmu

	mu      sync.Mutex
	pending map[uint64]*req
	nextID  uint64
	err     error // the connection is dead
	done    chan struct{}

	dirty     atomic.Bool // requests since the last flush
	lastWrite atomic.Int64
	byeSent   bool
	closing   atomic.Bool // a context's stream is being closed: its end is no loss
	asyncErr  error       // the first failure of a request nobody waited for (guarded by mu)
}

// send writes one frame (and its payload) whole.
func (o *outConn) send(f *frame, payload []byte) error {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	f.encode(o.hdr[:])
	var err error
	if len(payload) == 0 {
		_, err = o.c.Write(o.hdr[:])
	} else {
		bufs := net.Buffers{o.hdr[:], payload}
		_, err = bufs.WriteTo(o.c)
	}
	o.lastWrite.Store(time.Now().UnixNano())
	if err != nil {
		o.fail(err)
		return o.deadErr()
	}
	return nil
}

// register adds a request awaiting a reply.
func (o *outConn) register(dst []byte) (uint64, *req, error) {
	r := &req{dst: dst, done: make(chan struct{})}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, nil, o.deadErr()
	}
	o.nextID++
	o.pending[o.nextID] = r
	return o.nextID, r, nil
}

func (o *outConn) deadErr() error {
	if err := o.t.h.check(o.pe); err != nil {
		return err
	}
	return fmt.Errorf("%w: PE %d: %v", ErrPeerLost, o.pe, o.err)
}

func (o *outConn) take(id uint64) *req {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.pending[id]
	delete(o.pending, id)
	return r
}

// fail marks the connection dead, fails every pending request and, unless
// the peer said goodbye, reports the peer lost.
func (o *outConn) fail(cause error) {
	o.mu.Lock()
	if o.err == nil {
		o.err = cause
	}
	pend := o.pending
	o.pending = map[uint64]*req{}
	o.mu.Unlock()
	gone := o.t.h.isGone(o.pe) || o.closing.Load()
	if !gone {
		o.t.h.peerLost(o.pe, describeIOErr(cause, o.c.RemoteAddr()))
	}
	err := o.deadErr()
	for _, r := range pend {
		r.err = err
		close(r.done)
	}
	_ = o.c.Close()
}

func describeIOErr(err error, addr net.Addr) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("at %s stopped answering (no heartbeat within the peer timeout)", addr)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("at %s closed its connection without finalizing", addr)
	}
	return fmt.Sprintf("at %s: %v", addr, err)
}

func (o *outConn) read() {
	defer o.t.wg.Done()
	defer close(o.done)
	var hdr [frameHeader]byte
	for {
		_ = o.c.SetReadDeadline(time.Now().Add(o.t.timeout))
		if _, err := io.ReadFull(o.br, hdr[:]); err != nil {
			o.fail(err)
			return
		}
		f, err := decodeFrame(hdr[:], math.MaxUint64)
		if err != nil {
			o.fail(err)
			return
		}
		switch f.typ {
		case fGetReply, fAtomicReply, fFlushAck, fErr:
			if f.typ == fErr && f.id == 0 { // a request without a reply failed
				o.mu.Lock()
				o.asyncErr = cmpErr(o.asyncErr, fmt.Errorf("transport: PE %d could not apply an accumulate", o.pe))
				o.mu.Unlock()
				continue
			}
			r := o.take(f.id)
			if r == nil || (f.typ == fGetReply && int(f.n) != len(r.dst)) {
				o.fail(fmt.Errorf("%w: unexpected reply %#x for request %d", ErrBadFrame, f.typ, f.id))
				return
			}
			if f.typ == fGetReply {
				if err := readInto(o.c, o.br, r.dst, o.t.timeout); err != nil {
					r.err = fmt.Errorf("%w: PE %d: %v", ErrPeerLost, o.pe, err)
					close(r.done)
					o.fail(err)
					return
				}
			}
			if f.typ == fErr {
				r.err = fmt.Errorf("transport: PE %d rejected request %d", o.pe, f.id)
			}
			r.val = f.a
			if r.word && f.typ == fAtomicReply {
				putBits(r.dst, f.a)
			}
			if r.async && r.err != nil {
				o.mu.Lock()
				o.asyncErr = cmpErr(o.asyncErr, r.err)
				o.mu.Unlock()
			}
			close(r.done)
		case fPong:
		case fLost:
			o.t.h.peerLost(int(f.a), fmt.Sprintf("was lost (reported by PE %d)", o.pe))
		case fBye:
			o.t.h.bye(o.pe)
		default:
			o.fail(fmt.Errorf("%w: request type %#x on a reply stream", ErrBadFrame, f.typ))
			return
		}
	}
}

// readInto fills dst from the stream, refreshing the deadline every few
// megabytes so that a long transfer is not mistaken for a dead peer.
func readInto(c net.Conn, br *bufio.Reader, dst []byte, timeout time.Duration) error {
	const step = 4 << 20
	for len(dst) > 0 {
		k := min(len(dst), step)
		_ = c.SetReadDeadline(time.Now().Add(timeout))
		if _, err := io.ReadFull(br, dst[:k]); err != nil {
			return unexpectedEOF(err)
		}
		dst = dst[k:]
	}
	return nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (o *outConn) wait(r *req) error {
	<-r.done
	return r.err
}

// ---- server side (the progress goroutine) ------------------------------------

type inConn struct {
	t      *TCP
	pe     int
	stream uint32 // 0: the PE's own requests; else a context's
	c      net.Conn
	br     *bufio.Reader
	wmu    sync.Mutex
	hdr    [frameHeader]byte
	done   chan struct{}
}

func (in *inConn) reply(f *frame, payload []byte) error {
	in.wmu.Lock()
	defer in.wmu.Unlock()
	f.encode(in.hdr[:])
	var err error
	if len(payload) == 0 {
		_, err = in.c.Write(in.hdr[:])
	} else {
		bufs := net.Buffers{in.hdr[:], payload}
		_, err = bufs.WriteTo(in.c)
	}
	return err
}

func (in *inConn) serve() {
	defer close(in.done)
	defer in.c.Close()
	t := in.t
	heap := t.heap
	var hdr [frameHeader]byte
	fail := func(err error) {
		if !t.h.isGone(in.pe) {
			t.h.peerLost(in.pe, describeIOErr(err, in.c.RemoteAddr()))
		}
	}
	for {
		_ = in.c.SetReadDeadline(time.Now().Add(t.timeout))
		if _, err := io.ReadFull(in.br, hdr[:]); err != nil {
			fail(err)
			return
		}
		f, err := decodeFrame(hdr[:], uint64(len(heap)))
		if err != nil {
			t.log().Errorf("tcp transport: PE %d sent a bad frame: %v; dropping its connection", in.pe, err)
			fail(err)
			return
		}
		switch f.typ {
		case fPut:
			if err := readInto(in.c, in.br, heap[f.off:f.off+uint64(f.n)], t.timeout); err != nil {
				fail(err)
				return
			}
			doorbell.Ring(heap, false)
			continue
		case fGet:
			err = in.reply(&frame{typ: fGetReply, n: f.n, id: f.id}, heap[f.off:f.off+uint64(f.n)])
		case fAtomic:
			p := unsafe.Pointer(&heap[f.off])
			op, _ := AtomicOp(f.op).Split()
			old := apply(p, int(f.width), op, f.a, f.b)
			if op != OpLoad {
				// A remote atomic may be a window's lock release, whose
				// waiters here sleep as lock waiters (AwaitLock): ring
				// every waiter.
				doorbell.Ring(heap, true)
			}
			err = in.reply(&frame{typ: fAtomicReply, id: f.id, a: old}, nil)
		case fAcc:
			err = in.accumulate(&f)
		case fFlush:
			err = in.reply(&frame{typ: fFlushAck, id: f.id}, nil)
		case fPing:
			err = in.reply(&frame{typ: fPong, id: f.id}, nil)
		case fLost:
			t.h.peerLost(int(f.a), fmt.Sprintf("was lost (reported by PE %d)", in.pe))
		case fBye:
			if in.stream == 0 { // a context's stream ends with its context
				t.h.bye(in.pe)
			}
			return
		default:
			t.log().Errorf("tcp transport: PE %d sent reply type %#x as a request; dropping its connection", in.pe, f.typ)
			fail(fmt.Errorf("%w: reply type on a request stream", ErrBadFrame))
			return
		}
		if err != nil {
			fail(err)
			return
		}
	}
}

// ---- operations ------------------------------------------------------------

func (t *TCP) conn(pe int) (*outConn, error) {
	o := t.out[pe]
	if o == nil {
		return nil, fmt.Errorf("transport: PE %d has no tcp route to PE %d", t.me, pe)
	}
	if err := t.h.check(pe); err != nil {
		return nil, err
	}
	return o, nil
}

// Put streams src to pe's heap; it returns when src may be reused.
func (t *TCP) Put(pe int, off uint64, src []byte) error {
	o, err := t.conn(pe)
	if err != nil {
		return err
	}
	return o.put(off, src)
}

func (o *outConn) put(off uint64, src []byte) error {
	o.dirty.Store(true)
	for len(src) > 0 {
		k := min(len(src), maxChunk)
		if err := o.send(&frame{typ: fPut, n: uint32(k), off: off}, src[:k]); err != nil {
			return err
		}
		src, off = src[k:], off+uint64(k)
	}
	return nil
}

// Get fills dst from pe's heap.
func (t *TCP) Get(pe int, off uint64, dst []byte) error {
	o, err := t.conn(pe)
	if err != nil {
		return err
	}
	return o.get(off, dst)
}

func (o *outConn) get(off uint64, dst []byte) error {
	rs, err := o.startGet(off, dst, false)
	if err != nil {
		return err
	}
	var first error
	for _, r := range rs {
		if err := o.wait(r); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (o *outConn) startGet(off uint64, dst []byte, async bool) ([]*req, error) {
	var rs []*req
	for len(dst) > 0 {
		k := min(len(dst), maxChunk)
		id, r, err := o.register(dst[:k])
		if err != nil {
			return rs, err
		}
		r.async = async
		if err := o.send(&frame{typ: fGet, n: uint32(k), id: id, off: off}, nil); err != nil {
			return rs, err
		}
		rs = append(rs, r)
		dst, off = dst[k:], off+uint64(k)
	}
	return rs, nil
}

// GetNBI starts a get; Quiet waits for it.
func (t *TCP) GetNBI(pe int, off uint64, dst []byte) error {
	o, err := t.conn(pe)
	if err != nil {
		return err
	}
	o.dirty.Store(true)
	_, err = o.startGet(off, dst, true)
	return err
}

// Atomic runs op on pe's word and returns the old value.
func (t *TCP) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	o, err := t.conn(pe)
	if err != nil {
		return 0, err
	}
	return o.atomic(off, width, op, operand, compare, nil)
}

// AtomicNBI starts op on pe's word; the old value lands in dst (width
// bytes) by the time Quiet returns.
func (t *TCP) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	o, err := t.conn(pe)
	if err != nil {
		return err
	}
	_, err = o.atomic(off, width, op, operand, compare, dst)
	return err
}

// atomic sends one atomic; with dst it does not wait, and the reader
// stores the old value into dst before it handles any later reply (a
// flush's among them).
func (o *outConn) atomic(off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) (uint64, error) {
	id, r, err := o.register(dst)
	if err != nil {
		return 0, err
	}
	if dst != nil {
		r.word, r.async = true, true
		o.dirty.Store(true)
	}
	if err := o.send(&frame{typ: fAtomic, op: byte(op), width: byte(width), id: id, off: off, a: operand, b: compare}, nil); err != nil {
		return 0, err
	}
	if dst != nil {
		return 0, nil
	}
	err = o.wait(r)
	return r.val, err
}

// Quiet returns when every earlier request to every peer has been applied.
func (t *TCP) Quiet() error {
	return quietConns(t.h, t.out)
}

// quietConns sends one FLUSH on every connection with requests since the
// last and waits for the replies; it returns the first failure, of the
// flushes or of requests nobody waited for.
func quietConns(h *health, outs []*outConn) error {
	var waits []*req
	var conns []*outConn
	var first error
	for _, o := range outs {
		if o == nil {
			continue
		}
		o.mu.Lock()
		aerr := o.asyncErr
		o.asyncErr = nil
		o.mu.Unlock()
		first = cmpErr(first, aerr)
		if !o.dirty.Swap(false) {
			continue
		}
		if err := h.check(o.pe); err != nil {
			first = cmpErr(first, err)
			continue
		}
		id, r, err := o.register(nil)
		if err == nil {
			err = o.send(&frame{typ: fFlush, id: id}, nil)
		}
		if err != nil {
			first = cmpErr(first, err)
			continue
		}
		waits, conns = append(waits, r), append(conns, o)
	}
	for i, r := range waits {
		if err := conns[i].wait(r); err != nil {
			first = cmpErr(first, err)
		}
	}
	for _, o := range conns { // failures the flush's reply came after
		o.mu.Lock()
		first = cmpErr(first, o.asyncErr)
		o.asyncErr = nil
		o.mu.Unlock()
	}
	return first
}

func cmpErr(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

func (t *TCP) heartbeat() {
	defer t.wg.Done()
	every := max(t.timeout/5, 50*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		now := time.Now().UnixNano()
		for _, o := range t.outConns() {
			if now-o.lastWrite.Load() < int64(every) {
				continue
			}
			if o.wmu.TryLock() { // busy writers need no heartbeat
				o.wmu.Unlock()
				_ = o.send(&frame{typ: fPing}, nil)
			}
		}
	}
}

// tellLost tells every connected peer that pe is lost.
func (t *TCP) tellLost(pe int) {
	for _, o := range t.outConns() {
		if o.pe != pe {
			_ = o.send(&frame{typ: fLost, a: uint64(pe)}, nil)
		}
	}
	for _, in := range t.inConns() {
		if in.pe != pe {
			_ = in.reply(&frame{typ: fLost, a: uint64(pe)}, nil)
		}
	}
}

func (t *TCP) outConns() []*outConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	var outs []*outConn
	for _, o := range t.out {
		if o != nil {
			outs = append(outs, o)
		}
	}
	for st := range t.streams {
		for _, o := range st.out {
			if o != nil {
				outs = append(outs, o)
			}
		}
	}
	return outs
}

func (t *TCP) inConns() []*inConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ins []*inConn
	for _, in := range t.in {
		if in != nil {
			ins = append(ins, in)
		}
	}
	for in := range t.extraIn {
		ins = append(ins, in)
	}
	return ins
}

// close says goodbye on every connection and waits (a bounded time) for the
// peers to do the same, so that no request in flight is cut off.
func (t *TCP) close(grace time.Duration) {
	deadline := time.After(grace)
	for _, o := range t.outConns() {
		_ = o.c.SetWriteDeadline(time.Now().Add(grace))
		_ = o.send(&frame{typ: fBye}, nil)
	}
	for _, in := range t.inConns() {
		_ = in.c.SetWriteDeadline(time.Now().Add(grace))
		_ = in.reply(&frame{typ: fBye}, nil)
	}
	// Our peers' progress goroutines close their end after our bye, and
	// ours close after theirs.
	for _, o := range t.outConns() {
		select {
		case <-o.done:
		case <-deadline:
		}
	}
	for _, in := range t.inConns() {
		select {
		case <-in.done:
		case <-deadline:
		}
	}
	t.shutdown()
}

func (t *TCP) shutdown() {
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
	if t.ln != nil {
		_ = t.ln.Close()
	}
	t.gate.Close() // handshakes in progress do not hold up Finalize
	for _, o := range t.outConns() {
		_ = o.c.Close()
	}
	for _, in := range t.inConns() {
		_ = in.c.Close()
	}
	t.wg.Wait()
	t.refusals.Close()
}
