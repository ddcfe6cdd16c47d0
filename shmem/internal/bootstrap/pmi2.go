package bootstrap

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PMI2 joins a job through the PMI-2 wire protocol over the socket inherited
// in PMI_FD (srun --mpi=pmi2, mpiexec.hydra). It sends the PMI-1 style
// "cmd=init pmi_version=2" line first, which Slurm requires and Hydra
// accepts, and fullinit with pmijobid whenever PMI_JOBID is set.
func PMI2(ctx context.Context, getenv func(string) string) (Bootstrap, error) {
	if getenv("PMI_FD") == "" {
		msg := "bootstrap: PMI-2 needs PMI_FD, set by srun --mpi=pmi2 and mpiexec.hydra; it is not set"
		if getenv("PMI_PORT") != "" {
			msg += " (PMI_PORT is: use GSHMEM_BOOTSTRAP=pmi for mpiexec.hydra -pmi-port)"
		} else if getenv("SLURM_PROCID") != "" {
			msg += " (this looks like srun without --mpi=pmi2)"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	conn, err := pmiFD(getenv)
	if err != nil {
		return nil, err
	}
	b := &pmi2{c: newPMIConn("PMI-2", conn), via: "PMI_FD=" + getenv("PMI_FD")}
	if err := b.init(ctx, getenv); err != nil {
		conn.Close()
		return nil, err
	}
	return b, nil
}

type pmi2 struct {
	c            *pmiConn
	via          string
	rank, size   int
	lrank, lsize int
	jobid        string
	seq          uint64
}

// call sends one PMI-2 request and reads its reply, which must be
// "<cmd>-response" with rc=0.
func (b *pmi2) call(cmd string, kv ...string) (pmiMsg, error) {
	if err := b.c.write(formatPMI2(cmd, kv...)); err != nil {
		return pmiMsg{}, err
	}
	m, err := readPMI2(b.c.br)
	if err != nil {
		return pmiMsg{}, err
	}
	return m, expect(m, cmd+"-response")
}

func (b *pmi2) init(ctx context.Context, getenv func(string) string) error {
	return b.c.exchange(ctx, "init", func() error {
		if err := b.c.write([]byte(formatPMI1("init", "pmi_version", "2", "pmi_subversion", "0"))); err != nil {
			return err
		}
		m, err := readPMI1(b.c.br)
		if err != nil {
			return err
		}
		if err := expect(m, "response_to_init"); err != nil {
			return err
		}
		if v, _ := m.get("pmi_version"); v != "2" {
			return fmt.Errorf("%w: the server offers PMI version %q, not 2 (use GSHMEM_BOOTSTRAP=pmi)", ErrPMIProtocol, v)
		}
		kv := []string{}
		if id := getenv("PMI_JOBID"); id != "" {
			kv = append(kv, "pmijobid", id)
		}
		if r := getenv("PMI_RANK"); r != "" {
			kv = append(kv, "pmirank", r)
		}
		kv = append(kv, "threaded", "FALSE")
		if m, err = b.call("fullinit", kv...); err != nil {
			return err
		}
		if b.rank, err = atoiField(m, "rank"); err != nil {
			return err
		}
		if b.size, err = atoiField(m, "size"); err != nil {
			return err
		}
		if b.size < 1 || b.rank < 0 || b.rank >= b.size {
			return fmt.Errorf("%w: fullinit gave rank %d of %d", ErrPMIProtocol, b.rank, b.size)
		}
		if m, err = b.call("job-getid"); err != nil {
			return err
		}
		b.jobid, _ = m.get("jobid")
		b.lrank, b.lsize = 0, 1
		if lr, ls, ok := localFromEnv(getenv); ok {
			b.lrank, b.lsize = lr, ls
		}
		if m, err = b.call("info-getjobattr", "key", "PMI_process_mapping"); err != nil {
			return err
		}
		if f, _ := m.get("found"); strings.EqualFold(f, "TRUE") {
			v, _ := m.get("value")
			if nodes, err := parseProcessMapping(v, b.size); err == nil {
				b.lrank, b.lsize = localFromMapping(nodes, b.rank)
			}
		}
		return nil
	})
}

func (b *pmi2) Name() string   { return "pmi2" }
func (b *pmi2) Rank() int      { return b.rank }
func (b *pmi2) Size() int      { return b.size }
func (b *pmi2) LocalRank() int { return b.lrank }
func (b *pmi2) LocalSize() int { return b.lsize }

// Via says which channel the bootstrap uses, for gshmem info.
func (b *pmi2) Via() string { return "PMI-2 over " + b.via + ", job " + b.jobid }

func (b *pmi2) put(ctx context.Context, key, val string) error {
	return b.c.exchange(ctx, "kvs-put", func() error {
		_, err := b.call("kvs-put", "key", key, "value", val)
		return err
	})
}

func (b *pmi2) fence(ctx context.Context) error {
	return b.c.exchange(ctx, "kvs-fence", func() error {
		_, err := b.call("kvs-fence")
		return err
	})
}

func (b *pmi2) get(ctx context.Context, key string) (val string, found bool, err error) {
	err = b.c.exchange(ctx, "kvs-get", func() error {
		m, err := b.call("kvs-get", "jobid", "", "srcid", "-1", "key", key)
		if err != nil {
			return err
		}
		if f, _ := m.get("found"); strings.EqualFold(f, "TRUE") {
			val, found = m.fields["value"], true
		}
		return nil
	})
	return val, found, err
}

// PMI-2 servers limit values to 1024 bytes (PMI2_MAX_VALLEN).
func (b *pmi2) maxVal() int { return 1024 }

func (b *pmi2) Allgather(ctx context.Context, data []byte) ([][]byte, error) {
	b.seq++
	return kvsAllgather(ctx, b, b.seq, b.rank, b.size, data)
}

func (b *pmi2) Barrier(ctx context.Context) error { return b.fence(ctx) }

// Abort asks the launcher to stop the job; it does not wait for an answer.
func (b *pmi2) Abort(code int, msg string) error {
	_ = b.c.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if len(msg) > 512 {
		msg = msg[:512]
	}
	return b.c.write(formatPMI2("abort", "isworld", "TRUE", "msg", msg+" (exit code "+strconv.Itoa(code)+")"))
}

func (b *pmi2) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := b.c.exchange(ctx, "finalize", func() error {
		_, err := b.call("finalize")
		return err
	})
	if cerr := b.c.close(); err == nil {
		err = cerr
	}
	return err
}
