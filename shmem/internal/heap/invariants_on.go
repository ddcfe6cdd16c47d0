//go:build invariants

package heap

// invariants is set by the invariants build tag (go test -tags
// invariants): every Alloc and Free then checks the whole allocator, as
// pebble's invariant builds do, and a broken invariant panics at the call
// that broke it.
const invariants = true
