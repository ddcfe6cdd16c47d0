//go:build !invariants

package heap

// invariants is off in normal builds: Check costs a walk of every block.
const invariants = false
