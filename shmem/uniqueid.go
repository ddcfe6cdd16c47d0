package shmem

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"

	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// UniqueIDSize is the size of a UniqueID: the internal bytes of NVSHMEM's
// 128-byte nvshmemx_uniqueid_t, whose first 4 bytes are its version.
const UniqueIDSize = 124

// UniqueID lets processes that no launcher started, or whose launcher
// gshmem cannot read, form a job: one process makes it (NewUniqueID), the
// application hands it to the others through its own channel (an MPI or
// torch.distributed broadcast, a file), and each passes it to Init with
// its rank and the job's size (WithUniqueID). It holds rank 0's
// rendezvous address and the job's secret, so it must travel only to the
// job's processes (the env bootstrap's GSHMEM_JOB_SECRET rule).
type UniqueID [UniqueIDSize]byte

// uidMagic starts every UniqueID NewUniqueID makes: a zero id (NVSHMEM's
// initializer, never filled in) or foreign bytes are refused by name.
var uidMagic = []byte("gshmemU1")

// uidListeners keeps the socket each NewUniqueID opened, by address, for
// the Init that joins with it as rank 0: the port stays this process's
// from the moment the id exists.
var uidListeners = struct {
	sync.Mutex
	m map[string]net.Listener
}{m: map[string]net.Listener{}}

// NewUniqueID opens rank 0's rendezvous socket, on the host GSHMEM_TCP_ADDR
// names (default: the first non-loopback IPv4 address) and a free port, and
// returns the id that names it with a fresh secret. The process that
// calls it must join as rank 0.
func NewUniqueID() (UniqueID, error) {
	var id UniqueID
	o, err := optionsFromEnv(os.Getenv)
	if err != nil {
		return id, err
	}
	host, err := transport.ListenHost(o.TCPAddr)
	if err != nil {
		return id, fmt.Errorf("%w: unique id: %v", ErrInvalid, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return id, fmt.Errorf("shmem: unique id: listening on %s: %w", host, err)
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		_ = ln.Close()
		return id, fmt.Errorf("shmem: unique id: %w", err)
	}
	addr := ln.Addr().String()
	enc := append(append(append([]byte{}, uidMagic...), hex.EncodeToString(secret)...), addr...)
	if len(enc) >= UniqueIDSize {
		_ = ln.Close()
		return id, fmt.Errorf("shmem: unique id: address %s is too long for the id", addr)
	}
	copy(id[:], enc)
	uidListeners.Lock()
	uidListeners.m[addr] = ln
	uidListeners.Unlock()
	return id, nil
}

// decode gives the id's rendezvous address and secret.
func (id UniqueID) decode() (addr string, secret []byte, err error) {
	if !bytes.HasPrefix(id[:], uidMagic) {
		return "", nil, fmt.Errorf("%w: the unique id was not made by NewUniqueID (nvshmemx_get_uniqueid) on rank 0, or did not reach this process whole", ErrInvalid)
	}
	rest := id[len(uidMagic):]
	secret = rest[:32]
	rest = rest[32:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = rest[:i]
	}
	addr = string(rest)
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", nil, fmt.Errorf("%w: the unique id's address %q is not host:port", ErrInvalid, addr)
	}
	return addr, append([]byte{}, secret...), nil
}

// WithUniqueID makes Init join the job id names as rank rank of size,
// whatever launcher started the process: the env bootstrap, meeting at
// the id's address with the id's secret. Every process of the job passes
// the same id and size and a different rank; rank 0 is the process that
// made the id.
func WithUniqueID(id UniqueID, rank, size int) Option {
	return func(o *Options) { o.uid = &uidJoin{id: id, rank: rank, size: size} }
}

// uidJoin is WithUniqueID's request.
type uidJoin struct {
	id         UniqueID
	rank, size int
}

// config is the bootstrap's configuration for the join and the getenv it
// reads ranks through: only GSHMEM_RANK and GSHMEM_NPES, so that a
// launcher's own rank variables (mpirun's, Slurm's) do not override the
// ranks the application chose.
func (u *uidJoin) config(c bootstrap.Config, getenv func(string) string) (bootstrap.Config, func(string) string, error) {
	if u.size < 1 || u.rank < 0 || u.rank >= u.size {
		return c, nil, fmt.Errorf("%w: unique id: rank %d of %d: want 0 <= rank < size", ErrInvalid, u.rank, u.size)
	}
	addr, secret, err := u.id.decode()
	if err != nil {
		return c, nil, err
	}
	c.Name, c.Addr, c.Secret = bootstrap.NameEnv, addr, secret
	if u.rank == 0 {
		uidListeners.Lock()
		c.Listener = uidListeners.m[addr]
		delete(uidListeners.m, addr)
		uidListeners.Unlock()
		if c.Listener == nil {
			return c, nil, fmt.Errorf("%w: unique id: rank 0 must be the process that made the id (nvshmemx_get_uniqueid), and may join with it once", ErrInvalid)
		}
	}
	env := func(k string) string {
		switch k {
		case "GSHMEM_RANK":
			return strconv.Itoa(u.rank)
		case "GSHMEM_NPES":
			return strconv.Itoa(u.size)
		case "GSHMEM_BOOTSTRAP_ADDR", "GSHMEM_JOB_SECRET":
			return ""
		}
		for _, src := range bootstrap.RankVariables() {
			if k == src {
				return ""
			}
		}
		return getenv(k)
	}
	return c, env, nil
}
