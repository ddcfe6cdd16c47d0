package main

/*
#include "abi.h"
*/
import "C"

import (
	"fmt"
	"os"

	"github.com/gshmem/gshmem/shmem"
)

// Teams and collectives of gshmem.h, over shmem's. A team handle is an
// index into shm.teams: 0, 1 and 2 are GSHMEM_TEAM_WORLD,
// GSHMEM_TEAM_SHARED and GSHMEMX_TEAM_NODE (the PEs sharing this node's
// memory, which is shmem's shared team), then the teams of
// gshmem_team_split_strided in order. A destroyed team's index is not
// reused, so a stale handle is reported rather than aliased.

// shmTeamOK is the team of handle h, or false.
func shmTeamOK(h uint64) (*shmem.Team, bool) {
	shm.mu.Lock()
	defer shm.mu.Unlock()
	if h >= uint64(len(shm.teams)) || shm.teams[h] == nil {
		return nil, false
	}
	return shm.teams[h], true
}

// shmTeam is the team of handle h, or the end of the job.
func shmTeam(call string, h uint64) *shmem.Team {
	t, ok := shmTeamOK(h)
	if !ok {
		if h == teamInvalid {
			shmFatal(call, "the team is GSHMEM_TEAM_INVALID")
		}
		shmFatal(call, "team %d is not a live team (destroyed, or never made)", h)
	}
	return t
}

// abiint_shmem_team_pe is gshmem_team_my_pe (what 0) and n_pes (what 1):
// -1 for GSHMEM_TEAM_INVALID, as OpenSHMEM says.
//
//export abiint_shmem_team_pe
func abiint_shmem_team_pe(call *C.char, team C.gshmem_team_t, what C.int) C.int {
	if uint64(team) == teamInvalid {
		return -1
	}
	t := shmTeam(C.GoString(call), uint64(team))
	if what == 0 {
		return C.int(t.MyPE())
	}
	return C.int(t.NPEs())
}

//export abiint_shmem_team_translate
func abiint_shmem_team_translate(src C.gshmem_team_t, pe C.int, dst C.gshmem_team_t) C.int {
	s, ok1 := shmTeamOK(uint64(src))
	d, ok2 := shmTeamOK(uint64(dst))
	if !ok1 || !ok2 {
		return -1
	}
	return C.int(shmem.TranslatePE(s, int(pe), d))
}

// abiint_shmem_team_split is gshmem_team_split_strided: 0 and the new
// team (GSHMEM_TEAM_INVALID on PEs outside it), or nonzero after a
// message, with GSHMEM_TEAM_INVALID, on every PE of the parent.
//
//export abiint_shmem_team_split
func abiint_shmem_team_split(parent C.gshmem_team_t, start, stride, size, contexts C.int, out *C.gshmem_team_t) C.int {
	const call = "gshmem_team_split_strided"
	*out = C.gshmem_team_t(teamInvalid)
	p := shmTeam(call, uint64(parent))
	t, err := p.SplitStrided(int(start), int(stride), int(size), shmem.TeamConfig{NumContexts: int(contexts)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "gshmem: %s: PE %d: %v\n", call, shmPE(), err)
		return 1
	}
	if t != nil {
		shm.mu.Lock()
		shm.teams = append(shm.teams, t)
		*out = C.gshmem_team_t(len(shm.teams) - 1)
		shm.mu.Unlock()
	}
	return 0
}

// abiint_shmem_team_split_2d is gshmem_team_split_2d: 0 and this PE's
// row (x) and column (y) teams, or nonzero after a message.
//
//export abiint_shmem_team_split_2d
func abiint_shmem_team_split_2d(parent C.gshmem_team_t, xrange, xc, yc C.int, x, y *C.gshmem_team_t) C.int {
	const call = "gshmem_team_split_2d"
	*x, *y = C.gshmem_team_t(teamInvalid), C.gshmem_team_t(teamInvalid)
	p := shmTeam(call, uint64(parent))
	xt, yt, err := p.Split2D(int(xrange), shmem.TeamConfig{NumContexts: int(xc)}, shmem.TeamConfig{NumContexts: int(yc)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "gshmem: %s: PE %d: %v\n", call, shmPE(), err)
		return 1
	}
	shm.mu.Lock()
	defer shm.mu.Unlock()
	shm.teams = append(shm.teams, xt, yt)
	*x, *y = C.gshmem_team_t(len(shm.teams)-2), C.gshmem_team_t(len(shm.teams)-1)
	return 0
}

//export abiint_shmem_team_contexts
func abiint_shmem_team_contexts(call *C.char, team C.gshmem_team_t) C.int {
	return C.int(shmTeam(C.GoString(call), uint64(team)).Config().NumContexts)
}

//export abiint_shmem_team_destroy
func abiint_shmem_team_destroy(team C.gshmem_team_t) {
	const call = "gshmem_team_destroy"
	if uint64(team) == teamInvalid {
		return
	}
	if uint64(team) <= teamNode {
		shmFatal(call, "a predefined team cannot be destroyed")
	}
	t := shmTeam(call, uint64(team))
	shmCheck(call, t.Destroy())
	shm.mu.Lock()
	shm.teams[uint64(team)] = nil
	shm.mu.Unlock()
}

// The collectives of shm_coll (shm.h).
const (
	collBroadcast = iota
	collFCollect
	collAlltoall
	collReduce
	collCollect
	collAlltoalls
	collReduceScatter
)

// collSpans returns the bytes a collective of n elements of sz bytes on a
// team of np touches at dest and at source (the strides are Alltoalls').
func collSpans(coll C.int, n, sz, np, dstStride, srcStride int) (dn, sn int) {
	dn, sn = n*sz, n*sz
	switch coll {
	case collFCollect:
		dn = n * sz * np
	case collAlltoall:
		dn, sn = n*sz*np, n*sz*np
	case collAlltoalls:
		dn, sn = ((n*np-1)*dstStride+1)*sz, ((n*np-1)*srcStride+1)*sz
	case collReduceScatter:
		sn = n * sz * np
	}
	return dn, sn
}

// abiint_shmem_coll runs one collective of team: nelems elements of size
// bytes (kind and op for reductions). It returns 0; errors end the job.
//
//export abiint_shmem_coll
func abiint_shmem_coll(call *C.char, coll C.int, team C.gshmem_team_t, dest, src C.uintptr_t, nelems, size C.size_t, kind, op, root C.int, dstStride, srcStride C.ptrdiff_t) C.int {
	c := C.GoString(call)
	t := shmTeam(c, uint64(team))
	if shmDevice() {
		// After the copies that filled the source on the legacy stream.
		shmCheck(c, shmWorld().DeviceAfterDefaultStream())
	}
	n, sz, np := int(nelems), int(size), t.NPEs()
	if n == 0 && coll != collCollect {
		shmCheck(c, t.Sync()) // no data: still a collective point
		return 0
	}
	dn, sn := collSpans(coll, n, sz, np, int(dstStride), int(srcStride))
	var d, s shmem.Sym[byte]
	if coll == collCollect || coll == collAlltoalls {
		// The objects from the addresses on, the same on every PE as
		// shmem wants them: a collect's total is the collective's to
		// know and its counts differ (a PE may add nothing), and
		// Alltoalls wants objects at least a stride long.
		if d = shmLocateRest(c, "dest", uintptr(dest)); coll == collAlltoalls && d.Len() < dn {
			shmFatal(c, "dest %#x (%d bytes) is not symmetric on this PE (inside no object of the heap, nor a global shmem_init made symmetric)", uintptr(dest), dn)
		}
		if s = shmLocateRest(c, "source", uintptr(src)); s.Len() < sn {
			shmFatal(c, "source %#x (%d bytes) is not symmetric on this PE (inside no object of the heap, nor a global shmem_init made symmetric)", uintptr(src), sn)
		}
	} else {
		d = shmLocate(c, "dest", uintptr(dest), dn)
		s = shmLocate(c, "source", uintptr(src), sn)
	}
	var err error
	switch coll {
	case collBroadcast:
		err = shmem.Broadcast(t, d, s, n*sz, int(root))
	case collFCollect:
		err = shmem.FCollect(t, d, s, n*sz)
	case collAlltoall:
		err = shmem.Alltoall(t, d, s, n*sz)
	case collCollect:
		err = shmem.Collect(t, d, s, n*sz)
	case collAlltoalls: // whole elements of the objects' rests
		d, s = d.Slice(0, d.Len()/sz*sz), s.Slice(0, s.Len()/sz*sz)
		err = alltoallsAs(t, sz, d, s, int(dstStride), int(srcStride), n)
	default:
		err = reduceAs(t, shmem.ReduceOp(op), int(kind), sz, d, s, n, coll == collReduceScatter, nil)
	}
	shmCheck(c, err)
	return 0
}

// reduceAs reduces (or reduce-scatters) n elements of the Go type of
// (kind, size): now, or, when stream is not nil, on that CUDA stream (a
// pointer, since stream 0 is CUDA's legacy default stream).
func reduceAs(t *shmem.Team, op shmem.ReduceOp, kind, size int, d, s shmem.Sym[byte], n int, scatter bool, stream *uintptr) error {
	switch {
	case kind == kindHalf:
		return reduceOn[shmem.Float16](t, op, d, s, n, scatter, stream)
	case kind == kindBF16:
		return reduceOn[shmem.BFloat16](t, op, d, s, n, scatter, stream)
	case kind == kindFloat && size == 4:
		return reduceOn[float32](t, op, d, s, n, scatter, stream)
	case kind == kindFloat:
		return reduceOn[float64](t, op, d, s, n, scatter, stream)
	case kind == kindSInt && size == 1:
		return reduceOn[int8](t, op, d, s, n, scatter, stream)
	case kind == kindSInt && size == 2:
		return reduceOn[int16](t, op, d, s, n, scatter, stream)
	case kind == kindSInt && size == 4:
		return reduceOn[int32](t, op, d, s, n, scatter, stream)
	case kind == kindSInt:
		return reduceOn[int64](t, op, d, s, n, scatter, stream)
	case size == 1:
		return reduceOn[uint8](t, op, d, s, n, scatter, stream)
	case size == 2:
		return reduceOn[uint16](t, op, d, s, n, scatter, stream)
	case size == 4:
		return reduceOn[uint32](t, op, d, s, n, scatter, stream)
	default:
		return reduceOn[uint64](t, op, d, s, n, scatter, stream)
	}
}

func reduceOn[T shmem.Reducible](t *shmem.Team, op shmem.ReduceOp, d, s shmem.Sym[byte], n int, scatter bool, stream *uintptr) error {
	dt, err := shmem.View[T](d)
	if err != nil {
		return err
	}
	st, err := shmem.View[T](s)
	if err != nil {
		return err
	}
	switch {
	case stream != nil && scatter:
		return shmem.ReduceScatterOnDeviceStream(*stream, t, op, dt, st, n)
	case stream != nil:
		return shmem.ReduceOnDeviceStream(*stream, t, op, dt, st, n)
	case scatter:
		return shmem.ReduceScatter(t, op, dt, st, n)
	}
	return shmem.Reduce(t, op, dt, st, n)
}

// alltoallsAs is shmem's Alltoalls on elements of size bytes.
func alltoallsAs(t *shmem.Team, size int, d, s shmem.Sym[byte], dst, sst, n int) error {
	switch size {
	case 1:
		return alltoallsOn[uint8](t, d, s, dst, sst, n)
	case 2:
		return alltoallsOn[uint16](t, d, s, dst, sst, n)
	case 4:
		return alltoallsOn[uint32](t, d, s, dst, sst, n)
	case 8:
		return alltoallsOn[uint64](t, d, s, dst, sst, n)
	default:
		return alltoallsOn[[2]uint64](t, d, s, dst, sst, n)
	}
}

func alltoallsOn[T any](t *shmem.Team, d, s shmem.Sym[byte], dst, sst, n int) error {
	dt, err := shmem.View[T](d)
	if err != nil {
		return err
	}
	st, err := shmem.View[T](s)
	if err != nil {
		return err
	}
	return shmem.Alltoalls(t, dt, st, dst, sst, n)
}
