// Package racesync tells the race detector about orderings that go
// through shared words it cannot see: goroutine PEs synchronize through
// atomics in the symmetric heap (mapped memory, outside Go's), so a
// barrier between two of them orders their accesses to Go memory (a
// window on a Go slice, a test's buffers) without the detector knowing.
//
// One process-wide token carries every such ordering: Release before a
// PE signals a peer (a barrier's arrival, a copy into a peer's memory),
// Acquire after it has seen a peer's signal. Release merges, so each
// goroutine's releases add to what later acquirers see and none erases
// another's. Outside race builds both are empty and cost nothing.
//
// The token over-approximates: it may hide a real race between PEs that
// synchronized through something else in between, never report one that
// the runtime's own synchronization rules out.
package racesync
