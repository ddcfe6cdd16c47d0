package shmem

import (
	"fmt"
	"os"

	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Topology says how a job was started and how this PE reaches each peer.
type Topology struct {
	// Bootstrap is the bootstrap's name ("local", "pmi", "pmi2", "env",
	// "singleton", "inproc"); Via says over what it talks, Why why it was
	// chosen (GSHMEM_BOOTSTRAP or what was detected).
	Bootstrap, Via, Why string
	// Node is every PE's node number: PEs share a node when they proved
	// they can map each other's heap (or GSHMEM_NODE_ID split them).
	Node []int
	// Host is every PE's host name, as it reported it (informational:
	// locality is never decided by name).
	Host []string
	// Transport is how this PE reaches each PE: "self", "shm", "tcp" or
	// "ucx".
	Transport []string
	// TCPAddr is each PE's tcp listener ("" where it has none).
	TCPAddr []string
	// Lanes is, for each PE this PE reaches over ucx, the lanes UCX chose
	// ("tcp/eth0 (am am_bw ...)"); "" for the other PEs.
	Lanes []string
}

// UCXBuilt says whether this program can reach other nodes over UCX
// (GSHMEM_REMOTE_TRANSPORT=ucx): a cgo build with -tags ucx.
const UCXBuilt = transport.UCXBuilt

// Topology returns how the job was started and how this PE reaches each
// peer. Goroutine PEs (Run) all share one node and reach each other by shm.
func (w *World) Topology() Topology {
	t := Topology{Bootstrap: w.boot.Name(), Via: bootstrap.Via(w.boot), Why: w.bootWhy}
	if j := w.job; j != nil {
		t.Node = append([]int(nil), j.Node...)
		t.Host = append([]string(nil), j.Host...)
		t.Transport = append([]string(nil), j.Kind...)
		t.TCPAddr = append([]string(nil), j.TCPAddr...)
		t.Lanes = make([]string, len(j.Node))
		copy(t.Lanes, j.Lanes)
		return t
	}
	t.Node = make([]int, w.npes)
	t.Host = make([]string, w.npes)
	t.Transport = make([]string, w.npes)
	t.TCPAddr = make([]string, w.npes)
	t.Lanes = make([]string, w.npes)
	for pe := range t.Transport {
		t.Transport[pe] = "shm"
	}
	t.Transport[w.pe] = "self"
	if t.Why == "" {
		t.Why = "shmem.Run: goroutine PEs"
	}
	return t
}

// DetectBootstrap says which bootstrap Init would use in this environment
// and why, without joining the job: GSHMEM_BOOTSTRAP when set, else what
// the launcher's variables show. err explains a launcher that was
// recognized but cannot be joined (for example mpirun without
// GSHMEM_BOOTSTRAP_ADDR).
func DetectBootstrap() (name, why string, err error) {
	if v := os.Getenv("GSHMEM_BOOTSTRAP"); v != "" {
		return v, "GSHMEM_BOOTSTRAP=" + v, nil
	}
	name, why, err = bootstrap.Detect(os.Getenv)
	if err != nil {
		err = fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return name, why, err
}
