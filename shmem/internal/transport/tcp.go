package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/gshmem/gshmem/internal/guard"
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
