package bootstrap

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gshmem/gshmem/internal/guard"
)

// Ranks is what a launcher's environment says about this process.
type Ranks struct {
	Rank, Size           int
	LocalRank, LocalSize int
	Source               string // the variables used, e.g. "OMPI_COMM_WORLD_*"
}

// rankSources lists the launchers' variables, most specific first.
var rankSources = []struct {
	source, rank, size, lrank, lsize string
}{
	{"OMPI_COMM_WORLD_*", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
	{"PMI_RANK/PMI_SIZE", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
	{"SLURM_PROCID/SLURM_NTASKS", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", ""},
	{"GSHMEM_RANK/GSHMEM_NPES", "GSHMEM_RANK", "GSHMEM_NPES", "GSHMEM_LOCAL_RANK", "GSHMEM_LOCAL_SIZE"},
}

// RanksFromEnv reads rank and size from the first launcher whose variables
// are set: Open MPI (OMPI_COMM_WORLD_*), Hydra and Slurm's PMI (PMI_RANK,
// PMI_SIZE), Slurm (SLURM_PROCID, SLURM_NTASKS) or GSHMEM_RANK/GSHMEM_NPES.
// ok is false when none is set.
func RanksFromEnv(getenv func(string) string) (r Ranks, ok bool, err error) {
	for _, s := range rankSources {
		rs, ss := getenv(s.rank), getenv(s.size)
		if rs == "" && ss == "" {
			continue
		}
		r.Source = s.source
		if r.Rank, err = strconv.Atoi(rs); err != nil {
			return r, true, fmt.Errorf("bootstrap: %s=%q is not a number", s.rank, rs)
		}
		if r.Size, err = strconv.Atoi(ss); err != nil {
			return r, true, fmt.Errorf("bootstrap: %s=%q is not a number (with %s=%s)", s.size, ss, s.rank, rs)
		}
		if r.Size < 1 || r.Rank < 0 || r.Rank >= r.Size {
			return r, true, fmt.Errorf("bootstrap: %s=%d is out of range for %s=%d", s.rank, r.Rank, s.size, r.Size)
		}
		r.LocalRank, r.LocalSize = 0, 1
		if lr, err := strconv.Atoi(getenv(s.lrank)); err == nil && lr >= 0 {
			r.LocalRank = lr
			r.LocalSize = lr + 1
			if s.lsize != "" {
				if ls, err := strconv.Atoi(getenv(s.lsize)); err == nil && ls > lr {
					r.LocalSize = ls
				}
			}
		}
		return r, true, nil
	}
	return r, false, nil
}

// Env joins a job whose launcher only exports rank and size (Open MPI's
// mpirun, or any other): rank 0 listens at c.Addr (GSHMEM_BOOTSTRAP_ADDR,
// host:port of rank 0's node), every other rank connects to it, and rank 0
// answers the allgathers. That port is open to anyone who can reach it and
// the job's keys travel through it, so a job of more than one rank needs
// c.Secret (GSHMEM_JOB_SECRET), which both sides prove they hold before
// anything else is said; without it Env fails with ErrNoSecret.
func Env(ctx context.Context, getenv func(string) string, c Config) (Bootstrap, error) {
	r, ok, err := RanksFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("bootstrap: env: no rank variables found: expected OMPI_COMM_WORLD_RANK/SIZE (mpirun), PMI_RANK/PMI_SIZE, SLURM_PROCID/SLURM_NTASKS or GSHMEM_RANK/GSHMEM_NPES")
	}
	addr := c.Addr
	if addr == "" {
		return nil, fmt.Errorf("bootstrap: env: rank %d of %d (from %s) needs GSHMEM_BOOTSTRAP_ADDR=host:port, an address on rank 0's node where it can listen (for mpirun: -x GSHMEM_BOOTSTRAP_ADDR=...)", r.Rank, r.Size, r.Source)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("bootstrap: env: GSHMEM_BOOTSTRAP_ADDR=%q is not host:port: %v", addr, err)
	}
	if r.Size > 1 && len(c.Secret) < MinSecret {
		what := "is not set"
		if len(c.Secret) > 0 {
			what = fmt.Sprintf("has %d characters, fewer than %d", len(c.Secret), MinSecret)
		}
		return nil, fmt.Errorf("%w: rank %d of %d: GSHMEM_JOB_SECRET %s. The env bootstrap meets at GSHMEM_BOOTSTRAP_ADDR=%s, a TCP port anyone who can reach it may connect to, and the job's keys pass through it, so every rank needs the same secret that only this job knows: export GSHMEM_JOB_SECRET=$(openssl rand -hex 16), then mpirun -x GSHMEM_JOB_SECRET -x GSHMEM_BOOTSTRAP_ADDR=%s ... (-x with the name alone passes the value without putting it on a command line that other users can read)",
			ErrNoSecret, r.Rank, r.Size, what, addr, addr)
	}
	logf := c.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	b := &envBoot{r: r, addr: addr, key: c.Secret, logf: logf, ln: c.Listener}
	if r.Size == 1 {
		return b, nil
	}
	if r.Rank == 0 {
		err = b.serve(ctx)
	} else {
		err = b.dial(ctx)
	}
	if err != nil {
		b.closeConns()
		return nil, err
	}
	return b, nil
}

// MinSecret is the shortest GSHMEM_JOB_SECRET the env bootstrap accepts:
// `openssl rand -hex 16` gives 32 characters.
const MinSecret = 16

// ErrLost is wrapped when a rank's connection ended during a collective:
// it died, or finalized or failed while the others still waited.
var ErrLost = errors.New("bootstrap: a rank left the job")

// lostErr adds ErrLost to an I/O error that says the other side went away
// (end of file, a reset or broken connection), not one that timed out.
func lostErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("%w (%w)", err, ErrLost)
	}
	return err
}

// ErrNoSecret is wrapped when a job of several ranks would meet over the
// env bootstrap without a job secret.
var ErrNoSecret = errors.New("bootstrap: env: a job secret is required")

// The env rendezvous admits strangers under these bounds until the job's
// ranks have all joined; the port is reachable from the network.
var (
	envHelloTimeout    = 3 * time.Second
	envMaxPending      = 64
	envRefusalInterval = guard.DefaultInterval
)

type envBoot struct {
	r    Ranks
	addr string
	key  []byte
	logf func(format string, args ...any)
	seq  uint64

	mu    sync.Mutex // one collective at a time
	ln    net.Listener
	peers []*rdvConn // root: by rank (nil for 0); client: peers[0] is the root
	broke error
	// maxRead is what the most talkative stranger made rank 0 read.
	maxRead int64
}

type rdvConn struct {
	c  net.Conn
	br *bufio.Reader
}

func (b *envBoot) Name() string   { return "env" }
func (b *envBoot) Rank() int      { return b.r.Rank }
func (b *envBoot) Size() int      { return b.r.Size }
func (b *envBoot) LocalRank() int { return b.r.LocalRank }
func (b *envBoot) LocalSize() int { return b.r.LocalSize }

// Via says which channel the bootstrap uses, for gshmem info.
func (b *envBoot) Via() string {
	return "ranks from " + b.r.Source + ", TCP rendezvous at GSHMEM_BOOTSTRAP_ADDR=" + b.addr
}

// serve admits the other ranks. Connections are admitted concurrently,
// each with a short deadline for its hello, so that silent or slow
// strangers cannot keep the ranks out.
func (b *envBoot) serve(ctx context.Context) error {
	ln := b.ln
	if ln == nil {
		var lc net.ListenConfig
		var err error
		if ln, err = lc.Listen(ctx, "tcp", b.addr); err != nil {
			return fmt.Errorf("bootstrap: env: rank 0 cannot listen on GSHMEM_BOOTSTRAP_ADDR=%s: %w (it must be an address of the node running rank 0, with a free port)", b.addr, err)
		}
		b.ln = ln
	}
	b.peers = make([]*rdvConn, b.r.Size)
	tl := ln.(*net.TCPListener)
	if dl, ok := ctx.Deadline(); ok {
		_ = tl.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = tl.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	gate := guard.NewGate(envMaxPending, envHelloTimeout)
	refusals := guard.NewRefusals("bootstrap: env: rank 0 at "+b.addr, b.logf, envRefusalInterval)
	var wg sync.WaitGroup
	defer func() {
		gate.Close()
		wg.Wait()
		refusals.Close()
		b.maxRead = gate.MaxRead()
	}()
	var mu sync.Mutex // guards b.peers and missing until wg.Wait
	missing := b.r.Size - 1
	all := make(chan struct{})
	claim := func(rank uint32, rc *rdvConn) bool {
		mu.Lock()
		defer mu.Unlock()
		if rank == 0 || int(rank) >= b.r.Size || b.peers[rank] != nil {
			return false
		}
		b.peers[rank] = rc
		return true
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			select {
			case <-all:
				_ = ln.Close()
				return nil
			default:
			}
			mu.Lock()
			m := missing
			mu.Unlock()
			return fmt.Errorf("bootstrap: env: rank 0 waiting at %s for %d of %d ranks: %w (did every rank get the same GSHMEM_BOOTSTRAP_ADDR and GSHMEM_JOB_SECRET?)", b.addr, m, b.r.Size-1, err)
		}
		pend, err := gate.Admit(c)
		if err != nil {
			refusals.Refuse(c.RemoteAddr().String(), err.Error())
			_ = c.Close()
			continue
		}
		wg.Go(func() {
			if _, err := b.admit(pend, claim); err != nil {
				pend.Done(false)
				_ = pend.Close()
				refusals.Refuse(c.RemoteAddr().String(), err.Error())
				return
			}
			pend.Done(true)
			mu.Lock()
			defer mu.Unlock()
			if missing--; missing == 0 {
				close(all)
				_ = tl.SetDeadline(time.Unix(1, 0)) // wake Accept
			}
		})
	}
}

// admit authenticates one connection and claims its rank. Both sides
// prove they hold the key: the rank first, then rank 0 in its welcome, so
// that a process squatting on the port cannot pose as rank 0 either.
func (b *envBoot) admit(c *guard.Pending, claim func(uint32, *rdvConn) bool) (int, error) {
	nonce := random(32)
	if err := writeRdv(c, rdvChallenge, nonce); err != nil {
		return 0, err
	}
	typ, p, err := readRdvMax(c, rdvMaxHello)
	if err != nil {
		return 0, noHello(err)
	}
	refuse := func(why string) (int, error) {
		_ = writeRdv(c, rdvRefuse, []byte(why))
		return 0, errors.New(why)
	}
	if typ != rdvHello {
		return refuse(fmt.Sprintf("first message has type %d, not a hello", typ))
	}
	h, err := decodeHello(p)
	if err != nil {
		return refuse(err.Error())
	}
	want := rdvMAC(b.key, "C", nonce, h.nonce[:], h.rank, h.size)
	if !hmac.Equal(want[:], h.mac[:]) {
		return refuse("wrong job key: GSHMEM_JOB_SECRET differs from rank 0's")
	}
	if int(h.size) != b.r.Size {
		return refuse(fmt.Sprintf("job size %d, rank 0 has %d", h.size, b.r.Size))
	}
	rc := &rdvConn{c: c, br: bufio.NewReader(c)}
	if !claim(h.rank, rc) {
		return refuse(fmt.Sprintf("rank %d is invalid or already connected", h.rank))
	}
	proof := rdvMAC(b.key, "R", nonce, h.nonce[:], h.rank, h.size)
	if err := writeRdv(c, rdvWelcome, append(encodeU32(uint32(b.r.Size)), proof[:]...)); err != nil {
		claim(h.rank, nil)
		return 0, err
	}
	return int(h.rank), nil
}

func noHello(err error) error {
	if errors.Is(err, ErrRendezvous) {
		return err // says what was wrong with the frame
	}
	return errors.New(guard.NoHello(err))
}

func encodeU32(v uint32) []byte {
	return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
}

func random(n int) []byte {
	p := make([]byte, n)
	_, _ = rand.Read(p)
	return p
}

func (b *envBoot) dial(ctx context.Context) error {
	var lastErr error
	delay := 10 * time.Millisecond
	for {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", b.addr)
		if err == nil {
			if err = b.hello(c); err == nil {
				b.peers = []*rdvConn{{c: c, br: bufio.NewReader(c)}}
				return nil
			}
			_ = c.Close()
			if errors.Is(err, errRefused) || errors.Is(err, errImpostor) {
				return err
			}
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("bootstrap: env: rank %d could not join rank 0 at GSHMEM_BOOTSTRAP_ADDR=%s: %v (last error: %v; is rank 0 running on that node, and is the port free?)", b.r.Rank, b.addr, ctx.Err(), lastErr)
		case <-time.After(delay):
		}
		delay = min(delay*2, 500*time.Millisecond)
	}
}

var errRefused = errors.New("refused by rank 0")

// errImpostor is a listener at GSHMEM_BOOTSTRAP_ADDR that could not prove
// it holds the job key; nothing of this rank's is sent to it.
var errImpostor = errors.New("the process at GSHMEM_BOOTSTRAP_ADDR could not prove it holds GSHMEM_JOB_SECRET")

func (b *envBoot) hello(c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	typ, nonce, err := readRdvMax(c, rdvMaxHello)
	if err != nil {
		return err
	}
	if typ != rdvChallenge || len(nonce) != 32 {
		return fmt.Errorf("%w: expected a challenge from rank 0", ErrRendezvous)
	}
	h := rdvHelloMsg{rank: uint32(b.r.Rank), size: uint32(b.r.Size)}
	copy(h.nonce[:], random(32))
	h.mac = rdvMAC(b.key, "C", nonce, h.nonce[:], h.rank, h.size)
	if err := writeRdv(c, rdvHello, encodeHello(h)); err != nil {
		return err
	}
	typ, p, err := readRdvMax(c, 4<<10) // a welcome, or a refusal's reason
	if err != nil {
		return err
	}
	switch typ {
	case rdvWelcome:
		proof := rdvMAC(b.key, "R", nonce, h.nonce[:], h.rank, h.size)
		if len(p) != 4+32 || !hmac.Equal(p[4:], proof[:]) {
			return fmt.Errorf("bootstrap: env: rank %d: %w (another program on that port?)", b.r.Rank, errImpostor)
		}
		return nil
	case rdvRefuse:
		return fmt.Errorf("bootstrap: env: rank %d: %w: %s", b.r.Rank, errRefused, p)
	}
	return fmt.Errorf("%w: unexpected message type %d after hello", ErrRendezvous, typ)
}

func (b *envBoot) Allgather(ctx context.Context, data []byte) ([][]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broke != nil {
		return nil, fmt.Errorf("bootstrap: env: unusable after an earlier failure: %w", b.broke)
	}
	b.seq++
	if b.r.Size == 1 {
		return [][]byte{append([]byte(nil), data...)}, nil
	}
	var out [][]byte
	var err error
	conns := b.conns()
	for _, c := range conns {
		if dl, ok := ctx.Deadline(); ok {
			_ = c.SetDeadline(dl)
		}
	}
	stop := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			_ = c.SetDeadline(time.Unix(1, 0))
		}
	})
	if b.r.Rank == 0 {
		out, err = b.rootGather(data)
	} else {
		out, err = b.clientGather(data)
	}
	stop()
	for _, c := range conns {
		_ = c.SetDeadline(time.Time{})
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("bootstrap: env: allgather %d: %w (other ranks may not have reached it): %v", b.seq, ctx.Err(), err)
		}
		b.broke = err
	}
	return out, err
}

func (b *envBoot) conns() []net.Conn {
	var cs []net.Conn
	for _, p := range b.peers {
		if p != nil {
			cs = append(cs, p.c)
		}
	}
	return cs
}

func (b *envBoot) rootGather(data []byte) ([][]byte, error) {
	out := make([][]byte, b.r.Size)
	out[0] = append([]byte(nil), data...)
	for r := 1; r < b.r.Size; r++ {
		p := b.peers[r]
		typ, payload, err := readRdv(p.br)
		if err != nil {
			return nil, b.tellLost(r, lostErr(fmt.Errorf("bootstrap: env: rank 0 lost rank %d during allgather %d: %w", r, b.seq, err)))
		}
		switch typ {
		case rdvGather:
		case rdvAbort:
			code, msg, _ := decodeAbort(payload)
			return nil, fmt.Errorf("%w: rank %d aborted with code %d: %s", ErrAborted, r, code, msg)
		case rdvBye:
			return nil, b.tellLost(r, fmt.Errorf("%w: rank %d left the job (it finalized or gave up; see its output) while rank 0 waited for allgather %d", ErrLost, r, b.seq))
		default:
			return nil, fmt.Errorf("%w: rank %d sent type %d during allgather", ErrRendezvous, r, typ)
		}
		seq, d, err := decodeGather(payload)
		if err != nil {
			return nil, err
		}
		if seq != b.seq {
			return nil, fmt.Errorf("%w: rank %d is at allgather %d, rank 0 at %d", ErrRendezvous, r, seq, b.seq)
		}
		out[r] = d
	}
	res := encodeResult(b.seq, out)
	for r := 1; r < b.r.Size; r++ {
		if err := writeRdv(b.peers[r].c, rdvResult, res); err != nil {
			return nil, b.tellLost(r, lostErr(fmt.Errorf("bootstrap: env: rank 0 lost rank %d sending allgather %d: %w", r, b.seq, err)))
		}
	}
	return out, nil
}

func (b *envBoot) clientGather(data []byte) ([][]byte, error) {
	root := b.peers[0]
	if err := writeRdv(root.c, rdvGather, encodeGather(b.seq, data)); err != nil {
		return nil, lostErr(fmt.Errorf("bootstrap: env: rank %d lost rank 0: %w", b.r.Rank, err))
	}
	typ, p, err := readRdv(root.br)
	if err != nil {
		return nil, lostErr(fmt.Errorf("bootstrap: env: rank %d lost rank 0 during allgather %d: %w", b.r.Rank, b.seq, err))
	}
	switch typ {
	case rdvResult:
	case rdvAbort:
		code, msg, _ := decodeAbort(p)
		return nil, fmt.Errorf("%w: code %d: %s", ErrAborted, code, msg)
	case rdvBye:
		return nil, fmt.Errorf("%w: rank 0 left the job (it finalized or gave up; see its output) while rank %d waited for allgather %d", ErrLost, b.r.Rank, b.seq)
	case rdvLost:
		lost := -1
		if len(p) == 4 {
			lost = int(binary.LittleEndian.Uint32(p))
		}
		return nil, fmt.Errorf("%w: rank %d was lost (reported by rank 0) while rank %d waited for allgather %d", ErrLost, lost, b.r.Rank, b.seq)
	default:
		return nil, fmt.Errorf("%w: type %d while waiting for allgather %d", ErrRendezvous, typ, b.seq)
	}
	seq, out, err := decodeResult(p, b.r.Size)
	if err != nil {
		return nil, err
	}
	if seq != b.seq {
		return nil, fmt.Errorf("%w: result of allgather %d while waiting for %d", ErrRendezvous, seq, b.seq)
	}
	return out, nil
}

// tellLost passes on to the other ranks that rank lost is gone when err
// says so (rank 0 serves every collective: without it they would only
// learn that rank 0 gave up), and returns err.
func (b *envBoot) tellLost(lost int, err error) error {
	if !errors.Is(err, ErrLost) {
		return err
	}
	for r, p := range b.peers {
		if p != nil && r != lost {
			_ = p.c.SetWriteDeadline(time.Now().Add(time.Second))
			_ = writeRdv(p.c, rdvLost, encodeU32(uint32(lost)))
		}
	}
	return err
}

func (b *envBoot) Barrier(ctx context.Context) error {
	_, err := b.Allgather(ctx, nil)
	return err
}

// Abort tells the other side(s); the launcher stops the job when this
// process exits.
func (b *envBoot) Abort(code int, msg string) error {
	for _, c := range b.conns() {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = writeRdv(c, rdvAbort, encodeAbort(int32(code), msg))
	}
	return nil
}

func (b *envBoot) Close() error {
	for _, c := range b.conns() {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = writeRdv(c, rdvBye, nil)
	}
	b.closeConns()
	return nil
}

func (b *envBoot) closeConns() {
	for _, c := range b.conns() {
		_ = c.Close()
	}
	if b.ln != nil {
		_ = b.ln.Close()
	}
}

// RankVariables names every launcher variable RanksFromEnv reads, for a
// caller that sets the ranks itself and must hide the launcher's.
func RankVariables() []string {
	var out []string
	for _, s := range rankSources {
		for _, v := range []string{s.rank, s.size, s.lrank, s.lsize} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
