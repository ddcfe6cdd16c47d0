package main

import (
	"fmt"
	"strings"
)

// The stream-ordered calls of gshmem.h (stage 3 in C): the hand-written
// declarations (streamHead, after gshmemHead) and the typed families
// (streamTyped, after typedFuncs' own), in NVSHMEM's shape:
// nvshmemx_X_on_stream is gshmemx_X_on_stream. Kept apart from the host
// API's blocks so that other additions to the generator merge cleanly.

// addFunc is typedFuncs' add.
type addFunc func(g string, proto, body string, a ...any)

// streamTyped adds the typed *_on_stream families.
func streamTyped(add addFunc) {
	const rma = "Stream-ordered remote memory access: TYPENAME_put_on_stream, get_on_stream (+ _nbi), put_signal_on_stream (+ _nbi)"
	for _, t := range rmaTypes {
		for _, nbi := range []string{"", "_nbi"} {
			for _, dir := range []string{"put", "get"} {
				f := "gshmemx_" + t.name + "_" + dir + nbi + "_on_stream"
				add(rma, fmt.Sprintf("void %s(%s *dest, const %s *source, size_t nelems, int pe, gshmemx_stream_t stream)", f, t.c, t.c),
					`shm_rma_stream("%s", dest, source, nelems, sizeof(%s), pe, %d, stream);`, f, t.c, cFlag(dir == "put"))
			}
			f := "gshmemx_" + t.name + "_put_signal" + nbi + "_on_stream"
			add(rma, fmt.Sprintf("void %s(%s *dest, const %s *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream)", f, t.c, t.c),
				`shm_put_signal_stream("%s", dest, source, nelems, sizeof(%s), sig_addr, signal, sig_op, pe, stream);`, f, t.c)
		}
	}
	const coll = "Stream-ordered collectives: TYPENAME_broadcast_on_stream, fcollect, alltoall, TYPENAME_OP_reduce_on_stream, reducescatter"
	for _, t := range rmaTypes {
		f := "gshmemx_" + t.name + "_broadcast_on_stream"
		add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nelems, int PE_root, gshmemx_stream_t stream)", f, t.c, t.c),
			`return shm_coll_stream("%s", ABI_COLL_BROADCAST, team, dest, source, nelems, sizeof(%s), %s, 0, PE_root, stream);`, f, t.c, t.kindOf())
		for _, k := range []string{"fcollect", "alltoall"} {
			f := "gshmemx_" + t.name + "_" + k + "_on_stream"
			add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nelems, gshmemx_stream_t stream)", f, t.c, t.c),
				`return shm_coll_stream("%s", ABI_COLL_%s, team, dest, source, nelems, sizeof(%s), %s, 0, 0, stream);`, f, strings.ToUpper(k), t.c, t.kindOf())
		}
	}
	reduce := func(ts []shmType, ops ...string) {
		for _, t := range ts {
			for _, op := range ops {
				for _, k := range []string{"reduce", "reducescatter"} {
					f := "gshmemx_" + t.name + "_" + op + "_" + k + "_on_stream"
					add(coll, fmt.Sprintf("int %s(gshmem_team_t team, %s *dest, const %s *source, size_t nreduce, gshmemx_stream_t stream)", f, t.c, t.c),
						`return shm_coll_stream("%s", ABI_COLL_%s, team, dest, source, nreduce, sizeof(%s), %s, ABI_RED_%s, 0, stream);`,
						f, strings.ToUpper(k), t.c, t.kindOf(), strings.ToUpper(op))
				}
			}
		}
	}
	reduce(bitTypes, "and", "or", "xor")
	reduce(arith2(rmaTypes), "max", "min", "sum", "prod")
}

// streamHead is the hand-written part of gshmem.h for the device heap and
// the stream-ordered calls.
const streamHead = `
/* The heap in device memory. In the CUDA build of libmpi_abi (-tags cuda)
 * gshmem_init alone puts the heap in GPU memory, as NVSHMEM does, unless
 * GSHMEM_HEAP=host; when MPI_Init started the job first, GSHMEM_HEAP
 * decides for both (host by default: set GSHMEM_HEAP=device). On a device
 * heap gshmem_malloc returns device memory, gshmem_ptr a peer's device
 * memory as mapped here (CUDA IPC; NULL where it is not), and the
 * host-initiated calls move device memory with the copy engine and
 * kernels: local buffers may be host or device memory. 1 when the heap is
 * device memory, else 0. */
int gshmemx_heap_on_device(void);

/* Stream-ordered calls (NVSHMEM's nvshmemx_*_on_stream): each enqueues its
 * work on a CUDA stream and returns without waiting. gshmemx_stream_t is a
 * cudaStream_t or CUstream (one handle): a pointer to CUDA's own
 * incomplete struct CUstream_st, declared here so that this header needs
 * no CUDA header and a cudaStream_t passes as it is. The stream must be
 * one of the heap's GPU context (its primary context, which the runtime
 * API uses); NULL is the legacy default stream. Local buffers (a put's
 * source, a get's dest) must be device memory, symmetric or not. The
 * calls need the heap in device memory: on a host heap (the host build),
 * as on any bad argument, they end the job with a message naming the call,
 * as every call of this header does. Every PE issues a team's on-stream
 * collectives and barriers in the same order. quiet_on_stream enqueues
 * nothing: a stream's puts and signals complete before its later work. */
struct CUstream_st;
typedef struct CUstream_st *gshmemx_stream_t;

void gshmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream);
void gshmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream);
void gshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream);
void gshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, gshmemx_stream_t stream);
void gshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream);
void gshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream);
void gshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, gshmemx_stream_t stream);
void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, gshmemx_stream_t stream);
void gshmemx_quiet_on_stream(gshmemx_stream_t stream);
void gshmemx_barrier_all_on_stream(gshmemx_stream_t stream);
void gshmemx_sync_all_on_stream(gshmemx_stream_t stream);
int gshmemx_barrier_on_stream(gshmem_team_t team, gshmemx_stream_t stream);
int gshmemx_team_sync_on_stream(gshmem_team_t team, gshmemx_stream_t stream);
int gshmemx_broadcastmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root, gshmemx_stream_t stream);
int gshmemx_fcollectmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems, gshmemx_stream_t stream);
int gshmemx_alltoallmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems, gshmemx_stream_t stream);
`
