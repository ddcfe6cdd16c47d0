package transport

import "time"

// The optional capabilities of a Transport, as net/http's Flusher and
// Hijacker are of a ResponseWriter: a transport that offers one implements
// it, and the core asks for it by type assertion (w.tr.(transport.Accumulator))
// and falls back, or reports the operation unsupported, when it is absent.
// The assertions below keep each implementation's method set in step with
// its declaration.

// Locality is a transport that maps node-local peers on first use
// (Multi): it says which peers it reaches by load/store before it has
// mapped them, so that "is pe on this node" need not be asked through
// Mapped, which maps.
type Locality interface {
	// Local reports whether pe's heap is (or will be, on first use)
	// reached by load/store from this process.
	Local(pe int) bool
	// MappedPeers is how many peers' heaps are mapped so far.
	MappedPeers() int
}

// Streamer is a transport that opens independent streams of operations
// (shmem contexts): operations on one stream are completed by its own
// Quiet, without waiting for the others.
type Streamer interface {
	NewStream() Stream
}

// NonblockingAtomics is a transport whose fetching atomics may complete
// later: AtomicNBI starts op and writes the old value (width bytes) into
// dst by the next Quiet. Without it the core runs a blocking Atomic.
type NonblockingAtomics interface {
	AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error
}

// Accumulator is a transport that applies an accumulate (an element-wise
// reduction into pe's heap, windows' MPI_Accumulate) at the target.
// Without it, accumulates to peers it does not map are unsupported.
type Accumulator interface {
	Accumulate(pe int, a *Acc) error
}

// Liveness is a transport that watches its peers: every wait asks it, so
// that a lost peer ends the wait with an error instead of a hang.
type Liveness interface {
	// Lost wraps ErrPeerLost once any peer died, or finalized while this
	// PE still waits.
	Lost() error
	// PeerErr wraps ErrPeerLost at once when pe died or finalized.
	PeerErr(pe int) error
	// LostPEs returns the peers known lost, in increasing order.
	LostPEs() []int
	// Excuse makes Lost ignore the loss of pes (PeerErr still reports
	// it): this PE goes on without them.
	Excuse(pes []int)
	// Excused reports whether pe was excused (Excuse).
	Excused(pe int) bool
}

// RemoteSpinner is a transport whose remote waits poll before they sleep:
// the wait policy hands it the spin it chose for this PE.
type RemoteSpinner interface {
	SetRemoteSpin(time.Duration)
}

var (
	_ Locality           = (*Multi)(nil)
	_ Streamer           = (*Multi)(nil)
	_ NonblockingAtomics = (*Multi)(nil)
	_ NonblockingAtomics = (*Shm)(nil)
	_ NonblockingAtomics = (*TCP)(nil)
	_ Accumulator        = (*Multi)(nil)
	_ Accumulator        = (*TCP)(nil)
	_ Liveness           = (*Multi)(nil)
	_ RemoteSpinner      = (*Multi)(nil)
)
