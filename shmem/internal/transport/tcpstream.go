package transport

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A tcpStream is a communication context's own set of connections: one per
// remote peer, dialed the first time the context reaches that peer, served
// at the peer by a progress goroutine of its own. Its Quiet flushes only
// its connections, so threads that use different contexts never wait for
// each other's puts, and a peer applies their requests concurrently.
type tcpStream struct {
	t  *TCP
	id uint32

	mu     sync.Mutex // guards out and closed; held while dialing
	out    []*outConn
	closed bool
}

// newStream opens an empty stream; connections come on first use.
func (t *TCP) newStream() *tcpStream {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextStrm++
	s := &tcpStream{t: t, id: t.nextStrm, out: make([]*outConn, len(t.out))}
	t.streams[s] = struct{}{}
	return s
}

// conn returns the stream's connection to pe, dialing it on first use.
func (s *tcpStream) conn(pe int) (*outConn, error) {
	t := s.t
	if pe < 0 || pe >= len(s.out) || t.out[pe] == nil {
		return nil, fmt.Errorf("transport: PE %d has no tcp route to PE %d", t.me, pe)
	}
	if err := t.h.check(pe); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("transport: the context's stream was closed")
	}
	if o := s.out[pe]; o != nil {
		return o, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	defer cancel()
	o, err := t.dialStream(ctx, pe, t.addrs[pe], s.id, func(o *outConn) { s.out[pe] = o })
	if err != nil {
		return nil, err
	}
	o.start()
	return o, nil
}

func (s *tcpStream) Put(pe int, off uint64, src []byte) error {
	o, err := s.conn(pe)
	if err != nil {
		return err
	}
	return o.put(off, src)
}

func (s *tcpStream) Get(pe int, off uint64, dst []byte) error {
	o, err := s.conn(pe)
	if err != nil {
		return err
	}
	return o.get(off, dst)
}

func (s *tcpStream) GetNBI(pe int, off uint64, dst []byte) error {
	o, err := s.conn(pe)
	if err != nil {
		return err
	}
	o.dirty.Store(true)
	_, err = o.startGet(off, dst, true)
	return err
}

func (s *tcpStream) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	o, err := s.conn(pe)
	if err != nil {
		return 0, err
	}
	return o.atomic(off, width, op, operand, compare, nil)
}

func (s *tcpStream) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	o, err := s.conn(pe)
	if err != nil {
		return err
	}
	_, err = o.atomic(off, width, op, operand, compare, dst)
	return err
}

func (s *tcpStream) Accumulate(pe int, a *Acc) error {
	o, err := s.conn(pe)
	if err != nil {
		return err
	}
	return o.accumulate(a)
}

func (s *tcpStream) Quiet() error {
	s.mu.Lock()
	outs := append([]*outConn(nil), s.out...)
	s.mu.Unlock()
	return quietConns(s.t.h, outs)
}

// Close completes the stream's requests, says goodbye on each of its
// connections (so that their end is not mistaken for a lost peer) and
// closes them.
func (s *tcpStream) Close() error {
	err := s.Quiet()
	s.mu.Lock()
	s.closed = true
	outs := s.out
	s.mu.Unlock()
	for _, o := range outs {
		if o == nil {
			continue
		}
		o.closing.Store(true)
		_ = o.c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = o.send(&frame{typ: fBye}, nil)
		select { // the peer closes its end after the goodbye
		case <-o.done:
		case <-time.After(time.Second):
		}
		_ = o.c.Close()
	}
	s.t.mu.Lock()
	delete(s.t.streams, s)
	s.t.mu.Unlock()
	return err
}

// serveStream serves a context's stream from a peer until it ends.
func (t *TCP) serveStream(in *inConn) {
	t.mu.Lock()
	select {
	case <-t.stop:
		t.mu.Unlock()
		t.refuse(in.c, fmt.Errorf("the transport is closing"))
		return
	default:
	}
	t.extraIn[in] = struct{}{}
	t.mu.Unlock()
	_, _ = in.c.Write([]byte{0})
	in.serve()
	t.mu.Lock()
	delete(t.extraIn, in)
	t.mu.Unlock()
}
