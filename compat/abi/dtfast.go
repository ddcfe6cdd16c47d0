package main

/*
#include "abi.h"

// dtype_at is a user datatype handle's C struct: the handle is its
// address in C memory (converted here, in C, where Go's rules for
// uintptr-to-pointer conversions do not apply).
static inline abi_dtype *dtype_at(uintptr_t h) { return (abi_dtype *)h; }
*/
import "C"

import "github.com/gshmem/gshmem/internal/mpitype"

// publishType fills the C struct of committed user datatype h with its
// layout (state.h: abi_dtype) and marks h live, so that p2p.c packs small
// messages of it into the ring itself instead of calling Go (which costs a
// C->Go call and the engine's general path: several times a contiguous
// message's latency). A layout the C packer does not take (overlapping
// bytes, a descending or empty one, more than ABI_DT_RUNS runs in a tile)
// is left unpublished and its messages keep the Go path.
func publishType(h uintptr, t *typeObj) {
	if t == nil || !t.committed || t.dt.Err() != nil {
		return
	}
	m := mpitype.MapOf(t.dt)
	if m.Elems() == 0 || m.Overlap() || m.Extent() <= 0 || m.Size() <= 0 {
		return
	}
	d := C.dtype_at(C.uintptr_t(h))
	var runs [][2]int
	reps, stride := m.Tile(func(off, n int) { runs = append(runs, [2]int{off, n}) })
	tile := 0
	for _, r := range runs {
		tile += r[1]
	}
	if len(runs) == 0 || len(runs) > C.ABI_DT_RUNS || reps <= 0 || reps > 1<<30 || stride < 0 ||
		(reps > 1 && stride < tile) || tile*reps != m.Size() {
		return
	}
	for i, r := range runs {
		d.run[i][0], d.run[i][1] = C.int64_t(r[0]), C.int64_t(r[1])
	}
	d.size, d.extent, d.tlb, d.rstride = C.int64_t(m.Size()), C.int64_t(m.Extent()), C.int64_t(m.TrueLB()), C.int64_t(stride)
	d.reps = C.int32_t(reps)
	d.nruns = C.int32_t(len(runs))
	table.mu.Lock()
	C.abi_live_add(C.uintptr_t(h)) // after the layout: C reads it once it finds h
	table.mu.Unlock()
}
