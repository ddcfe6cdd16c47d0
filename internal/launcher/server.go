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

	"github.com/gshmem/gshmem/internal/guard"
	"github.com/gshmem/gshmem/internal/launchwire"
)

// Before a connection has proved it holds the job secret it is anyone's:
// the socket is abstract, so every local user can reach it. It gets
// helloTimeout to send its hello, one of maxPending slots, and a hello
// frame of at most maxHello bytes (a rank and a 32-byte secret), so that
// strangers cannot pin goroutines or make the launcher allocate.
var helloTimeout = 3 * time.Second

// refusalInterval is how often a flood of refusals is summarized.
var refusalInterval = guard.DefaultInterval

const (
	maxPending = 64
	maxHello   = 1 + 4 + 256
)

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
	npes     int
	secret   []byte
	uid      uint32 // the only user whose processes may connect
	logf     func(format string, args ...any)
	gate     *guard.Gate
	refusals *guard.Refusals
	ln       net.Listener
	aborts   chan AbortEvent
	wg       sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	peers   []*peer
	joined  int           // PEs that ever joined
	first   chan struct{} // closed when the first PE joins
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
		npes:     npes,
		secret:   slices.Clone(secret),
		uid:      guard.MyUID(),
		logf:     logf,
		gate:     guard.NewGate(maxPending, helloTimeout),
		refusals: guard.NewRefusals("warning: bootstrap socket", logf, refusalInterval),
		ln:       ln,
		aborts:   make(chan AbortEvent, npes), // one per rank at most, so sends never block
		peers:    make([]*peer, npes),
		first:    make(chan struct{}),
		conns:    make(map[net.Conn]struct{}),
		gathers:  make(map[uint64]*gather),
	}
}

// FirstJoin is closed when the first PE has joined.
func (s *Server) FirstJoin() <-chan struct{} { return s.first }

// Joined returns how many PEs have joined so far.
func (s *Server) Joined() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.joined
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

// admit runs the checks that need no data from the peer: its user, and a
// free slot for an unauthenticated connection.
func (s *Server) admit(conn net.Conn) (*guard.Pending, error) {
	if _, ok := conn.(*net.UnixConn); ok {
		if err := guard.CheckUser(conn, s.uid); err != nil {
			return nil, err
		}
	}
	return s.gate.Admit(conn)
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
	s.gate.Close()
	for _, c := range conns {
		c.Close()
	}
	s.wg.Wait()
	s.refusals.Close()
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
	pend, err := s.admit(conn)
	if err != nil {
		s.refusals.Refuse("", err.Error())
		return
	}
	rank, err := s.hello(pend)
	if err != nil {
		pend.Done(false)
		if err != errQuiet && !s.isClosed() {
			s.refuse(conn, err.Error())
		}
		return
	}
	p := &peer{rank: int(rank), conn: pend, done: make(chan struct{})}
	s.mu.Lock()
	dup := s.peers[rank] != nil
	if !dup {
		s.peers[rank] = p
		if s.joined++; s.joined == 1 {
			close(s.first)
		}
	}
	s.mu.Unlock()
	if dup {
		pend.Done(false)
		s.refuse(conn, fmt.Sprintf("rank %d is already connected", rank))
		return
	}
	pend.Done(true)
	defer close(p.done)
	if p.send(launchwire.TypeWelcome, binary.LittleEndian.AppendUint32(nil, uint32(s.npes))) != nil {
		return
	}
	s.serve(p, bufio.NewReader(conn))
}

// errQuiet is a hello that never came because the peer hung up: a PE
// killed while dialing does that, and its exit status tells the story.
var errQuiet = errors.New("hung up before its hello")

// hello reads and checks the first frame, reading no more than maxHello
// bytes whatever length the frame claims.
func (s *Server) hello(pend *guard.Pending) (uint32, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(pend, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
			return 0, errQuiet
		}
		return 0, fmt.Errorf("no hello: %v", err)
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n == 0 || n > maxHello {
		return 0, fmt.Errorf("a first frame of %d bytes; a hello has at most %d", n, maxHello)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(pend, frame); err != nil {
		return 0, fmt.Errorf("no hello: %v", unexpectedEOF(err))
	}
	if frame[0] != launchwire.TypeHello {
		return 0, fmt.Errorf("first frame has type %d, want hello", frame[0])
	}
	rank, secret, err := launchwire.ParseHello(frame[1:])
	if err != nil {
		return 0, err
	}
	if subtle.ConstantTimeCompare(secret, s.secret) != 1 {
		return 0, errors.New("wrong job secret (is GSHMEM_JOB_SECRET from another job?)")
	}
	if rank >= uint32(s.npes) {
		return 0, fmt.Errorf("rank %d out of range for %d PEs", rank, s.npes)
	}
	return rank, nil
}

func (s *Server) refuse(conn net.Conn, reason string) {
	s.refusals.Refuse("", reason)
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

// unexpectedEOF reports a clean EOF inside a frame as what it is: a
// truncated frame.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
