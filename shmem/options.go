package shmem

import (
	"fmt"
	"os"
	"time"

	"github.com/gshmem/gshmem/internal/placement"
	"github.com/gshmem/gshmem/internal/settings"
)

// Options configures a World. Every field has a GSHMEM_* environment
// variable (its row in internal/settings' table gives its form, default
// and range); an Option passed to Init or Run wins over the environment.
type Options struct {
	// SymmetricSize is the size in bytes of every PE's symmetric heap
	// (GSHMEM_SYMMETRIC_SIZE, with k/m/g suffixes). It is address space,
	// an upper bound: pages are committed when touched and handed back
	// when freed (heapmem.go). 0 (unset) is the machine's memory for a
	// host heap, 1 GiB for a device heap.
	SymmetricSize uint64
	// Bootstrap names the bootstrap (GSHMEM_BOOTSTRAP): "local" (started by
	// gshmem run), "pmi" (PMI-1), "pmi2" (PMI-2), "env" (launcher rank
	// variables plus a rendezvous at BootstrapAddr), "singleton" (one PE),
	// or "" to detect it.
	Bootstrap string
	// BootstrapTimeout bounds every setup wait (GSHMEM_BOOTSTRAP_TIMEOUT,
	// a Go duration or seconds; default 60s).
	BootstrapTimeout time.Duration
	// Debug is the log level (GSHMEM_DEBUG: warn, info, debug or trace;
	// default: errors only).
	Debug string
	// DebugFile receives the log instead of stderr (GSHMEM_DEBUG_FILE; %p is
	// replaced by the process id, %r by the PE number, %h by the host name).
	DebugFile string
	// Spin is how many times a wait polls before it sleeps (GSHMEM_SPIN;
	// default: the wait policy's, ChooseWaitPolicy).
	Spin int
	// BootstrapAddr is host:port on rank 0's node where the env bootstrap
	// meets (GSHMEM_BOOTSTRAP_ADDR).
	BootstrapAddr string
	// NodeID overrides node locality (GSHMEM_NODE_ID; %r is replaced by the
	// PE number, %h by the host name): PEs with different ids never share
	// memory, PEs with the same id must be able to.
	NodeID string
	// TCPAddr is where a PE listens for PEs of other nodes (GSHMEM_TCP_ADDR:
	// an IP, IP:port or interface name; default: the first non-loopback
	// IPv4 address of an interface that is up).
	TCPAddr string
	// RemoteTransport reaches PEs of other nodes (GSHMEM_REMOTE_TRANSPORT):
	// "tcp" (the default, pure Go) or "ucx" (UCX's UCP API, for
	// InfiniBand, RoCE and other fabrics; needs a build with -tags ucx).
	RemoteTransport string
	// PeerTimeout is how long a silent peer (remote, or a node-local
	// process that is stopped) is given before it is declared lost,
	// and how long a wait may go on after a peer finalized
	// (GSHMEM_PEER_TIMEOUT; default 5s).
	PeerTimeout time.Duration
	// Bind places a process PE (GSHMEM_BIND): "auto" pins local rank r to
	// the r-th CPU it may run on (round-robin when PEs outnumber them), as
	// mpirun --bind-to core does; "oversubscribed" (the default) does so
	// only when the node's PEs outnumber those CPUs; "none" leaves
	// placement to the scheduler. A launcher's own pin (one CPU allowed) is
	// kept.
	Bind string
	// Device says where the heap lives (GSHMEM_HEAP, GSHMEM_DEVICE; device.go).
	Device DeviceOptions

	// sizeFrom names where SymmetricSize came from, for errors about it:
	// the variable and its value, or the Option.
	sizeFrom string
	// uid is WithUniqueID's job, which replaces the bootstrap.
	uid *uidJoin
}

// Option changes Options.
type Option func(*Options)

// WithSymmetricSize sets the heap size of every PE in bytes.
func WithSymmetricSize(n uint64) Option { return func(o *Options) { o.SymmetricSize = n } }

// WithBootstrapTimeout bounds every setup wait.
func WithBootstrapTimeout(d time.Duration) Option {
	return func(o *Options) { o.BootstrapTimeout = d }
}

// WithPeerTimeout sets how long a silent peer is given before it is lost,
// and how long a finalized peer may leave a wait unanswered (see
// Options.PeerTimeout).
func WithPeerTimeout(d time.Duration) Option { return func(o *Options) { o.PeerTimeout = d } }

// WithDebug sets the log level ("warn", "info", "debug", "trace").
func WithDebug(level string) Option { return func(o *Options) { o.Debug = level } }

// WithSpin sets how many polls a wait makes before it sleeps.
func WithSpin(n int) Option { return func(o *Options) { o.Spin = n } }

// WithBind sets the placement of a process PE: "auto", "oversubscribed"
// or "none" (see Options.Bind).
func WithBind(mode string) Option { return func(o *Options) { o.Bind = mode } }

const (
	defaultHeap    = 1 << 30
	defaultTimeout = 60 * time.Second
	// defaultPeerTimeout is GSHMEM_PEER_TIMEOUT's default.
	defaultPeerTimeout = 5 * time.Second
)

// optionsFromEnv reads the variables of Options through their rows of the
// one settings table, which parses and range-checks each and names it in
// the error.
func optionsFromEnv(getenv func(string) string) (Options, error) {
	o := Options{BootstrapTimeout: defaultTimeout}
	bad := func(err error) (Options, error) { return o, fmt.Errorf("%w: %w", ErrInvalid, err) }
	if n, ok, err := settings.Get("GSHMEM_SYMMETRIC_SIZE").Size(getenv); err != nil {
		return bad(err)
	} else if ok {
		o.SymmetricSize = n
		o.sizeFrom = fmt.Sprintf("GSHMEM_SYMMETRIC_SIZE=%s", getenv("GSHMEM_SYMMETRIC_SIZE"))
	}
	o.Bootstrap = getenv("GSHMEM_BOOTSTRAP")
	if d, ok, err := settings.Get("GSHMEM_BOOTSTRAP_TIMEOUT").Duration(getenv); err != nil {
		return bad(err)
	} else if ok {
		o.BootstrapTimeout = d
	}
	o.BootstrapAddr = getenv("GSHMEM_BOOTSTRAP_ADDR")
	o.NodeID = getenv("GSHMEM_NODE_ID")
	o.TCPAddr = getenv("GSHMEM_TCP_ADDR")
	o.RemoteTransport = getenv("GSHMEM_REMOTE_TRANSPORT")
	if d, ok, err := settings.Get("GSHMEM_PEER_TIMEOUT").Duration(getenv); err != nil {
		return bad(err)
	} else if ok {
		o.PeerTimeout = d
	}
	if err := deviceFromEnv(getenv, &o); err != nil {
		return o, err
	}
	o.Debug = getenv("GSHMEM_DEBUG")
	o.DebugFile = getenv("GSHMEM_DEBUG_FILE")
	if n, ok, err := settings.Get("GSHMEM_SPIN").Count(getenv); err != nil {
		return bad(err)
	} else if ok {
		o.Spin = n
	}
	bind, err := settings.Get("GSHMEM_BIND").Choice(getenv)
	if err != nil {
		return bad(err)
	}
	o.Bind = bind
	return o, nil
}

func buildOptions(opts []Option) (Options, error) {
	o, err := optionsFromEnv(os.Getenv)
	if err != nil {
		return o, err
	}
	envSize := o.SymmetricSize
	for _, f := range opts {
		f(&o)
	}
	if o.SymmetricSize != envSize || o.sizeFrom == "" {
		o.sizeFrom = fmt.Sprintf("WithSymmetricSize(%d)", o.SymmetricSize)
	}
	if o.SymmetricSize == 0 {
		// Unset: an upper bound as large as the machine's memory for a
		// host heap (address space, committed on use: heapmem.go), 1 GiB
		// of GPU memory for a device heap, which is allocated whole.
		o.SymmetricSize = hostHeapDefault()
		if o.Device.Heap == HeapDevice {
			o.SymmetricSize = defaultHeap
		}
		o.sizeFrom = "the default size"
	}
	if o.SymmetricSize < minHeap {
		return o, fmt.Errorf("%w: %s: symmetric size %d is below the minimum %d", ErrInvalid, o.sizeFrom, o.SymmetricSize, minHeap)
	}
	o.SymmetricSize = (o.SymmetricSize + pageSize - 1) &^ (pageSize - 1)
	if o.BootstrapTimeout <= 0 {
		o.BootstrapTimeout = defaultTimeout
	}
	if o.PeerTimeout <= 0 {
		o.PeerTimeout = defaultPeerTimeout
	}
	switch o.Bind {
	case "":
		o.Bind = placement.DefaultMode
	case "auto", "oversubscribed", "none":
	default:
		return o, fmt.Errorf("%w: GSHMEM_BIND=%q: want auto, oversubscribed or none", ErrInvalid, o.Bind)
	}
	if err := checkDeviceOptions(&o); err != nil {
		return o, err
	}
	return o, nil
}

// ParseSize parses a byte count: digits with an optional fraction and an
// optional k, m, g or t suffix, each a power of 1024 whatever its spelling
// (k, kb, kib; case-insensitive): 4096, 512m, 512MiB, 1g, 1.5g, 1GiB. A
// fraction must come to a whole number of bytes. Errors wrap ErrInvalid and
// say what is accepted; callers add the variable or flag they read.
func ParseSize(s string) (uint64, error) {
	n, err := settings.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return n, nil
}
