package compat

import "fmt"

// heapFits checks that compat's symmetric areas leave the program an
// eighth of the heap. Its error adds up (every part and the reserve) and
// names the variable that helps most: with many PEs the rings dominate and
// a smaller pool would not do.
func heapFits(c config, heap uint64, npes int) error {
	rings := uint64(npes) * uint64(c.ringBytes)
	need := rings + uint64(c.stagingBytes+c.poolBytes+c.scratchSize)
	if need <= heap-heap/8 {
		return nil
	}
	biggest, which := rings, fmt.Sprintf("GSHMEM_MPI_RING_SIZE (%d rings of %d bytes)", npes, c.ringBytes)
	for _, p := range []struct {
		n    int
		name string
	}{{c.poolBytes, "GSHMEM_MPI_POOL_SIZE"}, {c.stagingBytes, "GSHMEM_MPI_STAGING"}, {c.scratchSize, "GSHMEM_MPI_SCRATCH"}} {
		if uint64(p.n) > biggest {
			biggest, which = uint64(p.n), p.name
		}
	}
	least := minHeap(c, npes, need)
	return errorf(ClassNoMem, "compat needs %d bytes of the %d-byte symmetric heap: rings %d (%d PEs x %d), staging %d, pool %d, scratch %d, and keeps an eighth (%d) for the program: set GSHMEM_SYMMETRIC_SIZE to at least %d, or lower the largest part, %s",
		need, heap, rings, npes, c.ringBytes, c.stagingBytes, c.poolBytes, c.scratchSize, heap/8, least, which)
}

// minHeap is the smallest heap, in whole MiB, whose seven eighths hold
// compat's areas, counting the pool and scratch that grow with the heap
// when they are left at their defaults.
func minHeap(c config, npes int, need uint64) uint64 {
	fixed := need - uint64(c.poolBytes+c.scratchSize)
	for h := (need*8/7 + 1<<20) &^ (1<<20 - 1); ; h += 1 << 20 {
		pool, scratch := uint64(c.poolBytes), uint64(c.scratchSize)
		if c.poolDefault {
			pool = min(h/8, 256<<20) &^ (cell - 1)
		}
		if c.scratchDefault {
			scratch = min(max(h/32, 64<<10), 1<<20) &^ (cell - 1)
		}
		if fixed+pool+scratch <= h-h/8 {
			return h
		}
	}
}
