// Package transport defines how bytes reach a peer's symmetric heap and
// holds the implementations. The core (package shmem) addresses remote memory
// only as (pe, offset) pairs through this interface, so the same RMA calls,
// atomics and collectives run over load/store shared memory, TCP, UCX or CUDA.
package transport

import "github.com/gshmem/gshmem/internal/atomicop"

// AtomicOp names a remote atomic operation.
type AtomicOp uint8

// The atomic operations every transport implements. Each returns the value
// the target word held before the operation (Store returns 0).
const (
	OpLoad AtomicOp = iota
	OpStore
	OpSwap
	OpCompareAndSwap
	OpAdd
	OpAnd
	OpOr
	OpXor
)

// The transport's ops are atomicop's, by number: transports hand them to
// its one switch.
var _ = [1]int{}[OpXor-AtomicOp(atomicop.Xor)+OpAdd-AtomicOp(atomicop.Add)+OpCompareAndSwap-AtomicOp(atomicop.CompareAndSwap)]

// OpRuntime is or-ed into an op that updates one of the runtime's own
// synchronization words (barriers, collectives). Such an atomic also wakes
// the target's runtime waiters; user atomics and puts wake only user
// waiters, so a PE asleep in a barrier is not woken by every atomic aimed at
// its heap.
const OpRuntime AtomicOp = 0x80

// Split returns the operation without the OpRuntime flag, and the flag.
func (op AtomicOp) Split() (AtomicOp, bool) { return op &^ OpRuntime, op&OpRuntime != 0 }

// Transport moves data between this PE and the heaps of its peers. Offsets
// are byte offsets into the target PE's heap and have been bounds-checked by
// the caller; pe is a valid world PE number (possibly this PE).
type Transport interface {
	// Mapped returns pe's whole heap when it is reachable by load/store from
	// this process, nil otherwise.
	Mapped(pe int) []byte
	// Put copies src into pe's heap and returns when src may be reused.
	// Remote completion is guaranteed only after Quiet.
	Put(pe int, off uint64, src []byte) error
	// PutNBI starts a put; src must not change until Quiet returns.
	PutNBI(pe int, off uint64, src []byte) error
	// Get copies from pe's heap into dst and returns when dst holds the data.
	Get(pe int, off uint64, dst []byte) error
	// GetNBI starts a get; dst is valid after Quiet.
	GetNBI(pe int, off uint64, dst []byte) error
	// Atomic performs op on the naturally aligned width-byte (4 or 8) word at
	// off in pe's heap, with sequentially consistent ordering, and returns
	// the previous value. compare is used by OpCompareAndSwap only.
	Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error)
	// Notify wakes whoever waits for a change in pe's heap. Every operation
	// above already notifies; Notify is for callers that wrote through
	// Mapped memory directly.
	Notify(pe int)
	// Fence orders every put, atomic and signal issued before it to a given
	// PE before those issued after it to the same PE.
	Fence() error
	// Quiet returns when every operation this PE issued is complete and
	// visible at its target.
	Quiet() error
	// Close releases the transport's mappings and connections.
	Close() error
}
