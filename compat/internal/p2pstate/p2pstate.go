// Package p2pstate is the part of compat's mailbox engine that code outside
// Go may read and advance: the cursors of each pair of rings, the mapped
// addresses of the peers' rings, and the counts that say when the engine's
// queues are empty. compat keeps it in its symmetric heap (memory Go's
// collector neither moves nor frees), so compat/abi's C fast path can send
// an eager message into a mapped peer's ring and take one from its own
// rings without a call into Go, as long as the queues are empty; otherwise
// the Go engine does the work. compat/abi/state.h mirrors these structs
// (abi_p2p, abi_p2p_peer) and its TestStateLayout checks the two agree.
//
// Only one of the two touches the state at a time: compat changes it only
// while holding the engine's lock (Engine.Lock), and the C ABI either
// takes the same lock (MPI_THREAD_MULTIPLE) or runs only when no compat
// call runs (the lower thread levels, whose calls never overlap; compat
// makes no progress outside a call).
package p2pstate

import "unsafe"

// The message format of compat's rings (compat/engine.go describes it).
const (
	Cell       = 64 // bytes per ring cell
	HdrSize    = 32 // header: stamp, kind|len<<8, tag|ctx<<32, aux
	KindEager  = 1  // a message whose payload is its data
	CreditBase = 8  // control word CreditBase+p: cells of this PE's ring at p that p consumed

	CollBit    = 1 << 31 // set in the context of a communicator's collective messages
	TagBarrier = 1       // the tag of Barrier's messages, in the collective context
	// TagAllreduce is the tag of the C ABI's small Allreduce (recursive
	// doubling, compat/abi), in the collective context: no collective of
	// compat uses it.
	TagAllreduce = 16
)

// Engine is the head of the published state; one Peer per PE follows it.
type Engine struct {
	Posted     uint64  `c:"posted"`      // receives posted and not matched
	Unexpected uint64  `c:"unexpected"`  // arrived messages not matched
	Queued     uint64  `c:"queued"`      // messages waiting for ring space, all peers
	RingCells  uint64  `c:"ring_cells"`  // cells per ring, a power of two
	EagerLimit uint64  `c:"eager_limit"` // the largest eager payload
	RingMine   uintptr `c:"ring_mine"`   // this PE's inbound rings, PE p's at p*RingCells*Cell
	CtrlMine   uintptr `c:"ctrl_mine"`   // this PE's control words
	// Taken counts the messages code outside Go took from the rings while
	// holding Lock: a Go waiter idle outside the lock watches it, since
	// such a take moves the positions it polls (compat's Env.pending).
	Taken uint64 `c:"taken"`
	// Lock is the engine's one lock word (compat's engineMutex): 0 free,
	// 1 held, 2 held with sleepers (futex(2), private); taken by
	// compare-and-swap, released by a swap of 0 that wakes a sleeper when
	// it took a 2.
	Lock  uint32 `c:"lock"`
	Spare uint32 `c:"spare"`
	Me    int32  `c:"me"`
	N     int32  `c:"n"`
}

// Peer is this PE's state with one peer.
type Peer struct {
	Wpos     uint64  `c:"wpos"`      // cells written into this PE's ring at the peer
	Credit   uint64  `c:"credit"`    // cells of it the peer consumed, as last read
	Rpos     uint64  `c:"rpos"`      // cells read from the peer's ring here
	Returned uint64  `c:"returned"`  // Rpos as last returned to the peer
	Queued   uint64  `c:"queued"`    // messages waiting for room in the peer's ring
	RingOut  uintptr `c:"ring_out"`  // this PE's ring in the peer's heap, mapped, or 0
	CtrlPeer uintptr `c:"ctrl_peer"` // the peer's control words, mapped, or 0
	HeapPeer uintptr `c:"heap_peer"` // the peer's heap (its doorbell first), mapped, or 0
}

// Words is how many uint64 words the state of n PEs takes.
func Words(n int) int {
	return int((unsafe.Sizeof(Engine{}) + uintptr(n)*unsafe.Sizeof(Peer{}) + 7) / 8)
}

// At lays the state of n PEs over mem, which holds Words(n) words of
// memory outside Go's heap.
func At(mem []uint64, n int) (*Engine, []Peer) {
	e := (*Engine)(unsafe.Pointer(&mem[0]))
	peers := unsafe.Slice((*Peer)(unsafe.Add(unsafe.Pointer(e), unsafe.Sizeof(Engine{}))), n)
	return e, peers
}

// Of returns the engine state a *compat.Env publishes (nil when it
// publishes none), for the C library in compat/abi. compat sets it when
// it loads; it is a hook here rather than a method of Env so that the
// state's layout, which only compat and the C library share, stays out of
// compat's exported API.
var Of func(env any) *Engine
