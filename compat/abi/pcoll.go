package main

/*
#include "abi.h"
*/
import "C"

// Persistent collectives (MPI-4: MPI_Allreduce_init, ...): the request
// keeps the arguments, and each MPI_Start runs the nonblocking
// collective's schedule (nbc.go) over them anew. Members start their
// persistent collectives in the same order, as MPI requires, so each
// start is one more collective on the private duplicate.

// persistentColl makes a persistent request whose start calls begin, the
// nonblocking form, and takes the schedule of the request it makes.
func persistentColl(comm, info C.uintptr_t, call string, req *C.uintptr_t, begin func(req *C.uintptr_t) C.int) C.int {
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	if _, ok := infoOf(info); !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	start := func() (*schedule, C.int) {
		var tmp C.uintptr_t
		if rc := begin(&tmp); rc != C.MPI_SUCCESS {
			return nil, rc
		}
		q, _ := reqOf(tmp)
		release(uintptr(tmp))
		return q.sched, C.MPI_SUCCESS
	}
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{owner: comm, kind: C.ABI_KIND_COMM, startSched: start})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Barrier_init
func abigo_Barrier_init(comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Barrier_init", req, func(r *C.uintptr_t) C.int { return abigo_Ibarrier(comm, r) })
}

//export abigo_Bcast_init
func abigo_Bcast_init(buf C.uintptr_t, count C.int, dtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Bcast_init", req, func(r *C.uintptr_t) C.int { return abigo_Ibcast(buf, count, dtype, root, comm, r) })
}

//export abigo_Reduce_init
func abigo_Reduce_init(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Reduce_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Ireduce(sbuf, rbuf, count, dtype, op, root, comm, r)
	})
}

//export abigo_Allreduce_init
func abigo_Allreduce_init(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Allreduce_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iallreduce(sbuf, rbuf, count, dtype, op, comm, r)
	})
}

//export abigo_Scan_init
func abigo_Scan_init(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Scan_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iscan(sbuf, rbuf, count, dtype, op, comm, r)
	})
}

//export abigo_Exscan_init
func abigo_Exscan_init(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Exscan_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iexscan(sbuf, rbuf, count, dtype, op, comm, r)
	})
}

//export abigo_Gather_init
func abigo_Gather_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Gather_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, r)
	})
}

//export abigo_Scatter_init
func abigo_Scatter_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Scatter_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, r)
	})
}

//export abigo_Allgather_init
func abigo_Allgather_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Allgather_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, r)
	})
}

//export abigo_Alltoall_init
func abigo_Alltoall_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Alltoall_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, r)
	})
}

//export abigo_Gatherv_init
func abigo_Gatherv_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Gatherv_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, r)
	})
}

//export abigo_Scatterv_init
func abigo_Scatterv_init(sbuf C.uintptr_t, scounts, displs *C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Scatterv_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, r)
	})
}

//export abigo_Allgatherv_init
func abigo_Allgatherv_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcounts, displs *C.int, rtype, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Allgatherv_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, r)
	})
}

//export abigo_Alltoallv_init
func abigo_Alltoallv_init(sbuf C.uintptr_t, scounts, sdispls *C.int, stype, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Alltoallv_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, r)
	})
}

//export abigo_Alltoallw_init
func abigo_Alltoallw_init(sbuf C.uintptr_t, scounts, sdispls *C.int, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtypes *C.uintptr_t, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Alltoallw_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, r)
	})
}

//export abigo_Reduce_scatter_block_init
func abigo_Reduce_scatter_block_init(sbuf, rbuf C.uintptr_t, rcount C.int, dtype, op, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Reduce_scatter_block_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Ireduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm, r)
	})
}

//export abigo_Reduce_scatter_init
func abigo_Reduce_scatter_init(sbuf, rbuf C.uintptr_t, rcounts *C.int, dtype, op, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentColl(comm, info, "MPI_Reduce_scatter_init", req, func(r *C.uintptr_t) C.int {
		return abigo_Ireduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm, r)
	})
}
