package shmem

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gshmem/gshmem/internal/placement"
)

// Options configures a World. Every field has a GSHMEM_* environment
// variable; an Option passed to Init or Run wins over the environment.
type Options struct {
	// SymmetricSize is the size in bytes of every PE's symmetric heap
	// (GSHMEM_SYMMETRIC_SIZE, with k/m/g suffixes; default 1g). It is
	// address space: pages are touched only when used.
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
	// only when the node's PEs fill or outnumber those CPUs; "none" leaves
	// placement to the scheduler. A launcher's own pin (one CPU allowed) is
	// kept.
	Bind string
	// Device says where the heap lives (GSHMEM_HEAP, GSHMEM_DEVICE; device.go).
	Device DeviceOptions
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

// Setting describes one GSHMEM_* variable, for documentation and `gshmem info`.
type Setting struct {
	Name, Default, Help string
}

// Settings lists every variable the runtime reads.
var Settings = []Setting{
	{"GSHMEM_SYMMETRIC_SIZE", "1g", "bytes of symmetric heap per PE (4096, 512m, 512MiB, 1g, 1.5g, 1GiB); address space, touched on use"},
	{"GSHMEM_BOOTSTRAP", "auto", "bootstrap: local (gshmem run), pmi (PMI-1), pmi2 (PMI-2), env (launcher variables + GSHMEM_BOOTSTRAP_ADDR) or singleton; auto-detected when unset"},
	{"GSHMEM_BOOTSTRAP_ADDR", "", "env bootstrap: host:port on rank 0's node where it listens and the other ranks connect"},
	{"GSHMEM_NODE_ID", "", "node locality override (%r PE number, %h host): PEs with different ids never share memory"},
	{"GSHMEM_TCP_ADDR", "auto", "where a PE listens for PEs of other nodes: IP, IP:port or interface (default: first non-loopback IPv4)"},
	{"GSHMEM_REMOTE_TRANSPORT", "tcp", "transport to PEs of other nodes: tcp (built in) or ucx (UCX's UCP: InfiniBand, RoCE, ...; a build with -tags ucx; UCX_TLS, UCX_NET_DEVICES pick its fabric)"},
	{"GSHMEM_PEER_TIMEOUT", "5s", "a peer silent this long is lost: a remote one without a heartbeat on its connection, a node-local process stopped this long (SIGSTOP, a debugger; one only waiting for a CPU is never lost); also how long a wait goes on after a peer finalized (a collective the others did not call)"},
	{"GSHMEM_BOOTSTRAP_TIMEOUT", "60s", "bound on every setup wait (Go duration, or seconds)"},
	{"GSHMEM_DEBUG", "", "log level: warn, info, debug or trace (default: errors only)"},
	{"GSHMEM_DEBUG_FILE", "", "log file instead of stderr; %p pid, %r PE, %h host; mode 0600, symlinks refused"},
	{"GSHMEM_SPIN", "policy", "polls before any wait (shmem, compat, windows, streams, kernels) sleeps on its futex; default by the one wait policy: 65536 in a process PE with a CPU of its own, 4096 in a goroutine PE, 64 with yields when a node's PEs outnumber its CPUs"},
	{"GSHMEM_BIND", placement.DefaultMode, "auto: pin local rank r to the r-th CPU the process may use (round-robin), as mpirun --bind-to core; oversubscribed: the same, only when the node's PEs fill or outnumber those CPUs; none: let the scheduler place PEs"},
	{"GSHMEM_RANK", "", "set by gshmem run: this PE's number (with GSHMEM_NPES, also a rank source for the env bootstrap)"},
	{"GSHMEM_NPES", "", "set by gshmem run: the number of PEs"},
	{"GSHMEM_LOCAL_RANK", "", "set by gshmem run: this PE's number on its node"},
	{"GSHMEM_LOCAL_SIZE", "", "set by gshmem run: the number of PEs on the node"},
	{"GSHMEM_LOCAL_ADDR", "", "set by gshmem run: the launcher's abstract unix socket"},
	{"GSHMEM_JOB_ID", "", "set by gshmem run: the job's random id"},
	{"GSHMEM_JOB_SECRET", "", "the job's secret, keying tcp and env-rendezvous authentication (set by gshmem run; required by the env bootstrap, >= 16 characters; under PMI PE 0 draws one); never printed"},
}

const (
	defaultHeap    = 1 << 30
	defaultTimeout = 60 * time.Second
	// defaultPeerTimeout is GSHMEM_PEER_TIMEOUT's default.
	defaultPeerTimeout = 5 * time.Second
)

func optionsFromEnv(getenv func(string) string) (Options, error) {
	o := Options{SymmetricSize: defaultHeap, BootstrapTimeout: defaultTimeout}
	if v := getenv("GSHMEM_SYMMETRIC_SIZE"); v != "" {
		n, err := ParseSize(v)
		if err != nil {
			return o, fmt.Errorf("GSHMEM_SYMMETRIC_SIZE=%q: %w", v, err)
		}
		o.SymmetricSize = n
	}
	o.Bootstrap = getenv("GSHMEM_BOOTSTRAP")
	if v := getenv("GSHMEM_BOOTSTRAP_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			secs, err2 := strconv.ParseFloat(v, 64)
			if err2 != nil || secs <= 0 {
				return o, fmt.Errorf("%w: GSHMEM_BOOTSTRAP_TIMEOUT=%q: want a duration such as 30s", ErrInvalid, v)
			}
			d = time.Duration(secs * float64(time.Second))
		}
		o.BootstrapTimeout = d
	}
	o.BootstrapAddr = getenv("GSHMEM_BOOTSTRAP_ADDR")
	o.NodeID = getenv("GSHMEM_NODE_ID")
	o.TCPAddr = getenv("GSHMEM_TCP_ADDR")
	o.RemoteTransport = getenv("GSHMEM_REMOTE_TRANSPORT")
	if v := getenv("GSHMEM_PEER_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			secs, err2 := strconv.ParseFloat(v, 64)
			if err2 != nil || secs <= 0 {
				return o, fmt.Errorf("%w: GSHMEM_PEER_TIMEOUT=%q: want a duration such as 5s", ErrInvalid, v)
			}
			d = time.Duration(secs * float64(time.Second))
		}
		o.PeerTimeout = d
	}
	if err := deviceFromEnv(getenv, &o); err != nil {
		return o, err
	}
	o.Debug = getenv("GSHMEM_DEBUG")
	o.DebugFile = getenv("GSHMEM_DEBUG_FILE")
	if v := getenv("GSHMEM_SPIN"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return o, fmt.Errorf("%w: GSHMEM_SPIN=%q: want a count >= 0", ErrInvalid, v)
		}
		o.Spin = n
	}
	o.Bind = getenv("GSHMEM_BIND")
	return o, nil
}

func buildOptions(opts []Option) (Options, error) {
	o, err := optionsFromEnv(os.Getenv)
	if err != nil {
		return o, err
	}
	for _, f := range opts {
		f(&o)
	}
	if o.SymmetricSize < minHeap {
		return o, fmt.Errorf("%w: symmetric size %d is below the minimum %d", ErrInvalid, o.SymmetricSize, minHeap)
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
// fraction must come to a whole number of bytes. Errors say what is
// accepted; callers add the variable or flag they read.
func ParseSize(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	num := strings.TrimRight(t, "kmgtib")
	unit := t[len(num):]
	shift, ok := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
		"g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}[unit]
	whole, frac, hasFrac := strings.Cut(num, ".")
	if !ok || whole == "" || !allDigits(whole) || hasFrac && (frac == "" || !allDigits(frac)) {
		return 0, fmt.Errorf("%w: %q is not a size: want bytes, or a number with k, m, g or t (powers of 1024; 512m, 1.5g, 1GiB)", ErrInvalid, s)
	}
	n, err := strconv.ParseUint(whole, 10, 64)
	if err != nil || n > (^uint64(0))>>shift {
		return 0, fmt.Errorf("%w: size %q overflows", ErrInvalid, s)
	}
	n <<= shift
	if hasFrac {
		// frac/10^len(frac) of the unit, exactly: digits beyond 19 would
		// overflow and cannot make a whole byte count of a power of 1024.
		if len(frac) > 18 {
			return 0, fmt.Errorf("%w: size %q has too many decimals", ErrInvalid, s)
		}
		f, _ := strconv.ParseUint(frac, 10, 64)
		den := uint64(1)
		for range frac {
			den *= 10
		}
		hi, lo := bits.Mul64(f, uint64(1)<<shift)
		if hi != 0 {
			return 0, fmt.Errorf("%w: size %q overflows", ErrInvalid, s)
		}
		if lo%den != 0 {
			return 0, fmt.Errorf("%w: size %q is not a whole number of bytes", ErrInvalid, s)
		}
		add := lo / den
		if n+add < n {
			return 0, fmt.Errorf("%w: size %q overflows", ErrInvalid, s)
		}
		n += add
	}
	return n, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
