package transport

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
)

// remote is the transport to the PEs of other nodes: *TCP, or *UCX in a
// build with the ucx tag (GSHMEM_REMOTE_TRANSPORT).
type remote interface {
	Put(pe int, off uint64, src []byte) error
	PutNBI(pe int, off uint64, src []byte) error
	Get(pe int, off uint64, dst []byte) error
	GetNBI(pe int, off uint64, dst []byte) error
	Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error)
	// AtomicNBI and Accumulate are the Stream forms (see Stream).
	AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error
	Accumulate(pe int, a *Acc) error
	Fence() error
	Quiet() error
	// close says goodbye and waits (at most grace) for the peers' goodbyes
	// before it shuts down; shutdown releases everything at once.
	close(grace time.Duration)
	shutdown()
	tellLost(pe int)
	setLog(l logrus.FieldLogger)
}

// ucxConfig configures one PE's UCX transport.
type ucxConfig struct {
	Me, N     int
	Heap      []byte
	Secret    []byte
	Remote    []bool
	Timeout   time.Duration
	Log       logrus.FieldLogger
	Health    *health
	Allgather Allgather
}

// The remote transports, by GSHMEM_REMOTE_TRANSPORT.
const (
	RemoteTCP = "tcp"
	RemoteUCX = "ucx"
)

// errUnsupported is wrapped by the error for a transport this build lacks.
var errUnsupported = errors.ErrUnsupported

// CheckRemote validates a GSHMEM_REMOTE_TRANSPORT value ("" is tcp). ucx
// in a build without it is an error wrapping errors.ErrUnsupported.
func CheckRemote(name string) error {
	switch name {
	case "", RemoteTCP:
		return nil
	case RemoteUCX:
		if !UCXBuilt {
			return fmt.Errorf("transport: GSHMEM_REMOTE_TRANSPORT=ucx, but this program was built without UCX (build it with cgo, libucx-dev and -tags ucx): %w", errUnsupported)
		}
		return nil
	}
	return fmt.Errorf("transport: GSHMEM_REMOTE_TRANSPORT=%q: want tcp or ucx", name)
}

// Fence implements remote: each target's requests travel one ordered
// stream.
func (t *TCP) Fence() error { return nil }

// PutNBI implements remote: a tcp put never waits for the target (puts
// stream back to back and Quiet waits once per target), so it is Put.
func (t *TCP) PutNBI(pe int, off uint64, src []byte) error { return t.Put(pe, off, src) }

// jobKey is the key of the remote transports' authentication:
// GSHMEM_JOB_SECRET's hash, or else the one PE 0 drew and published
// through the bootstrap, whose channel only the job's processes can read.
func (k *connector) jobKey() []byte {
	if len(k.c.Secret) > 0 {
		s := sha256.Sum256(k.c.Secret)
		return s[:]
	}
	return k.peers[0].secret
}

// connectUCX reaches the PEs of other nodes over UCX. Every PE takes part
// in the exchange of addresses, also one whose peers are all local.
func (k *connector) connectUCX(ctx context.Context, remote []bool) error {
	u, lanes, err := startUCX(ctx, ucxConfig{
		Me: k.me, N: k.n, Heap: k.job.Heap, Secret: k.jobKey(), Remote: remote,
		Timeout: k.c.PeerTimeout, Log: k.c.Log, Health: k.m.h, Allgather: k.c.Allgather,
	})
	if err != nil {
		return err
	}
	for pe, r := range remote {
		if r {
			k.job.Kind[pe] = RemoteUCX
		}
	}
	k.job.Lanes = lanes
	if u != nil {
		k.m.tcpMu.Lock()
		k.m.rem = u
		k.m.tcpMu.Unlock()
	}
	return nil
}
