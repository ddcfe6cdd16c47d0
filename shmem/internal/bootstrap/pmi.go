package bootstrap

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// PMI joins a job through the PMI-1 wire protocol: over the socket inherited
// in PMI_FD (mpiexec.hydra, srun --mpi=pmi2), or over TCP to PMI_PORT,
// introducing itself with PMI_ID (mpiexec.hydra -pmi-port).
func PMI(ctx context.Context, getenv func(string) string) (Bootstrap, error) {
	b := &pmi1{}
	var conn net.Conn
	var err error
	port := getenv("PMI_PORT")
	switch {
	case getenv("PMI_FD") != "":
		if conn, err = pmiFD(getenv); err != nil {
			return nil, err
		}
		b.via = "PMI_FD=" + getenv("PMI_FD")
	case port != "":
		var d net.Dialer
		if conn, err = d.DialContext(ctx, "tcp", port); err != nil {
			return nil, fmt.Errorf("bootstrap: PMI-1: connecting to PMI_PORT=%s: %w", port, err)
		}
		b.via = "PMI_PORT=" + port
	default:
		return nil, fmt.Errorf("bootstrap: PMI-1 needs PMI_FD (set by mpiexec.hydra and srun --mpi=pmi2) or PMI_PORT and PMI_ID (mpiexec.hydra -pmi-port); neither is set")
	}
	b.c = newPMIConn("PMI-1", conn)
	if err := b.init(ctx, getenv); err != nil {
		conn.Close()
		return nil, err
	}
	return b, nil
}

type pmi1 struct {
	c            *pmiConn
	via          string
	rank, size   int
	lrank, lsize int
	kvsname      string
	vallen       int
	seq          uint64
}

func (b *pmi1) init(ctx context.Context, getenv func(string) string) error {
	b.rank, b.size = -1, -1
	return b.c.exchange(ctx, "init", func() error {
		if strings.HasPrefix(b.via, "PMI_PORT") {
			id := getenv("PMI_ID")
			if _, err := strconv.Atoi(id); err != nil {
				return fmt.Errorf("%w: PMI_PORT is set but PMI_ID=%q is not a number", ErrPMIProtocol, id)
			}
			if err := b.c.write([]byte(formatPMI1("initack", "pmiid", id))); err != nil {
				return err
			}
			// cmd=initack, then cmd=set size=N, rank=R, debug=D.
			m, err := readPMI1(b.c.br)
			if err != nil {
				return err
			}
			if err := expect(m, "initack"); err != nil {
				return err
			}
			for b.rank < 0 || b.size < 0 {
				m, err := readPMI1(b.c.br)
				if err != nil {
					return err
				}
				if m.cmd != "set" {
					return fmt.Errorf("%w: expected cmd=set after initack, got %q", ErrPMIProtocol, clip(m.String()))
				}
				if v, ok := m.get("size"); ok {
					if b.size, err = strconv.Atoi(v); err != nil {
						return fmt.Errorf("%w: cmd=set size=%q", ErrPMIProtocol, v)
					}
				}
				if v, ok := m.get("rank"); ok {
					if b.rank, err = strconv.Atoi(v); err != nil {
						return fmt.Errorf("%w: cmd=set rank=%q", ErrPMIProtocol, v)
					}
				}
			}
			// Hydra sends "cmd=set debug=0" last; it is read (and
			// skipped) before the reply to init below.
		} else {
			var err error
			if b.rank, err = strconv.Atoi(getenv("PMI_RANK")); err != nil {
				return fmt.Errorf("%w: PMI_FD is set but PMI_RANK=%q is not a number", ErrPMIProtocol, getenv("PMI_RANK"))
			}
			if b.size, err = strconv.Atoi(getenv("PMI_SIZE")); err != nil {
				return fmt.Errorf("%w: PMI_FD is set but PMI_SIZE=%q is not a number", ErrPMIProtocol, getenv("PMI_SIZE"))
			}
		}
		if b.size < 1 || b.rank < 0 || b.rank >= b.size {
			return fmt.Errorf("%w: rank %d out of range for a job of %d", ErrPMIProtocol, b.rank, b.size)
		}
		m, err := b.call(formatPMI1("init", "pmi_version", "1", "pmi_subversion", "1"), "response_to_init")
		if err != nil {
			return err
		}
		if v, _ := m.get("pmi_version"); v != "" && v != "1" {
			return fmt.Errorf("%w: the server answered init with pmi_version=%s", ErrPMIProtocol, v)
		}
		if m, err = b.call(formatPMI1("get_maxes"), "maxes"); err != nil {
			return err
		}
		b.vallen = 256
		if n, err := atoiField(m, "vallen_max"); err == nil && n > 0 {
			b.vallen = n
		}
		if m, err = b.call(formatPMI1("get_my_kvsname"), "my_kvsname"); err != nil {
			return err
		}
		var ok bool
		if b.kvsname, ok = m.get("kvsname"); !ok || b.kvsname == "" {
			return fmt.Errorf("%w: my_kvsname without a name", ErrPMIProtocol)
		}
		b.lrank, b.lsize = 0, 1
		if lr, ls, ok := localFromEnv(getenv); ok {
			b.lrank, b.lsize = lr, ls
		} else if v, found, err := b.getLocked("PMI_process_mapping"); err == nil && found {
			if nodes, err := parseProcessMapping(v, b.size); err == nil {
				b.lrank, b.lsize = localFromMapping(nodes, b.rank)
			}
		}
		return nil
	})
}

// call sends a request and reads its reply, skipping the unsolicited
// "cmd=set" lines of the PMI_PORT handshake.
func (b *pmi1) call(req, want string) (pmiMsg, error) {
	if err := b.c.write([]byte(req)); err != nil {
		return pmiMsg{}, err
	}
	for {
		m, err := readPMI1(b.c.br)
		if err != nil {
			return pmiMsg{}, err
		}
		if m.cmd == "set" {
			continue
		}
		return m, expect(m, want)
	}
}

func (b *pmi1) Name() string   { return "pmi" }
func (b *pmi1) Rank() int      { return b.rank }
func (b *pmi1) Size() int      { return b.size }
func (b *pmi1) LocalRank() int { return b.lrank }
func (b *pmi1) LocalSize() int { return b.lsize }

// Via says which channel the bootstrap uses, for gshmem info.
func (b *pmi1) Via() string { return "PMI-1 over " + b.via + ", kvs " + b.kvsname }

func (b *pmi1) put(ctx context.Context, key, val string) error {
	return b.c.exchange(ctx, "put", func() error {
		_, err := b.call(formatPMI1("put", "kvsname", b.kvsname, "key", key, "value", val), "put_result")
		return err
	})
}

func (b *pmi1) fence(ctx context.Context) error {
	return b.c.exchange(ctx, "barrier", func() error {
		_, err := b.call(formatPMI1("barrier_in"), "barrier_out")
		return err
	})
}

func (b *pmi1) get(ctx context.Context, key string) (val string, found bool, err error) {
	err = b.c.exchange(ctx, "get", func() error {
		val, found, err = b.getLocked(key)
		return err
	})
	return val, found, err
}

// getLocked is get within an exchange. A missing key is rc=-1 with
// value=unknown (Hydra) or rc=1 (Slurm): not found rather than failure.
func (b *pmi1) getLocked(key string) (string, bool, error) {
	if err := b.c.write([]byte(formatPMI1("get", "kvsname", b.kvsname, "key", key))); err != nil {
		return "", false, err
	}
	var m pmiMsg
	var err error
	for {
		if m, err = readPMI1(b.c.br); err != nil {
			return "", false, err
		}
		if m.cmd != "set" {
			break
		}
	}
	if m.cmd != "get_result" {
		return "", false, fmt.Errorf("%w: expected get_result, got %q", ErrPMIProtocol, clip(m.String()))
	}
	rc, err := m.rc()
	if err != nil {
		return "", false, err
	}
	v, ok := m.get("value")
	if rc != 0 || !ok {
		return "", false, nil
	}
	return v, true, nil
}

func (b *pmi1) maxVal() int { return b.vallen }

func (b *pmi1) Allgather(ctx context.Context, data []byte) ([][]byte, error) {
	b.seq++
	return kvsAllgather(ctx, b, b.seq, b.rank, b.size, data)
}

func (b *pmi1) Barrier(ctx context.Context) error { return b.fence(ctx) }

// Abort asks the launcher to stop the job; it does not wait for an answer.
func (b *pmi1) Abort(code int, msg string) error {
	_ = b.c.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	return b.c.write([]byte(formatPMI1("abort", "exitcode", strconv.Itoa(code))))
}

func (b *pmi1) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := b.c.exchange(ctx, "finalize", func() error {
		_, err := b.call(formatPMI1("finalize"), "finalize_ack")
		return err
	})
	if cerr := b.c.close(); err == nil {
		err = cerr
	}
	return err
}
