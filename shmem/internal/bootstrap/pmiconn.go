package bootstrap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
)

// pmiConn is a PMI client connection: requests are written whole under wmu
// (so Abort can slip in between two requests of a blocked collective) and
// exchanges (request plus reply) are serialized by mu.
type pmiConn struct {
	proto string // "PMI-1" or "PMI-2", for messages
	c     net.Conn
	br    *bufio.Reader
	mu    sync.Mutex
	wmu   sync.Mutex
	broke error // sticky: after a failed exchange the stream position is unknown
}

// pmiFD wraps the descriptor a launcher passed in PMI_FD.
func pmiFD(getenv func(string) string) (net.Conn, error) {
	s := getenv("PMI_FD")
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("bootstrap: PMI_FD=%q is not a descriptor number", s)
	}
	f := os.NewFile(uintptr(fd), "PMI_FD")
	if f == nil {
		return nil, fmt.Errorf("bootstrap: PMI_FD=%d is not an open descriptor", fd)
	}
	c, err := net.FileConn(f) // dups the descriptor
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("bootstrap: PMI_FD=%d is not a socket from the launcher: %w (was this process started by mpiexec.hydra or srun --mpi=pmi2?)", fd, err)
	}
	return c, nil
}

func newPMIConn(proto string, c net.Conn) *pmiConn {
	return &pmiConn{proto: proto, c: c, br: bufio.NewReaderSize(c, 4096)}
}

func (p *pmiConn) write(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.c.Write(b)
	return err
}

// exchange runs fn with the connection's deadline tied to ctx.
func (p *pmiConn) exchange(ctx context.Context, what string, fn func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broke != nil {
		return fmt.Errorf("bootstrap: %s connection unusable after an earlier failure: %w", p.proto, p.broke)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bootstrap: %s %s: %w", p.proto, what, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = p.c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = p.c.SetDeadline(time.Unix(1, 0)) })
	err := fn()
	stop()
	_ = p.c.SetDeadline(time.Time{})
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, ErrPMIProtocol):
	case ctx.Err() != nil:
		err = fmt.Errorf("%w (other PEs may not have reached this point)", ctx.Err())
	default:
		err = fmt.Errorf("lost the connection to the launcher's PMI server: %w", err)
	}
	err = fmt.Errorf("bootstrap: %s %s: %w", p.proto, what, err)
	p.broke = err
	return err
}

func (p *pmiConn) close() error { return p.c.Close() }

// expect checks a reply's command and return code.
func expect(m pmiMsg, cmd string) error {
	if m.cmd != cmd {
		return fmt.Errorf("%w: expected %s, got %q", ErrPMIProtocol, cmd, clip(m.String()))
	}
	rc, err := m.rc()
	if err != nil {
		return err
	}
	if rc != 0 {
		msg, _ := m.get("msg")
		if msg == "" {
			msg, _ = m.get("errmsg")
		}
		return fmt.Errorf("%w: %s failed with rc=%d %s", ErrPMIProtocol, cmd, rc, msg)
	}
	return nil
}

func atoiField(m pmiMsg, key string) (int, error) {
	v, ok := m.get(key)
	if !ok {
		return 0, fmt.Errorf("%w: %s reply lacks %s", ErrPMIProtocol, m.cmd, key)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q in %s is not a number", ErrPMIProtocol, key, v, m.cmd)
	}
	return n, nil
}

// localFromMapping turns a node-per-rank table into this rank's place on its
// node. It is only the launcher's word: the runtime proves locality itself.
func localFromMapping(nodes []int, rank int) (lrank, lsize int) {
	for r, n := range nodes {
		if n == nodes[rank] {
			if r < rank {
				lrank++
			}
			lsize++
		}
	}
	return lrank, lsize
}

// localFromEnv reads the node-local rank and size some launchers export
// (Hydra: MPI_LOCALRANKID/MPI_LOCALNRANKS; Slurm: SLURM_LOCALID with
// SLURM_TASKS_PER_NODE's first count).
func localFromEnv(getenv func(string) string) (lrank, lsize int, ok bool) {
	try := func(rk, sk string) bool {
		r, err1 := strconv.Atoi(getenv(rk))
		s, err2 := strconv.Atoi(getenv(sk))
		if err1 == nil && err2 == nil && r >= 0 && r < s {
			lrank, lsize = r, s
			return true
		}
		return false
	}
	if try("MPI_LOCALRANKID", "MPI_LOCALNRANKS") || try("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE") {
		return lrank, lsize, true
	}
	return 0, 0, false
}
