package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/gshmem/gshmem/internal/launchwire"
)

// Names of the bootstraps GSHMEM_BOOTSTRAP selects.
const (
	NameLocal     = "local"
	NamePMI       = "pmi"
	NamePMI2      = "pmi2"
	NameEnv       = "env"
	NameSingleton = "singleton"
)

// ErrUnknown reports a GSHMEM_BOOTSTRAP value no bootstrap answers to.
var ErrUnknown = errors.New("bootstrap: unknown bootstrap")

// ErrNotDetected reports a launcher that was recognized but cannot be
// joined as configured.
var ErrNotDetected = errors.New("bootstrap: cannot join the launcher's job")

// Detect says which bootstrap fits the environment when GSHMEM_BOOTSTRAP is
// unset, and why. It looks, in order, for gshmem run (GSHMEM_LOCAL_ADDR),
// a PMI server (PMI_FD, or PMI_PORT with PMI_ID), and launcher rank
// variables with GSHMEM_BOOTSTRAP_ADDR. Rank variables of a job of more
// than one process without any way to rendezvous are an error (err wraps
// ErrNotDetected) rather than a silent job of one.
func Detect(getenv func(string) string) (name, why string, err error) {
	switch {
	case getenv(launchwire.EnvLocalAddr) != "":
		return NameLocal, "GSHMEM_LOCAL_ADDR is set (started by gshmem run)", nil
	case getenv("PMI_FD") != "":
		if getenv("SLURM_MPI_TYPE") == "pmi2" {
			return NamePMI2, "PMI_FD is set and SLURM_MPI_TYPE=pmi2 (srun --mpi=pmi2)", nil
		}
		return NamePMI, "PMI_FD is set (mpiexec.hydra or a PMI-1 server)", nil
	case getenv("PMI_PORT") != "" && getenv("PMI_ID") != "":
		return NamePMI, "PMI_PORT and PMI_ID are set (mpiexec.hydra -pmi-port)", nil
	}
	r, ok, rerr := RanksFromEnv(getenv)
	if ok && r.Source == "SLURM_PROCID/SLURM_NTASKS" && getenv("SLURM_STEP_ID") == "" {
		ok = false // a batch script, not a task of srun
	}
	switch {
	case rerr != nil:
		return "", "", fmt.Errorf("%w: %v", ErrNotDetected, rerr)
	case ok && getenv("GSHMEM_BOOTSTRAP_ADDR") != "":
		return NameEnv, r.Source + " and GSHMEM_BOOTSTRAP_ADDR are set", nil
	case ok && r.Size > 1:
		hint := "set GSHMEM_BOOTSTRAP_ADDR=host:port (an address on rank 0's node) and GSHMEM_JOB_SECRET (e.g. $(openssl rand -hex 16)) in every rank's environment"
		switch r.Source {
		case "OMPI_COMM_WORLD_*":
			hint = "Open MPI's mpirun serves only PMIx, so pass a rendezvous address and a job secret: export GSHMEM_JOB_SECRET=$(openssl rand -hex 16); mpirun -x GSHMEM_BOOTSTRAP_ADDR=<rank 0's host>:<free port> -x GSHMEM_JOB_SECRET ..."
		case "SLURM_PROCID/SLURM_NTASKS":
			hint = "use srun --mpi=pmi2 (PMI_FD), or set GSHMEM_BOOTSTRAP_ADDR and GSHMEM_JOB_SECRET"
		}
		return "", "", fmt.Errorf("%w: this process is rank %d of %d according to %s, but there is no PMI_FD, PMI_PORT or GSHMEM_BOOTSTRAP_ADDR to meet the other ranks: %s",
			ErrNotDetected, r.Rank, r.Size, r.Source, hint)
	}
	return NameSingleton, "no launcher variables found: a job of one PE", nil
}

// Config is what Open needs besides the environment.
type Config struct {
	Name   string // GSHMEM_BOOTSTRAP; "" detects
	Addr   string // GSHMEM_BOOTSTRAP_ADDR
	Secret []byte // GSHMEM_JOB_SECRET, raw
	// Listener, when set, is rank 0's socket at Addr for the env
	// bootstrap, opened before the job's address was handed out (a
	// unique id): serve takes it instead of listening again.
	Listener net.Listener
	// Logf receives warnings, such as the env rendezvous' refusals.
	Logf func(format string, args ...any)
}

// Open joins the job with the named bootstrap, or the detected one when
// name is empty. why says how it was chosen.
func Open(ctx context.Context, c Config, getenv func(string) string) (b Bootstrap, why string, err error) {
	name := c.Name
	why = "GSHMEM_BOOTSTRAP=" + name
	if name == "" {
		if name, why, err = Detect(getenv); err != nil {
			return nil, "", err
		}
	}
	switch name {
	case NameSingleton:
		return Singleton(), why, nil
	case NameLocal:
		env, ok, err := launchwire.EnvFromEnviron(getenv)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", fmt.Errorf("%w: GSHMEM_BOOTSTRAP=local but GSHMEM_LOCAL_ADDR is unset: start the program with `gshmem run`", ErrNotDetected)
		}
		b, err = Local(ctx, env)
		return b, why, err
	case NamePMI:
		b, err = PMI(ctx, getenv)
		return b, why, err
	case NamePMI2:
		b, err = PMI2(ctx, getenv)
		return b, why, err
	case NameEnv:
		b, err = Env(ctx, getenv, c)
		return b, why, err
	}
	return nil, "", fmt.Errorf("%w: GSHMEM_BOOTSTRAP=%q: want local, pmi, pmi2, env or singleton (or unset, to detect)", ErrUnknown, name)
}

// Via describes a bootstrap's channel for gshmem info.
func Via(b Bootstrap) string {
	if v, ok := b.(interface{ Via() string }); ok {
		return v.Via()
	}
	switch b.Name() {
	case NameLocal:
		return "gshmem run's unix socket"
	case "inproc":
		return "goroutines of one process"
	}
	return b.Name() + " with " + strconv.Itoa(b.Size()) + " PEs"
}

// WithNode returns b with its node-local rank and size replaced by what the
// runtime proved (PEs that could map each other's memory).
func WithNode(b Bootstrap, localRank, localSize int) Bootstrap {
	return &withNode{Bootstrap: b, lr: localRank, ls: localSize}
}

type withNode struct {
	Bootstrap
	lr, ls int
}

func (w *withNode) LocalRank() int { return w.lr }
func (w *withNode) LocalSize() int { return w.ls }
func (w *withNode) Via() string    { return Via(w.Bootstrap) }
