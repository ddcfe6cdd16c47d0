package launcher

import (
	"bufio"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gshmem/gshmem/internal/launchwire"
)

// helloTimeout bounds how long an accepted connection may stay silent, so
// that a stray client cannot pin a goroutine for the life of the job.
var helloTimeout = 10 * time.Second

// AbortEvent is a PE's request for global exit.
type AbortEvent struct {
	Rank int
	Code int
	Msg  string
}

// Server is the launcher's end of the local bootstrap: it authenticates
// the PEs of one job, answers their allgathers and reports aborts. It never
// decides that a PE failed; the launcher learns that from process exits.
type Server struct {
	npes   int
	secret []byte
	logf   func(format string, args ...any)
	ln     net.Listener
	aborts chan AbortEvent
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	peers   []*peer
	conns   map[net.Conn]struct{}
	gathers map[uint64]*gather
}

type peer struct {
	rank    int
	conn    net.Conn
	wmu     sync.Mutex // one frame at a time on conn
	bye     atomic.Bool
	done    chan struct{} // closed when the connection is finished with
	lastSeq uint64        // guarded by Server.mu
	aborted bool          // guarded by Server.mu
}

type gather struct {
	data  [][]byte
	count int
}

// NewServer returns a server for npes PEs that share secret. logf receives
// warnings about refused or misbehaving connections; nil discards them.
func NewServer(ln net.Listener, npes int, secret []byte, logf func(format string, args ...any)) *Server {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Server{
		npes:    npes,
		secret:  slices.Clone(secret),
		logf:    logf,
		ln:      ln,
		aborts:  make(chan AbortEvent, npes), // one per rank at most, so sends never block
		peers:   make([]*peer, npes),
		conns:   make(map[net.Conn]struct{}),
		gathers: make(map[uint64]*gather),
	}
}

// Aborts delivers at most one event per rank.
func (s *Server) Aborts() <-chan AbortEvent { return s.aborts }

// Serve accepts connections until Close.
func (s *Server) Serve() error {
	warned := false
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if s.isClosed() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Running out of descriptors is not a reason to kill the job:
			// PEs already connected keep working, so wait and retry.
			if !warned {
				s.logf("warning: accepting bootstrap connections: %v", err)
				warned = true
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return nil
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.handle(conn)
	}
}

// Close stops accepting, drops every connection and waits for the
// connection goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	err := s.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	s.wg.Wait()
	return err
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// peer returns the authenticated connection of rank, or nil if the rank
// never connected.
func (s *Server) peer(rank int) *peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers[rank]
}

func (s *Server) handle(conn net.Conn) {
	defer s.wg.Done()
	defer func() {
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()
	br := bufio.NewReader(conn)
	conn.SetReadDeadline(time.Now().Add(helloTimeout))
	typ, payload, err := launchwire.ReadFrame(br)
	if err != nil {
		// A PE killed while dialing hangs up like this; its exit status
		// tells the story, so only silence and garbage are reported.
		quiet := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
		if !quiet && !s.isClosed() {
			s.logf("warning: refused a bootstrap connection: no hello: %v", err)
		}
		return
	}
	if typ != launchwire.TypeHello {
		s.refuse(conn, fmt.Sprintf("first frame has type %d, want hello", typ))
		return
	}
	rank, secret, err := launchwire.ParseHello(payload)
	if err != nil {
		s.refuse(conn, err.Error())
		return
	}
	if subtle.ConstantTimeCompare(secret, s.secret) != 1 {
		s.refuse(conn, "wrong job secret (is GSHMEM_JOB_SECRET from another job?)")
		return
	}
	if rank >= uint32(s.npes) {
		s.refuse(conn, fmt.Sprintf("rank %d out of range for %d PEs", rank, s.npes))
		return
	}
	p := &peer{rank: int(rank), conn: conn, done: make(chan struct{})}
	s.mu.Lock()
	dup := s.peers[rank] != nil
	if !dup {
		s.peers[rank] = p
	}
	s.mu.Unlock()
	if dup {
		s.refuse(conn, fmt.Sprintf("rank %d is already connected", rank))
		return
	}
	defer close(p.done)
	conn.SetReadDeadline(time.Time{})
	if p.send(launchwire.TypeWelcome, binary.LittleEndian.AppendUint32(nil, uint32(s.npes))) != nil {
		return
	}
	s.serve(p, br)
}

func (s *Server) refuse(conn net.Conn, reason string) {
	s.logf("warning: refused a bootstrap connection: %s", reason)
	conn.SetWriteDeadline(time.Now().Add(time.Second))
	launchwire.WriteFrame(conn, launchwire.TypeError, []byte(reason))
}

func (s *Server) serve(p *peer, br *bufio.Reader) {
	for {
		typ, payload, err := launchwire.ReadFrame(br)
		if err != nil {
			// A plain disconnect is judged by the launcher once the
			// process exits; only garbage is worth a warning here.
			if errors.Is(err, launchwire.ErrMalformed) || errors.Is(err, launchwire.ErrFrameTooLarge) {
				s.logf("warning: PE %d: %v", p.rank, err)
			}
			return
		}
		switch typ {
		case launchwire.TypeAllgather:
			seq, data, err := launchwire.ParseAllgather(payload)
			if err == nil {
				err = s.contribute(p, seq, data)
			}
			if err != nil {
				s.logf("warning: PE %d: %v; dropping its bootstrap connection", p.rank, err)
				return
			}
		case launchwire.TypeAbort:
			code, msg, err := launchwire.ParseAbort(payload)
			if err != nil {
				s.logf("warning: PE %d: %v", p.rank, err)
				return
			}
			s.abort(p, int(code), msg)
		case launchwire.TypeBye:
			p.bye.Store(true)
			return
		default:
			s.logf("warning: PE %d sent a frame of unknown type %d; dropping its bootstrap connection", p.rank, typ)
			return
		}
	}
}

func (s *Server) contribute(p *peer, seq uint64, data []byte) error {
	s.mu.Lock()
	if seq != p.lastSeq+1 {
		last := p.lastSeq
		s.mu.Unlock()
		return fmt.Errorf("allgather %d out of order (previous was %d)", seq, last)
	}
	p.lastSeq = seq
	g := s.gathers[seq]
	if g == nil {
		g = &gather{data: make([][]byte, s.npes)}
		s.gathers[seq] = g
	}
	g.data[p.rank] = data
	g.count++
	if g.count < s.npes {
		s.mu.Unlock()
		return nil
	}
	delete(s.gathers, seq)
	peers := slices.Clone(s.peers)
	s.wg.Add(1)
	s.mu.Unlock()

	typ, payload := launchwire.TypeAllgatherResult, launchwire.AllgatherResultPayload(seq, g.data)
	if len(payload)+1 > launchwire.MaxFrame {
		typ, payload = launchwire.TypeError, fmt.Appendf(nil, "allgather %d: result of %d bytes exceeds the %d-byte frame limit", seq, len(payload), launchwire.MaxFrame-1)
	}
	// Off the reader goroutine: a PE slow to read its result must not stop
	// this connection from delivering an abort or a bye.
	go func() {
		defer s.wg.Done()
		for _, q := range peers {
			q.send(typ, payload)
		}
	}()
	return nil
}

func (s *Server) abort(p *peer, code int, msg string) {
	s.mu.Lock()
	first := !p.aborted
	p.aborted = true
	s.mu.Unlock()
	if first {
		s.aborts <- AbortEvent{Rank: p.rank, Code: code, Msg: msg}
	}
}

// send's error may be ignored: a PE whose connection is gone is dealt with
// when its process exits.
func (p *peer) send(typ byte, payload []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return launchwire.WriteFrame(p.conn, typ, payload)
}
