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
	"net"
	"time"

	"github.com/gshmem/gshmem/internal/guard"
)

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
