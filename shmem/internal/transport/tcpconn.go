package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

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
		if err := readFull(o.c, o.br, hdr[:], o.t.timeout); err != nil {
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
		if err := readFull(c, br, dst[:k], timeout); err != nil {
			return unexpectedEOF(err)
		}
		dst = dst[k:]
	}
	return nil
}

// readFull fills dst, failing when the peer stays silent for timeout.
// Silent means that nothing arrived: a reader that was itself not
// scheduled for the timeout (a loaded machine) finds its deadline passed
// when it runs again, and the peer's bytes (its heartbeat) waiting in the
// socket; that is no loss, and the read goes on.
func readFull(c net.Conn, br *bufio.Reader, dst []byte, timeout time.Duration) error {
	n := 0
	for {
		_ = c.SetReadDeadline(time.Now().Add(timeout))
		k, err := io.ReadFull(br, dst[n:])
		n += k
		if err == nil {
			return nil
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() || !arrived(c, br) {
			return err
		}
	}
}

// arrived reports whether bytes wait to be read, after a deadline passed.
func arrived(c net.Conn, br *bufio.Reader) bool {
	if br.Buffered() > 0 {
		return true
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := br.Peek(1)
	return err == nil
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
		if err := readFull(in.c, in.br, hdr[:], t.timeout); err != nil {
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
